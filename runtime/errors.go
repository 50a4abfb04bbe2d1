package runtime

import (
	"errors"
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
)

// ActivityError is a failure at a BPMN element other than a delegate's own
// error (that is a DelegateError): an expression that cannot be evaluated,
// a delegate that is not registered, a gateway with no flow to take.
// Element names the element in messages ("serviceTask 'charge'"),
// ActivityID is its id ("" for a sequence flow or the process), and Err is
// the failure itself, as a failed job's record and its incident show it.
type ActivityError struct {
	ActivityID string
	Element    string
	Err        error
}

func (e *ActivityError) Error() string { return e.Element + ": " + e.Err.Error() }

func (e *ActivityError) Unwrap() error { return e.Err }

// failAt builds the ActivityError of what (an activity, a listener, a
// sequence flow) from a format and its arguments, as fmt.Errorf does.
func failAt(what fmt.Stringer, format string, args ...any) error {
	return &ActivityError{ActivityID: activityIDOf(what), Element: what.String(), Err: fmt.Errorf(format, args...)}
}

// activityIDOf returns the id of the activity what is or belongs to.
func activityIDOf(what fmt.Stringer) string {
	switch w := what.(type) {
	case *bpmn.Activity:
		return w.ID
	case listenerOf:
		return activityIDOf(w.owner)
	}
	return ""
}

// failureOf splits a job's failure into what its record shows: the
// failure's own message (the element is in a field of its own, as in
// Camunda) and the activity where it happened; current is the activity the
// command was in, for failures that do not name one.
func failureOf(err error, current string) (message, activityID string) {
	var de *DelegateError
	if errors.As(err, &de) {
		return de.Err.Error(), orElse(de.ActivityID, current)
	}
	var ae *ActivityError
	if errors.As(err, &ae) {
		return ae.Err.Error(), orElse(ae.ActivityID, current)
	}
	return err.Error(), current
}

func orElse(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
