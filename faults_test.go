package bpmnlite_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// runaway is a process whose gateway's default flow leads back to a manual
// task: no wait state on the loop, and the way out is never taken.
func runaway(id, startAttrs string) string {
	return enginetest.Process(id, `
    <startEvent id="start" `+startAttrs+`/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="again" />
    <manualTask id="again" />
    <sequenceFlow id="f2" sourceRef="again" targetRef="more" />
    <exclusiveGateway id="more" default="back" />
    <sequenceFlow id="back" sourceRef="more" targetRef="again" />
    <sequenceFlow id="out" sourceRef="more" targetRef="end"><conditionExpression>${false}</conditionExpression></sequenceFlow>
    <endEvent id="end" />`)
}

// within runs fn and fails the test if it has not returned after d: the
// defect was a call that never returned.
func within[T any](t *testing.T, d time.Duration, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("the call had not returned after %v", d)
	}
	panic("unreachable")
}

func (e *env) nothingStored(key string) {
	e.t.Helper()
	if is := e.accInstances(key); len(is) != 0 {
		e.t.Fatalf("%d instances of %s stored, want none", len(is), key)
	}
	if xs, err := e.eng.Executions(e.ctx, bpmnlite.ExecutionQuery{}); err != nil || len(xs) != 0 {
		e.t.Fatalf("%d executions stored (%v), want none", len(xs), err)
	}
}

// A loop without a wait state ends at the operation limit (the default one)
// with an error naming its activities, and stores nothing; deployment
// warned about it.
func TestRunawayLoopStopsAtTheOperationLimit(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := e.deploy("runaway", runaway("runaway", ""))
		if !slices.ContainsFunc(d.Warnings, func(p bpmnlite.Problem) bool {
			return p.ElementID == "again" && strings.Contains(p.Message, "'again', 'more'")
		}) {
			t.Errorf("deployment warnings %v, want one about the loop of 'again' and 'more'", d.Warnings)
		}
		err := within(t, time.Minute, func() error {
			_, err := e.eng.Start(e.ctx, bpmnlite.StartRequest{Key: "runaway"})
			return err
		})
		var le *bpmnlite.LoopError
		if !errors.Is(err, bpmnlite.ErrOperationLimit) || !errors.As(err, &le) {
			t.Fatalf("start: %v, want a *LoopError", err)
		}
		if !slices.Equal(le.Activities, []string{"again", "more"}) && !slices.Equal(le.Activities, []string{"more", "again"}) {
			t.Errorf("repeating activities %v, want again and more", le.Activities)
		}
		if !strings.Contains(err.Error(), "'again'") || !strings.Contains(err.Error(), "'more'") {
			t.Errorf("message %q does not name the loop's activities", err)
		}
		e.nothingStored("runaway")
	})
}

// Without a bound, the loop still ends with the caller's context.
func TestRunawayLoopEndsWithTheContext(t *testing.T) {
	eachBackend(t, bpmnlite.Config{MaxOperations: -1}, func(t *testing.T, e *env) {
		e.deploy("runaway", runaway("runaway", ""))
		ctx, cancel := context.WithTimeout(e.ctx, 300*time.Millisecond)
		defer cancel()
		err := within(t, time.Minute, func() error {
			_, err := e.eng.Start(ctx, bpmnlite.StartRequest{Key: "runaway"})
			return err
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("start: %v, want the context's deadline", err)
		}
		e.nothingStored("runaway")
	})
}

// In a job the loop is a failure like any other: a retry spent with the
// loop's message, then an incident.
func TestRunawayLoopInAJobFails(t *testing.T) {
	eachBackend(t, bpmnlite.Config{MaxOperations: 2000}, func(t *testing.T, e *env) {
		e.deploy("runaway", runaway("runaway", `camunda:asyncBefore="true"`))
		pi := e.start("runaway", nil)
		j := e.accOneJob(pi)
		for attempt := 1; attempt <= 3; attempt++ {
			err := within(t, time.Minute, func() error { return e.eng.ExecuteJob(e.ctx, j.ID) })
			if !errors.Is(err, bpmnlite.ErrOperationLimit) {
				t.Fatalf("attempt %d: %v, want ErrOperationLimit", attempt, err)
			}
			job := e.jeJob(j.ID)
			if job.Retries != 3-attempt || !strings.Contains(job.ExceptionMessage, "'again'") {
				t.Fatalf("after attempt %d: retries %d, message %q", attempt, job.Retries, job.ExceptionMessage)
			}
		}
		in, err := e.eng.Incidents(e.ctx, bpmnlite.IncidentQuery{ProcessInstanceID: pi})
		if err != nil || len(in) != 1 || in[0].Configuration != j.ID {
			t.Fatalf("incidents %v (%v), want the job's", in, err)
		}
		if xs := e.executions(pi, "start"); len(xs) != 1 {
			t.Fatalf("%d executions at 'start', want the job's one, rolled back to its wait", len(xs))
		}
	})
}
