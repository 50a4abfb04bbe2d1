package runtime

import (
	"fmt"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Timeout task listeners (camunda:taskListener event="timeout" with a
// timer), as Camunda runs them: when the user task starts, each gets a
// timer job on the task's execution; when it fires, the listener is
// called with the task while the task stays open (a cycle fires again);
// the jobs go with the task (completed, cancelled, interrupted).

// handlerTimeoutListener is Camunda's job type of a timeout listener's
// timer; its configuration names the task and the listener:
// "<task id>$taskListener~<listener id>".
const (
	handlerTimeoutListener = "timer-task-listener"
	kindTimeoutListener    = "timeout-listener"
	timeoutConfigSep       = "$taskListener~"
)

func init() {
	registerJobHandler(handlerTimeoutListener, jobHandler{kind: kindTimeoutListener,
		run: func(c *command, j *persistence.Job, x *execution, a *bpmn.Activity) error {
			if err := c.rescheduleCycle(j, x, a); err != nil {
				return err
			}
			return c.fireTimeoutListener(j, x, a)
		},
		firstFailure: keepLiveCycle,
	})
}

// hasTimeoutListeners reports whether user task a has timeout listeners.
func hasTimeoutListeners(a *bpmn.Activity) bool {
	if a.User == nil {
		return false
	}
	for _, l := range a.User.TaskListeners {
		if l.Timer != nil {
			return true
		}
	}
	return false
}

// armTimeoutListeners creates the timer jobs of user task a's timeout
// listeners on x, the execution the task waits on.
func (c *command) armTimeoutListeners(x *execution, a *bpmn.Activity) error {
	for _, l := range a.User.TaskListeners {
		if l.Timer == nil {
			continue
		}
		due, repeat, err := c.timerDue(x, a, l.Timer, c.cc.Now())
		if err != nil {
			return fmt.Errorf("timeout task listener '%s': %w", l.ID, err)
		}
		j, err := c.newJob(x, x.inst.def, a, a.ID, persistence.JobTimer, handlerTimeoutListener, a.Exclusive, a.RetryTimeCycle)
		if err != nil {
			return err
		}
		j.DueDate, j.Repeat = &due, repeat
		j.HandlerConfig = a.ID + timeoutConfigSep + l.ID
		c.insertJob(j)
	}
	return nil
}

// jobTimer returns the activity and the timer a timer job's handler
// configuration names: a timer event's id, or a timeout task listener's
// "<task id>$taskListener~<listener id>".
func jobTimer(p *bpmn.Process, config string) (*bpmn.Activity, *bpmn.TimerDefinition) {
	id, listener, isListener := strings.Cut(config, timeoutConfigSep)
	a := p.Activity(id)
	switch {
	case a == nil:
		return nil, nil
	case !isListener:
		return a, a.Timer
	}
	if l := timeoutListener(a, listener); l != nil {
		return a, l.Timer
	}
	return a, nil
}

// timeoutListener returns user task a's timeout listener of this id.
func timeoutListener(a *bpmn.Activity, id string) *bpmn.Listener {
	if a.User == nil {
		return nil
	}
	for i, l := range a.User.TaskListeners {
		if l.Timer != nil && l.ID == id {
			return &a.User.TaskListeners[i]
		}
	}
	return nil
}

// fireTimeoutListener calls the timeout listener job j names with the
// task of user task a that x waits on, as Camunda's
// TimerTaskListenerJobHandler: no such task is an error.
func (c *command) fireTimeoutListener(j *persistence.Job, x *execution, a *bpmn.Activity) error {
	_, id, _ := strings.Cut(j.HandlerConfig, timeoutConfigSep)
	l := timeoutListener(a, id)
	if l == nil {
		return fmt.Errorf("job %s: %s has no timeout task listener '%s'", j.ID, a, id)
	}
	tasks, err := owned(c, x, persistence.TasksOfExecution(x.ID))
	if err != nil {
		return err
	}
	for _, t := range tasks {
		if t.TaskDefinitionKey == a.ID {
			c.listenedTask = t
			defer func() { c.listenedTask = nil }()
			return c.fireListeners(x, []bpmn.Listener{*l}, "timeout", a)
		}
	}
	return fmt.Errorf("Error while triggering timeout task listener '%s': cannot find task for activity id '%s'.", id, a.ID)
}
