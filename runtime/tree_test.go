package runtime_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// The execution tree as Camunda shapes it: a process without concurrency
// runs on the process instance's execution, a fork makes concurrent
// children, and the last path of a join or of ended branches moves back
// onto its parent (compaction) with what it owns.

// Camunda's JobEntityTest: of two async branches ending at end events, the
// job left after the first one ran belongs to the process instance.
func TestTreeLastJobMovesToProcessInstance(t *testing.T) {
	for _, tc := range []struct{ file, key string }{
		{"camunda/async/processWithGatewayAndTwoEndEvents.bpmn20.xml", "processWithGatewayAndTwoEndEvents1"},
		{"camunda/async/processGatewayAndTwoEndEventsPlusTimer.bpmn20.xml", "processGatewayAndTwoEndEventsPlusTimer1"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
				e.RegisterCorpusDelegates()
				e.DeployFiles(tc.file)
				pi := e.Start(tc.key, nil)
				js := e.Jobs(pi)
				if len(js) != 2 {
					t.Fatalf("jobs after start: %d, want 2", len(js))
				}
				for _, j := range js {
					if j.ExecutionID == pi {
						t.Errorf("job at %s on the process instance; want a concurrent execution", j.ActivityID)
					}
				}
				if xs := e.Executions(pi, ""); len(xs) != 3 {
					t.Fatalf("executions after the fork %s, want the instance and two concurrent ones", harness.ExecList(xs))
				}
				e.ExecJob(js[0].ID)
				left := e.Jobs(pi)
				if len(left) != 1 {
					t.Fatalf("jobs after one ran: %d, want 1", len(left))
				}
				if xs := e.Executions(pi, ""); len(xs) != 1 {
					t.Fatalf("executions %s, want only the process instance", harness.ExecList(xs))
				}
				if left[0].ExecutionID != pi {
					t.Errorf("last job on execution %s, want the process instance %s", left[0].ExecutionID, pi)
				}
				e.ExecJob(left[0].ID)
				if len(e.Jobs(pi)) != 0 || !e.Ended(pi) {
					t.Errorf("after both jobs: %d jobs, ended %v; want 0 and ended", len(e.Jobs(pi)), e.Ended(pi))
				}
			})
		})
	}
}

// Without concurrency, delegates, tasks, jobs and incidents see the process
// instance's id as their execution.
func TestTreeNoConcurrencyRunsOnProcessInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var mu sync.Mutex
		seen := map[string]string{}
		e.Eng.RegisterDelegate("see", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			mu.Lock()
			defer mu.Unlock()
			seen[ex.ActivityID()] = ex.ID()
			return nil
		}))
		e.Eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return errors.New("boom")
		}))
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><serviceTask id="first" camunda:class="see"/>
			<userTask id="work"/><serviceTask id="later" camunda:asyncBefore="true" camunda:class="see"/>
			<serviceTask id="fails" camunda:asyncBefore="true" camunda:class="boom"/><endEvent id="end"/>`,
			enginetest.Chain("start", "first", "work", "later", "fails", "end"))))
		pi := e.Start("p", nil)
		if xs := e.Executions(pi, ""); len(xs) != 1 || xs[0].ActivityID != "work" {
			t.Fatalf("executions %s, want the process instance alone at work", harness.ExecList(xs))
		}
		tasks := e.Tasks(pi)
		if len(tasks) != 1 || tasks[0].ExecutionID != pi {
			t.Fatalf("task %+v, want one on the process instance", tasks)
		}
		e.Complete(pi, "work", nil)
		j := e.OneJob(pi)
		if j.ExecutionID != pi {
			t.Errorf("job on %s, want the process instance", j.ExecutionID)
		}
		e.ExecJob(j.ID)
		j = e.OneJob(pi)
		for range 3 {
			e.FailJob(j.ID)
		}
		inc := e.IncidentsOf(j.ID)
		if len(inc) != 1 || inc[0].ExecutionID != pi {
			t.Fatalf("incidents %+v, want one on the process instance", inc)
		}
		mu.Lock()
		defer mu.Unlock()
		if seen["first"] != pi || seen["later"] != pi {
			t.Errorf("delegates saw executions %v, want %s", seen, pi)
		}
	})
}

// A non-interrupting boundary event forks: the task, its timer and the
// task's path move to a concurrent execution; when the boundary path ends,
// they all move back onto the process instance.
func TestTreeExpansionAndCompactionMoveWhatThePathOwns(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="work"/><endEvent id="end"/>`,
			boundaryTimer("remind", "work", "false", "timeCycle", "R3/PT1H"), `<userTask id="reminder"/><endEvent id="remindEnd"/>`,
			enginetest.Chain("start", "work", "end"), enginetest.Chain("remind", "reminder", "remindEnd"))))
		pi := e.Start("p", nil)
		if j := e.OneJob(pi); j.ExecutionID != pi {
			t.Fatalf("timer on %s, want the process instance", j.ExecutionID)
		}
		wantEq(t, "due jobs", e.runDue(time.Hour), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "reminder,work")
		xs := e.Executions(pi, "")
		if len(xs) != 3 {
			t.Fatalf("executions %s, want the instance and two concurrent paths", harness.ExecList(xs))
		}
		workExec := e.ExecAt(pi, "work")
		if !workExec.IsConcurrent || workExec.ParentID != pi {
			t.Fatalf("work runs on %+v, want a concurrent child of the instance", workExec)
		}
		for _, task := range e.Tasks(pi) {
			if task.TaskDefinitionKey == "work" && task.ExecutionID != workExec.ID {
				t.Errorf("task work on %s, want %s", task.ExecutionID, workExec.ID)
			}
		}
		if j := e.OneJob(pi); j.ExecutionID != workExec.ID {
			t.Errorf("next timer on %s, want the path at work %s", j.ExecutionID, workExec.ID)
		}
		e.Complete(pi, "reminder", nil)
		if xs := e.Executions(pi, ""); len(xs) != 1 || xs[0].ActivityID != "work" {
			t.Fatalf("executions %s, want the instance alone, at work", harness.ExecList(xs))
		}
		if tasks := e.Tasks(pi); len(tasks) != 1 || tasks[0].ExecutionID != pi {
			t.Errorf("tasks %+v, want work on the process instance", tasks)
		}
		if j := e.OneJob(pi); j.ExecutionID != pi {
			t.Errorf("timer on %s after compaction, want the process instance", j.ExecutionID)
		}
		// The moved timer still fires on the moved path.
		wantEq(t, "due jobs", e.runDue(time.Hour), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "reminder,work")
		e.Complete(pi, "work", nil)
		e.Complete(pi, "reminder", nil)
		if !e.Ended(pi) {
			t.Errorf("instance should have ended")
		}
	})
}

// An incident and a called instance follow their path when it moves back
// onto the process instance.
func TestTreeCompactionMovesIncidentsAndCalledInstances(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return errors.New("boom")
		}))
		e.Deploy("sub", enginetest.Defs(enginetest.Executable("sub", `<startEvent id="subStart"/><userTask id="subTask"/><endEvent id="subEnd"/>`,
			enginetest.Chain("subStart", "subTask", "subEnd"))))
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<serviceTask id="fails" camunda:asyncBefore="true" camunda:class="boom"/><callActivity id="call" calledElement="sub"/>
			<userTask id="quick"/><endEvent id="failsEnd"/><endEvent id="callEnd"/><endEvent id="quickEnd"/>`,
			enginetest.Chain("start", "fork", "fails", "failsEnd"), enginetest.Chain("fork", "call", "callEnd"), enginetest.Chain("fork", "quick", "quickEnd"))))
		calledBy := func(pi string) (sub, super string) {
			t.Helper()
			for _, h := range e.Instances("sub") {
				if h.EndTime == nil {
					xs := e.Executions(h.ID, "")
					for _, x := range xs {
						if x.ID == h.ID {
							return x.ID, x.SuperExecutionID
						}
					}
				}
			}
			t.Fatalf("no running called instance")
			return "", ""
		}

		// The called instance follows its path onto the process instance.
		pi := e.Start("p", nil)
		e.Drain(10) // fails three times: an incident
		_, super := calledBy(pi)
		if super == pi {
			t.Fatalf("called by the process instance while concurrent")
		}
		e.Complete(pi, "quick", nil)
		wantEq(t, "executions", len(e.Executions(pi, "")), 3)
		j := e.OneJob(pi)
		inc := e.IncidentsOf(j.ID)
		if len(inc) != 1 || inc[0].ExecutionID != j.ExecutionID || inc[0].ExecutionID == pi {
			t.Fatalf("incidents %+v, want one on the failing path's concurrent execution", inc)
		}
		// The call returns and ends its path: the failing path is the
		// last one and moves onto the process instance, incident and all.
		sub, _ := calledBy(pi)
		e.Complete(sub, "subTask", nil)
		if xs := e.Executions(pi, ""); len(xs) != 1 || xs[0].ActivityID != "fails" {
			t.Fatalf("executions %s, want the process instance alone, at fails", harness.ExecList(xs))
		}
		if j := e.OneJob(pi); j.ExecutionID != pi {
			t.Errorf("failed job on %s, want the process instance", j.ExecutionID)
		}
		if inc := e.IncidentsOf(j.ID); len(inc) != 1 || inc[0].ExecutionID != pi {
			t.Errorf("incidents %+v, want one on the process instance", inc)
		}

		// Here the call is the last path: the called instance's super
		// execution becomes the process instance, and its end resumes it.
		e.Deploy("q", enginetest.Defs(enginetest.Executable("q", `<startEvent id="start"/><parallelGateway id="fork"/>
			<callActivity id="call" calledElement="sub"/><userTask id="quick"/><endEvent id="callEnd"/><endEvent id="quickEnd"/>`,
			enginetest.Chain("start", "fork", "call", "callEnd"), enginetest.Chain("fork", "quick", "quickEnd"))))
		pi = e.Start("q", nil)
		if _, super := calledBy(pi); super == pi {
			t.Fatalf("called by the process instance while concurrent")
		}
		e.Complete(pi, "quick", nil)
		sub, super = calledBy(pi)
		if super != pi {
			t.Fatalf("called instance's super execution %s, want the process instance %s", super, pi)
		}
		e.Complete(sub, "subTask", nil)
		if !e.Ended(pi) || !e.Ended(sub) {
			t.Errorf("both instances should have ended")
		}
	})
}

// On compaction the last path's local variables move onto the scope
// execution, replacing a variable of the same name there, as in Camunda.
func TestTreeCompactionMovesLocalVariables(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="a"/><userTask id="b"/><endEvent id="aEnd"/><endEvent id="bEnd"/>`,
			enginetest.Chain("start", "a", "aEnd"), enginetest.Chain("b", "bEnd"))))
		for _, loaded := range []bool{false, true} {
			pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"v": "instance", "keep": 1},
				Instructions: []bpmnlite.StartInstruction{
					{ActivityID: "a", Variables: map[string]any{"v": "a", "onlyA": true}},
					{ActivityID: "b", Variables: map[string]any{"v": "b"}},
				}})
			if err != nil {
				t.Fatal(err)
			}
			wantEq(t, "instance variables", e.VarsOf(pi), map[string]any{"v": "instance", "keep": int64(1)})
			if loaded {
				// Variables read in the completing command before the
				// compaction: the in-memory move is used.
				e.Complete(pi, "b", map[string]any{"keep": 2})
			} else {
				e.Complete(pi, "b", nil)
			}
			want := map[string]any{"v": "a", "onlyA": true, "keep": int64(1)}
			if loaded {
				want["keep"] = int64(2)
			}
			wantEq(t, "instance variables after compaction", e.VarsOf(pi), want)
			if xs := e.Executions(pi, ""); len(xs) != 1 || xs[0].ActivityID != "a" {
				t.Fatalf("executions %s, want the process instance alone, at a", harness.ExecList(xs))
			}
		}
	})
}

// An uncaught BPMN error ends an inner instance of a multi-instance
// activity like a completion: the body counts it and, when all are done,
// the path leaves the body. The inner instances never move onto the body.
func TestTreeUncaughtErrorInMultiInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("raise", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return &bpmnlite.BpmnError{Code: "nobodyCatches"}
		}))
		for _, sequential := range []string{"false", "true"} {
			key := "p" + sequential
			e.Deploy(key, enginetest.Defs(enginetest.Executable(key, `<startEvent id="start"/>
				<serviceTask id="each" camunda:class="raise"><multiInstanceLoopCharacteristics isSequential="`+sequential+`"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></serviceTask>
				<userTask id="after"/>`, enginetest.Chain("start", "each", "after"))))
			pi := e.Start(key, nil)
			wantEq(t, "tasks", e.TaskKeys(pi), "after")
			if xs := e.Executions(pi, ""); len(xs) != 1 || xs[0].ActivityID != "after" {
				t.Errorf("sequential %s: executions %s, want the process instance alone, at after", sequential, harness.ExecList(xs))
			}
		}
	})
}

// An activity with input/output mappings is a scope, as Camunda makes it:
// its path waits at it while a scope execution below runs it. On a
// concurrent path the scope sits below the concurrent execution and
// follows it onto the process instance on compaction; it goes when the
// activity completes.
func TestTreeInputOutputScope(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<userTask id="mapped">`+ioMapping(`<camunda:inputParameter name="local">${1}</camunda:inputParameter>
				<camunda:outputParameter name="out">${local + 1}</camunda:outputParameter>`)+`</userTask>
			<userTask id="plain"/><endEvent id="plainEnd"/><userTask id="after"/>`,
			enginetest.Chain("start", "fork", "mapped", "after"), enginetest.Chain("fork", "plain", "plainEnd"))))
		pi := e.Start("p", nil)
		scope := e.ioScope(pi, "mapped")
		path := e.treeRow(pi, scope.ParentID)
		if !path.IsConcurrent || path.ParentID != pi || path.IsActive || !scope.IsScope || scope.IsConcurrent {
			t.Fatalf("executions %s: want mapped's scope below an inactive concurrent path of the instance", harness.ExecList(e.Executions(pi, "")))
		}
		if xs := e.Executions(pi, ""); len(xs) != 4 {
			t.Fatalf("executions %s, want the instance, two concurrent paths and mapped's scope", harness.ExecList(xs))
		}
		task := e.Tasks(pi)
		e.Complete(pi, "plain", nil)
		moved := e.ioScope(pi, "mapped")
		if moved.ID != scope.ID || moved.ParentID != pi {
			t.Fatalf("after compaction mapped's scope %+v, want %s below the process instance", moved, scope.ID)
		}
		for _, tk := range task {
			if tk.TaskDefinitionKey == "mapped" && tk.ExecutionID != scope.ID {
				t.Errorf("task mapped on %s, want its scope %s", tk.ExecutionID, scope.ID)
			}
		}
		if xs := e.Executions(pi, ""); len(xs) != 2 {
			t.Fatalf("executions %s, want the instance and mapped's scope", harness.ExecList(xs))
		}
		e.Complete(pi, "mapped", nil)
		if xs := e.Executions(pi, ""); len(xs) != 1 || xs[0].ID != pi || xs[0].ActivityID != "after" {
			t.Fatalf("executions %s, want the process instance alone, at after", harness.ExecList(xs))
		}
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"out": int64(2)})
	})
}

// Executions at an activity, as Camunda's execution query finds them: an
// execution some child runs in is at no activity (ExecutionQueryTest,
// InputOutputTest, SubProcessTest, MultiInstanceTest). treeRow finds an
// execution among all of pi's, as the query shows it.
func (e *env) treeRow(pi, id string) *bpmnlite.ExecutionRow {
	e.T.Helper()
	x := execByIDIn(e.Executions(pi, ""), id)
	if x.ID == "" {
		e.T.Fatalf("execution %s of %s not found", id, pi)
	}
	return x
}

// InputOutputTest: the execution at an input/output-mapped receive task is
// its scope, the one a trigger continues; the process instance the scope
// runs in is at no activity and cannot be triggered.
func TestTreeExecutionQueryInputOutputTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<receiveTask id="wait">`+ioMapping(`<camunda:inputParameter name="local">in</camunda:inputParameter>`)+`</receiveTask>
			<userTask id="after"/>`, enginetest.Chain("start", "wait", "after"))))
		pi := e.Start("p", nil)
		at := e.ExecAt(pi, "wait")
		if at.ID == pi || at.ParentID != pi || !at.IsScope {
			t.Fatalf("execution at wait %+v, want the scope below the process instance", at)
		}
		if root := e.treeRow(pi, pi); root.ActivityID != "" || root.IsActive {
			t.Errorf("process instance at %q (active %v), want at no activity, inactive", root.ActivityID, root.IsActive)
		}
		wantEq(t, "scope's locals", e.VarsOf(at.ID)["local"], "in")
		if err := e.Eng.Trigger(e.Ctx, pi, nil); err == nil {
			t.Fatalf("triggering the process instance the scope runs in succeeded, want an error")
		}
		if err := e.Eng.Trigger(e.Ctx, at.ID, nil); err != nil {
			t.Fatalf("trigger the scope: %v", err)
		}
		if x := e.ExecAt(pi, "after"); x.ID != pi {
			t.Errorf("execution at after %s, want the process instance", x.ID)
		}
	})
}

// SubProcessTest, InputOutputTest.testSubprocessIoSupport: the execution at
// the task inside a subprocess is the subprocess's scope execution; none
// is at the subprocess, and the process instance is at no activity.
func TestTreeExecutionQuerySubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<subProcess id="sub"><startEvent id="subStart"/><userTask id="subprocessTask"/><endEvent id="subEnd"/>`+
			enginetest.Chain("subStart", "subprocessTask", "subEnd")+`</subProcess><userTask id="after"/>`,
			enginetest.Chain("start", "sub", "after"))))
		pi := e.Start("p", nil)
		at := e.ExecAt(pi, "subprocessTask")
		if at.ID == pi || at.ParentID != pi || !at.IsScope {
			t.Fatalf("execution at subprocessTask %+v, want the subprocess's scope below the process instance", at)
		}
		wantEq(t, "executions at sub", len(e.Executions(pi, "sub")), 0)
		if root := e.treeRow(pi, pi); root.ActivityID != "" {
			t.Errorf("process instance at %q, want at no activity", root.ActivityID)
		}
		e.Complete(pi, "subprocessTask", nil)
		if x := e.ExecAt(pi, "after"); x.ID != pi {
			t.Errorf("execution at after %s, want the process instance", x.ID)
		}
	})
}

// MultiInstanceTest.testParallelReceiveTasks: each inner instance of a
// parallel multi-instance activity is at the activity; the body's scope
// and the process instance are at no activity, none at the body.
func TestTreeExecutionQueryParallelMultiInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<receiveTask id="miTasks"><multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></receiveTask>
			<userTask id="after"/>`, enginetest.Chain("start", "miTasks", "after"))))
		pi := e.Start("p", nil)
		inner := e.Executions(pi, "miTasks")
		if len(inner) != 3 {
			t.Fatalf("executions at miTasks %s, want the 3 inner instances", harness.ExecList(inner))
		}
		body := e.treeRow(pi, inner[0].ParentID)
		for _, x := range inner {
			if !x.IsConcurrent || x.ParentID != body.ID {
				t.Errorf("inner instance %+v, want concurrent below the body's scope", x)
			}
		}
		if body.ActivityID != "" || body.ParentID != pi || !body.IsScope || body.IsActive {
			t.Errorf("body's scope %+v, want an inactive scope below the process instance at no activity", body)
		}
		wantEq(t, "executions at the body", len(e.Executions(pi, "miTasks#multiInstanceBody")), 0)
		if root := e.treeRow(pi, pi); root.ActivityID != "" {
			t.Errorf("process instance at %q, want at no activity", root.ActivityID)
		}
		for _, x := range inner {
			if err := e.Eng.Trigger(e.Ctx, x.ID, nil); err != nil {
				t.Fatalf("trigger %s: %v", x.ID, err)
			}
		}
		if x := e.ExecAt(pi, "after"); x.ID != pi {
			t.Errorf("execution at after %s, want the process instance", x.ID)
		}
	})
}

// InputOutputTest.testSequentialMIActivityIoSupport and
// testParallelMISubprocessIoSupport: one execution is at a sequential
// multi-instance activity, the running instance with its loop counter and
// inputs; in a parallel multi-instance subprocess each instance's scope is
// at the task inside.
func TestTreeExecutionQueryMultiInstanceInputOutput(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("seq", enginetest.Defs(enginetest.Executable("seq", `<startEvent id="start"/>
			<userTask id="miTask">`+ioMapping(`<camunda:inputParameter name="miCounterValue">${loopCounter + 1}</camunda:inputParameter>`)+`
			<multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<userTask id="after"/>`, enginetest.Chain("start", "miTask", "after"))))
		pi := e.Start("seq", nil)
		for i := range 2 {
			at := e.ExecAt(pi, "miTask")
			vars := e.VarsOf(at.ID)
			if at.ID == pi || vars["loopCounter"] != int64(i) || vars["miCounterValue"] != int64(i+1) {
				t.Fatalf("instance %d: execution at miTask %s with %v, want an inner instance with its counter and input", i, at.ID, vars)
			}
			e.Complete(pi, "miTask", nil)
		}
		e.ExecAt(pi, "after")

		e.Deploy("par", enginetest.Defs(enginetest.Executable("par", `<startEvent id="start"/>
			<subProcess id="miSub"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>
			<startEvent id="subStart"/><userTask id="task"/><endEvent id="subEnd"/>`+enginetest.Chain("subStart", "task", "subEnd")+`</subProcess>
			<userTask id="after"/>`, enginetest.Chain("start", "miSub", "after"))))
		pi = e.Start("par", nil)
		at := e.Executions(pi, "task")
		if len(at) != 2 || at[0].ParentID == at[1].ParentID {
			t.Fatalf("executions at task %s, want one scope per inner instance", harness.ExecList(at))
		}
		counters := map[any]bool{}
		for _, x := range at {
			counters[e.VarsOf(x.ID)["loopCounter"]] = true
		}
		wantEq(t, "loop counters", counters, map[any]bool{int64(0): true, int64(1): true})
		for _, id := range []string{"miSub", "miSub#multiInstanceBody"} {
			wantEq(t, "executions at "+id, len(e.Executions(pi, id)), 0)
		}
	})
}

// ExecutionQueryTest, a parallel join with one branch waiting: the path
// that arrived waits, inactive, at the join; the other is at its task;
// the process instance, their scope, is at no activity.
func TestTreeExecutionQueryParallelJoin(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<userTask id="wait"/><parallelGateway id="join"/><userTask id="after"/>`,
			enginetest.Chain("start", "fork", "wait", "join", "after"), enginetest.Chain("fork", "join"))))
		pi := e.Start("p", nil)
		join, wait := e.ExecAt(pi, "join"), e.ExecAt(pi, "wait")
		if join.IsActive || !join.IsConcurrent || join.ParentID != pi {
			t.Errorf("execution at join %+v, want an inactive concurrent one", join)
		}
		if !wait.IsConcurrent || wait.ParentID != pi {
			t.Errorf("execution at wait %+v, want a concurrent one", wait)
		}
		if root := e.treeRow(pi, pi); root.ActivityID != "" || root.IsActive {
			t.Errorf("process instance at %q (active %v), want at no activity, inactive", root.ActivityID, root.IsActive)
		}
		e.Complete(pi, "wait", nil)
		if x := e.ExecAt(pi, "after"); x.ID != pi {
			t.Errorf("execution at after %s, want the process instance", x.ID)
		}
		wantEq(t, "executions at join", len(e.Executions(pi, "join")), 0)
	})
}
