package bpmnlite_test

// Embedded subprocesses, call activities and multi-instance activities.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

func TestElementNestedSubprocesses(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/>
			<subProcess id="outer"><startEvent id="outerStart"/>
			  <subProcess id="inner"><startEvent id="innerStart"/><userTask id="work"/><endEvent id="innerEnd"/>`,
			xmlChain("innerStart", "work", "innerEnd"),
			`</subProcess><endEvent id="outerEnd"/>`, xmlChain("outerStart", "inner", "outerEnd"),
			`</subProcess><userTask id="after"/>`, xmlChain("start", "outer", "after"))))
		pi := e.start("p", nil)
		wantEq(t, "path", e.path(pi), "start,outer,outerStart,inner,innerStart,work")
		// inner's scope execution runs work, in outer's scope execution,
		// in the process instance; as in Camunda, an execution a child
		// runs in is at no activity.
		work := e.execAt(pi, "work")
		inner := work
		outer := e.treeRow(pi, inner.ParentID)
		root := e.treeRow(pi, outer.ParentID)
		if root.ID != pi || root.ActivityID != "" || outer.ActivityID != "" || !outer.IsScope || !inner.IsScope ||
			len(e.executions(pi, "")) != 3 || len(e.executions(pi, "outer"))+len(e.executions(pi, "inner")) != 0 {
			t.Errorf("execution tree: %s, want the process instance, outer's scope and inner's scope at work", accExecList(e.executions(pi, "")))
		}

		// A local variable of the outer subprocess is seen inside, not outside.
		if err := e.eng.SetVariablesLocal(e.ctx, outer.ID, map[string]any{"loc": "outer"}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "loc inside", e.varsOf(work.ID)["loc"], "outer")
		if _, ok := e.varsOf(pi)["loc"]; ok {
			t.Errorf("local variable visible on the process instance")
		}
		// SetVariables writes where the variable is defined, new ones on the instance.
		if err := e.eng.SetVariables(e.ctx, work.ID, map[string]any{"loc": "changed", "global": 1}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "loc of outer", e.varsOf(outer.ID)["loc"], "changed")
		wantEq(t, "instance variables", e.varsOf(pi), map[string]any{"global": int64(1)})
		// A local variable of the inner one hides the outer one.
		if err := e.eng.SetVariablesLocal(e.ctx, inner.ID, map[string]any{"loc": "inner"}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "loc seen by work", e.varsOf(work.ID)["loc"], "inner")
		wantEq(t, "loc of outer", e.varsOf(outer.ID)["loc"], "changed")

		e.complete(pi, "work", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "after")
		wantEq(t, "path", e.path(pi), "start,outer,outerStart,inner,innerStart,work,innerEnd,outerEnd,after")
		wantEq(t, "variables after the subprocesses", e.varsOf(pi), map[string]any{"global": int64(1)})
		for _, id := range []string{"outer", "inner"} {
			if h := e.historyAt(pi, id); len(h) != 1 || h[0].Canceled || h[0].EndTime == nil {
				t.Errorf("history of %s = %+v, want completed", id, h)
			}
		}
	})
}

const callerProcess = `<startEvent id="start"/>
	<callActivity id="call" calledElement="child">
	  <extensionElements>
	    <camunda:in source="a" target="childA"/>
	    <camunda:in sourceExpression="${a * 2}" target="doubled"/>
	    <camunda:in businessKey="#{execution.processBusinessKey}"/>
	    <camunda:out source="result" target="childResult"/>
	    <camunda:out sourceExpression="${result == 'ok'}" target="fine"/>
	  </extensionElements>
	</callActivity>
	<userTask id="after"/>`

const childProcess = `<startEvent id="cStart"/><userTask id="childWork"/><endEvent id="cEnd"/>`

func TestElementCallActivity(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("child", xmlDefs(xmlProcess("child", childProcess, xmlChain("cStart", "childWork", "cEnd"))))
		e.deploy("caller", xmlDefs(xmlProcess("caller", callerProcess, xmlChain("start", "call", "after"))))
		pi, err := e.eng.Start(e.ctx, bpmnlite.StartRequest{Key: "caller", BusinessKey: "order-1", Variables: map[string]any{"a": 5, "b": "not passed"}})
		if err != nil {
			t.Fatal(err)
		}
		children, err := e.eng.ProcessInstances(e.ctx, bpmnlite.ProcessInstanceQuery{ProcessDefinitionKey: "child"})
		if err != nil || len(children) != 1 {
			t.Fatalf("child instances = %d, %v", len(children), err)
		}
		child := children[0]
		if child.SuperProcessInstanceID != pi || child.BusinessKey != "order-1" || child.State != "ACTIVE" {
			t.Errorf("child history = %+v, want super %s and business key order-1", child, pi)
		}
		if h := e.historyAt(pi, "call"); len(h) != 1 || h[0].CalledProcessInstanceID != child.ID || h[0].EndTime != nil {
			t.Errorf("history of call = %+v, want running, calling %s", h, child.ID)
		}
		wantEq(t, "child variables", e.varsOf(child.ID), map[string]any{"childA": int64(5), "doubled": int64(10)})
		wantEq(t, "child tasks", e.taskKeys(child.ID), "childWork")
		wantEq(t, "caller tasks", e.taskKeys(pi), "")
		wantEq(t, "caller waits at call", e.execAt(pi, "call").IsActive, false)
		if xs, err := e.eng.Executions(e.ctx, bpmnlite.ExecutionQuery{ID: child.ID}); err != nil || len(xs) != 1 || xs[0].SuperExecutionID != e.execAt(pi, "call").ID {
			t.Errorf("child root = %+v (%v), want the call activity's execution as super execution", xs, err)
		}

		e.complete(child.ID, "childWork", map[string]any{"result": "ok"})
		wantEq(t, "child state", e.state(child.ID), "COMPLETED")
		wantEq(t, "caller tasks", e.taskKeys(pi), "after")
		vars := e.varsOf(pi)
		wantEq(t, "childResult", vars["childResult"], "ok")
		wantEq(t, "fine", vars["fine"], true)
		for _, name := range []string{"childA", "doubled", "result"} {
			if _, ok := vars[name]; ok {
				t.Errorf("caller got unmapped variable %s", name)
			}
		}
		wantEq(t, "caller path", e.path(pi), "start,call,after")
	})
}

func TestElementCallActivityAllVariables(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("child", xmlDefs(xmlProcess("child", childProcess, xmlChain("cStart", "childWork", "cEnd"))))
		e.deploy("caller", xmlDefs(xmlProcess("caller", `<startEvent id="start"/>
			<callActivity id="call" calledElement="${which}"><extensionElements>
			  <camunda:in variables="all"/><camunda:out variables="all"/>
			</extensionElements></callActivity><userTask id="after"/>`, xmlChain("start", "call", "after"))))
		pi := e.start("caller", map[string]any{"which": "child", "x": 1, "list": []any{"a"}})
		children, _ := e.eng.ProcessInstances(e.ctx, bpmnlite.ProcessInstanceQuery{ProcessDefinitionKey: "child", State: "ACTIVE"})
		if len(children) != 1 {
			t.Fatalf("child instances = %d", len(children))
		}
		child := children[0].ID
		wantEq(t, "child variables", e.varsOf(child), map[string]any{"which": "child", "x": int64(1), "list": []any{"a"}})
		e.complete(child, "childWork", map[string]any{"x": 2, "y": "new"})
		wantEq(t, "caller variables", e.varsOf(pi), map[string]any{"which": "child", "x": int64(2), "y": "new", "list": []any{"a"}})
		wantEq(t, "caller tasks", e.taskKeys(pi), "after")
	})
}

// An interrupting boundary event on a call activity ends the called instance.
func TestElementCallActivityInterrupted(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("child", xmlDefs(xmlProcess("child", childProcess, xmlChain("cStart", "childWork", "cEnd"))))
		e.deploy("caller", xmlDefs(xmlProcess("caller", `<startEvent id="start"/><callActivity id="call" calledElement="child"/>
			<endEvent id="end"/><userTask id="tooLate"/>`, boundaryTimer("timeout", "call", "true", "timeDuration", "P1D"),
			xmlChain("start", "call", "end"), xmlChain("timeout", "tooLate"))))
		pi := e.start("caller", nil)
		children, _ := e.eng.ProcessInstances(e.ctx, bpmnlite.ProcessInstanceQuery{ProcessDefinitionKey: "child"})
		if len(children) != 1 {
			t.Fatalf("child instances = %d", len(children))
		}
		child := children[0].ID
		wantEq(t, "due jobs", e.runDue(24*time.Hour), 1)
		wantEq(t, "caller tasks", e.taskKeys(pi), "tooLate")
		wantEq(t, "child tasks", e.taskKeys(child), "")
		wantEq(t, "child executions", len(e.executions(child, "")), 0)
		wantEq(t, "child state", e.state(child), "INTERNALLY_TERMINATED")
	})
}

// A called process that ends at once resumes the caller within the same call.
func TestElementCallActivitySynchronousChild(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("child", xmlDefs(xmlProcess("child", `<startEvent id="cStart"/><serviceTask id="calc" camunda:expression="${n + 1}" camunda:resultVariable="m"/>
			<endEvent id="cEnd"/>`, xmlChain("cStart", "calc", "cEnd"))))
		e.deploy("caller", xmlDefs(xmlProcess("caller", `<startEvent id="start"/>
			<callActivity id="call" calledElement="child"><extensionElements>
			  <camunda:in source="n" target="n"/><camunda:out source="m" target="m"/>
			</extensionElements></callActivity><endEvent id="end"/>`, xmlChain("start", "call", "end"))))
		pi := e.start("caller", map[string]any{"n": 41})
		wantEq(t, "caller state", e.state(pi), "COMPLETED")
		children, _ := e.eng.ProcessInstances(e.ctx, bpmnlite.ProcessInstanceQuery{ProcessDefinitionKey: "child"})
		if len(children) != 1 || children[0].State != "COMPLETED" || children[0].SuperProcessInstanceID != pi {
			t.Errorf("child instances = %+v", children)
		}
		// The caller has ended: read the result from its activity history.
		wantEq(t, "caller path", e.path(pi), "start,call,end")
	})
}

// taskVars returns, per open task of pi (sorted by the given variable), the
// variables its execution sees.
func taskVars(e *env, pi string) []map[string]any {
	e.t.Helper()
	var out []map[string]any
	for _, task := range e.tasks(pi) {
		out = append(out, e.varsOf(task.ExecutionID))
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return int(a["loopCounter"].(int64) - b["loopCounter"].(int64)) })
	return out
}

func TestElementMultiInstanceParallel(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/>
			<userTask id="review"><multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<userTask id="after"/>`, xmlChain("start", "review", "after"))))
		pi := e.start("p", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "review,review,review")
		inner := e.executions(pi, "review")
		wantEq(t, "inner executions", len(inner), 3)
		body := e.treeRow(pi, inner[0].ParentID)
		if !body.IsScope || body.ActivityID != "" || len(e.executions(pi, "review#multiInstanceBody")) != 0 {
			t.Errorf("body %+v, want a scope at no activity, as no execution is at the body", body)
		}
		for _, x := range inner {
			if x.ParentID != body.ID {
				t.Errorf("inner execution %s has parent %s, want the body %s", x.ID, x.ParentID, body.ID)
			}
		}
		for i, vars := range taskVars(e, pi) {
			wantEq(t, "loopCounter", vars["loopCounter"], int64(i))
			wantEq(t, "nrOfInstances", vars["nrOfInstances"], int64(3))
			wantEq(t, "nrOfActiveInstances", vars["nrOfActiveInstances"], int64(3))
			wantEq(t, "nrOfCompletedInstances", vars["nrOfCompletedInstances"], int64(0))
		}
		e.complete(pi, "review", nil)
		vars := e.varsOf(body.ID)
		wantEq(t, "completed after one", vars["nrOfCompletedInstances"], int64(1))
		wantEq(t, "active after one", vars["nrOfActiveInstances"], int64(2))
		e.complete(pi, "review", nil)
		e.complete(pi, "review", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "after")
		// The body's variables go with it.
		for _, name := range []string{"nrOfInstances", "loopCounter"} {
			if _, ok := e.varsOf(pi)[name]; ok {
				t.Errorf("%s left on the instance", name)
			}
		}
		wantEq(t, "path", e.path(pi), "start,review#multiInstanceBody,review,review,review,after")
	})
}

func TestElementMultiInstanceSequential(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/>
			<userTask id="step"><multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>${n}</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<userTask id="after"/>`, xmlChain("start", "step", "after"))))
		pi := e.start("p", map[string]any{"n": 3})
		for i := int64(0); i < 3; i++ {
			wantEq(t, "tasks", e.taskKeys(pi), "step")
			vars := taskVars(e, pi)[0]
			wantEq(t, "loopCounter", vars["loopCounter"], i)
			wantEq(t, "nrOfCompletedInstances", vars["nrOfCompletedInstances"], i)
			wantEq(t, "nrOfActiveInstances", vars["nrOfActiveInstances"], int64(1))
			wantEq(t, "nrOfInstances", vars["nrOfInstances"], int64(3))
			e.complete(pi, "step", nil)
		}
		wantEq(t, "tasks", e.taskKeys(pi), "after")

		// A cardinality of 0 passes at once.
		pi = e.start("p", map[string]any{"n": 0})
		wantEq(t, "tasks with n=0", e.taskKeys(pi), "after")
	})
}

func TestElementMultiInstanceCollection(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/>
			<userTask id="approve" camunda:assignee="${approver}">
			  <multiInstanceLoopCharacteristics camunda:collection="approvers" camunda:elementVariable="approver"/>
			</userTask>
			<userTask id="seq" camunda:assignee="${who}">
			  <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="${approvers}" camunda:elementVariable="who"/>
			</userTask><userTask id="after"/>`, xmlChain("start", "approve", "seq", "after"))))
		pi := e.start("p", map[string]any{"approvers": []any{"kermit", "gonzo", "fozzie"}})
		var assignees []string
		for _, task := range e.tasks(pi) {
			assignees = append(assignees, task.Assignee)
			// The element variable is local to its instance.
			vars := e.varsOf(task.ExecutionID)
			wantEq(t, "approver variable", vars["approver"], task.Assignee)
		}
		slices.Sort(assignees)
		wantEq(t, "assignees", strings.Join(assignees, ","), "fozzie,gonzo,kermit")
		if _, ok := e.varsOf(pi)["approver"]; ok {
			t.Errorf("element variable visible on the instance")
		}
		for range 3 {
			e.complete(pi, "approve", nil)
		}
		var order []string
		for range 3 {
			ts := e.tasks(pi)
			if len(ts) != 1 || ts[0].TaskDefinitionKey != "seq" {
				t.Fatalf("tasks = %s, want one seq", e.taskKeys(pi))
			}
			order = append(order, ts[0].Assignee)
			e.complete(pi, "seq", nil)
		}
		wantEq(t, "sequential order", strings.Join(order, ","), "kermit,gonzo,fozzie")
		wantEq(t, "tasks", e.taskKeys(pi), "after")
	})
}

// The completion condition ends the body early, cancelling the instances
// still running.
func TestElementMultiInstanceCompletionCondition(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/>
			<userTask id="vote"><multiInstanceLoopCharacteristics><loopCardinality>4</loopCardinality>
			  <completionCondition>${nrOfCompletedInstances/nrOfInstances >= 0.5}</completionCondition>
			</multiInstanceLoopCharacteristics></userTask><userTask id="after"/>`, xmlChain("start", "vote", "after"))))
		pi := e.start("p", nil)
		e.complete(pi, "vote", nil)
		wantEq(t, "tasks after one vote", e.taskKeys(pi), "vote,vote,vote")
		e.complete(pi, "vote", nil)
		wantEq(t, "tasks after two votes", e.taskKeys(pi), "after")
		canceled := 0
		for _, h := range e.historyAt(pi, "vote") {
			if h.Canceled {
				canceled++
			}
		}
		wantEq(t, "canceled votes", canceled, 2)
		wantEq(t, "executions", len(e.executions(pi, "")), 1) // the instance, at after
	})
}

func TestElementMultiInstanceSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/>
			<subProcess id="sub"><multiInstanceLoopCharacteristics camunda:collection="items" camunda:elementVariable="item"/>
			  <startEvent id="subStart"/><userTask id="pack"/><endEvent id="subEnd"/>`, xmlChain("subStart", "pack", "subEnd"),
			`</subProcess><userTask id="after"/>`, xmlChain("start", "sub", "after"))))
		pi := e.start("p", map[string]any{"items": []any{"book", "pen"}})
		wantEq(t, "tasks", e.taskKeys(pi), "pack,pack")
		wantEq(t, "subprocess instances", len(e.executions(pi, "pack")), 2)
		var items []string
		for _, task := range e.tasks(pi) {
			items = append(items, e.varsOf(task.ExecutionID)["item"].(string))
		}
		slices.Sort(items)
		wantEq(t, "items", strings.Join(items, ","), "book,pen")
		e.complete(pi, "pack", nil)
		wantEq(t, "subprocess instances", len(e.executions(pi, "pack")), 1)
		e.complete(pi, "pack", nil)
		wantEq(t, "tasks", e.taskKeys(pi), "after")
		wantEq(t, "sub passes", len(e.historyAt(pi, "sub")), 2)
	})
}

// asyncBefore on the activity puts one job before the body; on the loop
// characteristics, one job before each instance.
func TestElementMultiInstanceAsync(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deploy("p", xmlDefs(xmlProcess("p", `<startEvent id="start"/>
			<userTask id="onBody" camunda:asyncBefore="true"><multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<userTask id="onInner"><multiInstanceLoopCharacteristics camunda:asyncBefore="true"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<userTask id="after"/>`, xmlChain("start", "onBody", "onInner", "after"))))
		pi := e.start("p", nil)
		j := e.oneJob(pi)
		if j.ActivityID != "onBody#multiInstanceBody" || j.HandlerType != "async-before" {
			t.Errorf("job = %+v, want async-before on the body", j)
		}
		wantEq(t, "tasks before the job", e.taskKeys(pi), "")
		e.runJob(j.ID)
		wantEq(t, "tasks", e.taskKeys(pi), "onBody,onBody,onBody")
		for range 3 {
			e.complete(pi, "onBody", nil)
		}
		js := e.jobs(pi)
		wantEq(t, "jobs for the inner instances", len(js), 3)
		for _, j := range js {
			if j.ActivityID != "onInner" || j.HandlerType != "async-before" {
				t.Errorf("job = %+v, want async-before on onInner", j)
			}
		}
		wantEq(t, "tasks before the jobs", e.taskKeys(pi), "")
		wantEq(t, "inner instances waiting for their jobs", len(e.executions(pi, "onInner")), 3)
		e.drain(10)
		wantEq(t, "tasks", e.taskKeys(pi), "onInner,onInner,onInner")
		// The job definitions tell body and inner jobs apart.
		defs, err := e.eng.JobDefinitions(e.ctx, j.ProcessDefinitionID, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range defs {
			got = append(got, d.ActivityID+"/"+d.JobConfiguration)
		}
		wantEq(t, "job definitions", strings.Join(got, " "), "onBody#multiInstanceBody/async-before onInner/async-before")
	})
}
