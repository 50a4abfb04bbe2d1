package runtime

import (
	"errors"
	"fmt"
)

// TransientValue marks a variable's value transient, as Camunda's
// Variables.stringValue("x", true): the command that sets it sees it
// (conditions, delegates, listeners, mappings, expressions), but it is
// never stored, has no history, and is gone when the command ends, at the
// next wait state. Only a variable's whole value is transient: one nested
// inside a map, slice or struct cannot be stored.
type TransientValue struct{ Value any }

// Transient marks v as the value of a transient variable.
func Transient(v any) TransientValue { return TransientValue{Value: v} }

// errNestedTransient keeps a TransientValue inside another value from
// being stored as JSON.
var errNestedTransient = errors.New("a transient value cannot be stored inside another value; only a variable's whole value can be transient")

// MarshalJSON refuses: a TransientValue never reaches the database.
func (TransientValue) MarshalJSON() ([]byte, error) { return nil, errNestedTransient }

// unwrapTransient returns the value v carries and whether it is transient.
// Every variable write goes through it (setLocal).
func unwrapTransient(v any) (any, bool) {
	transient := false
	for {
		switch t := v.(type) {
		case TransientValue:
			v, transient = t.Value, true
		case *TransientValue:
			if t == nil {
				return nil, true
			}
			v, transient = t.Value, true
		default:
			return v, transient
		}
	}
}

// plainValue returns v without a Transient mark, for code that reads a
// value given by the caller (condition evaluation, correlation keys).
func plainValue(v any) any {
	v, _ = unwrapTransient(v)
	return v
}

// ErrTransientConflict: a variable was set transient where a stored one of
// the same name exists in that scope, or stored where a transient one
// exists (also when removed earlier in the same command), which Camunda
// refuses too.
var ErrTransientConflict = errors.New("transient and stored variable of the same name")

func transientConflict(x *execution, name string, transient bool) error {
	if transient {
		return fmt.Errorf("cannot set transient variable %q: the scope of %s has a stored variable of that name: %w", name, x, ErrTransientConflict)
	}
	return fmt.Errorf("cannot store variable %q: the scope of %s has a transient variable of that name in this command: %w", name, x, ErrTransientConflict)
}
