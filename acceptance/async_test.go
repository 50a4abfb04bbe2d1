package acceptance_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// Helpers of the acceptance tests (prefixed acc to stay apart from other
// test files' helpers).

// accWith returns e for a subtest t: cases of one test share the engine of
// a backend (opening one per case costs more than the case).
func (e *env) accWith(t *testing.T) *env {
	return &env{e.For(t)}
}

// accWaitingAt asserts the activity-instance-tree equivalent of a single
// transition instance: pi has exactly one path, on the innermost execution
// of a chain without concurrency (the process instance, or the scope
// execution of the subprocess around activity), waiting at activity in its
// job, and exactly one job, at that activity.
func (e *env) accWaitingAt(pi, activity string) *bpmnlite.Job {
	e.T.Helper()
	all := e.Executions(pi, "")
	at := e.Executions(pi, activity)
	children := map[string]int{}
	for _, x := range all {
		if x.IsConcurrent {
			e.T.Fatalf("want no concurrency, got %s", harness.ExecList(all))
		}
		children[x.ParentID]++
	}
	if len(at) != 1 || at[0].IsActive || children[at[0].ID] != 0 || children[""] != 1 {
		e.T.Fatalf("want one chain of executions waiting at %s, got %s", activity, harness.ExecList(all))
	}
	for id := at[0].ParentID; id != ""; {
		if children[id] != 1 {
			e.T.Fatalf("want one chain of executions waiting at %s, got %s", activity, harness.ExecList(all))
		}
		p := e.execByID(all, id)
		id = p.ParentID
	}
	j := e.OneJob(pi)
	if j.ActivityID != activity || j.ExecutionID != at[0].ID {
		e.T.Fatalf("job at %s on execution %s, want at %s on %s", j.ActivityID, j.ExecutionID, activity, at[0].ID)
	}
	return j
}

func (e *env) execByID(xs []*bpmnlite.ExecutionRow, id string) *bpmnlite.ExecutionRow {
	e.T.Helper()
	for _, x := range xs {
		if x.ID == id {
			return x
		}
	}
	e.T.Fatalf("execution %s not found", id)
	return nil
}

// S01: asyncBefore on a service task creates one message job; the delegate
// runs only when the job does.
func TestS01_AsyncServiceNoListeners(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := e.RegisterCorpusDelegates()
		e.DeployFiles("camunda/async/AsyncTaskTest.testAsyncServiceNoListeners.bpmn20.xml")
		pi := e.Start("asyncService", nil)
		j := e.accWaitingAt(pi, "service")
		if j.Type != "message" {
			t.Errorf("job type %s, want message", j.Type)
		}
		if d.Calls() != 0 {
			t.Fatalf("delegate ran %d times before the job", d.Calls())
		}
		if n := e.Drain(10); n != 1 {
			t.Errorf("drain ran %d jobs, want 1", n)
		}
		if d.Calls() != 1 || len(e.Jobs(pi)) != 0 || !e.Ended(pi) {
			t.Fatalf("after drain: %d calls, %d jobs, ended %v; want 1, 0, true", d.Calls(), len(e.Jobs(pi)), e.Ended(pi))
		}
	})
}

// S01, related files: the async service behind a fork, an async
// multi-instance call activity, and an async plain task.
func TestS01_AsyncRelated(t *testing.T) {
	cases := []struct {
		name, key string
		files     []string
		calls     int
	}{
		{"concurrent", "asyncService", []string{"camunda/async/AsyncTaskTest.testAsyncServiceConcurrent.bpmn20.xml"}, 1},
		// Sequential MI (10) of an async call activity calling the async service.
		{"callActivity", "asyncCallactivity", []string{"camunda/async/AsyncTaskTest.testAsyncCallActivity.bpmn20.xml",
			"camunda/async/AsyncTaskTest.testAsyncServiceNoListeners.bpmn20.xml"}, 10},
		{"task", "asyncTask", []string{"camunda/async/_needs-extra/AsyncTaskTest.testAsyncTask.bpmn20.xml"}, 0},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := e.RegisterCorpusDelegates()
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := e.accWith(t)
				calls := d.Calls()
				e.DeployFiles(tc.files...)
				pi := e.Start(tc.key, nil)
				if n := len(e.AllJobs()); n != 1 {
					t.Fatalf("%d jobs after start, want 1", n)
				}
				e.Drain(100)
				if n := len(e.AllJobs()); n != 0 {
					t.Fatalf("%d jobs after drain, want 0", n)
				}
				if got := d.Calls() - calls; got != tc.calls || !e.Ended(pi) || e.State(pi) != "COMPLETED" {
					t.Fatalf("delegate calls %d (want %d), ended %v, state %s", got, tc.calls, e.Ended(pi), e.State(pi))
				}
			})
		}
	})
}

// S02: asyncBefore on the activity makes the multi-instance body async (one
// job runs all 5 instances); on the loop characteristics, each inner
// instance is async.
func TestS02_MultiInstanceAsync(t *testing.T) {
	cases := []struct {
		file           string
		jobsAfterStart int
		drained        int
	}{
		{"AsyncTaskTest.testAsyncSequentialMultiInstanceWithServiceTask.bpmn20.xml", 1, 1},
		{"AsyncTaskTest.testAsyncParallelMultiInstanceWithServiceTask.bpmn20.xml", 1, 1},
		{"AsyncTaskTest.testAsyncServiceWrappedInSequentialMultiInstance.bpmn20.xml", 1, 5},
		{"AsyncTaskTest.testAsyncServiceWrappedInParallelMultiInstance.bpmn20.xml", 5, 5},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := e.RegisterCorpusDelegates()
		for _, tc := range cases {
			t.Run(strings.TrimSuffix(strings.TrimPrefix(tc.file, "AsyncTaskTest."), ".bpmn20.xml"), func(t *testing.T) {
				e := e.accWith(t)
				calls := d.Calls()
				e.DeployFiles("camunda/async/" + tc.file)
				pi := e.Start("asyncService", nil)
				js := e.Jobs(pi)
				if len(js) != tc.jobsAfterStart || d.Calls() != calls {
					t.Fatalf("after start: %d jobs (want %d), %d calls (want 0)", len(js), tc.jobsAfterStart, d.Calls()-calls)
				}
				if tc.drained == 1 {
					if js[0].ActivityID != "service#multiInstanceBody" {
						t.Errorf("async body job at %s, want service#multiInstanceBody", js[0].ActivityID)
					}
				} else {
					for _, j := range js {
						if j.ActivityID != "service" {
							t.Errorf("inner job at %s, want service", j.ActivityID)
						}
					}
				}
				if tc.jobsAfterStart == 5 {
					// The tree: scope service#multiInstanceBody holding 5
					// transition instances of service. The body's scope
					// execution, a child of the process instance, holds 5
					// concurrent inner instances; executions with children
					// are at no activity, as Camunda's query shows them.
					var bodies []*bpmnlite.ExecutionRow
					for _, x := range e.Executions(pi, "") {
						if x.ParentID == pi && x.IsScope && x.ActivityID == "" {
							bodies = append(bodies, x)
						}
					}
					if n := len(e.Executions(pi, "service#multiInstanceBody")); n != 0 {
						t.Errorf("%d executions at the body, want none: its scope runs the inner instances", n)
					}
					inner := e.Executions(pi, "service")
					if len(bodies) != 1 || len(inner) != 5 || len(e.Executions(pi, "")) != 7 {
						t.Fatalf("%d body scopes and %d inner executions of %d, want 1 and 5 of 7", len(bodies), len(inner), len(e.Executions(pi, "")))
					}
					for _, x := range inner {
						if x.ParentID != bodies[0].ID || x.IsActive || !x.IsConcurrent {
							t.Errorf("inner execution %s: parent %s active %v; want a waiting concurrent child of the body", x.ID, x.ParentID, x.IsActive)
						}
					}
				}
				if n := e.Drain(20); n != tc.drained {
					t.Errorf("drain ran %d jobs, want %d", n, tc.drained)
				}
				if got := d.Calls() - calls; got != 5 || len(e.Jobs(pi)) != 0 || !e.Ended(pi) {
					t.Fatalf("after drain: %d calls, %d jobs, ended %v; want 5, 0, true", got, len(e.Jobs(pi)), e.Ended(pi))
				}
			})
		}
	})
}

// S04: a failing async service with a boundary timer keeps exactly its
// message job: the timer is never committed, since entering the activity is
// rolled back with each failure.
func TestS04_FailingAsyncServiceTimer(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.RegisterCorpusDelegates()
		e.DeployFiles("camunda/async/AsyncTaskTest.testFailingAsyncServiceTimer.bpmn20.xml")
		pi := e.Start("asyncService", nil)
		if j := e.OneJob(pi); j.Type != "message" {
			t.Fatalf("job type %s, want message", j.Type)
		}
		if n := e.Drain(10); n != 0 {
			t.Fatalf("%d jobs succeeded, want 0", n)
		}
		j := e.accWaitingAt(pi, "service")
		if j.Type != "message" || j.Retries != 0 || j.ExceptionMessage == "" {
			t.Fatalf("job %s with %d retries and message %q; want the message job, 0 retries, an exception", j.Type, j.Retries, j.ExceptionMessage)
		}
	})
}

// S04, sub-process case: the async service inside a sub-process with a
// boundary timer; running the message job completes the instance and the
// timer goes with its scope.
func TestS04_AsyncServiceSubProcessTimer(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := e.RegisterCorpusDelegates()
		e.DeployFiles("camunda/async/AsyncTaskTest.testAsyncServiceSubProcessTimer.bpmn20.xml")
		pi := e.Start("asyncService", nil)
		js := e.Jobs(pi)
		if len(js) != 2 {
			t.Fatalf("%d jobs, want 2 (message and timer): %s", len(js), harness.JobList(js))
		}
		i := slices.IndexFunc(js, func(j *bpmnlite.Job) bool { return j.Type == "message" })
		if i < 0 || !slices.ContainsFunc(js, func(j *bpmnlite.Job) bool { return j.Type == "timer" }) {
			t.Fatalf("want a message and a timer job: %s", harness.JobList(js))
		}
		e.ExecJob(js[i].ID)
		if d.Calls() != 1 || !e.Ended(pi) || len(e.AllJobs()) != 0 {
			t.Fatalf("%d calls, ended %v, %d jobs; want 1, true, 0", d.Calls(), e.Ended(pi), len(e.AllJobs()))
		}
	})
}

// S04, async sub-process without a timer: one job, the sub-process waiting
// as a transition instance.
func TestS04_AsyncServiceSubProcess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/async/AsyncTaskTest.testAsyncServiceSubProcess.bpmn20.xml")
		pi := e.Start("asyncService", nil)
		e.accWaitingAt(pi, "subProcess")
		e.Drain(10)
		if !e.Ended(pi) {
			t.Fatal("instance still running after the sub-process job")
		}
	})
}

// S06: an async start event waits before the first activity.
func TestS06_AsyncStartEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/async/AsyncStartEventTest.testAsyncStartEvent.bpmn20.xml")
		pi := e.Start("asyncStartEvent", nil)
		if n := len(e.Tasks(pi)); n != 0 {
			t.Fatalf("%d tasks before the start job, want 0", n)
		}
		e.accWaitingAt(pi, "startEvent")
		e.Drain(10)
		if n := len(e.Executions(pi, "startEvent")); n != 0 {
			t.Errorf("%d executions at startEvent after drain, want 0", n)
		}
		if got := e.TaskKeys(pi); got != "task" {
			t.Fatalf("tasks %q, want task", got)
		}
	})
}

// S06: a called process with an async start event waits at it.
func TestS06_AsyncStartEventCallActivity(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/async/AsyncStartEventTest.testCallActivity-super.bpmn20.xml",
			"camunda/async/AsyncStartEventTest.testCallActivity-sub.bpmn20.xml")
		super := e.Start("super", nil)
		subs := e.Instances("sub")
		if len(subs) != 1 {
			t.Fatalf("%d sub instances, want 1", len(subs))
		}
		e.accWaitingAt(subs[0].ID, "theSubStart")
		e.Drain(10)
		if !e.Ended(subs[0].ID) || !e.Ended(super) {
			t.Fatal("super and sub should have ended after the start job")
		}
	})
}

// S06: an async start event of an embedded sub-process waits inside the
// sub-process scope.
func TestS06_AsyncSubProcessStartEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/async/AsyncStartEventTest.testAsyncSubProcessStartEvent.bpmn")
		pi := e.Start("process", nil)
		// The sub-process's scope execution, a child of the process
		// instance, waits at StartEvent_2 itself; the process instance,
		// which it runs in, is at no activity, as Camunda's query shows it.
		at := e.Executions(pi, "StartEvent_2")
		if len(at) != 1 || !at[0].IsScope || at[0].ParentID != pi || at[0].IsActive || len(e.Executions(pi, "SubProcess_1")) != 0 || len(e.Executions(pi, "")) != 2 {
			t.Fatalf("want a waiting execution at StartEvent_2 inside the SubProcess_1 scope, got %s", harness.ExecList(e.Executions(pi, "")))
		}
		if j := e.OneJob(pi); j.ActivityID != "StartEvent_2" {
			t.Fatalf("job at %s, want StartEvent_2", j.ActivityID)
		}
		e.Drain(10)
		if got := e.TaskKeys(pi); got != "UserTask_1" {
			t.Fatalf("tasks %q, want UserTask_1", got)
		}
	})
}

// S06: calling a process whose start event is async gives one job; running
// it reaches the called user task.
func TestS06_CallProcessWithAsyncStartEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/async/AsyncCallActivityTest.testCallSubProcess.bpmn20.xml",
			"camunda/async/AsyncCallActivityTest.asyncStartEvent.bpmn20.xml")
		pi := e.Start("callAsyncSubProcess", nil)
		js := e.AllJobs()
		if len(js) != 1 {
			t.Fatalf("%d jobs, want 1", len(js))
		}
		e.ExecJob(js[0].ID)
		tasks, err := e.Eng.Tasks(e.Ctx, bpmnlite.TaskQuery{TaskDefinitionKey: "task"})
		if err != nil || len(tasks) != 1 {
			t.Fatalf("tasks %d (%v), want 1", len(tasks), err)
		}
		if err := e.Eng.CompleteTask(e.Ctx, tasks[0].ID, nil); err != nil {
			t.Fatal(err)
		}
		if !e.Ended(pi) {
			t.Fatal("caller still running after the called task completed")
		}
	})
}

// S06: an async end event keeps the instance alive until its job runs.
func TestS06_AsyncEndEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/async/AsyncEndEventTest.testAsyncEndEvent.bpmn20.xml")
		pi := e.Start("asyncEndEvent", nil)
		if e.State(pi) != "ACTIVE" {
			t.Fatalf("state %s, want ACTIVE", e.State(pi))
		}
		e.accWaitingAt(pi, "endEvent")
		e.Drain(10)
		if n := len(e.Executions(pi, "endEvent")); n != 0 || !e.Ended(pi) || e.State(pi) != "COMPLETED" {
			t.Fatalf("%d executions at endEvent, ended %v, state %s", n, e.Ended(pi), e.State(pi))
		}
	})
}

// S06: the called process waits at its async end event.
func TestS06_AsyncEndEventCallActivity(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/async/AsyncEndEventTest.testCallActivity-super.bpmn20.xml",
			"camunda/async/AsyncEndEventTest.testCallActivity-sub.bpmn20.xml")
		super := e.Start("super", nil)
		subs := e.Instances("sub")
		if len(subs) != 1 {
			t.Fatalf("%d sub instances, want 1", len(subs))
		}
		e.accWaitingAt(subs[0].ID, "theSubEnd")
		e.Drain(10)
		if !e.Ended(subs[0].ID) || !e.Ended(super) {
			t.Fatal("super and sub should have ended after the end job")
		}
	})
}

// S07: asyncAfter on a parallel fork gives one job per outgoing flow, each
// recording its flow.
func TestS07_AsyncAfterOnParallelGatewayFork(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/async/AsyncAfterTest.testAsyncAfterOnParallelGatewayFork.bpmn20.xml")
		pi := e.Start("process", nil)
		js := e.Jobs(pi)
		if len(js) != 2 {
			t.Fatalf("%d jobs, want 2", len(js))
		}
		byFlow := map[string]string{}
		for _, j := range js {
			byFlow[j.HandlerConfig] = j.ID
		}
		if byFlow["afterForkFlow1"] == "" || byFlow["afterForkFlow2"] == "" {
			t.Fatalf("job configurations %v, want afterForkFlow1 and afterForkFlow2", byFlow)
		}
		e.ExecJob(byFlow["afterForkFlow1"])
		if got := e.TaskKeys(pi); got != "theTask1" || len(e.Jobs(pi)) != 1 {
			t.Fatalf("tasks %q and %d jobs, want theTask1 and 1", got, len(e.Jobs(pi)))
		}
		e.ExecJob(byFlow["afterForkFlow2"])
		if got := e.TaskKeys(pi); got != "theTask1,theTask2" {
			t.Fatalf("tasks %q, want theTask1,theTask2", got)
		}
	})
}

// S08: asyncAfter needs ids on the outgoing flows.
func TestS08_TransitionIdRequired(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		_, err := e.Eng.DeployFiles(e.Ctx, "s08", harness.Corpus(t, "camunda/async/AsyncAfterTest.testTransitionIdRequired.bpmn20.xml"))
		var pe *bpmnlite.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("deploy: %v, want a ParseError", err)
		}
		const want = "Sequence flow with sourceRef='service' must have an id, activity with id 'service' uses 'asyncAfter'."
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
		if !slices.ContainsFunc(pe.Problems, func(p bpmnlite.Problem) bool { return p.ElementID == "service" }) {
			t.Errorf("no problem names element service: %v", pe.Problems)
		}
	})
}

// S09: asyncAfter on a multi-instance user task: after the 3 tasks, one job
// ends the instance.
func TestS09_AsyncAfterMultiInstanceUserTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/async/AsyncAfterTest.testAsyncAfterMultiInstanceUserTask.bpmn20.xml")
		pi := e.Start("process", nil)
		ts := e.Tasks(pi)
		if len(ts) != 3 {
			t.Fatalf("%d tasks, want 3", len(ts))
		}
		for _, task := range ts {
			if err := e.Eng.CompleteTask(e.Ctx, task.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		if e.Ended(pi) {
			t.Fatal("ended before the asyncAfter job ran")
		}
		e.Drain(10)
		if !e.Ended(pi) {
			t.Fatal("instance still running after the job executor run")
		}
	})
}

const s09Dir = "camunda/async/_needs-extra/"

// accListenersRan reports whether the service's behaviour and its start
// and end listeners set their variables.
func (e *env) accListenersRan(pi string) bool {
	e.T.Helper()
	return e.Var(pi, "behaviorInvoked") == true && e.Var(pi, "listenerStartInvoked") == true && e.Var(pi, "listenerEndInvoked") == true
}

// S09: asyncAfter on a service task with two conditional flows: the job
// takes the flow the condition selects.
func TestS09_AsyncAfterServiceTaskMultipleTransitions(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(s09Dir + "AsyncAfterTest.testAsyncAfterServiceTaskMultipleTransitions.bpmn20.xml")
		for _, flow := range []string{"flow2", "flow3"} {
			t.Run(flow, func(t *testing.T) {
				e := e.accWith(t)
				pi := e.Start("testProcess", map[string]any{"flowToTake": flow})
				if !e.accListenersRan(pi) {
					t.Fatal("behaviour and listeners should have run before the asyncAfter job")
				}
				e.ExecJob(e.OneJob(pi).ID)
				taken, other := "taskAfterFlow2", "taskAfterFlow3"
				if flow == "flow3" {
					taken, other = other, taken
				}
				if len(e.Executions(pi, taken)) != 1 || len(e.Executions(pi, other)) != 0 {
					t.Fatalf("executions %s, want one at %s only", harness.ExecList(e.Executions(pi, "")), taken)
				}
			})
		}
	})
}

// S09: without conditions the two flows are an implicit parallel split:
// one asyncAfter job each.
func TestS09_AsyncAfterServiceTaskMultipleTransitionsConcurrent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(s09Dir + "AsyncAfterTest.testAsyncAfterServiceTaskMultipleTransitionsConcurrent.bpmn20.xml")
		pi := e.Start("testProcess", nil)
		js := e.Jobs(pi)
		if len(js) != 2 {
			t.Fatalf("%d jobs, want 2", len(js))
		}
		for _, j := range js {
			e.ExecJob(j.ID)
		}
		if len(e.Executions(pi, "taskAfterFlow2")) != 1 || len(e.Executions(pi, "taskAfterFlow3")) != 1 {
			t.Fatalf("executions %s, want one at each of taskAfterFlow2 and taskAfterFlow3", harness.ExecList(e.Executions(pi, "")))
		}
	})
}

// S09: asyncAfter on a service task, alone and with asyncBefore.
func TestS09_AsyncAfterServiceTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(s09Dir + "AsyncAfterTest.testAsyncAfterServiceTask.bpmn20.xml")
		pi := e.Start("testProcess", nil)
		if !e.accListenersRan(pi) {
			t.Fatal("behaviour and listeners should have run")
		}
		e.ExecJob(e.OneJob(pi).ID)
		if !e.Ended(pi) {
			t.Fatal("instance should have ended")
		}
	})
}

func TestS09_AsyncAfterAndBeforeServiceTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(s09Dir + "AsyncAfterTest.testAsyncAfterAndBeforeServiceTask.bpmn20.xml")
		pi := e.Start("testProcess", nil)
		for _, v := range []string{"behaviorInvoked", "listenerStartInvoked", "listenerEndInvoked"} {
			if e.Var(pi, v) != nil {
				t.Fatalf("%s set before the asyncBefore job", v)
			}
		}
		before := e.OneJob(pi)
		e.ExecJob(before.ID)
		if !e.accListenersRan(pi) {
			t.Fatal("behaviour and listeners should have run")
		}
		after := e.OneJob(pi)
		if after.HandlerType != "async-after" {
			t.Fatalf("second job is %s, want the async-after job", after.HandlerType)
		}
		e.ExecJob(after.ID)
		if !e.Ended(pi) {
			t.Fatal("instance should have ended")
		}
	})
}

// S09: asyncAfter on the inner activity of a sequential multi-instance.
func TestS09_AsyncAfterServiceWrappedInSequentialMultiInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(s09Dir + "AsyncAfterTest.testAsyncAfterServiceWrappedInSequentialMultiInstance.bpmn20.xml")
		// As in Camunda, no variables: JUEL reads the missing
		// behaviorInvoked as 0 in "+ 1".
		pi := e.Start("testProcess", nil)
		if got := e.Var(pi, "behaviorInvoked"); got != int64(1) {
			t.Fatalf("behaviour ran %v times, want 1", got)
		}
		e.OneJob(pi)
		if n := e.Drain(10); n != 5 {
			t.Errorf("drain ran %d jobs, want 5", n)
		}
		if got := e.Var(pi, "behaviorInvoked"); got != int64(5) {
			t.Fatalf("behaviour ran %v times, want 5", got)
		}
		e.Complete(pi, "userTask", nil)
		if !e.Ended(pi) {
			t.Fatal("instance should have ended")
		}
	})
}
