package acceptance_test

import (
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

const timersDir = "camunda/timers/"

// accRunDue runs the due jobs ("run due jobs") and returns how many succeeded.
func (e *env) accRunDue() int {
	e.T.Helper()
	n, err := e.Eng.ExecuteDueJobs(e.Ctx, 100)
	if err != nil {
		e.T.Fatalf("run due jobs: %v", err)
	}
	return n
}

// S30: a timer start event creates one job at deployment; when due it
// starts one instance and, not being a cycle, leaves no job.
func TestS30_TimerStart(t *testing.T) {
	cases := []struct {
		name, file string
		move       func(c *enginetest.Clock)
	}{
		{"duration", "StartTimerEventTest.testDurationStartTimerEvent.bpmn20.xml", func(c *enginetest.Clock) { c.Add(50*time.Minute + 5*time.Second) }},
		{"fixedDate", "StartTimerEventTest.testFixedDateStartTimerEvent.bpmn20.xml", func(c *enginetest.Clock) { c.Set(time.Date(2036, 11, 15, 11, 12, 30, 0, time.UTC)) }},
		{"expression", "StartTimerEventTest.testExpressionStartTimerEvent.bpmn20.xml", func(c *enginetest.Clock) { c.Set(time.Date(2036, 11, 15, 11, 12, 30, 0, time.UTC)) }},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := e.accWith(t)
				e.Clock.Set(enginetest.NewClock().Now())
				d := e.DeployFiles(timersDir + tc.file)
				def := d.Definitions[0].ID
				jobs := func() []*bpmnlite.Job {
					js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessDefinitionID: def})
					if err != nil {
						t.Fatal(err)
					}
					return js
				}
				if n := len(jobs()); n != 1 {
					t.Fatalf("%d jobs after deployment, want 1", n)
				}
				if n := e.accRunDue(); n != 0 {
					t.Fatalf("%d jobs ran before the timer was due", n)
				}
				tc.move(e.Clock)
				e.accRunDue()
				e.accRunDue()
				ps, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionID: def})
				if err != nil || len(ps) != 1 || ps[0].ProcessDefinitionKey != "startTimerEventExample" {
					t.Fatalf("%d instances (%v), want 1 of startTimerEventExample", len(ps), err)
				}
				if n := len(jobs()); n != 0 {
					t.Fatalf("%d jobs left, want 0", n)
				}
			})
		}
	})
}

// S30: an engine with a cold definition cache starting an instance by hand
// does not create a second start timer.
func TestS30_TimerNotRecreatedOnDeploymentCacheReboot(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "StartTimerEventTest.testTimerShouldNotBeRecreatedOnDeploymentCacheReboot.bpmn20.xml")
		if n := len(e.AllJobs()); n != 1 {
			t.Fatalf("%d jobs after deployment, want 1", n)
		}
		// A second engine on the same database has an empty definition cache.
		cold, err := bpmnlite.Open(e.Ctx, e.Cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer cold.Close()
		// The process has only the timer start event: start by hand at it.
		if _, err := cold.Start(e.Ctx, bpmnlite.StartRequest{Key: "startTimer", StartBefore: "theStart"}); err != nil {
			t.Fatal(err)
		}
		if n := len(e.AllJobs()); n != 1 {
			t.Fatalf("%d jobs after the start, want still 1", n)
		}
	})
}

// S32: of three interrupting timers on one task, the earliest fires and
// cancels the other two.
func TestS32_MultipleTimersOnUserTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "BoundaryTimerEventTest.testMultipleTimersOnUserTask.bpmn20.xml")
		pi := e.Start("multipleTimersOnUserTask", nil)
		if n := len(e.Jobs(pi)); n != 3 {
			t.Fatalf("%d jobs, want 3", n)
		}
		e.Clock.Add(time.Hour + 5*time.Second)
		if n := e.accRunDue(); n != 1 {
			t.Errorf("%d timers fired, want 1", n)
		}
		if n := len(e.Jobs(pi)); n != 0 {
			t.Fatalf("%d jobs left, want 0", n)
		}
		if got := e.accTaskNames(pi); got != "Third Task" {
			t.Fatalf("tasks %q, want Third Task", got)
		}
	})
}

// S32: a timer on an outer sub-process cancels the nested sub-process and
// its forked tasks.
func TestS32_TimerOnNestingOfSubprocesses(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "BoundaryTimerEventTest.testTimerOnNestingOfSubprocesses.bpmn20.xml")
		pi := e.Start("timerOnNestedSubprocesses", nil)
		if got := e.TaskKeys(pi); got != "innerTask1,innerTask2" {
			t.Fatalf("tasks %q, want the two inner tasks", got)
		}
		e.ExecJob(e.OneJob(pi).ID)
		if got := e.accTaskNames(pi); got != "task outside subprocess" {
			t.Fatalf("tasks %q, want task outside subprocess", got)
		}
		if xs := e.Executions(pi, ""); len(xs) != 1 || xs[0].ID != pi || xs[0].ActivityID != "taskAfterCatch" {
			t.Fatalf("executions %s, want the process instance alone, at taskAfterCatch", harness.ExecList(xs))
		}
	})
}

// S32: a duration from an expression.
func TestS32_ExpressionOnTimer(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "BoundaryTimerEventTest.testExpressionOnTimer.bpmn20.xml")
		pi := e.Start("testExpressionOnTimer", map[string]any{"duration": "PT1H"})
		j := e.OneJob(pi)
		if want := e.Clock.Now().Add(time.Hour); j.DueDate == nil || !j.DueDate.Equal(want) {
			t.Fatalf("due %v, want %v", j.DueDate, want)
		}
		e.Clock.Add(time.Hour + 5*time.Second)
		if n := e.accRunDue(); n != 1 {
			t.Fatalf("%d jobs ran, want 1", n)
		}
		if !e.Ended(pi) {
			t.Fatal("instance should have ended")
		}
	})
}

// S32: a process that finishes in its start transaction leaves no timer.
func TestS32_TimerInSingleTransactionProcess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "BoundaryTimerEventTest.testTimerInSingleTransactionProcess.bpmn20.xml")
		pi := e.Start("timerOnSubprocesses", nil)
		if len(e.AllJobs()) != 0 || !e.Ended(pi) {
			t.Fatal("want no job and an ended instance")
		}
	})
}

// S32: an interrupting cron timer whose flow loops back to the task: after
// it fires there is again one task and one timer.
func TestS32_RepeatingTimerWithCancelActivity(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "BoundaryTimerEventTest.testRepeatingTimerWithCancelActivity.bpmn20.xml")
		pi := e.Start("repeatingTimerAndCallActivity", nil)
		first := e.OneJob(pi)
		if n := len(e.Tasks(pi)); n != 1 {
			t.Fatalf("%d tasks, want 1", n)
		}
		e.ExecJob(first.ID)
		next := e.OneJob(pi)
		if next.ID == first.ID || len(e.Tasks(pi)) != 1 {
			t.Fatalf("after the timer: job %s (first %s), %d tasks; want a new job and 1 task", next.ID, first.ID, len(e.Tasks(pi)))
		}
	})
}

// S32: an interrupting PT5M timer moves the work to the escalation task.
func TestS32_InterruptingTimerDuration(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "BoundaryTimerEventTest.testInterruptingTimerDuration.bpmn20.xml")
		pi := e.Start("escalationExample", nil)
		if got := e.TaskKeys(pi); got != "firstLineSupport" {
			t.Fatalf("tasks %q", got)
		}
		e.OneJob(pi)
		e.Clock.Add(6 * time.Minute)
		if n := e.accRunDue(); n != 1 {
			t.Fatalf("%d jobs ran, want 1", n)
		}
		if got := e.TaskKeys(pi); got != "handleEscalation" {
			t.Fatalf("tasks %q, want handleEscalation", got)
		}
	})
}

// S34: a PT5M intermediate timer.
func TestS34_CatchingTimerEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "IntermediateTimerEventTest.testCatchingTimerEvent.bpmn20.xml")
		pi := e.Start("intermediateTimerEventExample", nil)
		e.OneJob(pi)
		e.Clock.Add(50*time.Minute + 5*time.Second)
		e.accRunDue()
		if len(e.Jobs(pi)) != 0 || !e.Ended(pi) {
			t.Fatal("want no job and an ended instance")
		}
	})
}

// S34: #{dueDate} given as a date and as an ISO string: both timers are
// due now.
func TestS34_Expression(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "IntermediateTimerEventTest.testExpression.bpmn20.xml")
		now := e.Clock.Now()
		pi1 := e.Start("intermediateTimerEventExample", map[string]any{"dueDate": now})
		pi2 := e.Start("intermediateTimerEventExample", map[string]any{"dueDate": now.Format("2006-01-02T15:04:05")})
		for _, pi := range []string{pi1, pi2} {
			if j := e.OneJob(pi); j.DueDate == nil || j.DueDate.After(now) {
				t.Fatalf("due %v, want at most %v", j.DueDate, now)
			}
		}
		if n := e.accRunDue(); n != 2 {
			t.Fatalf("%d executable jobs ran, want 2", n)
		}
		if !e.Ended(pi1) || !e.Ended(pi2) {
			t.Fatal("both instances should have ended")
		}
	})
}

// S34: an intermediate cron cycle passes once.
func TestS34_TimeCycle(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(timersDir + "IntermediateTimerEventTest.testTimeCycle.bpmn20.xml")
		pi := e.Start("process", nil)
		e.ExecJob(e.OneJob(pi).ID)
		if n := len(e.Jobs(pi)); n != 0 {
			t.Fatalf("%d jobs after the timer, want 0", n)
		}
		e.Complete(pi, "task", nil)
		if !e.Ended(pi) {
			t.Fatal("instance should have ended")
		}
	})
}

const miDir = "camunda/multi-instance/"

// accTimerJob returns pi's only timer job.
func (e *env) accTimerJob(pi string) *bpmnlite.Job {
	e.T.Helper()
	var timers []*bpmnlite.Job
	for _, j := range e.Jobs(pi) {
		if j.Type == "timer" {
			timers = append(timers, j)
		}
	}
	if len(timers) != 1 {
		e.T.Fatalf("%d timer jobs, want 1: %s", len(timers), harness.JobList(e.Jobs(pi)))
	}
	return timers[0]
}

// S36: a timer on a parallel multi-instance user task (cardinality ${5-2})
// cancels the remaining instances.
func TestS36_ParallelUserTasksWithTimer(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(miDir + "MultiInstanceTest.testParallelUserTasksWithTimer.bpmn20.xml")
		pi := e.Start("miParallelUserTasksWithTimer", nil)
		ts := e.Tasks(pi)
		if len(ts) != 3 {
			t.Fatalf("%d tasks, want 3", len(ts))
		}
		if err := e.Eng.CompleteTask(e.Ctx, ts[0].ID, nil); err != nil {
			t.Fatal(err)
		}
		e.ExecJob(e.accTimerJob(pi).ID)
		if got := e.TaskKeys(pi); got != "taskAfterTimer" {
			t.Fatalf("tasks %q, want taskAfterTimer", got)
		}
		e.Complete(pi, "taskAfterTimer", nil)
		if !e.Ended(pi) {
			t.Fatal("instance should have ended")
		}
	})
}

// S36: a sequential multi-instance sub-process of two tasks each; the timer
// on it ends the loop.
func TestS36_SequentialSubProcessWithTimer(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(miDir + "MultiInstanceTest.testSequentialSubProcessWithTimer.bpmn20.xml")
		pi := e.Start("miSequentialSubprocessWithTimer", nil)
		for range 2 {
			if got := e.TaskKeys(pi); got != "subProcessTask1,subProcessTask2" {
				t.Fatalf("tasks %q, want the two sub-process tasks", got)
			}
			e.Complete(pi, "subProcessTask1", nil)
			e.Complete(pi, "subProcessTask2", nil)
		}
		if got := e.TaskKeys(pi); got != "subProcessTask1,subProcessTask2" {
			t.Fatalf("third instance: tasks %q", got)
		}
		e.ExecJob(e.accTimerJob(pi).ID)
		if got := e.TaskKeys(pi); got != "taskAfterTimer" {
			t.Fatalf("tasks %q, want taskAfterTimer", got)
		}
	})
}

// S36: a timer on a parallel multi-instance call activity cancels the
// called instances.
func TestS36_ParallelCallActivityWithTimer(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(miDir+"MultiInstanceTest.testParallelCallActivityWithTimer.bpmn20.xml", miDir+"MultiInstanceTest.externalSubProcess.bpmn20.xml")
		pi := e.Start("miParallelCallActivity", nil)
		all, err := e.Eng.Tasks(e.Ctx, bpmnlite.TaskQuery{})
		if err != nil || len(all) != 6 {
			t.Fatalf("%d tasks (%v), want 6", len(all), err)
		}
		for _, task := range all[:2] {
			if err := e.Eng.CompleteTask(e.Ctx, task.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		e.ExecJob(e.accTimerJob(pi).ID)
		all, err = e.Eng.Tasks(e.Ctx, bpmnlite.TaskQuery{})
		if err != nil || len(all) != 1 || all[0].TaskDefinitionKey != "taskAfterTimer" {
			t.Fatalf("tasks %d (%v), want only taskAfterTimer", len(all), err)
		}
		for _, sub := range e.Instances("externalSubProcess") {
			if !e.Ended(sub.ID) {
				t.Errorf("called instance %s still running", sub.ID)
			}
		}
	})
}

// S36: the completion condition ends 5 parallel tasks after 3.
func TestS36_ParallelUserTasksCompletionCondition(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(miDir + "MultiInstanceTest.testParallelUserTasksCompletionCondition.bpmn20.xml")
		pi := e.Start("miParallelUserTasksCompletionCondition", nil)
		for _, want := range []int{5, 4, 3} {
			ts := e.Tasks(pi)
			if len(ts) != want {
				t.Fatalf("%d tasks, want %d", len(ts), want)
			}
			if err := e.Eng.CompleteTask(e.Ctx, ts[0].ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		if !e.Ended(pi) {
			t.Fatalf("instance should have ended; tasks left %q", e.TaskKeys(pi))
		}
	})
}

// S36: a sequential service multi-instance doubles result 5 times.
func TestS36_SequentialServiceTaskWithClass(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.RegisterCorpusDelegates()
		e.DeployFiles(miDir + "MultiInstanceTest.testSequentialServiceTaskWithClass.bpmn20.xml")
		pi := e.Start("multiInstanceServiceTask", map[string]any{"result": int64(5)})
		if got := e.Var(pi, "result"); got != int64(160) {
			t.Fatalf("result %v, want 160", got)
		}
		if n := len(e.Executions(pi, "wait")); n != 1 {
			t.Fatalf("%d executions at wait, want 1", n)
		}
	})
}
