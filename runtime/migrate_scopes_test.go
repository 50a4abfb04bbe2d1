package runtime_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// Migrations that add or remove embedded subprocesses, modelled on
// Camunda's MigrationAddSubprocessTest, MigrationRemoveSubprocessTest and
// MigrationVariablesTest.

// The process models, after Camunda's ProcessModels.
var (
	scopeOneTask = enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="userTask"/><endEvent id="end"/>`+
		enginetest.Chain("start", "userTask", "end")))
	scopeDoubleSub = enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
		<subProcess id="outer"><startEvent id="outerStart"/>
			<subProcess id="inner"><startEvent id="innerStart"/><userTask id="userTask"/><endEvent id="innerEnd"/>`+
		enginetest.Chain("innerStart", "userTask", "innerEnd")+`</subProcess>
			<endEvent id="outerEnd"/>`+enginetest.Chain("outerStart", "inner", "outerEnd")+`</subProcess>
		<endEvent id="end"/>`+enginetest.Chain("start", "outer", "end")))
	scopeParallel = enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
		<userTask id="userTask1"/><userTask id="userTask2"/><endEvent id="end1"/><endEvent id="end2"/>`+
		enginetest.Chain("start", "fork", "userTask1", "end1")+enginetest.Chain("fork", "userTask2", "end2")))
	scopeParallelInSub = enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
		<subProcess id="sub"><startEvent id="subStart"/><parallelGateway id="fork"/>
			<userTask id="userTask1"/><userTask id="userTask2"/><endEvent id="end1"/><endEvent id="end2"/>`+
		enginetest.Chain("subStart", "fork", "userTask1", "end1")+enginetest.Chain("fork", "userTask2", "end2")+`</subProcess>
		<endEvent id="end"/>`+enginetest.Chain("start", "sub", "end")))
	scopeTaskAndSub = enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
		<subProcess id="sub"><startEvent id="subStart"/><userTask id="userTask1"/><endEvent id="subEnd"/>`+
		enginetest.Chain("subStart", "userTask1", "subEnd")+`</subProcess>
		<userTask id="userTask2"/><endEvent id="end1"/><endEvent id="end2"/>`+
		enginetest.Chain("start", "fork", "sub", "end1")+enginetest.Chain("fork", "userTask2", "end2")))
	scopeDoubleParallel = enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
		<subProcess id="outer"><startEvent id="outerStart"/><parallelGateway id="fork"/>
			<subProcess id="inner1"><startEvent id="s1"/><userTask id="userTask1"/><endEvent id="e1"/>`+enginetest.Chain("s1", "userTask1", "e1")+`</subProcess>
			<subProcess id="inner2"><startEvent id="s2"/><userTask id="userTask2"/><endEvent id="e2"/>`+enginetest.Chain("s2", "userTask2", "e2")+`</subProcess>
			<endEvent id="end1"/><endEvent id="end2"/>`+
		enginetest.Chain("outerStart", "fork", "inner1", "end1")+enginetest.Chain("fork", "inner2", "end2")+`</subProcess>
		<endEvent id="end"/>`+enginetest.Chain("start", "outer", "end")))
)

// scopeSub is a process whose user task (inner: its XML) lies in
// subprocess "sub"; extra goes into the subprocess's element, after it
// the boundary events (boundaries) and their flows.
func scopeSub(subExtra, inner, boundaries string) string {
	return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
		<subProcess id="sub">`+subExtra+`<startEvent id="subStart"/>`+inner+`<endEvent id="subEnd"/>`+
		enginetest.Chain("subStart", "userTask", "subEnd")+`</subProcess>`+boundaries+`
		<endEvent id="end"/>`+enginetest.Chain("start", "sub", "end")), `<message id="m" name="Msg"/>`)
}

// mapping is a plan from src to tgt with the instructions "s->t".
func mapping(src, tgt string, pairs ...string) bpmnlite.MigrationPlan {
	plan := bpmnlite.MigrationPlan{SourceProcessDefinitionID: src, TargetProcessDefinitionID: tgt}
	for _, p := range pairs {
		s, t, _ := strings.Cut(p, "->")
		plan.Instructions = append(plan.Instructions, bpmnlite.MigrationInstruction{SourceActivityIDs: []string{s}, TargetActivityIDs: []string{t}})
	}
	return plan
}

func (e *env) migratePlan(plan bpmnlite.MigrationPlan, skip bool, pis ...string) {
	e.T.Helper()
	if err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: plan, ProcessInstanceIDs: pis,
		SkipCustomListeners: skip, SkipIOMappings: skip}); err != nil {
		e.T.Fatalf("migrate: %v", err)
	}
}

// actTree renders pi's activity instance tree: each instance as its
// activity id, its children in braces, siblings sorted; ids maps each
// activity id to its instances' ids.
func (e *env) actTree(pi string) (string, map[string][]string) {
	e.T.Helper()
	tree, err := e.Eng.ActivityInstances(e.Ctx, pi)
	if err != nil {
		e.T.Fatal(err)
	}
	ids := map[string][]string{}
	var render func(a *bpmnlite.ActivityInstance) string
	render = func(a *bpmnlite.ActivityInstance) string {
		var kids []string
		for _, ch := range a.Children {
			ids[ch.ActivityID] = append(ids[ch.ActivityID], ch.ID)
			if ch.ParentActivityInstanceID != a.ID {
				e.T.Errorf("%s: parent %s, want %s", ch.ActivityID, ch.ParentActivityInstanceID, a.ID)
			}
			kids = append(kids, ch.ActivityID+render(ch))
		}
		for _, tr := range a.Transitions {
			kids = append(kids, "~"+tr.ActivityID)
		}
		if len(kids) == 0 {
			return ""
		}
		slices.Sort(kids)
		return "{" + strings.Join(kids, " ") + "}"
	}
	return render(tree), ids
}

// execTree renders pi's execution tree: each execution as its activity
// id ("-" for none) with c for concurrent and s for scope, children in
// braces, sorted.
func (e *env) execTree(pi string) string {
	e.T.Helper()
	rows := e.Executions(pi, "")
	var render func(id string) string
	render = func(id string) string {
		var kids []string
		for _, x := range rows {
			if x.ParentID != id || x.ID == pi {
				continue
			}
			s := x.ActivityID
			if s == "" {
				s = "-"
			}
			if x.IsConcurrent {
				s += ":c"
			}
			if x.IsScope {
				s += ":s"
			}
			kids = append(kids, s+render(x.ID))
		}
		if len(kids) == 0 {
			return ""
		}
		slices.Sort(kids)
		return "{" + strings.Join(kids, " ") + "}"
	}
	for _, x := range rows {
		if x.ID == pi {
			a := x.ActivityID
			if a == "" {
				a = "-"
			}
			return a + render(pi)
		}
	}
	return ""
}

// openHistory is pi's unfinished activity history, "activity<parent
// activity" each, sorted.
func (e *env) openHistory(pi string) string {
	e.T.Helper()
	hs := e.HistoryOf(pi)
	act := map[string]string{pi: "pi"}
	for _, h := range hs {
		act[h.ID] = h.ActivityID
	}
	var out []string
	for _, h := range hs {
		if h.EndTime == nil {
			out = append(out, h.ActivityID+"<"+act[h.ParentActivityInstanceID])
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// richSub is scopeSub with ext (the subprocess's extension elements),
// an event subprocess with a message start inside the subprocess and a
// boundary timer on it.
func richSub(ext string) string {
	return scopeSub(`<extensionElements>`+ext+`</extensionElements>`,
		`<userTask id="userTask"/><subProcess id="esp" triggeredByEvent="true"><startEvent id="espStart" isInterrupting="false"><messageEventDefinition messageRef="m"/></startEvent>
			<endEvent id="espEnd"/>`+enginetest.Chain("espStart", "espEnd")+`</subProcess>`,
		`<boundaryEvent id="timer" attachedToRef="sub"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
		<endEvent id="timedOut"/>`+enginetest.Chain("timer", "timedOut"))
}

// MigrationAddSubprocessTest.testUserTaskMigration, with what the new
// scope brings: its start listener and input mapping run, its boundary
// event and event subprocess are armed; the task keeps its id and
// activity instance; completing it ends the instance.
func TestMigrateAddSubprocess(t *testing.T) {
	sub := richSub(`<camunda:executionListener event="start" expression="${execution.setVariable('subStarted', true)}"/>
			<camunda:inputOutput><camunda:inputParameter name="foo">bar</camunda:inputParameter></camunda:inputOutput>`)
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", scopeOneTask, sub)
		pi := e.startIn(src, map[string]any{"x": int64(1)})
		task := e.Tasks(pi)[0]
		_, before := e.actTree(pi)
		e.migratePlan(mapping(src, tgt, "userTask->userTask"), false, pi)

		got, ids := e.actTree(pi)
		wantEq(t, "activity instances", got, "{sub{userTask}}")
		wantEq(t, "user task's activity instance", ids["userTask"], before["userTask"])
		wantEq(t, "executions", e.execTree(pi), "-{-:s{userTask:s}}")
		tasks := e.Tasks(pi)
		if len(tasks) != 1 || tasks[0].ID != task.ID || tasks[0].ProcessDefinitionID != tgt {
			t.Fatalf("tasks %+v", tasks)
		}
		wantEq(t, "open history", e.openHistory(pi), "sub<pi userTask<sub")
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"x": int64(1), "subStarted": true})
		vars, err := e.Eng.Variables(e.Ctx, tasks[0].ExecutionID)
		if err != nil || vars["foo"] != "bar" {
			t.Errorf("variables seen from the task: %v, %v (want the input mapping foo=bar)", vars, err)
		}
		jobs := e.Jobs(pi)
		if len(jobs) != 1 || jobs[0].ActivityID != "timer" {
			t.Errorf("jobs %+v, want the subprocess's boundary timer", jobs)
		}
		subs := e.SubsOf(pi)
		if len(subs) != 1 || subs[0].ActivityID != "espStart" {
			t.Errorf("subscriptions %+v, want the event subprocess's message start", subs)
		}
		// The event subprocess inside the new scope runs.
		if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "Msg", ProcessInstanceID: pi}); err != nil {
			t.Fatal(err)
		}
		if h := e.HistoryAt(pi, "espEnd"); len(h) != 1 {
			t.Errorf("event subprocess end history %d, want 1", len(h))
		}
		e.finish(pi)

		// Skipping listeners and input/output mappings: neither runs.
		pi2 := e.startIn(src, nil)
		e.migratePlan(mapping(src, tgt, "userTask->userTask"), true, pi2)
		wantEq(t, "variables when skipped", len(e.VarsOf(pi2)), 0)
		all, err := e.Eng.VariableInstances(e.Ctx, bpmnlite.VariableInstanceQuery{ProcessInstanceIDs: []string{pi2}})
		if err != nil || len(all) != 0 {
			t.Errorf("variable instances %+v, %v, want none", all, err)
		}
		e.finish(pi2)
	})
}

// testAddTwoScopes, testNestedScopesMigration1/2 and testAddTwoConcurrentScopes.
func TestMigrateAddNestedSubprocesses(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		one, double := e.versions("p", scopeOneTask, scopeDoubleSub)
		pi := e.startIn(one, nil)
		e.migratePlan(mapping(one, double, "userTask->userTask"), false, pi)
		got, _ := e.actTree(pi)
		wantEq(t, "two scopes added", got, "{outer{inner{userTask}}}")
		wantEq(t, "open history", e.openHistory(pi), "inner<outer outer<pi userTask<inner")
		e.finish(pi)

		// The subprocess becomes the outer one, the inner one is added.
		sub := e.deployNext("p", scopeSub("", `<userTask id="userTask"/>`, ""))
		double2 := e.deployNext("p", scopeDoubleSub)
		pi = e.startIn(sub, nil)
		_, before := e.actTree(pi)
		e.migratePlan(mapping(sub, double2, "userTask->userTask", "sub->outer"), false, pi)
		got, ids := e.actTree(pi)
		wantEq(t, "inner added", got, "{outer{inner{userTask}}}")
		wantEq(t, "outer keeps the subprocess's instance", ids["outer"], before["sub"])
		e.finish(pi)
		// Or the inner one, the outer one added.
		pi = e.startIn(sub, nil)
		_, before = e.actTree(pi)
		e.migratePlan(mapping(sub, double2, "userTask->userTask", "sub->inner"), false, pi)
		got, ids = e.actTree(pi)
		wantEq(t, "outer added", got, "{outer{inner{userTask}}}")
		wantEq(t, "inner keeps the subprocess's instance", ids["inner"], before["sub"])
		e.finish(pi)

		// Two concurrent tasks: one outer subprocess, an inner one each.
		par := e.deployNext("p", scopeParallel)
		dpar := e.deployNext("p", scopeDoubleParallel)
		pi = e.startIn(par, nil)
		_, before = e.actTree(pi)
		e.migratePlan(mapping(par, dpar, "userTask1->userTask1", "userTask2->userTask2"), false, pi)
		got, ids = e.actTree(pi)
		wantEq(t, "concurrent scopes added", got, "{outer{inner1{userTask1} inner2{userTask2}}}")
		wantEq(t, "task 1's instance", ids["userTask1"], before["userTask1"])
		wantEq(t, "executions", e.execTree(pi), "-{-:s{-:c{userTask1:s} -:c{userTask2:s}}}")
		e.finish(pi)
	})
}

// testConcurrentUserTaskMigration, testVariableAtConcurrentExecutionInNonScopeActivityAddParentScope
// and testMoveConcurrentActivityIntoSiblingScope: concurrent tasks move
// into one new subprocess instance with their local variables; a task
// beside a mapped subprocess gets a subprocess instance of its own.
func TestMigrateAddSubprocessConcurrent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		par, parSub := e.versions("p", scopeParallel, scopeParallelInSub)
		pi := e.startIn(par, map[string]any{"x": "process"})
		_, before := e.actTree(pi)
		x1 := e.Executions(pi, "userTask1")[0].ID
		if err := e.Eng.SetVariablesLocal(e.Ctx, x1, map[string]any{"foo": int64(42)}); err != nil {
			t.Fatal(err)
		}
		e.migratePlan(mapping(par, parSub, "userTask1->userTask1", "userTask2->userTask2"), false, pi)
		got, ids := e.actTree(pi)
		wantEq(t, "activity instances", got, "{sub{userTask1 userTask2}}")
		wantEq(t, "task 2's instance", ids["userTask2"], before["userTask2"])
		wantEq(t, "executions", e.execTree(pi), "-{-:s{userTask1:c userTask2:c}}")
		if xs := e.Executions(pi, "userTask1"); len(xs) != 1 || xs[0].ID != x1 {
			t.Errorf("userTask1's execution %+v, want %s kept", xs, x1)
		}
		local, err := e.Eng.VariableInstances(e.Ctx, bpmnlite.VariableInstanceQuery{ProcessInstanceIDs: []string{pi}, Name: "foo"})
		if err != nil || len(local) != 1 || local[0].ExecutionID != x1 {
			t.Errorf("local variable %+v, %v, want it on %s", local, err, x1)
		}
		wantEq(t, "open history", e.openHistory(pi), "sub<pi userTask1<sub userTask2<sub")
		e.finish(pi)

		taskAndSub := e.deployNext("p", scopeTaskAndSub)
		parSub2 := e.deployNext("p", scopeParallelInSub)
		pi = e.startIn(taskAndSub, nil)
		_, before = e.actTree(pi)
		e.migratePlan(mapping(taskAndSub, parSub2, "sub->sub", "userTask1->userTask1", "userTask2->userTask2"), false, pi)
		got, ids = e.actTree(pi)
		wantEq(t, "a subprocess instance each", got, "{sub{userTask1} sub{userTask2}}")
		if !slices.Contains(ids["sub"], before["sub"][0]) {
			t.Errorf("subprocess instances %v, want %s kept", ids["sub"], before["sub"][0])
		}
		e.finish(pi)
	})
}

// MigrationRemoveSubprocessTest.testRemoveScopeForNonScopeActivity,
// testEndListenerInvocationForRemovedScope and
// testIoMappingInvocationForRemovedScope: the subprocess instance ends
// (history canceled), its end listener and output mapping run, its local
// variables, boundary events and event subprocess triggers go.
func TestMigrateRemoveSubprocess(t *testing.T) {
	sub := richSub(`<camunda:executionListener event="end" expression="${execution.setVariable('subEnded', true)}"/>
			<camunda:inputOutput><camunda:inputParameter name="in">1</camunda:inputParameter><camunda:outputParameter name="foo">bar</camunda:outputParameter></camunda:inputOutput>`)
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", sub, scopeOneTask)
		pi := e.startIn(src, map[string]any{"x": int64(1)})
		task := e.Tasks(pi)[0]
		if err := e.Eng.SetVariablesLocal(e.Ctx, task.ExecutionID, map[string]any{"subLocal": "gone"}); err != nil {
			t.Fatal(err)
		}
		_, before := e.actTree(pi)
		e.migratePlan(mapping(src, tgt, "userTask->userTask"), false, pi)
		got, ids := e.actTree(pi)
		wantEq(t, "activity instances", got, "{userTask}")
		wantEq(t, "user task's activity instance", ids["userTask"], before["userTask"])
		wantEq(t, "executions", e.execTree(pi), "userTask")
		if tasks := e.Tasks(pi); len(tasks) != 1 || tasks[0].ID != task.ID || tasks[0].ExecutionID != pi {
			t.Fatalf("tasks %+v", tasks)
		}
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"x": int64(1), "subEnded": true, "foo": "bar"})
		wantEq(t, "jobs", len(e.Jobs(pi)), 0)
		wantEq(t, "subscriptions", len(e.SubsOf(pi)), 0)
		h := e.HistoryAt(pi, "sub")
		if len(h) != 1 || h[0].EndTime == nil || !h[0].Canceled || h[0].ID != before["sub"][0] {
			t.Errorf("subprocess history %+v, want its instance ended as canceled", h)
		}
		wantEq(t, "open history", e.openHistory(pi), "userTask<pi")
		if h := e.HistoryAt(pi, "userTask"); len(h) != 1 || h[0].ExecutionID != pi {
			t.Errorf("user task history %+v, want it run by the process instance's execution", h)
		}
		e.finish(pi)

		// Skipped: neither the end listener nor the output mapping runs.
		pi = e.startIn(src, nil)
		e.migratePlan(mapping(src, tgt, "userTask->userTask"), true, pi)
		wantEq(t, "variables when skipped", len(e.VarsOf(pi)), 0)
		e.finish(pi)

		// testRemoveMultipleScopes.
		double := e.deployNext("p", scopeDoubleSub)
		one := e.deployNext("p", scopeOneTask)
		pi = e.startIn(double, nil)
		e.migratePlan(mapping(double, one, "userTask->userTask"), false, pi)
		got, _ = e.actTree(pi)
		wantEq(t, "two scopes removed", got, "{userTask}")
		wantEq(t, "executions after removing two", e.execTree(pi), "userTask")
		wantEq(t, "open history after removing two", e.openHistory(pi), "userTask<pi")
		e.finish(pi)
	})
}

// testRemoveScopeForConcurrentNonScopeActivity,
// testVariableAtScopeAndConcurrentExecutionRemoveParentScope and
// testRemoveConcurrentScope2.
func TestMigrateRemoveSubprocessConcurrent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		parSub, par := e.versions("p", scopeParallelInSub, scopeParallel)
		pi := e.startIn(parSub, nil)
		_, before := e.actTree(pi)
		x1, x2 := e.Executions(pi, "userTask1")[0].ID, e.Executions(pi, "userTask2")[0].ID
		subScope := ""
		for _, x := range e.Executions(pi, "") {
			if x.ID == pi {
				continue
			}
			if x.ID != x1 && x.ID != x2 {
				subScope = x.ID
			}
		}
		for id, v := range map[string]string{subScope: "subProcessValue", x1: "task1Value", x2: "task2Value"} {
			if err := e.Eng.SetVariablesLocal(e.Ctx, id, map[string]any{"foo": v}); err != nil {
				t.Fatal(err)
			}
		}
		e.migratePlan(mapping(parSub, par, "userTask1->userTask1", "userTask2->userTask2"), false, pi)
		got, ids := e.actTree(pi)
		wantEq(t, "activity instances", got, "{userTask1 userTask2}")
		wantEq(t, "task 1's instance", ids["userTask1"], before["userTask1"])
		wantEq(t, "executions", e.execTree(pi), "-{userTask1:c userTask2:c}")
		vars, err := e.Eng.VariableInstances(e.Ctx, bpmnlite.VariableInstanceQuery{ProcessInstanceIDs: []string{pi}})
		if err != nil {
			t.Fatal(err)
		}
		var got2 []string
		for _, v := range vars {
			got2 = append(got2, fmt.Sprintf("%s=%v@%s", v.Name, v.Value, map[string]string{x1: "x1", x2: "x2"}[v.ExecutionID]))
		}
		slices.Sort(got2)
		wantEq(t, "variables", got2, []string{"foo=task1Value@x1", "foo=task2Value@x2"})
		wantEq(t, "open history", e.openHistory(pi), "userTask1<pi userTask2<pi")
		e.finish(pi)

		// testRemoveConcurrentScope2: of two concurrent subprocesses, the
		// mapped one stays, the other is removed.
		twoSubs := e.deployNext("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<subProcess id="sub1"><startEvent id="s1"/><userTask id="userTask1"/><endEvent id="e1"/>`+enginetest.Chain("s1", "userTask1", "e1")+`</subProcess>
			<subProcess id="sub2"><startEvent id="s2"/><userTask id="userTask2"/><endEvent id="e2"/>`+enginetest.Chain("s2", "userTask2", "e2")+`</subProcess>
			<endEvent id="end1"/><endEvent id="end2"/>`+enginetest.Chain("start", "fork", "sub1", "end1")+enginetest.Chain("fork", "sub2", "end2"))))
		taskAndSub := e.deployNext("p", scopeTaskAndSub)
		pi = e.startIn(twoSubs, nil)
		_, before = e.actTree(pi)
		e.migratePlan(mapping(twoSubs, taskAndSub, "sub1->sub", "userTask1->userTask1", "userTask2->userTask2"), false, pi)
		got, ids = e.actTree(pi)
		wantEq(t, "one subprocess removed", got, "{sub{userTask1} userTask2}")
		wantEq(t, "the mapped subprocess's instance", ids["sub"], before["sub1"])
		wantEq(t, "executions with one removed", e.execTree(pi), "-{-:c{userTask1:s} userTask2:c}")
		e.finish(pi)
	})
}

// jobsModels is a process with an asynchronous user task, an external task
// and a timer catch event on concurrent paths, in an asynchronous
// subprocess when nested (adding it makes no job: Camunda's
// testAddScopeDoesNotBecomeAsync).
func jobsModels(nested bool) string {
	start := "start"
	if nested {
		start = "subStart"
	}
	inner := `<parallelGateway id="fork"/><userTask id="async" camunda:asyncBefore="true"/><serviceTask id="ext" camunda:type="external" camunda:topic="t"/>
		<intermediateCatchEvent id="timer"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
		<endEvent id="end1"/><endEvent id="end2"/><endEvent id="end3"/>` +
		enginetest.Chain(start, "fork", "async", "end1") + enginetest.Chain("fork", "ext", "end2") + enginetest.Chain("fork", "timer", "end3")
	if !nested {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>`+inner))
	}
	return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><subProcess id="sub" camunda:asyncBefore="true"><startEvent id="subStart"/>`+inner+
		`</subProcess><endEvent id="end"/>`+enginetest.Chain("start", "sub", "end")))
}

// An asynchronous continuation, an external task and a timer moved into a
// new subprocess keep their job, external task and timer (ids, due date);
// each continues there and the instance ends (Camunda's
// MigrationAddSubprocessTest with MigrationTransitionInstancesTest,
// MigrationExternalTaskTest and MigrationTimerCatchEventTest models).
func TestMigrateAddSubprocessJobs(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", jobsModels(false), jobsModels(true))
		pi := e.startIn(src, nil)
		locked := e.Fetch("w", 10, harness.Topic("t", time.Minute))
		if len(locked) != 1 {
			t.Fatalf("fetched %d", len(locked))
		}
		jobs := map[string]*bpmnlite.Job{}
		for _, j := range e.Jobs(pi) {
			jobs[j.ActivityID] = j
		}
		e.migratePlan(mapping(src, tgt, "async->async", "ext->ext", "timer->timer"), false, pi)
		got, _ := e.actTree(pi)
		wantEq(t, "activity instances", got, "{sub{ext timer ~async}}")
		wantEq(t, "open history", e.openHistory(pi), "ext<sub sub<pi timer<sub")
		for _, j := range e.Jobs(pi) {
			if old := jobs[j.ActivityID]; old == nil || old.ID != j.ID || fmt.Sprint(old.DueDate) != fmt.Sprint(j.DueDate) || j.ProcessDefinitionID != tgt {
				t.Errorf("job %+v, want %+v kept", j, old)
			}
		}
		ext, err := e.Eng.ExternalTasks(e.Ctx, bpmnlite.ExternalTaskQuery{ProcessInstanceID: pi})
		if err != nil || len(ext) != 1 || ext[0].ID != locked[0].ID || ext[0].ProcessDefinitionID != tgt {
			t.Fatalf("external task after migration %+v, %v", ext, err)
		}
		e.ExecJob(jobs["async"].ID)
		wantEq(t, "task after the continuation", e.TaskKeys(pi), "async")
		if err := e.Eng.CompleteExternalTask(e.Ctx, ext[0].ID, "w", nil, nil); err != nil {
			t.Fatal(err)
		}
		e.ExecJob(jobs["timer"].ID)
		e.finish(pi)
		if h := e.HistoryAt(pi, "sub"); len(h) != 1 || h[0].EndTime == nil || h[0].Canceled {
			t.Errorf("subprocess history %+v, want one completed instance", h)
		}
	})
}

// What stays refused, with Camunda's messages where Camunda refuses too
// (MigrationRemoveSubprocessTest.testCannotRemoveScopeAndMoveToConcurrentActivity,
// testCannotRemoveParentScopeAndMoveOutOfGrandParentScope,
// MigrationAddMultiInstanceTest, SameEventScopeInstructionValidator for an
// event subprocess start moved out of its scope, and
// testRemoveAndAddMultiInstanceBody) and bpmnlite's own where it does not
// follow Camunda (removing a multi-instance activity with its body, adding
// an event subprocess): the report names each, and a refused migration leaves the
// instance exactly as it was.
func TestMigrateScopeChangeRefused(t *testing.T) {
	triple := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
		<subProcess id="sub1"><startEvent id="s1"/><subProcess id="sub2"><startEvent id="s2"/>
			<subProcess id="sub3"><startEvent id="s3"/><userTask id="userTask"/><endEvent id="e3"/>`+enginetest.Chain("s3", "userTask", "e3")+`</subProcess>
			<endEvent id="e2"/>`+enginetest.Chain("s2", "sub3", "e2")+`</subProcess><endEvent id="e1"/>`+enginetest.Chain("s1", "sub2", "e1")+`</subProcess>
		<endEvent id="end"/>`+enginetest.Chain("start", "sub1", "end")))
	miSub := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
		<subProcess id="sub"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>
			<startEvent id="subStart"/><userTask id="userTask"/><endEvent id="subEnd"/>`+enginetest.Chain("subStart", "userTask", "subEnd")+`</subProcess>
		<endEvent id="end"/>`+enginetest.Chain("start", "sub", "end")))
	miTask := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
		<userTask id="userTask"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></userTask>
		<endEvent id="end"/>`+enginetest.Chain("start", "userTask", "end")))
	inEventSub := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="other"/><endEvent id="end"/>`+enginetest.Chain("start", "other", "end")+`
		<subProcess id="esp" triggeredByEvent="true"><startEvent id="espStart"><messageEventDefinition messageRef="m"/></startEvent>
			<userTask id="userTask"/><endEvent id="espEnd"/>`+enginetest.Chain("espStart", "userTask", "espEnd")+`</subProcess>`), `<message id="m" name="Msg"/>`)
	espAtProcess := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="userTask"/><endEvent id="end"/>`+enginetest.Chain("start", "userTask", "end")+`
		<subProcess id="esp" triggeredByEvent="true"><startEvent id="espStart" isInterrupting="false"><messageEventDefinition messageRef="m"/></startEvent>
			<endEvent id="espEnd"/>`+enginetest.Chain("espStart", "espEnd")+`</subProcess>`), `<message id="m" name="Msg"/>`)
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		parSub, taskAndSub := e.versions("p", scopeParallelInSub, scopeTaskAndSub)
		tripleID := e.deployNext("p", triple)
		one := e.deployNext("p", scopeOneTask)
		cases := []struct {
			plan   bpmnlite.MigrationPlan
			source string
			want   []string
		}{
			{mapping(parSub, taskAndSub, "sub->sub", "userTask1->userTask1", "userTask2->userTask2"), "userTask2",
				[]string{"The closest mapped ancestor 'sub' is mapped to scope 'sub' which is not an ancestor of target scope 'userTask2'"}},
			{mapping(tripleID, tripleID, "sub1->sub1", "sub3->sub1", "userTask->userTask"), "sub3",
				[]string{"The closest mapped ancestor 'sub1' is mapped to scope 'sub1' which is not an ancestor of target scope 'sub1'"}},
			{mapping(one, e.deployNext("p", miSub), "userTask->userTask"), "userTask",
				[]string{"Target activity 'userTask' is a descendant of multi-instance body 'sub#multiInstanceBody' that is not mapped from the source process definition."}},
			{mapping(e.deployNext("p", miTask), e.deployNext("p", miTask), "userTask->userTask"), "userTask",
				[]string{"Target activity 'userTask' is a descendant of multi-instance body 'userTask#multiInstanceBody' that is not mapped from the source process definition."}},
			{mapping(e.deployNext("p", miSub), one, "userTask->userTask"), "userTask",
				[]string{"The multi-instance activity 'sub' around the source activity is not mapped: bpmnlite removes a multi-instance body only when its inner activity is mapped"}},
			{mapping(one, e.deployNext("p", inEventSub), "userTask->userTask"), "userTask",
				[]string{"The flow scope 'esp' of the target activity is not mapped from the source: bpmnlite adds only embedded subprocesses in a migration (not an event subprocess)"}},
			{mapping(e.deployNext("p", richSub("")), e.deployNext("p", espAtProcess), "userTask->userTask", "espStart->espStart"), "espStart",
				[]string{"The source activity's event scope (sub) must be mapped to the target activity's event scope (p)"}},
		}
		for _, c := range cases {
			report, err := e.Eng.ValidateMigrationPlan(e.Ctx, c.plan)
			if err != nil {
				t.Fatal(err)
			}
			if len(report.InstructionReports) != 1 || report.InstructionReports[0].Instruction.SourceActivityIDs[0] != c.source {
				t.Errorf("reports %+v, want one for %s", report.InstructionReports, c.source)
				continue
			}
			wantEq(t, "failures of "+c.source, report.InstructionReports[0].Failures, c.want)
		}
		// Executing the first: refused, the instance unchanged.
		pi := e.startIn(parSub, map[string]any{"x": int64(1)})
		before := e.snapshot(pi)
		err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: cases[0].plan, ProcessInstanceIDs: []string{pi}})
		var pe *bpmnlite.MigrationPlanError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), cases[0].want[0]) {
			t.Fatalf("migrate: %v, want the plan refused", err)
		}
		wantEq(t, "instance after the refusal", e.snapshot(pi), before)
		// An instance at an unmapped activity inside a subprocess the plan
		// removes: the instance report names it, nothing changes.
		e.Complete(pi, "userTask1", nil)
		before = e.snapshot(pi)
		err = e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: mapping(parSub, taskAndSub, "userTask1->userTask1"), ProcessInstanceIDs: []string{pi}})
		var ie *bpmnlite.MigratingInstanceError
		if !errors.As(err, &ie) || len(ie.Report.ActivityInstanceReports) != 1 || ie.Report.ActivityInstanceReports[0].SourceScopeID != "userTask2" {
			t.Fatalf("migrate: %v, want userTask2's activity instance reported", err)
		}
		wantEq(t, "failures", ie.Report.ActivityInstanceReports[0].Failures, []string{"There is no migration instruction for this instance's activity"})
		wantEq(t, "instance after the refused instance", e.snapshot(pi), before)
	})
}

// migrateInBatch migrates pis with plan as a batch (MigrateAsync), running
// its seed job and then each of its batch jobs.
func (e *env) migrateInBatch(plan bpmnlite.MigrationPlan, pis ...string) {
	e.T.Helper()
	b, err := e.Eng.MigrateAsync(e.Ctx, bpmnlite.MigrationRequest{Plan: plan, ProcessInstanceIDs: pis})
	if err != nil {
		e.T.Fatal(err)
	}
	if err := e.runOnly("seed", b.SeedJobDefinitionID); err != nil {
		e.T.Fatal(err)
	}
	for _, j := range e.batchJobs(b.BatchJobDefinitionID) {
		if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err != nil {
			e.T.Fatal(err)
		}
	}
}

// A batch migration adds the subprocess as the synchronous one does.
func TestBatchMigrationAddsSubprocess(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		par, parSub := e.versions("p", scopeParallel, scopeParallelInSub)
		pis := []string{e.startIn(par, nil), e.startIn(par, nil)}
		e.migrateInBatch(mapping(par, parSub, "userTask1->userTask1", "userTask2->userTask2"), pis...)
		for _, pi := range pis {
			got, _ := e.actTree(pi)
			wantEq(t, "activity instances of "+pi, got, "{sub{userTask1 userTask2}}")
			e.finish(pi)
		}
	})
}

// A user task with a boundary timer and input/output mappings (a scope of
// its own) moves into a new subprocess with its timer job and its
// mappings' scope (testScopeUserTaskMigration); two instances of a
// subprocess each get their own new inner subprocess
// (testMultipleInstancesOfScope).
func TestMigrateAddSubprocessAroundScopes(t *testing.T) {
	task := `<userTask id="userTask"><extensionElements><camunda:inputOutput><camunda:inputParameter name="local">1</camunda:inputParameter></camunda:inputOutput></extensionElements></userTask>
		<boundaryEvent id="timer" attachedToRef="userTask"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
		<endEvent id="timedOut"/>` + enginetest.Chain("timer", "timedOut")
	flat := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>`+task+`<endEvent id="end"/>`+enginetest.Chain("start", "userTask", "end")))
	nested := scopeSub("", task, "")
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", flat, nested)
		pi := e.startIn(src, nil)
		job := e.OneJob(pi)
		e.migratePlan(mapping(src, tgt, "userTask->userTask", "timer->timer"), false, pi)
		got, _ := e.actTree(pi)
		wantEq(t, "activity instances", got, "{sub{userTask}}")
		moved := e.OneJob(pi)
		if moved.ID != job.ID || fmt.Sprint(moved.DueDate) != fmt.Sprint(job.DueDate) || moved.ActivityID != "timer" {
			t.Errorf("timer job %+v, want %+v kept", moved, job)
		}
		vars, err := e.Eng.Variables(e.Ctx, e.Tasks(pi)[0].ExecutionID)
		if err != nil || fmt.Sprint(vars["local"]) != "1" {
			t.Errorf("task's variables %v, %v: want its input mapping kept", vars, err)
		}
		// The timer fires in the subprocess: the task is gone, the
		// subprocess completes, the instance ends.
		e.ExecJob(moved.ID)
		if !e.Ended(pi) {
			t.Errorf("instance not ended after the boundary timer: %s", e.execTree(pi))
		}
		if h := e.HistoryAt(pi, "timedOut"); len(h) != 1 {
			t.Errorf("history at timedOut %d, want 1", len(h))
		}

		// Two instances of the subprocess, an inner one added in each.
		sub := e.deployNext("p", scopeSub("", `<userTask id="userTask"/>`, ""))
		double := e.deployNext("p", scopeDoubleSub)
		pi = e.startIn(sub, nil)
		e.modify(pi, startBefore("sub"))
		_, before := e.actTree(pi)
		e.migratePlan(mapping(sub, double, "sub->outer", "userTask->userTask"), false, pi)
		got, ids := e.actTree(pi)
		wantEq(t, "two instances", got, "{outer{inner{userTask}} outer{inner{userTask}}}")
		slices.Sort(ids["outer"])
		slices.Sort(before["sub"])
		wantEq(t, "outer instances", ids["outer"], before["sub"])
		e.finish(pi)
	})
}

// Out of a subprocess: an asynchronous continuation, an external task
// and a timer inside the removed subprocess keep their job, external task
// and timer and continue at process level.
func TestMigrateRemoveSubprocessJobs(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", jobsModels(true), jobsModels(false))
		pi := e.startIn(src, nil)
		e.ExecJob(e.OneJob(pi).ID) // into the subprocess
		locked := e.Fetch("w", 10, harness.Topic("t", time.Minute))
		jobs := map[string]string{}
		for _, j := range e.Jobs(pi) {
			jobs[j.ActivityID] = j.ID
		}
		e.migratePlan(mapping(src, tgt, "async->async", "ext->ext", "timer->timer"), false, pi)
		got, _ := e.actTree(pi)
		wantEq(t, "activity instances", got, "{ext timer ~async}")
		wantEq(t, "open history", e.openHistory(pi), "ext<pi timer<pi")
		after := map[string]string{}
		for _, j := range e.Jobs(pi) {
			after[j.ActivityID] = j.ID
		}
		wantEq(t, "jobs", after, jobs)
		e.ExecJob(jobs["async"])
		if err := e.Eng.CompleteExternalTask(e.Ctx, locked[0].ID, "w", nil, nil); err != nil {
			t.Fatal(err)
		}
		e.ExecJob(jobs["timer"])
		e.finish(pi)
	})
}

// A multi-instance body mapped with its inner activity moves out of a
// removed subprocess and into an added one with its inner instances
// (Camunda's testAddParentScopeToMultiInstance, which Camunda leaves
// ignored).
func TestMigrateMultiInstanceBodyAcrossSubprocess(t *testing.T) {
	mi := `<userTask id="userTask"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></userTask>`
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		nested, flat := e.versions("p", scopeSub("", mi, ""),
			enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>`+mi+`<endEvent id="end"/>`+enginetest.Chain("start", "userTask", "end"))))
		plan := func(src, tgt string) bpmnlite.MigrationPlan {
			return mapping(src, tgt, "userTask#multiInstanceBody->userTask#multiInstanceBody", "userTask->userTask")
		}
		pi := e.startIn(nested, nil)
		e.Complete(pi, "userTask", nil)
		e.migratePlan(plan(nested, flat), false, pi)
		got, _ := e.actTree(pi)
		wantEq(t, "out of the subprocess", got, "{userTask#multiInstanceBody{userTask}}")
		wantEq(t, "open history out", e.openHistory(pi), "userTask#multiInstanceBody<pi userTask<userTask#multiInstanceBody")
		e.finish(pi)

		pi = e.startIn(flat, nil)
		e.migratePlan(plan(flat, nested), false, pi)
		got, _ = e.actTree(pi)
		wantEq(t, "into the subprocess", got, "{sub{userTask#multiInstanceBody{userTask userTask}}}")
		wantEq(t, "open history in", e.openHistory(pi), "sub<pi userTask#multiInstanceBody<sub userTask<userTask#multiInstanceBody userTask<userTask#multiInstanceBody")
		e.finish(pi)
	})
}
