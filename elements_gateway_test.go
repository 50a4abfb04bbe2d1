package bpmnlite_test

// Gateways and conditional sequence flows.

import (
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// The exclusive gateway takes the first flow (in document order) whose
// condition holds, else its default flow.
func TestElementExclusiveGateway(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><exclusiveGateway id="gw" default="toTiny"/>
			<userTask id="big"/><userTask id="small"/><userTask id="tiny"/>`,
			xmlChain("start", "gw"),
			xmlCond("toBig", "gw", "big", "${amount > 100}"),
			xmlCond("toSmall", "gw", "small", "${amount > 10}"),
			`<sequenceFlow id="toTiny" sourceRef="gw" targetRef="tiny"/>`)))
		for amount, want := range map[int]string{500: "big", 50: "small", 5: "tiny"} {
			pi := e.start("p", map[string]any{"amount": amount})
			if got := e.taskKeys(pi); got != want {
				t.Errorf("amount %d: tasks %q, want %q", amount, got, want)
			}
			if got := e.path(pi); got != "start,gw,"+want {
				t.Errorf("amount %d: path %q", amount, got)
			}
		}
	})
}

// No true condition and no default flow is an error naming the gateway;
// the start is rolled back.
func TestElementExclusiveGatewayNoWayOut(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><exclusiveGateway id="decide"/>
			<userTask id="a"/><userTask id="b"/>`, xmlChain("start", "decide"),
			xmlCond("toA", "decide", "a", "${x == 1}"), xmlCond("toB", "decide", "b", "${x == 2}"))))
		_, err := e.eng.Start(e.ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"x": 3}})
		if err == nil || !strings.Contains(err.Error(), "exclusiveGateway 'decide'") || !strings.Contains(err.Error(), "no outgoing sequence flow") {
			t.Fatalf("start: %v, want an error naming exclusiveGateway 'decide'", err)
		}
		if ps, _ := e.eng.ProcessInstances(e.ctx, bpmnlite.ProcessInstanceQuery{}); len(ps) != 0 {
			t.Errorf("%d instances stored", len(ps))
		}
		// A condition on an unknown variable fails naming the flow and the name.
		_, err = e.eng.Start(e.ctx, bpmnlite.StartRequest{Key: "p"})
		if err == nil || !strings.Contains(err.Error(), "sequenceFlow 'toA'") || !strings.Contains(err.Error(), `unknown name "x"`) {
			t.Errorf("start without x: %v, want an error naming sequenceFlow 'toA'", err)
		}
	})
}

// A flow without condition counts as true: the first one is taken.
func TestElementExclusiveGatewayUnconditionalFlow(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><exclusiveGateway id="gw"/>
			<userTask id="a"/><userTask id="b"/><userTask id="c"/>`, xmlChain("start", "gw"),
			xmlCond("toA", "gw", "a", "${false}"), xmlChain("gw", "b"), xmlChain("gw", "c"))))
		pi := e.start("p", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "b")
	})
}

func TestElementParallelForkJoin(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<userTask id="a"/><userTask id="b"/><parallelGateway id="join"/><userTask id="after"/>`,
			xmlChain("start", "fork", "a", "join", "after"), xmlChain("fork", "b", "join"))))
		pi := e.start("p", nil)
		wantEq(t, "tasks after fork", e.taskKeys(pi), "a,b")
		e.complete(pi, "a", nil)
		wantEq(t, "tasks after a", e.taskKeys(pi), "b")
		wantEq(t, "executions waiting at the join", len(e.executions(pi, "join")), 1)
		e.complete(pi, "b", nil)
		wantEq(t, "tasks after b", e.taskKeys(pi), "after")
		wantEq(t, "executions at the join", len(e.executions(pi, "join")), 0)
		// One join activity instance per arriving path, as in Camunda.
		wantEq(t, "path", e.path(pi), "start,fork,a,b,join,join,after")
		// The joined path moved back onto the process instance.
		if xs := e.executions(pi, ""); len(xs) != 1 || xs[0].ID != pi || xs[0].ActivityID != "after" {
			t.Errorf("executions %s, want the process instance alone, at after", accExecList(xs))
		}
	})
}

// Forks and joins need not pair up: a fork of two, one branch forks again,
// and all three paths meet at one join of three.
func TestElementParallelUnbalanced(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><parallelGateway id="fork"/><parallelGateway id="fork2"/>
			<userTask id="a"/><userTask id="b"/><userTask id="c"/><parallelGateway id="join"/><userTask id="after"/>`,
			xmlChain("start", "fork", "a", "join", "after"), xmlChain("fork", "fork2", "b", "join"), xmlChain("fork2", "c", "join"))))
		pi := e.start("p", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "a,b,c")
		e.complete(pi, "c", nil)
		e.complete(pi, "a", nil)
		wantEq(t, "tasks before the last arrival", e.taskKeys(pi), "b")
		e.complete(pi, "b", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "after")

		// A fork of three with joins of two: the first join fires when its
		// two paths are in, the second waits for it and the third.
		e.deploy("q", xmlDefs(xmlProcess("q", `<startEvent id="start"/><parallelGateway id="fork"/>
			<userTask id="a"/><userTask id="b"/><userTask id="c"/><parallelGateway id="j1"/><parallelGateway id="j2"/>
			<userTask id="after"/>`,
			xmlChain("start", "fork", "a", "j1", "j2", "after"), xmlChain("fork", "b", "j1"), xmlChain("fork", "c", "j2"))))
		pi = e.start("q", nil)
		e.complete(pi, "a", nil)
		e.complete(pi, "c", nil)
		wantEq(t, "tasks with j1 waiting", e.taskKeys(pi), "b")
		e.complete(pi, "b", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "after")
	})
}

func TestElementParallelNested(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><parallelGateway id="fork"/><parallelGateway id="innerFork"/>
			<userTask id="x"/><userTask id="y"/><userTask id="z"/><parallelGateway id="innerJoin"/><parallelGateway id="join"/>
			<userTask id="after"/>`,
			xmlChain("start", "fork", "innerFork", "x", "innerJoin", "join", "after"),
			xmlChain("innerFork", "y", "innerJoin"), xmlChain("fork", "z", "join"))))
		pi := e.start("p", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "x,y,z")
		e.complete(pi, "z", nil)
		e.complete(pi, "x", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "y")
		e.complete(pi, "y", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "after")
		wantEq(t, "innerJoin passes", len(e.historyAt(pi, "innerJoin")), 2)
		wantEq(t, "join passes", len(e.historyAt(pi, "join")), 2)
	})
}

// A fork into end events only ends the instance within the start call.
func TestElementParallelForkToEnds(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<endEvent id="end1"/><endEvent id="end2"/>`, xmlChain("start", "fork", "end1"), xmlChain("fork", "end2"))))
		pi := e.start("p", nil)
		wantEq(t, "state", e.state(pi), "COMPLETED")
		wantEq(t, "path", e.path(pi), "start,fork,end1,end2")
		wantEq(t, "executions", len(e.executions(pi, "")), 0)
	})
}

// An asynchronous join: each arriving path makes a job; running them lets
// the join pass exactly once.
func TestElementParallelJoinAsyncBefore(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<task id="a"/><task id="b"/><parallelGateway id="join" camunda:asyncBefore="true"/><userTask id="after"/>`,
			xmlChain("start", "fork", "a", "join", "after"), xmlChain("fork", "b", "join"))))
		pi := e.start("p", nil)
		js := e.jobs(pi)
		if len(js) != 2 {
			t.Fatalf("jobs = %d, want one per arrival", len(js))
		}
		for _, j := range js {
			if j.ActivityID != "join" || j.HandlerType != "async-before" {
				t.Errorf("job = %+v, want async-before at join", j)
			}
		}
		wantEq(t, "tasks before the jobs", e.taskKeys(pi), "")
		e.runJob(js[0].ID)
		wantEq(t, "tasks after the first arrival", e.taskKeys(pi), "")
		wantEq(t, "jobs after the first arrival", len(e.jobs(pi)), 1)
		e.drain(10)
		wantEq(t, "tasks", e.taskKeys(pi), "after")
		wantEq(t, "join passes", len(e.historyAt(pi, "join")), 2)
		for _, j := range e.jobs(pi) {
			t.Errorf("job left: %+v", j)
		}
		wantEq(t, "executions at join", len(e.executions(pi, "join")), 0)
	})
}

const inclusiveProcess = `<startEvent id="start"/><inclusiveGateway id="split" default="toNone"/>
	<userTask id="a"/><userTask id="b"/><userTask id="c"/><userTask id="none"/>
	<inclusiveGateway id="merge"/><userTask id="after"/>`

func TestElementInclusiveGateway(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", inclusiveProcess, xmlChain("start", "split"),
			xmlCond("toA", "split", "a", "${x >= 1}"), xmlCond("toB", "split", "b", "${x >= 2}"),
			xmlCond("toC", "split", "c", "${x >= 3}"), `<sequenceFlow id="toNone" sourceRef="split" targetRef="none"/>`,
			xmlChain("a", "merge"), xmlChain("b", "merge"), xmlChain("c", "merge"), xmlChain("none", "merge"),
			xmlChain("merge", "after"))))

		pi := e.start("p", map[string]any{"x": 1})
		wantEq(t, "x=1 tasks", e.taskKeys(pi), "a")
		e.complete(pi, "a", nil)
		wantEq(t, "x=1 after a", e.taskKeys(pi), "after")

		pi = e.start("p", map[string]any{"x": 2})
		wantEq(t, "x=2 tasks", e.taskKeys(pi), "a,b")
		e.complete(pi, "a", nil)
		wantEq(t, "x=2 after a (merge waits for b)", e.taskKeys(pi), "b")
		e.complete(pi, "b", nil)
		wantEq(t, "x=2 after b", e.taskKeys(pi), "after")
		wantEq(t, "x=2 merge passes", len(e.historyAt(pi, "merge")), 2)

		pi = e.start("p", map[string]any{"x": 0})
		wantEq(t, "x=0 tasks (default)", e.taskKeys(pi), "none")
		e.complete(pi, "none", nil)
		wantEq(t, "x=0 after none", e.taskKeys(pi), "after")
	})
}

// An inclusive merge waits only for paths that can still reach it: when the
// other path ends at an end event instead, the waiting path goes on.
func TestElementInclusiveMergeIgnoresEndedPaths(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><inclusiveGateway id="split"/>
			<userTask id="a"/><userTask id="b"/><exclusiveGateway id="route" default="toEnd"/><endEvent id="bEnd"/>
			<inclusiveGateway id="merge"/><userTask id="after"/>`,
			xmlChain("start", "split"), xmlCond("toA", "split", "a", "${true}"), xmlCond("toB", "split", "b", "${true}"),
			xmlChain("a", "merge", "after"), xmlChain("b", "route"),
			xmlCond("toMerge", "route", "merge", "${join}"), `<sequenceFlow id="toEnd" sourceRef="route" targetRef="bEnd"/>`)))

		// a arrives first and waits while b can still come; b ends instead.
		pi := e.start("p", nil)
		e.complete(pi, "a", nil)
		wantEq(t, "tasks while b is open", e.taskKeys(pi), "b")
		wantEq(t, "waiting at merge", len(e.executions(pi, "merge")), 1)
		e.complete(pi, "b", map[string]any{"join": false})
		wantEq(t, "tasks after b ended", e.taskKeys(pi), "after")

		// b ends first: a passes the merge alone.
		pi = e.start("p", nil)
		e.complete(pi, "b", map[string]any{"join": false})
		e.complete(pi, "a", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "after")

		// b comes to the merge: both paths merge into one.
		pi = e.start("p", nil)
		e.complete(pi, "a", nil)
		e.complete(pi, "b", map[string]any{"join": true})
		wantEq(t, "tasks after both arrived", e.taskKeys(pi), "after")
		wantEq(t, "paths", len(e.executions(pi, "")), 1)
	})
}

// Conditional flows leaving a task split implicitly: every flow whose
// condition holds, and every flow without one, is taken.
func TestElementConditionalFlowsFromTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><userTask id="t"/>
			<userTask id="a"/><userTask id="b"/><userTask id="c"/>`, xmlChain("start", "t"),
			xmlCond("toA", "t", "a", "${x > 1}"), xmlCond("toB", "t", "b", "${x > 2}"), xmlChain("t", "c"))))
		for x, want := range map[int]string{3: "a,b,c", 2: "a,c", 0: "c"} {
			pi := e.start("p", nil)
			e.complete(pi, "t", map[string]any{"x": x})
			if got := e.taskKeys(pi); got != want {
				t.Errorf("x=%d: tasks %q, want %q", x, got, want)
			}
		}

		e.deploy("q", xmlDefs(xmlProcess("q", `<startEvent id="start"/><task id="check"/><userTask id="a"/><userTask id="b"/>
			<serviceTask id="strict" camunda:expression="${1}"/><userTask id="e"/>`,
			xmlChain("start", "check"), xmlCond("toA", "check", "a", "${x > 1}"), xmlCond("toB", "check", "b", "${x > 2}"),
			xmlChain("a", "strict"), xmlCond("toE", "strict", "e", "${x > 5}"))))
		// All false and no default flow: an error naming the task.
		_, err := e.eng.Start(e.ctx, bpmnlite.StartRequest{Key: "q", Variables: map[string]any{"x": 0}})
		if err == nil || !strings.Contains(err.Error(), "task 'check'") {
			t.Errorf("start with x=0: %v, want an error naming task 'check'", err)
		}
		pi := e.start("q", map[string]any{"x": 2})
		wantEq(t, "tasks", e.taskKeys(pi), "a")
		err = e.eng.CompleteTask(e.ctx, e.tasks(pi)[0].ID, nil)
		if err == nil || !strings.Contains(err.Error(), "serviceTask 'strict'") {
			t.Errorf("complete a: %v, want an error naming serviceTask 'strict'", err)
		}
		wantEq(t, "tasks after the failed completion", e.taskKeys(pi), "a")
	})
}

// A default flow on a task is taken when no condition holds.
func TestElementTaskDefaultFlow(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/><userTask id="t" default="otherwise"/>
			<userTask id="a"/><userTask id="fallback"/>`, xmlChain("start", "t"),
			xmlCond("toA", "t", "a", "${x > 1}"), `<sequenceFlow id="otherwise" sourceRef="t" targetRef="fallback"/>`)))
		pi := e.start("p", nil)
		e.complete(pi, "t", map[string]any{"x": 0})
		wantEq(t, "x=0", e.taskKeys(pi), "fallback")
		pi = e.start("p", nil)
		e.complete(pi, "t", map[string]any{"x": 2})
		wantEq(t, "x=2 (default not taken)", e.taskKeys(pi), "a")
	})
}

const eventGatewayProcess = `<startEvent id="start"/><eventBasedGateway id="gw"/>
	<intermediateCatchEvent id="paid"><messageEventDefinition messageRef="msgPaid"/></intermediateCatchEvent>
	<intermediateCatchEvent id="timeout"><timerEventDefinition><timeDuration>PT10M</timeDuration></timerEventDefinition></intermediateCatchEvent>
	<userTask id="ship"/><userTask id="remind"/>`

func TestElementEventBasedGateway(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(`<message id="msgPaid" name="paid"/>`, xmlProcess("p", eventGatewayProcess,
			xmlChain("start", "gw", "paid", "ship"), xmlChain("gw", "timeout", "remind"))))

		// The message comes first: the timer is gone.
		pi := e.start("p", nil)
		j := e.oneJob(pi)
		if j.ActivityID != "timeout" || j.Type != "timer" || j.DueDate == nil || !j.DueDate.Equal(e.clock.Now().Add(10*time.Minute)) {
			t.Errorf("timer job = %+v", j)
		}
		if subs := e.subsOf(pi); len(subs) != 1 || subs[0].EventName != "paid" || subs[0].ActivityID != "paid" {
			t.Errorf("subscriptions = %+v", subs)
		}
		wantEq(t, "execution waits at the gateway", len(e.executions(pi, "gw")), 1)
		if _, err := e.eng.Correlate(e.ctx, bpmnlite.CorrelateRequest{MessageName: "paid"}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks", e.taskKeys(pi), "ship")
		wantEq(t, "jobs", len(e.jobs(pi)), 0)
		wantEq(t, "subscriptions", len(e.subsOf(pi)), 0)
		wantEq(t, "path", e.path(pi), "start,gw,paid,ship")

		// The timer comes first: the subscription is gone.
		pi = e.start("p", nil)
		wantEq(t, "due jobs before 10 minutes", e.runDue(9*time.Minute), 0)
		wantEq(t, "due jobs at 10 minutes", e.runDue(time.Minute), 1)
		wantEq(t, "tasks", e.taskKeys(pi), "remind")
		wantEq(t, "subscriptions", len(e.subsOf(pi)), 0)
		wantEq(t, "path", e.path(pi), "start,gw,timeout,remind")
		if _, err := e.eng.Correlate(e.ctx, bpmnlite.CorrelateRequest{MessageName: "paid"}); err == nil {
			t.Errorf("late message was delivered")
		}
	})
}
