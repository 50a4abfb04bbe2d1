package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// timeoutProcess is Camunda's TaskListenerTest model: a user task with
// the timeout listeners given, and optional boundary events.
func timeoutProcess(key, listeners, boundary string) string {
	return enginetest.Process(key, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task"><extensionElements>`+listeners+`</extensionElements></userTask>
    <sequenceFlow id="f2" sourceRef="task" targetRef="end" />
    <endEvent id="end" />`+boundary)
}

func timeoutListener(id, timer string) string {
	return `<camunda:taskListener event="timeout" id="` + id + `" class="timeout"><timerEventDefinition>` + timer + `</timerEventDefinition></camunda:taskListener>`
}

// registerTimeout registers the listener Camunda's TimeoutTaskListener
// is: it records its calls in timeout-status ("fired", then "fired2")
// and sees the task and the event.
func registerTimeout(e *harness.Env, seen *[]string) {
	e.Eng.RegisterDelegate("timeout", bpmnlite.DelegateFunc(func(_ context.Context, x *bpmnlite.Execution) error {
		*seen = append(*seen, x.EventName()+":"+x.ActivityID()+":"+x.TaskID())
		status := "fired"
		if v, ok, _ := x.Variable("timeout-status"); ok {
			status = v.(string) + "2"
		}
		return x.SetVariable("timeout-status", status)
	}))
}

// runDue runs the jobs due at the engine's clock.
func runDue(t *testing.T, e *env) int {
	t.Helper()
	n, err := e.Eng.ExecuteDueJobs(e.Ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// As TaskListenerTest's timeout cases: the listener runs when its timer
// fires (duration, date, cycle), the task stays open; several listeners
// have a job each; completing the task, or a boundary event interrupting
// it, removes the jobs without calling the listener.
func TestTimeoutTaskListeners(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var seen []string
		registerTimeout(e.Env, &seen)
		e.Deploy("duration", timeoutProcess("duration", timeoutListener("friendly", `<timeDuration>PT1H</timeDuration>`), ""))
		pi := e.Start("duration", nil)
		jobs := e.Jobs(pi)
		if len(jobs) != 1 || jobs[0].ActivityID != "task" || jobs[0].HandlerType != "timer-task-listener" || jobs[0].HandlerConfig != "task$taskListener~friendly" {
			t.Fatalf("jobs %+v, want the listener's timer", jobs)
		}
		if n := runDue(t, e); n != 0 {
			t.Fatalf("%d jobs ran before due (due %v, now %v); status %v", n, jobs[0].DueDate, e.Clock.Now(), e.Var(pi, "timeout-status"))
		}
		e.Clock.Add(70 * time.Minute)
		runDue(t, e)
		task := e.Tasks(pi)
		if len(task) != 1 || e.Var(pi, "timeout-status") != "fired" {
			t.Fatalf("tasks %d, timeout-status %v: want the task open and the listener called", len(task), e.Var(pi, "timeout-status"))
		}
		if want := "timeout:task:" + task[0].ID; len(seen) != 1 || seen[0] != want {
			t.Fatalf("listener saw %v, want %s", seen, want)
		}
		if jobs := e.Jobs(pi); len(jobs) != 0 {
			t.Fatalf("jobs left after a duration fired: %+v", jobs)
		}

		// Completed first: the listener never runs, its job goes.
		done := e.Start("duration", nil)
		e.Complete(done, "task", nil)
		if jobs := e.Jobs(done); len(jobs) != 0 || e.Var(done, "timeout-status") != nil {
			t.Fatalf("after completion: jobs %+v, status %v", jobs, e.Var(done, "timeout-status"))
		}

		// A date.
		e.Deploy("date", timeoutProcess("date", timeoutListener("d", `<timeDate>`+e.Clock.Now().Add(2*time.Hour).UTC().Format(time.RFC3339)+`</timeDate>`), ""))
		dated := e.Start("date", nil)
		e.Clock.Add(3 * time.Hour)
		runDue(t, e)
		if got := e.Var(dated, "timeout-status"); got != "fired" {
			t.Fatalf("date: timeout-status %v", got)
		}

		// A cycle fires again while the task is open.
		e.Deploy("cycle", timeoutProcess("cycle", timeoutListener("c", `<timeCycle>R/PT1H</timeCycle>`), ""))
		cycled := e.Start("cycle", nil)
		e.Clock.Add(70 * time.Minute)
		runDue(t, e)
		e.Clock.Add(70 * time.Minute)
		runDue(t, e)
		if got := e.Var(cycled, "timeout-status"); got != "fired2" {
			t.Fatalf("cycle: timeout-status %v, want fired2", got)
		}
		if jobs := e.Jobs(cycled); len(jobs) != 1 {
			t.Fatalf("cycle: %d jobs, want the next run's", len(jobs))
		}
		e.Complete(cycled, "task", nil)
		if jobs := e.Jobs(cycled); len(jobs) != 0 {
			t.Fatalf("the cycle outlived its task: %+v", jobs)
		}

		// Two listeners, two jobs; one fires.
		e.Deploy("two", timeoutProcess("two", timeoutListener("friendly", `<timeDuration>PT1H</timeDuration>`)+timeoutListener("hard", `<timeDuration>PT2H</timeDuration>`), ""))
		two := e.Start("two", nil)
		if jobs := e.Jobs(two); len(jobs) != 2 {
			t.Fatalf("%d jobs, want one per listener", len(jobs))
		}
		e.Clock.Add(70 * time.Minute)
		runDue(t, e)
		if jobs := e.Jobs(two); len(jobs) != 1 || e.Var(two, "timeout-status") != "fired" {
			t.Fatalf("jobs %d, status %v: want the hard one left and fired", len(jobs), e.Var(two, "timeout-status"))
		}
		e.Complete(two, "task", nil)

		// A boundary timer ends the task first: the listener does not run.
		e.Deploy("boundary", timeoutProcess("boundary", timeoutListener("friendly", `<timeDuration>PT2H</timeDuration>`), `
    <boundaryEvent id="timer" attachedToRef="task"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
    <sequenceFlow id="f3" sourceRef="timer" targetRef="timedOut" />
    <endEvent id="timedOut" />`))
		seen = nil
		bounded := e.Start("boundary", nil)
		if jobs := e.Jobs(bounded); len(jobs) != 2 {
			t.Fatalf("%d jobs, want the boundary's and the listener's", len(jobs))
		}
		e.Clock.Add(70 * time.Minute)
		runDue(t, e)
		if !e.Ended(bounded) || len(seen) != 0 || len(e.Jobs(bounded)) != 0 {
			t.Fatalf("ended %v, listener calls %v, jobs %d", e.Ended(bounded), seen, len(e.Jobs(bounded)))
		}
	})
}

// The listener's timer may be an expression; recalculating its due date
// reads the listener's timer again (TaskListenerTest's recalculate cases).
func TestTimeoutTaskListenerRecalculate(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var seen []string
		registerTimeout(e.Env, &seen)
		e.Deploy("recalc", timeoutProcess("recalc", timeoutListener("l", `<timeDuration>${duration}</timeDuration>`), ""))
		pi := e.Start("recalc", map[string]any{"duration": "PT1H"})
		j := e.OneJob(pi)
		if err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"duration": "PT15M"}); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.RecalculateJobDueDate(e.Ctx, j.ID, true); err != nil {
			t.Fatal(err)
		}
		if got := e.OneJob(pi); got.ID != j.ID || !got.DueDate.Equal(j.CreateTime.Add(15*time.Minute)) {
			t.Fatalf("due %v, want creation + 15 minutes (%v)", got.DueDate, j.CreateTime.Add(15*time.Minute))
		}
	})
}

// Camunda's parse errors for timeout listeners, at the listener.
func TestTimeoutTaskListenerDeploymentErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, c := range []struct{ listeners, want string }{
			{`<camunda:taskListener event="timeout" class="timeout"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></camunda:taskListener>`,
				"Element 'id' is mandatory on taskListener of type 'timeout'"},
			{`<camunda:taskListener event="timeout" id="l" class="timeout"/>`, "Element 'timerEventDefinition' is mandatory on taskListener of type 'timeout'"},
			{timeoutListener("l", `<timeDuration>soon</timeDuration>`), "invalid timeDuration 'soon'"},
			{timeoutListener("l", `<timeDuration>PT1H</timeDuration>`) + timeoutListener("l", `<timeDuration>PT2H</timeDuration>`), "two timeout task listeners have the id 'l'"},
			{`<camunda:taskListener event="later" class="timeout"/>`, "taskListener event must be create, assignment, update, complete, delete or timeout, not 'later'"},
		} {
			_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(timeoutProcess("bad", c.listeners, ""))}}})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "userTask 'task'") {
				t.Errorf("deploying %s: %v, want %q", c.listeners, err, c.want)
			}
		}
	})
}
