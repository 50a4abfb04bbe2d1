package runtime_test

// Gateways and conditional sequence flows.

import (
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// The exclusive gateway takes the first flow (in document order) whose
// condition holds, else its default flow.
func TestElementExclusiveGateway(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><exclusiveGateway id="gw" default="toTiny"/>
			<userTask id="big"/><userTask id="small"/><userTask id="tiny"/>`,
			enginetest.Chain("start", "gw"),
			enginetest.Cond("toBig", "gw", "big", "${amount > 100}"),
			enginetest.Cond("toSmall", "gw", "small", "${amount > 10}"),
			`<sequenceFlow id="toTiny" sourceRef="gw" targetRef="tiny"/>`)))
		for amount, want := range map[int]string{500: "big", 50: "small", 5: "tiny"} {
			pi := e.Start("p", map[string]any{"amount": amount})
			if got := e.TaskKeys(pi); got != want {
				t.Errorf("amount %d: tasks %q, want %q", amount, got, want)
			}
			if got := e.Path(pi); got != "start,gw,"+want {
				t.Errorf("amount %d: path %q", amount, got)
			}
		}
	})
}

// No true condition and no default flow is an error naming the gateway;
// the start is rolled back.
func TestElementExclusiveGatewayNoWayOut(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><exclusiveGateway id="decide"/>
			<userTask id="a"/><userTask id="b"/>`, enginetest.Chain("start", "decide"),
			enginetest.Cond("toA", "decide", "a", "${x == 1}"), enginetest.Cond("toB", "decide", "b", "${x == 2}"))))
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"x": 3}})
		if err == nil || !strings.Contains(err.Error(), "exclusiveGateway 'decide'") || !strings.Contains(err.Error(), "no outgoing sequence flow") {
			t.Fatalf("start: %v, want an error naming exclusiveGateway 'decide'", err)
		}
		if ps, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{}); len(ps) != 0 {
			t.Errorf("%d instances stored", len(ps))
		}
		// A condition on an unknown variable fails naming the flow and the name.
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p"})
		if err == nil || !strings.Contains(err.Error(), "sequenceFlow 'toA'") || !strings.Contains(err.Error(), `unknown name "x"`) {
			t.Errorf("start without x: %v, want an error naming sequenceFlow 'toA'", err)
		}
	})
}

// A flow without condition counts as true: the first one is taken.
func TestElementExclusiveGatewayUnconditionalFlow(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><exclusiveGateway id="gw"/>
			<userTask id="a"/><userTask id="b"/><userTask id="c"/>`, enginetest.Chain("start", "gw"),
			enginetest.Cond("toA", "gw", "a", "${false}"), enginetest.Chain("gw", "b"), enginetest.Chain("gw", "c"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "b")
	})
}

func TestElementParallelForkJoin(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<userTask id="a"/><userTask id="b"/><parallelGateway id="join"/><userTask id="after"/>`,
			enginetest.Chain("start", "fork", "a", "join", "after"), enginetest.Chain("fork", "b", "join"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks after fork", e.TaskKeys(pi), "a,b")
		e.Complete(pi, "a", nil)
		wantEq(t, "tasks after a", e.TaskKeys(pi), "b")
		wantEq(t, "executions waiting at the join", len(e.Executions(pi, "join")), 1)
		e.Complete(pi, "b", nil)
		wantEq(t, "tasks after b", e.TaskKeys(pi), "after")
		wantEq(t, "executions at the join", len(e.Executions(pi, "join")), 0)
		// One join activity instance per arriving path, as in Camunda.
		wantEq(t, "path", e.Path(pi), "start,fork,a,b,join,join,after")
		// The joined path moved back onto the process instance.
		if xs := e.Executions(pi, ""); len(xs) != 1 || xs[0].ID != pi || xs[0].ActivityID != "after" {
			t.Errorf("executions %s, want the process instance alone, at after", harness.ExecList(xs))
		}
	})
}

// Forks and joins need not pair up: a fork of two, one branch forks again,
// and all three paths meet at one join of three.
func TestElementParallelUnbalanced(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/><parallelGateway id="fork2"/>
			<userTask id="a"/><userTask id="b"/><userTask id="c"/><parallelGateway id="join"/><userTask id="after"/>`,
			enginetest.Chain("start", "fork", "a", "join", "after"), enginetest.Chain("fork", "fork2", "b", "join"), enginetest.Chain("fork2", "c", "join"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "a,b,c")
		e.Complete(pi, "c", nil)
		e.Complete(pi, "a", nil)
		wantEq(t, "tasks before the last arrival", e.TaskKeys(pi), "b")
		e.Complete(pi, "b", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")

		// A fork of three with joins of two: the first join fires when its
		// two paths are in, the second waits for it and the third.
		e.Deploy("q", enginetest.Defs(enginetest.Executable("q", `<startEvent id="start"/><parallelGateway id="fork"/>
			<userTask id="a"/><userTask id="b"/><userTask id="c"/><parallelGateway id="j1"/><parallelGateway id="j2"/>
			<userTask id="after"/>`,
			enginetest.Chain("start", "fork", "a", "j1", "j2", "after"), enginetest.Chain("fork", "b", "j1"), enginetest.Chain("fork", "c", "j2"))))
		pi = e.Start("q", nil)
		e.Complete(pi, "a", nil)
		e.Complete(pi, "c", nil)
		wantEq(t, "tasks with j1 waiting", e.TaskKeys(pi), "b")
		e.Complete(pi, "b", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
	})
}

func TestElementParallelNested(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/><parallelGateway id="innerFork"/>
			<userTask id="x"/><userTask id="y"/><userTask id="z"/><parallelGateway id="innerJoin"/><parallelGateway id="join"/>
			<userTask id="after"/>`,
			enginetest.Chain("start", "fork", "innerFork", "x", "innerJoin", "join", "after"),
			enginetest.Chain("innerFork", "y", "innerJoin"), enginetest.Chain("fork", "z", "join"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "x,y,z")
		e.Complete(pi, "z", nil)
		e.Complete(pi, "x", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "y")
		e.Complete(pi, "y", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		wantEq(t, "innerJoin passes", len(e.HistoryAt(pi, "innerJoin")), 2)
		wantEq(t, "join passes", len(e.HistoryAt(pi, "join")), 2)
	})
}

// A fork into end events only ends the instance within the start call.
func TestElementParallelForkToEnds(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<endEvent id="end1"/><endEvent id="end2"/>`, enginetest.Chain("start", "fork", "end1"), enginetest.Chain("fork", "end2"))))
		pi := e.Start("p", nil)
		wantEq(t, "state", e.State(pi), "COMPLETED")
		wantEq(t, "path", e.Path(pi), "start,fork,end1,end2")
		wantEq(t, "executions", len(e.Executions(pi, "")), 0)
	})
}

// An asynchronous join: each arriving path makes a job; running them lets
// the join pass exactly once.
func TestElementParallelJoinAsyncBefore(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<task id="a"/><task id="b"/><parallelGateway id="join" camunda:asyncBefore="true"/><userTask id="after"/>`,
			enginetest.Chain("start", "fork", "a", "join", "after"), enginetest.Chain("fork", "b", "join"))))
		pi := e.Start("p", nil)
		js := e.Jobs(pi)
		if len(js) != 2 {
			t.Fatalf("jobs = %d, want one per arrival", len(js))
		}
		for _, j := range js {
			if j.ActivityID != "join" || j.HandlerType != "async-before" {
				t.Errorf("job = %+v, want async-before at join", j)
			}
		}
		wantEq(t, "tasks before the jobs", e.TaskKeys(pi), "")
		e.runJob(js[0].ID)
		wantEq(t, "tasks after the first arrival", e.TaskKeys(pi), "")
		wantEq(t, "jobs after the first arrival", len(e.Jobs(pi)), 1)
		e.Drain(10)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		wantEq(t, "join passes", len(e.HistoryAt(pi, "join")), 2)
		for _, j := range e.Jobs(pi) {
			t.Errorf("job left: %+v", j)
		}
		wantEq(t, "executions at join", len(e.Executions(pi, "join")), 0)
	})
}

const inclusiveProcess = `<startEvent id="start"/><inclusiveGateway id="split" default="toNone"/>
	<userTask id="a"/><userTask id="b"/><userTask id="c"/><userTask id="none"/>
	<inclusiveGateway id="merge"/><userTask id="after"/>`

func TestElementInclusiveGateway(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", inclusiveProcess, enginetest.Chain("start", "split"),
			enginetest.Cond("toA", "split", "a", "${x >= 1}"), enginetest.Cond("toB", "split", "b", "${x >= 2}"),
			enginetest.Cond("toC", "split", "c", "${x >= 3}"), `<sequenceFlow id="toNone" sourceRef="split" targetRef="none"/>`,
			enginetest.Chain("a", "merge"), enginetest.Chain("b", "merge"), enginetest.Chain("c", "merge"), enginetest.Chain("none", "merge"),
			enginetest.Chain("merge", "after"))))

		pi := e.Start("p", map[string]any{"x": 1})
		wantEq(t, "x=1 tasks", e.TaskKeys(pi), "a")
		e.Complete(pi, "a", nil)
		wantEq(t, "x=1 after a", e.TaskKeys(pi), "after")

		pi = e.Start("p", map[string]any{"x": 2})
		wantEq(t, "x=2 tasks", e.TaskKeys(pi), "a,b")
		e.Complete(pi, "a", nil)
		wantEq(t, "x=2 after a (merge waits for b)", e.TaskKeys(pi), "b")
		e.Complete(pi, "b", nil)
		wantEq(t, "x=2 after b", e.TaskKeys(pi), "after")
		wantEq(t, "x=2 merge passes", len(e.HistoryAt(pi, "merge")), 2)

		pi = e.Start("p", map[string]any{"x": 0})
		wantEq(t, "x=0 tasks (default)", e.TaskKeys(pi), "none")
		e.Complete(pi, "none", nil)
		wantEq(t, "x=0 after none", e.TaskKeys(pi), "after")
	})
}

// An inclusive merge waits only for paths that can still reach it: when the
// other path ends at an end event instead, the waiting path goes on.
func TestElementInclusiveMergeIgnoresEndedPaths(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><inclusiveGateway id="split"/>
			<userTask id="a"/><userTask id="b"/><exclusiveGateway id="route" default="toEnd"/><endEvent id="bEnd"/>
			<inclusiveGateway id="merge"/><userTask id="after"/>`,
			enginetest.Chain("start", "split"), enginetest.Cond("toA", "split", "a", "${true}"), enginetest.Cond("toB", "split", "b", "${true}"),
			enginetest.Chain("a", "merge", "after"), enginetest.Chain("b", "route"),
			enginetest.Cond("toMerge", "route", "merge", "${join}"), `<sequenceFlow id="toEnd" sourceRef="route" targetRef="bEnd"/>`)))

		// a arrives first and waits while b can still come; b ends instead.
		pi := e.Start("p", nil)
		e.Complete(pi, "a", nil)
		wantEq(t, "tasks while b is open", e.TaskKeys(pi), "b")
		wantEq(t, "waiting at merge", len(e.Executions(pi, "merge")), 1)
		e.Complete(pi, "b", map[string]any{"join": false})
		wantEq(t, "tasks after b ended", e.TaskKeys(pi), "after")

		// b ends first: a passes the merge alone.
		pi = e.Start("p", nil)
		e.Complete(pi, "b", map[string]any{"join": false})
		e.Complete(pi, "a", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")

		// b comes to the merge: both paths merge into one.
		pi = e.Start("p", nil)
		e.Complete(pi, "a", nil)
		e.Complete(pi, "b", map[string]any{"join": true})
		wantEq(t, "tasks after both arrived", e.TaskKeys(pi), "after")
		wantEq(t, "paths", len(e.Executions(pi, "")), 1)
	})
}

// Conditional flows leaving a task split implicitly: every flow whose
// condition holds, and every flow without one, is taken.
func TestElementConditionalFlowsFromTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="t"/>
			<userTask id="a"/><userTask id="b"/><userTask id="c"/>`, enginetest.Chain("start", "t"),
			enginetest.Cond("toA", "t", "a", "${x > 1}"), enginetest.Cond("toB", "t", "b", "${x > 2}"), enginetest.Chain("t", "c"))))
		for x, want := range map[int]string{3: "a,b,c", 2: "a,c", 0: "c"} {
			pi := e.Start("p", nil)
			e.Complete(pi, "t", map[string]any{"x": x})
			if got := e.TaskKeys(pi); got != want {
				t.Errorf("x=%d: tasks %q, want %q", x, got, want)
			}
		}

		e.Deploy("q", enginetest.Defs(enginetest.Executable("q", `<startEvent id="start"/><task id="check"/><userTask id="a"/><userTask id="b"/>
			<serviceTask id="strict" camunda:expression="${1}"/><userTask id="e"/>`,
			enginetest.Chain("start", "check"), enginetest.Cond("toA", "check", "a", "${x > 1}"), enginetest.Cond("toB", "check", "b", "${x > 2}"),
			enginetest.Chain("a", "strict"), enginetest.Cond("toE", "strict", "e", "${x > 5}"))))
		// All false and no default flow: an error naming the task.
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "q", Variables: map[string]any{"x": 0}})
		if err == nil || !strings.Contains(err.Error(), "task 'check'") {
			t.Errorf("start with x=0: %v, want an error naming task 'check'", err)
		}
		pi := e.Start("q", map[string]any{"x": 2})
		wantEq(t, "tasks", e.TaskKeys(pi), "a")
		err = e.Eng.CompleteTask(e.Ctx, e.Tasks(pi)[0].ID, nil)
		if err == nil || !strings.Contains(err.Error(), "serviceTask 'strict'") {
			t.Errorf("complete a: %v, want an error naming serviceTask 'strict'", err)
		}
		wantEq(t, "tasks after the failed completion", e.TaskKeys(pi), "a")
	})
}

// A default flow on a task is taken when no condition holds.
func TestElementTaskDefaultFlow(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="t" default="otherwise"/>
			<userTask id="a"/><userTask id="fallback"/>`, enginetest.Chain("start", "t"),
			enginetest.Cond("toA", "t", "a", "${x > 1}"), `<sequenceFlow id="otherwise" sourceRef="t" targetRef="fallback"/>`)))
		pi := e.Start("p", nil)
		e.Complete(pi, "t", map[string]any{"x": 0})
		wantEq(t, "x=0", e.TaskKeys(pi), "fallback")
		pi = e.Start("p", nil)
		e.Complete(pi, "t", map[string]any{"x": 2})
		wantEq(t, "x=2 (default not taken)", e.TaskKeys(pi), "a")
	})
}

const eventGatewayProcess = `<startEvent id="start"/><eventBasedGateway id="gw"/>
	<intermediateCatchEvent id="paid"><messageEventDefinition messageRef="msgPaid"/></intermediateCatchEvent>
	<intermediateCatchEvent id="timeout"><timerEventDefinition><timeDuration>PT10M</timeDuration></timerEventDefinition></intermediateCatchEvent>
	<userTask id="ship"/><userTask id="remind"/>`

func TestElementEventBasedGateway(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<message id="msgPaid" name="paid"/>`, enginetest.Executable("p", eventGatewayProcess,
			enginetest.Chain("start", "gw", "paid", "ship"), enginetest.Chain("gw", "timeout", "remind"))))

		// The message comes first: the timer is gone.
		pi := e.Start("p", nil)
		j := e.OneJob(pi)
		if j.ActivityID != "timeout" || j.Type != "timer" || j.DueDate == nil || !j.DueDate.Equal(e.Clock.Now().Add(10*time.Minute)) {
			t.Errorf("timer job = %+v", j)
		}
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].EventName != "paid" || subs[0].ActivityID != "paid" {
			t.Errorf("subscriptions = %+v", subs)
		}
		wantEq(t, "execution waits at the gateway", len(e.Executions(pi, "gw")), 1)
		if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "paid"}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "ship")
		wantEq(t, "jobs", len(e.Jobs(pi)), 0)
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 0)
		wantEq(t, "path", e.Path(pi), "start,gw,paid,ship")

		// The timer comes first: the subscription is gone.
		pi = e.Start("p", nil)
		wantEq(t, "due jobs before 10 minutes", e.runDue(9*time.Minute), 0)
		wantEq(t, "due jobs at 10 minutes", e.runDue(time.Minute), 1)
		wantEq(t, "tasks", e.TaskKeys(pi), "remind")
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 0)
		wantEq(t, "path", e.Path(pi), "start,gw,timeout,remind")
		if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "paid"}); err == nil {
			t.Errorf("late message was delivered")
		}
	})
}
