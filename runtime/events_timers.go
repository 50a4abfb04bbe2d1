package runtime

import (
	"fmt"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/bpmn/timer"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Timers: due dates from timer definitions, cycles, timer start events,
// and the handlers of every timer job.

// Job handlers of the timers (boundary timers: events_boundary.go).
const (
	handlerTimerStart        = "timer-start-event"
	handlerTimerCatch        = "timer-intermediate-transition"
	handlerTimerEventGateway = "timer-event-based-gateway"
	// handlerTimerEventSubprocess is the timer of an event subprocess's
	// start event, armed on its scope's execution.
	handlerTimerEventSubprocess = "timer-start-event-subprocess"
)

func init() {
	registerJobHandler(handlerTimerStart, jobHandler{detached: true, firstFailure: keepCycle,
		run: func(c *command, j *persistence.Job, _ *execution, _ *bpmn.Activity) error { return c.fireStartTimer(j) }})
	fire := jobHandler{run: func(c *command, _ *persistence.Job, x *execution, a *bpmn.Activity) error {
		return c.trigger(x, a.ID, nil)
	}}
	registerJobHandler(handlerTimerCatch, fire)
	registerJobHandler(handlerTimerEventGateway, fire)
	registerJobHandler(handlerTimerEventSubprocess, jobHandler{run: func(c *command, j *persistence.Job, x *execution, a *bpmn.Activity) error {
		if err := c.rescheduleCycle(j, x, a); err != nil {
			return err
		}
		return c.startEventSubprocess(x, a)
	}})
}

// keepCycle is the first-failure step of cycle timers: a cycle does not die
// with one failing run. The next run is scheduled as if this one had
// succeeded, and the failed job only retries its own run.
func keepCycle(c *command, j *persistence.Job, x *execution, a *bpmn.Activity) error {
	if err := c.rescheduleCycle(j, x, a); err != nil {
		return err
	}
	j.Repeat = ""
	return nil
}

// createTimerJob creates the timer job of the timer event a for x (x is nil
// for a timer start event); the due date comes from the timer definition,
// evaluated against x, and the engine clock.
func (c *command) createTimerJob(x *execution, a *bpmn.Activity, handler string) (*persistence.Job, error) {
	var def *Definition
	if x != nil {
		def = x.inst.def
	} else {
		def = c.startDef
	}
	due, repeat, err := c.timerDue(x, a, a.Timer, c.cc.Now())
	if err != nil {
		return nil, err
	}
	j, err := c.newJob(x, def, a, a.ID, persistence.JobTimer, handler, a.Exclusive, a.RetryTimeCycle)
	if err != nil {
		return nil, err
	}
	j.DueDate = &due
	j.Repeat = repeat
	j.HandlerConfig = a.ID
	c.insertJob(j)
	return j, nil
}

// timerDue computes the due date of timer td of activity a (its timer
// event's, or a timeout task listener's) from now, and for a cycle the
// cycle to store for its next runs.
func (c *command) timerDue(x *execution, a *bpmn.Activity, td *bpmn.TimerDefinition, now time.Time) (time.Time, string, error) {
	if td == nil {
		return time.Time{}, "", fmt.Errorf("%s has no timer definition", a)
	}
	value := td.Value
	if expression.IsExpression(value) {
		v, err := c.eval(x, value)
		if err != nil {
			return time.Time{}, "", failAt(a, "timer: %w", err)
		}
		switch t := v.(type) {
		case time.Time:
			if td.Type != bpmn.TimeDate {
				return time.Time{}, "", failAt(a, "timer expression %s gave a date, but the timer is a %s", value, strings.ToLower(td.Type.String()))
			}
			return t.UTC(), "", nil
		case string:
			value = t
		default:
			return time.Time{}, "", failAt(a, "timer expression %s gave %T, want a string or a date", td.Value, v)
		}
	}
	value = strings.TrimSpace(value)
	switch td.Type {
	case bpmn.TimeDate:
		// Camunda's due-date calendar reads a duration in a timeDate
		// (typically from an expression) as now + duration.
		t, err := timer.ParseDueDate(value, now, time.UTC)
		if err != nil {
			return time.Time{}, "", failAt(a, "%w", err)
		}
		return t.UTC(), "", nil
	case bpmn.TimeDuration:
		d, err := timer.ParseDuration(value)
		if err != nil {
			return time.Time{}, "", failAt(a, "%w", err)
		}
		return d.AddTo(now).UTC(), "", nil
	case bpmn.TimeCycle:
		cy, err := timer.ParseCycle(value)
		if err != nil {
			return time.Time{}, "", failAt(a, "%w", err)
		}
		first := cy.First(now)
		if first.IsZero() {
			return time.Time{}, "", failAt(a, "timer cycle %q never fires after %s", value, now.UTC().Format(time.RFC3339))
		}
		// Stored with its creation time, as Camunda stores it, the cycle
		// keeps later runs on this schedule.
		return first.UTC(), cy.Anchor(now).String(), nil
	}
	return time.Time{}, "", failAt(a, "unknown timer type")
}

// nextCycle returns the due date after a cycle timer's run at now, and
// whether one is left; the next job stores the same cycle (its fire times
// count from the start stored in it). Counting from now (as Camunda does)
// skips the runs missed while nothing executed.
func nextCycle(j *persistence.Job, now time.Time) (time.Time, bool, error) {
	cy, err := timer.ParseCycle(j.Repeat)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("job %s: stored cycle: %w", j.ID, err)
	}
	next, ok := cy.Next(now)
	return next.UTC(), ok, nil
}

// fireStartTimer starts an instance at a timer start event and schedules
// the cycle's next run.
func (c *command) fireStartTimer(j *persistence.Job) error {
	def, err := c.definition(j.ProcessDefinitionID)
	if err != nil {
		return err
	}
	start := def.Process.Activity(j.HandlerConfig)
	if start == nil {
		return fmt.Errorf("job %s: start event %q not found", j.ID, j.HandlerConfig)
	}
	c.startDef = def
	if err := c.rescheduleCycle(j, nil, start); err != nil {
		return err
	}
	_, err = c.startInstance(def, "", "", nil, start)
	return err
}

// rescheduleCycle creates the next job of a cycle timer that just fired,
// while repetitions remain. Interrupting boundary and event subprocess
// timers fire once.
func (c *command) rescheduleCycle(j *persistence.Job, x *execution, a *bpmn.Activity) error {
	if j.Repeat == "" || (a.Kind == bpmn.BoundaryEvent || a.IsEventSubprocessStart()) && a.CancelActivity {
		return nil
	}
	next, ok, err := nextCycle(j, c.cc.Now())
	if err != nil || !ok {
		return err
	}
	var def *Definition
	if x != nil {
		def = x.inst.def
	} else {
		def = c.startDef
	}
	nj, err := c.newJob(x, def, a, a.ID, persistence.JobTimer, j.HandlerType, j.Exclusive, a.RetryTimeCycle)
	if err != nil {
		return err
	}
	nj.DueDate = &next
	nj.Repeat = j.Repeat
	nj.HandlerConfig = j.HandlerConfig
	c.insertJob(nj)
	return nil
}
