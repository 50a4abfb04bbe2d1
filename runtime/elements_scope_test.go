package runtime_test

// Embedded subprocesses, call activities and multi-instance activities.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

func TestElementNestedSubprocesses(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<subProcess id="outer"><startEvent id="outerStart"/>
			  <subProcess id="inner"><startEvent id="innerStart"/><userTask id="work"/><endEvent id="innerEnd"/>`,
			enginetest.Chain("innerStart", "work", "innerEnd"),
			`</subProcess><endEvent id="outerEnd"/>`, enginetest.Chain("outerStart", "inner", "outerEnd"),
			`</subProcess><userTask id="after"/>`, enginetest.Chain("start", "outer", "after"))))
		pi := e.Start("p", nil)
		wantEq(t, "path", e.Path(pi), "start,outer,outerStart,inner,innerStart,work")
		// inner's scope execution runs work, in outer's scope execution,
		// in the process instance; as in Camunda, an execution a child
		// runs in is at no activity.
		work := e.ExecAt(pi, "work")
		inner := work
		outer := e.treeRow(pi, inner.ParentID)
		root := e.treeRow(pi, outer.ParentID)
		if root.ID != pi || root.ActivityID != "" || outer.ActivityID != "" || !outer.IsScope || !inner.IsScope ||
			len(e.Executions(pi, "")) != 3 || len(e.Executions(pi, "outer"))+len(e.Executions(pi, "inner")) != 0 {
			t.Errorf("execution tree: %s, want the process instance, outer's scope and inner's scope at work", harness.ExecList(e.Executions(pi, "")))
		}

		// A local variable of the outer subprocess is seen inside, not outside.
		if err := e.Eng.SetVariablesLocal(e.Ctx, outer.ID, map[string]any{"loc": "outer"}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "loc inside", e.VarsOf(work.ID)["loc"], "outer")
		if _, ok := e.VarsOf(pi)["loc"]; ok {
			t.Errorf("local variable visible on the process instance")
		}
		// SetVariables writes where the variable is defined, new ones on the instance.
		if err := e.Eng.SetVariables(e.Ctx, work.ID, map[string]any{"loc": "changed", "global": 1}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "loc of outer", e.VarsOf(outer.ID)["loc"], "changed")
		wantEq(t, "instance variables", e.VarsOf(pi), map[string]any{"global": int64(1)})
		// A local variable of the inner one hides the outer one.
		if err := e.Eng.SetVariablesLocal(e.Ctx, inner.ID, map[string]any{"loc": "inner"}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "loc seen by work", e.VarsOf(work.ID)["loc"], "inner")
		wantEq(t, "loc of outer", e.VarsOf(outer.ID)["loc"], "changed")

		e.Complete(pi, "work", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		wantEq(t, "path", e.Path(pi), "start,outer,outerStart,inner,innerStart,work,innerEnd,outerEnd,after")
		wantEq(t, "variables after the subprocesses", e.VarsOf(pi), map[string]any{"global": int64(1)})
		for _, id := range []string{"outer", "inner"} {
			if h := e.HistoryAt(pi, id); len(h) != 1 || h[0].Canceled || h[0].EndTime == nil {
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
		e.Deploy("child", enginetest.Defs(enginetest.Executable("child", childProcess, enginetest.Chain("cStart", "childWork", "cEnd"))))
		e.Deploy("caller", enginetest.Defs(enginetest.Executable("caller", callerProcess, enginetest.Chain("start", "call", "after"))))
		pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "caller", BusinessKey: "order-1", Variables: map[string]any{"a": 5, "b": "not passed"}})
		if err != nil {
			t.Fatal(err)
		}
		children, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "child"})
		if err != nil || len(children) != 1 {
			t.Fatalf("child instances = %d, %v", len(children), err)
		}
		child := children[0]
		if child.SuperProcessInstanceID != pi || child.BusinessKey != "order-1" || child.State != "ACTIVE" {
			t.Errorf("child history = %+v, want super %s and business key order-1", child, pi)
		}
		if h := e.HistoryAt(pi, "call"); len(h) != 1 || h[0].CalledProcessInstanceID != child.ID || h[0].EndTime != nil {
			t.Errorf("history of call = %+v, want running, calling %s", h, child.ID)
		}
		wantEq(t, "child variables", e.VarsOf(child.ID), map[string]any{"childA": int64(5), "doubled": int64(10)})
		wantEq(t, "child tasks", e.TaskKeys(child.ID), "childWork")
		wantEq(t, "caller tasks", e.TaskKeys(pi), "")
		wantEq(t, "caller waits at call", e.ExecAt(pi, "call").IsActive, false)
		if xs, err := e.Eng.Executions(e.Ctx, bpmnlite.ExecutionQuery{ID: child.ID}); err != nil || len(xs) != 1 || xs[0].SuperExecutionID != e.ExecAt(pi, "call").ID {
			t.Errorf("child root = %+v (%v), want the call activity's execution as super execution", xs, err)
		}

		e.Complete(child.ID, "childWork", map[string]any{"result": "ok"})
		wantEq(t, "child state", e.State(child.ID), "COMPLETED")
		wantEq(t, "caller tasks", e.TaskKeys(pi), "after")
		vars := e.VarsOf(pi)
		wantEq(t, "childResult", vars["childResult"], "ok")
		wantEq(t, "fine", vars["fine"], true)
		for _, name := range []string{"childA", "doubled", "result"} {
			if _, ok := vars[name]; ok {
				t.Errorf("caller got unmapped variable %s", name)
			}
		}
		wantEq(t, "caller path", e.Path(pi), "start,call,after")
	})
}

func TestElementCallActivityAllVariables(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("child", enginetest.Defs(enginetest.Executable("child", childProcess, enginetest.Chain("cStart", "childWork", "cEnd"))))
		e.Deploy("caller", enginetest.Defs(enginetest.Executable("caller", `<startEvent id="start"/>
			<callActivity id="call" calledElement="${which}"><extensionElements>
			  <camunda:in variables="all"/><camunda:out variables="all"/>
			</extensionElements></callActivity><userTask id="after"/>`, enginetest.Chain("start", "call", "after"))))
		pi := e.Start("caller", map[string]any{"which": "child", "x": 1, "list": []any{"a"}})
		children, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "child", State: "ACTIVE"})
		if len(children) != 1 {
			t.Fatalf("child instances = %d", len(children))
		}
		child := children[0].ID
		wantEq(t, "child variables", e.VarsOf(child), map[string]any{"which": "child", "x": int64(1), "list": []any{"a"}})
		e.Complete(child, "childWork", map[string]any{"x": 2, "y": "new"})
		wantEq(t, "caller variables", e.VarsOf(pi), map[string]any{"which": "child", "x": int64(2), "y": "new", "list": []any{"a"}})
		wantEq(t, "caller tasks", e.TaskKeys(pi), "after")
	})
}

// An interrupting boundary event on a call activity ends the called instance.
func TestElementCallActivityInterrupted(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("child", enginetest.Defs(enginetest.Executable("child", childProcess, enginetest.Chain("cStart", "childWork", "cEnd"))))
		e.Deploy("caller", enginetest.Defs(enginetest.Executable("caller", `<startEvent id="start"/><callActivity id="call" calledElement="child"/>
			<endEvent id="end"/><userTask id="tooLate"/>`, boundaryTimer("timeout", "call", "true", "timeDuration", "P1D"),
			enginetest.Chain("start", "call", "end"), enginetest.Chain("timeout", "tooLate"))))
		pi := e.Start("caller", nil)
		children, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "child"})
		if len(children) != 1 {
			t.Fatalf("child instances = %d", len(children))
		}
		child := children[0].ID
		wantEq(t, "due jobs", e.runDue(24*time.Hour), 1)
		wantEq(t, "caller tasks", e.TaskKeys(pi), "tooLate")
		wantEq(t, "child tasks", e.TaskKeys(child), "")
		wantEq(t, "child executions", len(e.Executions(child, "")), 0)
		wantEq(t, "child state", e.State(child), "INTERNALLY_TERMINATED")
	})
}

// A called process that ends at once resumes the caller within the same call.
func TestElementCallActivitySynchronousChild(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("child", enginetest.Defs(enginetest.Executable("child", `<startEvent id="cStart"/><serviceTask id="calc" camunda:expression="${n + 1}" camunda:resultVariable="m"/>
			<endEvent id="cEnd"/>`, enginetest.Chain("cStart", "calc", "cEnd"))))
		e.Deploy("caller", enginetest.Defs(enginetest.Executable("caller", `<startEvent id="start"/>
			<callActivity id="call" calledElement="child"><extensionElements>
			  <camunda:in source="n" target="n"/><camunda:out source="m" target="m"/>
			</extensionElements></callActivity><endEvent id="end"/>`, enginetest.Chain("start", "call", "end"))))
		pi := e.Start("caller", map[string]any{"n": 41})
		wantEq(t, "caller state", e.State(pi), "COMPLETED")
		children, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "child"})
		if len(children) != 1 || children[0].State != "COMPLETED" || children[0].SuperProcessInstanceID != pi {
			t.Errorf("child instances = %+v", children)
		}
		// The caller has ended: read the result from its activity history.
		wantEq(t, "caller path", e.Path(pi), "start,call,end")
	})
}

// taskVars returns, per open task of pi (sorted by the given variable), the
// variables its execution sees.
func taskVars(e *env, pi string) []map[string]any {
	e.T.Helper()
	var out []map[string]any
	for _, task := range e.Tasks(pi) {
		out = append(out, e.VarsOf(task.ExecutionID))
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return int(a["loopCounter"].(int64) - b["loopCounter"].(int64)) })
	return out
}

func TestElementMultiInstanceParallel(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="review"><multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<userTask id="after"/>`, enginetest.Chain("start", "review", "after"))))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "review,review,review")
		inner := e.Executions(pi, "review")
		wantEq(t, "inner executions", len(inner), 3)
		body := e.treeRow(pi, inner[0].ParentID)
		if !body.IsScope || body.ActivityID != "" || len(e.Executions(pi, "review#multiInstanceBody")) != 0 {
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
		e.Complete(pi, "review", nil)
		vars := e.VarsOf(body.ID)
		wantEq(t, "completed after one", vars["nrOfCompletedInstances"], int64(1))
		wantEq(t, "active after one", vars["nrOfActiveInstances"], int64(2))
		e.Complete(pi, "review", nil)
		e.Complete(pi, "review", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		// The body's variables go with it.
		for _, name := range []string{"nrOfInstances", "loopCounter"} {
			if _, ok := e.VarsOf(pi)[name]; ok {
				t.Errorf("%s left on the instance", name)
			}
		}
		wantEq(t, "path", e.Path(pi), "start,review#multiInstanceBody,review,review,review,after")
	})
}

func TestElementMultiInstanceSequential(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="step"><multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>${n}</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<userTask id="after"/>`, enginetest.Chain("start", "step", "after"))))
		pi := e.Start("p", map[string]any{"n": 3})
		for i := int64(0); i < 3; i++ {
			wantEq(t, "tasks", e.TaskKeys(pi), "step")
			vars := taskVars(e, pi)[0]
			wantEq(t, "loopCounter", vars["loopCounter"], i)
			wantEq(t, "nrOfCompletedInstances", vars["nrOfCompletedInstances"], i)
			wantEq(t, "nrOfActiveInstances", vars["nrOfActiveInstances"], int64(1))
			wantEq(t, "nrOfInstances", vars["nrOfInstances"], int64(3))
			e.Complete(pi, "step", nil)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "after")

		// A cardinality of 0 passes at once.
		pi = e.Start("p", map[string]any{"n": 0})
		wantEq(t, "tasks with n=0", e.TaskKeys(pi), "after")
	})
}

func TestElementMultiInstanceCollection(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="approve" camunda:assignee="${approver}">
			  <multiInstanceLoopCharacteristics camunda:collection="approvers" camunda:elementVariable="approver"/>
			</userTask>
			<userTask id="seq" camunda:assignee="${who}">
			  <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="${approvers}" camunda:elementVariable="who"/>
			</userTask><userTask id="after"/>`, enginetest.Chain("start", "approve", "seq", "after"))))
		pi := e.Start("p", map[string]any{"approvers": []any{"kermit", "gonzo", "fozzie"}})
		var assignees []string
		for _, task := range e.Tasks(pi) {
			assignees = append(assignees, task.Assignee)
			// The element variable is local to its instance.
			vars := e.VarsOf(task.ExecutionID)
			wantEq(t, "approver variable", vars["approver"], task.Assignee)
		}
		slices.Sort(assignees)
		wantEq(t, "assignees", strings.Join(assignees, ","), "fozzie,gonzo,kermit")
		if _, ok := e.VarsOf(pi)["approver"]; ok {
			t.Errorf("element variable visible on the instance")
		}
		for range 3 {
			e.Complete(pi, "approve", nil)
		}
		var order []string
		for range 3 {
			ts := e.Tasks(pi)
			if len(ts) != 1 || ts[0].TaskDefinitionKey != "seq" {
				t.Fatalf("tasks = %s, want one seq", e.TaskKeys(pi))
			}
			order = append(order, ts[0].Assignee)
			e.Complete(pi, "seq", nil)
		}
		wantEq(t, "sequential order", strings.Join(order, ","), "kermit,gonzo,fozzie")
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
	})
}

// The completion condition ends the body early, cancelling the instances
// still running.
func TestElementMultiInstanceCompletionCondition(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="vote"><multiInstanceLoopCharacteristics><loopCardinality>4</loopCardinality>
			  <completionCondition>${nrOfCompletedInstances/nrOfInstances >= 0.5}</completionCondition>
			</multiInstanceLoopCharacteristics></userTask><userTask id="after"/>`, enginetest.Chain("start", "vote", "after"))))
		pi := e.Start("p", nil)
		e.Complete(pi, "vote", nil)
		wantEq(t, "tasks after one vote", e.TaskKeys(pi), "vote,vote,vote")
		e.Complete(pi, "vote", nil)
		wantEq(t, "tasks after two votes", e.TaskKeys(pi), "after")
		canceled := 0
		for _, h := range e.HistoryAt(pi, "vote") {
			if h.Canceled {
				canceled++
			}
		}
		wantEq(t, "canceled votes", canceled, 2)
		wantEq(t, "executions", len(e.Executions(pi, "")), 1) // the instance, at after
	})
}

func TestElementMultiInstanceSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<subProcess id="sub"><multiInstanceLoopCharacteristics camunda:collection="items" camunda:elementVariable="item"/>
			  <startEvent id="subStart"/><userTask id="pack"/><endEvent id="subEnd"/>`, enginetest.Chain("subStart", "pack", "subEnd"),
			`</subProcess><userTask id="after"/>`, enginetest.Chain("start", "sub", "after"))))
		pi := e.Start("p", map[string]any{"items": []any{"book", "pen"}})
		wantEq(t, "tasks", e.TaskKeys(pi), "pack,pack")
		wantEq(t, "subprocess instances", len(e.Executions(pi, "pack")), 2)
		var items []string
		for _, task := range e.Tasks(pi) {
			items = append(items, e.VarsOf(task.ExecutionID)["item"].(string))
		}
		slices.Sort(items)
		wantEq(t, "items", strings.Join(items, ","), "book,pen")
		e.Complete(pi, "pack", nil)
		wantEq(t, "subprocess instances", len(e.Executions(pi, "pack")), 1)
		e.Complete(pi, "pack", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "after")
		wantEq(t, "sub passes", len(e.HistoryAt(pi, "sub")), 2)
	})
}

// asyncBefore on the activity puts one job before the body; on the loop
// characteristics, one job before each instance.
func TestElementMultiInstanceAsync(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="onBody" camunda:asyncBefore="true"><multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<userTask id="onInner"><multiInstanceLoopCharacteristics camunda:asyncBefore="true"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<userTask id="after"/>`, enginetest.Chain("start", "onBody", "onInner", "after"))))
		pi := e.Start("p", nil)
		j := e.OneJob(pi)
		if j.ActivityID != "onBody#multiInstanceBody" || j.HandlerType != "async-before" {
			t.Errorf("job = %+v, want async-before on the body", j)
		}
		wantEq(t, "tasks before the job", e.TaskKeys(pi), "")
		e.runJob(j.ID)
		wantEq(t, "tasks", e.TaskKeys(pi), "onBody,onBody,onBody")
		for range 3 {
			e.Complete(pi, "onBody", nil)
		}
		js := e.Jobs(pi)
		wantEq(t, "jobs for the inner instances", len(js), 3)
		for _, j := range js {
			if j.ActivityID != "onInner" || j.HandlerType != "async-before" {
				t.Errorf("job = %+v, want async-before on onInner", j)
			}
		}
		wantEq(t, "tasks before the jobs", e.TaskKeys(pi), "")
		wantEq(t, "inner instances waiting for their jobs", len(e.Executions(pi, "onInner")), 3)
		e.Drain(10)
		wantEq(t, "tasks", e.TaskKeys(pi), "onInner,onInner,onInner")
		// The job definitions tell body and inner jobs apart.
		defs, err := e.Eng.JobDefinitions(e.Ctx, j.ProcessDefinitionID, "")
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
