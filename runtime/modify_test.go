package runtime_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Process instance modification, modelled on Camunda's
// ProcessInstanceModificationTest and
// ProcessInstanceModificationCancellationTest (their models, written
// inline: the corpus does not carry them).

// Camunda's ProcessInstanceModificationTest.subprocess.bpmn20.xml, with a
// boundary timer on the subprocess and an async service task.
var modificationModel = enginetest.Defs(enginetest.Executable("subprocess",
	`<startEvent id="theStart"/><userTask id="task1"/>
	<subProcess id="subProcess">
	  <startEvent id="subProcessStart"/><userTask id="subProcessTask"/><endEvent id="subProcessEnd"/>
	  `+enginetest.Chain("subProcessStart", "subProcessTask", "subProcessEnd")+`
	</subProcess>
	<boundaryEvent id="timer" attachedToRef="subProcess"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
	<userTask id="afterTimer"/>
	<serviceTask id="asyncTask" camunda:asyncBefore="true" camunda:expression="${true}"/>
	<userTask id="task2"/><endEvent id="theEnd"/>`,
	enginetest.Chain("theStart", "task1", "subProcess", "task2", "theEnd"),
	enginetest.Chain("timer", "afterTimer"), enginetest.Chain("asyncTask", "theEnd")))

// shape renders an activity instance tree as activity ids, children in
// brackets: "subprocess[subProcess[subProcessTask],task1]"; transitions
// are marked with "~".
func shape(n *bpmnlite.ActivityInstance) string {
	var parts []string
	for _, ch := range n.Children {
		parts = append(parts, shape(ch))
	}
	for _, tr := range n.Transitions {
		parts = append(parts, "~"+tr.ActivityID)
	}
	id := n.ActivityID
	if n.ParentActivityInstanceID == "" {
		id = strings.SplitN(id, ":", 2)[0] // the definition's key
	}
	if len(parts) == 0 {
		return id
	}
	slices.Sort(parts)
	return id + "[" + strings.Join(parts, ",") + "]"
}

func (e *env) activityTree(pi string) *bpmnlite.ActivityInstance {
	e.T.Helper()
	n, err := e.Eng.ActivityInstances(e.Ctx, pi)
	if err != nil {
		e.T.Fatalf("activity instances of %s: %v", pi, err)
	}
	return n
}

// instanceAt returns the id of the only activity instance of activity in
// pi's tree.
func (e *env) instanceAt(pi, activity string) string {
	e.T.Helper()
	var ids []string
	var walk func(n *bpmnlite.ActivityInstance)
	walk = func(n *bpmnlite.ActivityInstance) {
		if n.ActivityID == activity {
			ids = append(ids, n.ID)
		}
		for _, ch := range n.Children {
			walk(ch)
		}
	}
	walk(e.activityTree(pi))
	if len(ids) != 1 {
		e.T.Fatalf("activity instances of %s: %d, want 1", activity, len(ids))
	}
	return ids[0]
}

func (e *env) modify(pi string, ins ...bpmnlite.ModificationInstruction) {
	e.T.Helper()
	if err := e.Eng.ModifyProcessInstance(e.Ctx, pi, bpmnlite.ModificationRequest{Instructions: ins}); err != nil {
		e.T.Fatalf("modify %s: %v", pi, err)
	}
}

func (e *env) wantShape(pi, want string) {
	e.T.Helper()
	if got := shape(e.activityTree(pi)); got != want {
		e.T.Errorf("activity instances %s, want %s", got, want)
	}
}

func startBefore(activity string) bpmnlite.ModificationInstruction {
	return bpmnlite.ModificationInstruction{Type: bpmnlite.StartBeforeActivity, ActivityID: activity}
}

func cancelInstance(id string) bpmnlite.ModificationInstruction {
	return bpmnlite.ModificationInstruction{Type: bpmnlite.CancelActivityInstance, ActivityInstanceID: id}
}

// testStartBeforeTaskInsideSubprocess: the subprocess scope is created,
// and completing the task inside completes it and continues after it.
func TestModifyStartBeforeInSubprocessCreatesScope(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("subprocess", modificationModel)
		pi := e.Start("subprocess", nil)
		e.modify(pi, startBefore("subProcessTask"))
		e.wantShape(pi, "subprocess[subProcess[subProcessTask],task1]")
		if got := e.TaskKeys(pi); got != "subProcessTask,task1" {
			t.Errorf("tasks %s", got)
		}
		// The entered subprocess's boundary timer is armed.
		if js := e.Jobs(pi); len(js) != 1 || js[0].Type != persistence.JobTimer || js[0].ActivityID != "timer" {
			t.Errorf("jobs %+v, want the boundary timer", js)
		}
		e.Complete(pi, "subProcessTask", nil)
		if got := e.TaskKeys(pi); got != "task1,task2" {
			t.Errorf("tasks after the subprocess %s, want task1,task2", got)
		}
		if js := e.Jobs(pi); len(js) != 0 {
			t.Errorf("the timer outlived its subprocess: %d jobs", len(js))
		}
		e.Complete(pi, "task1", nil) // into the subprocess again, from its start event
		e.Complete(pi, "subProcessTask", nil)
		e.Complete(pi, "task2", nil)
		e.Complete(pi, "task2", nil)
		if !e.Ended(pi) || e.State(pi) != persistence.StateCompleted {
			t.Errorf("instance ended %v (%s), want completed", e.Ended(pi), e.State(pi))
		}
	})
}

// ProcessInstanceModificationCancellationTest: cancelling the only
// activity instance cancels the instance; cancelling the last path of a
// subprocess cancels the subprocess.
func TestModifyCancelLastChildCancelsScope(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("subprocess", modificationModel)
		pi := e.Start("subprocess", nil)
		e.modify(pi, startBefore("subProcessTask"))
		e.modify(pi, cancelInstance(e.instanceAt(pi, "subProcessTask")))
		e.wantShape(pi, "subprocess[task1]")
		if js := e.Jobs(pi); len(js) != 0 {
			t.Errorf("the cancelled subprocess's timer is left: %d jobs", len(js))
		}
		if hs := e.HistoryAt(pi, "subProcess"); len(hs) != 1 || hs[0].EndTime == nil || !hs[0].Canceled {
			t.Errorf("subprocess history %+v, want one canceled instance", hs)
		}
		e.modify(pi, cancelInstance(e.instanceAt(pi, "task1")))
		if !e.Ended(pi) || e.State(pi) != persistence.StateExternallyTerminated {
			t.Errorf("instance ended %v (%s), want externally terminated", e.Ended(pi), e.State(pi))
		}
	})
}

// testCancellationAndStartBefore: both in one call, on the process
// instance's own execution.
func TestModifyCancelAndStartInOneCall(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("subprocess", modificationModel)
		pi := e.Start("subprocess", nil)
		e.modify(pi, cancelInstance(e.instanceAt(pi, "task1")), startBefore("task2"))
		e.wantShape(pi, "subprocess[task2]")
		if xs := e.Executions(pi, ""); len(xs) != 1 {
			t.Errorf("executions %d, want the process instance only", len(xs))
		}
		if hs := e.HistoryAt(pi, "task1"); len(hs) != 1 || !hs[0].Canceled {
			t.Errorf("task1 history %+v, want canceled", hs)
		}
		e.Complete(pi, "task2", nil)
		if e.State(pi) != persistence.StateCompleted {
			t.Errorf("state %s", e.State(pi))
		}

		// The tree's root is the process instance: cancelling it cancels
		// everything, a start after it keeps the instance.
		pi = e.Start("subprocess", nil)
		e.modify(pi, startBefore("subProcessTask"), cancelInstance(pi), startBefore("task2"))
		e.wantShape(pi, "subprocess[task2]")
	})
}

// testStartBeforeAsync / testCancelTransitionInstance: starting before an
// asyncBefore activity makes its job, a transition instance that a cancel
// instruction accepts.
func TestModifyAsyncBeforeCreatesJob(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("subprocess", modificationModel)
		pi := e.Start("subprocess", nil)
		e.modify(pi, startBefore("asyncTask"))
		e.wantShape(pi, "subprocess[task1,~asyncTask]")
		js := e.Jobs(pi)
		if len(js) != 1 || js[0].ActivityID != "asyncTask" {
			t.Fatalf("jobs %+v, want the async continuation of asyncTask", js)
		}
		tr := e.activityTree(pi).Transitions[0]
		e.modify(pi, bpmnlite.ModificationInstruction{Type: bpmnlite.CancelTransitionInstance, TransitionInstanceID: tr.ID})
		e.wantShape(pi, "subprocess[task1]")
		if js := e.Jobs(pi); len(js) != 0 {
			t.Errorf("jobs left %d", len(js))
		}
		e.modify(pi, startBefore("asyncTask"))
		e.ExecJob(e.OneJob(pi).ID)
		e.wantShape(pi, "subprocess[task1]")
	})
}

// startAfterActivity and startTransition continue along the flow; the
// variables of a start go where setVariable puts them, the local ones
// to the execution entering the activity.
func TestModifyStartAfterAndTransitionWithVariables(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("subprocess", modificationModel)
		pi := e.Start("subprocess", nil)
		e.modify(pi, bpmnlite.ModificationInstruction{Type: bpmnlite.StartAfterActivity, ActivityID: "subProcess",
			Variables: map[string]any{"global": "g"}, LocalVariables: map[string]any{"local": "l"}})
		e.wantShape(pi, "subprocess[task1,task2]")
		if e.Var(pi, "global") != "g" || e.Var(pi, "local") != nil {
			t.Errorf("instance variables %v, want global only", e.VarsOf(pi))
		}
		var local string
		for _, task := range e.Tasks(pi) {
			if task.TaskDefinitionKey == "task2" {
				local = task.ExecutionID
			}
		}
		if v := e.VarsOf(local)["local"]; v != "l" {
			t.Errorf("local variable at task2's execution %v", v)
		}
		e.modify(pi, bpmnlite.ModificationInstruction{Type: bpmnlite.StartTransition, TransitionID: "task2-theEnd"},
			bpmnlite.ModificationInstruction{Type: bpmnlite.CancelAllForActivity, ActivityID: "task2"})
		e.wantShape(pi, "subprocess[task1]")
		if !strings.Contains(e.Path(pi), "theEnd") {
			t.Errorf("path %s, want theEnd reached", e.Path(pi))
		}
	})
}

// Several instances of a subprocess: a start inside one needs its
// ancestor named; naming it starts there.
func TestModifyAncestorSelection(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("subprocess", modificationModel)
		pi := e.Start("subprocess", nil)
		e.modify(pi, startBefore("subProcess"), startBefore("subProcess"))
		err := e.Eng.ModifyProcessInstance(e.Ctx, pi, bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{startBefore("subProcessTask")}})
		if !errors.Is(err, bpmnlite.ErrInvalidInstruction) || !strings.Contains(err.Error(), "ambiguous") {
			t.Fatalf("start inside one of two subprocesses: %v, want ambiguous", err)
		}
		subs := e.activityTree(pi).Children
		var sub *bpmnlite.ActivityInstance
		for _, n := range subs {
			if n.ActivityID == "subProcess" {
				sub = n
			}
		}
		in := startBefore("subProcessTask")
		in.AncestorActivityInstanceID = sub.ID
		e.modify(pi, in)
		e.wantShape(pi, "subprocess[subProcess[subProcessTask,subProcessTask],subProcess[subProcessTask],task1]")
		// task1's instance is no ancestor of anything.
		in.AncestorActivityInstanceID = e.instanceAt(pi, "task1")
		err = e.Eng.ModifyProcessInstance(e.Ctx, pi, bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{in}})
		if !errors.Is(err, bpmnlite.ErrInvalidInstruction) || !strings.Contains(err.Error(), "not an ancestor") {
			t.Errorf("ancestor task1: %v", err)
		}
	})
}

// A refused instruction names its index and leaves the instance as it
// was, whatever the instructions before it did.
func TestModifyRefusalChangesNothing(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("subprocess", modificationModel)
		pi := e.Start("subprocess", nil)
		other := e.Start("subprocess", nil)
		task1 := e.instanceAt(pi, "task1")
		for _, tc := range []struct {
			bad  bpmnlite.ModificationInstruction
			want string
		}{
			{startBefore("nope"), `activity "nope" does not exist`},
			{cancelInstance(e.instanceAt(other, "task1")), "does not exist in process instance " + pi},
			{cancelInstance(task1), "does not exist"}, // cancelled by the instruction before
			{bpmnlite.ModificationInstruction{Type: bpmnlite.StartTransition, TransitionID: "nope"}, `sequence flow "nope"`},
			{bpmnlite.ModificationInstruction{Type: bpmnlite.StartAfterActivity, ActivityID: "theEnd"}, "0 outgoing"},
			{bpmnlite.ModificationInstruction{Type: "jump", ActivityID: "task2"}, "unknown instruction"},
		} {
			err := e.Eng.ModifyProcessInstance(e.Ctx, pi, bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{
				cancelInstance(task1), startBefore("task2"), tc.bad}})
			var me *bpmnlite.ModificationError
			if !errors.As(err, &me) || me.Index != 2 || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: %v, want instruction 2 refused with %q", tc.bad, err, tc.want)
			}
			e.wantShape(pi, "subprocess[task1]")
		}
		if got := e.TaskKeys(pi); got != "task1" {
			t.Errorf("tasks %s", got)
		}
		if err := e.Eng.ModifyProcessInstance(e.Ctx, "nope", bpmnlite.ModificationRequest{}); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("unknown instance: %v", err)
		}
	})
}

// Concurrent paths: cancelling one of two compacts the other onto the
// process instance; skipCustomListeners keeps listeners from running.
func TestModifyConcurrentCancelCompacts(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		calls := 0
		e.Eng.RegisterDelegate("listener", bpmnlite.DelegateFunc(func(_ context.Context, _ *bpmnlite.Execution) error {
			calls++
			return nil
		}))
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="s"/>
			<userTask id="a"><extensionElements><camunda:executionListener event="end" class="listener"/></extensionElements></userTask>
			<userTask id="b"><extensionElements><camunda:executionListener event="start" class="listener"/></extensionElements></userTask>
			<endEvent id="e"/>`, enginetest.Chain("s", "a", "e"), enginetest.Chain("b", "e"))))
		pi := e.Start("p", nil)
		if err := e.Eng.ModifyProcessInstance(e.Ctx, pi, bpmnlite.ModificationRequest{SkipCustomListeners: true,
			Instructions: []bpmnlite.ModificationInstruction{startBefore("b")}, Annotation: "fix"}); err != nil {
			t.Fatal(err)
		}
		e.wantShape(pi, "p[a,b]")
		if xs := e.Executions(pi, ""); len(xs) != 3 {
			t.Errorf("executions %d, want the instance and two concurrent", len(xs))
		}
		e.modify(pi, bpmnlite.ModificationInstruction{Type: bpmnlite.CancelAllForActivity, ActivityID: "a"})
		e.wantShape(pi, "p[b]")
		if xs := e.Executions(pi, ""); len(xs) != 1 {
			t.Errorf("executions %d after the cancellation, want the process instance only", len(xs))
		}
		if calls != 1 {
			t.Errorf("listener calls %d, want 1 (a's end; b's start skipped)", calls)
		}
		e.Complete(pi, "b", nil)
		if e.State(pi) != persistence.StateCompleted {
			t.Errorf("state %s", e.State(pi))
		}
	})
}

// testStartBeforeTaskInsideSubprocess with the subprocess running: the
// new path joins its scope concurrently; cancelling one of the two
// inside keeps the subprocess, cancelling the subprocess instance takes
// both.
func TestModifyInsideRunningSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("subprocess", modificationModel)
		pi := e.Start("subprocess", nil)
		e.Complete(pi, "task1", nil)
		e.wantShape(pi, "subprocess[subProcess[subProcessTask]]")
		e.modify(pi, startBefore("subProcessTask"))
		e.wantShape(pi, "subprocess[subProcess[subProcessTask,subProcessTask]]")
		first := e.activityTree(pi).Children[0].Children[0].ID
		e.modify(pi, cancelInstance(first))
		e.wantShape(pi, "subprocess[subProcess[subProcessTask]]")
		if n := len(e.Jobs(pi)); n != 1 {
			t.Errorf("jobs %d, want the subprocess's timer", n)
		}
		e.modify(pi, startBefore("subProcessTask"), cancelInstance(e.instanceAt(pi, "subProcess")), startBefore("task1"))
		e.wantShape(pi, "subprocess[task1]")
		if xs := e.Executions(pi, ""); len(xs) != 1 {
			t.Errorf("executions %d, want the process instance only", len(xs))
		}
	})
}

// Boundary events of a started activity and event subprocesses of an
// entered scope are armed; an input/output mapped activity is
// cancelled and started with or without its mappings.
func TestModifyArmsEventsAndMappings(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<message id="m" name="interrupt"/>`, enginetest.Executable("p", `<startEvent id="s"/>
			<userTask id="a"/><endEvent id="e"/>
			<userTask id="guarded"/>
			<boundaryEvent id="late" attachedToRef="guarded"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
			<subProcess id="sub"><startEvent id="subStart"/><userTask id="inner"/>
			  <subProcess id="esp" triggeredByEvent="true"><startEvent id="espStart"><messageEventDefinition messageRef="m"/></startEvent>
			    <userTask id="handle"/>`+enginetest.Chain("espStart", "handle")+`</subProcess>
			  `+enginetest.Chain("subStart", "inner")+`</subProcess>
			<userTask id="mapped"><extensionElements><camunda:inputOutput>
			  <camunda:inputParameter name="in">${missing}</camunda:inputParameter>
			  <camunda:outputParameter name="out">done</camunda:outputParameter></camunda:inputOutput></extensionElements></userTask>`,
			enginetest.Chain("s", "a", "e"), enginetest.Chain("late", "e"))))
		pi := e.Start("p", nil)
		e.modify(pi, startBefore("guarded"))
		if js := e.Jobs(pi); len(js) != 1 || js[0].ActivityID != "late" {
			t.Errorf("jobs %+v, want the boundary timer of guarded", js)
		}
		e.modify(pi, startBefore("inner"))
		e.wantShape(pi, "p[a,guarded,sub[inner]]")
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].ActivityID != "espStart" {
			t.Errorf("subscriptions %+v, want the event subprocess's message start", subs)
		}
		e.Correlate("interrupt", pi, nil)
		e.wantShape(pi, "p[a,guarded,sub[esp[handle]]]")

		// The input mapping fails (unknown variable): the whole
		// modification is refused; skipping the mappings starts it.
		err := e.Eng.ModifyProcessInstance(e.Ctx, pi, bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{
			{Type: bpmnlite.CancelAllForActivity, ActivityID: "a"}, startBefore("mapped")}})
		var me *bpmnlite.ModificationError
		if !errors.As(err, &me) || me.Index != 1 {
			t.Fatalf("start before a failing input mapping: %v", err)
		}
		e.wantShape(pi, "p[a,guarded,sub[esp[handle]]]")
		if err := e.Eng.ModifyProcessInstance(e.Ctx, pi, bpmnlite.ModificationRequest{SkipIoMappings: true,
			Instructions: []bpmnlite.ModificationInstruction{startBefore("mapped")}}); err != nil {
			t.Fatal(err)
		}
		e.wantShape(pi, "p[a,guarded,mapped,sub[esp[handle]]]")
		e.modify(pi, cancelInstance(e.instanceAt(pi, "mapped")))
		e.wantShape(pi, "p[a,guarded,sub[esp[handle]]]")
		if v := e.Var(pi, "out"); v != nil {
			t.Errorf("a cancelled activity mapped its output: %v", v)
		}
		e.modify(pi, bpmnlite.ModificationInstruction{Type: bpmnlite.CancelAllForActivity, ActivityID: "sub"},
			bpmnlite.ModificationInstruction{Type: bpmnlite.CancelAllForActivity, ActivityID: "guarded"})
		if js, subs := e.Jobs(pi), e.SubsOf(pi); len(js)+len(subs) != 0 {
			t.Errorf("left after the cancellations: jobs %+v, subscriptions %+v", js, subs)
		}
		e.wantShape(pi, "p[a]")
	})
}

// Multi-instance: a start before the activity starts its body; one
// inner instance cancels alone, the body's instance whole.
func TestModifyMultiInstance(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="s"/><userTask id="a"/>
			<userTask id="mi"><multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<endEvent id="e"/>`, enginetest.Chain("s", "a", "mi", "e"))))
		pi := e.Start("p", nil)
		e.modify(pi, startBefore("mi#multiInstanceBody"))
		e.wantShape(pi, "p[a,mi#multiInstanceBody[mi,mi,mi]]")
		inner := e.activityTree(pi)
		var innerID string
		for _, n := range inner.Children {
			if n.ActivityID == "mi#multiInstanceBody" {
				innerID = n.Children[0].ID
			}
		}
		// testCancelInnerActivityParallelTasks: one inner instance goes;
		// the body completes when the others are done.
		e.modify(pi, cancelInstance(innerID))
		e.wantShape(pi, "p[a,mi#multiInstanceBody[mi,mi]]")
		for _, task := range e.Tasks(pi) {
			if task.TaskDefinitionKey == "mi" {
				if err := e.Eng.CompleteTask(e.Ctx, task.ID, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		e.wantShape(pi, "p[a]")
		if hs := e.HistoryAt(pi, "e"); len(hs) != 1 {
			t.Errorf("end event reached %d times, want once after the body", len(hs))
		}
		e.modify(pi, startBefore("mi"))
		e.modify(pi, cancelInstance(e.instanceAt(pi, "mi#multiInstanceBody")))
		e.wantShape(pi, "p[a]")
		if got := e.TaskKeys(pi); got != "a" {
			t.Errorf("tasks %s", got)
		}
	})
}

// testStartBeforeNoneEndEvent, testStartBeforeWithAncestorInstanceIdTwoScopesUp
// and testStartBeforeEventSubProcess: an end event ends a path (and the
// instance when it was its only one: completed); an ancestor two scopes
// up gets the scope between created; an event subprocess started by
// hand runs without interrupting.
func TestModifyEndEventsAncestorsAndEventSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(`<message id="m" name="never"/>`, enginetest.Executable("p", `<startEvent id="s"/><userTask id="a"/><endEvent id="e"/>
			<subProcess id="outer"><startEvent id="os"/><userTask id="outerTask"/>
			  <subProcess id="inner"><startEvent id="is"/><userTask id="innerTask"/>`+enginetest.Chain("is", "innerTask")+`</subProcess>
			  `+enginetest.Chain("os", "outerTask")+`</subProcess>
			<subProcess id="esp" triggeredByEvent="true"><startEvent id="espStart"><messageEventDefinition messageRef="m"/></startEvent>
			  <userTask id="handle"/>`+enginetest.Chain("espStart", "handle")+`</subProcess>`,
			enginetest.Chain("s", "a", "e"))))
		pi := e.Start("p", nil)
		e.modify(pi, startBefore("e"))
		e.wantShape(pi, "p[a]")
		e.modify(pi, startBefore("outerTask"))
		in := startBefore("innerTask")
		in.AncestorActivityInstanceID = e.instanceAt(pi, "outer")
		e.modify(pi, in)
		e.wantShape(pi, "p[a,outer[inner[innerTask],outerTask]]")
		e.modify(pi, startBefore("esp"))
		e.wantShape(pi, "p[a,esp[handle],outer[inner[innerTask],outerTask]]")
		e.modify(pi, bpmnlite.ModificationInstruction{Type: bpmnlite.CancelAllForActivity, ActivityID: "outer"},
			bpmnlite.ModificationInstruction{Type: bpmnlite.CancelAllForActivity, ActivityID: "esp"},
			cancelInstance(e.instanceAt(pi, "a")), startBefore("e"))
		if !e.Ended(pi) || e.State(pi) != persistence.StateCompleted {
			t.Errorf("ended %v, state %s; want completed by the end event", e.Ended(pi), e.State(pi))
		}
	})
}

// ModificationExecutionSyncTest: several instances in one transaction;
// one of another definition refuses them all. Cancelling a call
// activity deletes the instance it called.
func TestModifySeveralInstancesAndCallActivity(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("subprocess", modificationModel)
		e.Deploy("caller", enginetest.Defs(enginetest.Executable("caller", `<startEvent id="s"/>
			<callActivity id="call" calledElement="subprocess"/><endEvent id="e"/>`, enginetest.Chain("s", "call", "e"))))
		one, two := e.Start("subprocess", nil), e.Start("subprocess", nil)
		caller := e.Start("caller", nil)
		def := e.Instances("subprocess")[0].ProcessDefinitionID
		err := e.Eng.ModifyProcessInstances(e.Ctx, def, []string{one, caller}, bpmnlite.ModificationRequest{
			Instructions: []bpmnlite.ModificationInstruction{startBefore("task2")}})
		if !errors.Is(err, bpmnlite.ErrInvalidInstruction) {
			t.Fatalf("modify an instance of another definition: %v", err)
		}
		e.wantShape(one, "subprocess[task1]")
		if err := e.Eng.ModifyProcessInstances(e.Ctx, def, []string{one, two}, bpmnlite.ModificationRequest{
			Instructions: []bpmnlite.ModificationInstruction{startBefore("task2"),
				{Type: bpmnlite.CancelAllForActivity, ActivityID: "task1"}}}); err != nil {
			t.Fatal(err)
		}
		e.wantShape(one, "subprocess[task2]")
		e.wantShape(two, "subprocess[task2]")

		called := ""
		for _, h := range e.Instances("subprocess") {
			if h.SuperProcessInstanceID == caller {
				called = h.ID
			}
		}
		e.modify(caller, startBefore("e"), bpmnlite.ModificationInstruction{Type: bpmnlite.CancelAllForActivity, ActivityID: "call"})
		if !e.Ended(called) || !e.Ended(caller) {
			t.Errorf("called instance ended %v, caller ended %v; want both", e.Ended(called), e.Ended(caller))
		}
	})
}

// A modification racing the job it cancels: one of the two wins whole.
// Either the job ran (the path moved on to task2, the cancellation finds
// no transition instance) or the modification did (the job is gone, its
// execution fails); never both, never half.
func TestModifyRacesJob(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="s"/>
			<serviceTask id="async" camunda:asyncBefore="true" camunda:expression="${true}"/><userTask id="after"/>`,
			enginetest.Chain("s", "async", "after"))))
		for range 5 {
			pi := e.Start("p", nil)
			job := e.OneJob(pi)
			tr := e.activityTree(pi).Transitions[0].ID
			errs := make(chan error, 2)
			go func() { errs <- e.Eng.ExecuteJob(e.Ctx, job.ID) }()
			go func() {
				errs <- e.Eng.ModifyProcessInstance(e.Ctx, pi, bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{
					{Type: bpmnlite.CancelTransitionInstance, TransitionInstanceID: tr}, startBefore("after")}})
			}()
			failed := 0
			for range 2 {
				if err := <-errs; err != nil {
					failed++
				}
			}
			if failed != 1 {
				t.Errorf("%d of the two failed, want exactly one", failed)
			}
			if got := e.TaskKeys(pi); got != "after" {
				t.Errorf("tasks %q, want after once", got)
			}
			if js := e.Jobs(pi); len(js) != 0 {
				t.Errorf("jobs left %d", len(js))
			}
		}
	})
}
