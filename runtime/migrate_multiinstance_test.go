package runtime_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// Migrations that remove a multi-instance body, modelled on Camunda's
// MigrationRemoveMultiInstanceTest: the inner instances of an unmapped
// body become instances of the plain target activity, concurrent ones when
// several are left; the body's variables go, the loop counters of a
// parallel body's inner instances stay.

// miLoop is multi-instance loop characteristics of three instances.
func miLoop(sequential bool) string {
	seq := ""
	if sequential {
		seq = ` isSequential="true"`
	}
	return `<multiInstanceLoopCharacteristics` + seq + `><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics>`
}

// miTaskModel is Camunda's PAR_MI_ONE_TASK_PROCESS (SEQ_ when sequential).
func miTaskModel(sequential bool) string {
	return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="userTask">`+miLoop(sequential)+`</userTask><endEvent id="end"/>`+
		enginetest.Chain("start", "userTask", "end")))
}

// miSubModel is Camunda's PAR_MI_SUBPROCESS_PROCESS (SEQ_ when sequential).
func miSubModel(sequential bool) string {
	return scopeSub(miLoop(sequential), `<userTask id="userTask"/>`, "")
}

// variableNames counts pi's variables by name.
func (e *env) variableNames(pi string) map[string]int {
	e.T.Helper()
	vars, err := e.Eng.VariableInstances(e.Ctx, bpmnlite.VariableInstanceQuery{ProcessInstanceIDs: []string{pi}})
	if err != nil {
		e.T.Fatal(err)
	}
	out := map[string]int{}
	for _, v := range vars {
		out[v.Name]++
	}
	return out
}

// taskIDs are pi's open task ids, sorted.
func (e *env) taskIDs(pi string) []string {
	var ids []string
	for _, t := range e.Tasks(pi) {
		ids = append(ids, t.ID)
	}
	slices.Sort(ids)
	return ids
}

// wantBodyCanceled checks that pi's history of body activity ended as
// canceled.
func (e *env) wantBodyCanceled(pi, body string) {
	e.T.Helper()
	h := e.HistoryAt(pi, body)
	if len(h) != 1 || h[0].EndTime == nil || !h[0].Canceled {
		e.T.Errorf("history of %s: %+v, want one instance ended as canceled", body, h)
	}
}

// migrateWatched migrates pi with plan and returns what it had before:
// its activity instance ids by activity and its open task ids.
func (e *env) migrateWatched(plan bpmnlite.MigrationPlan, pi string) (map[string][]string, []string) {
	e.T.Helper()
	_, ids := e.actTree(pi)
	tasks := e.taskIDs(pi)
	e.migratePlan(plan, false, pi)
	return ids, tasks
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// testRemoveParallelMultiInstanceBody, ...BodyVariables and
// ...BodyOneInstanceFinished; and with one inner instance left, it runs on
// the process instance with its loop counter.
func TestMigrateRemoveParallelMultiInstanceBody(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", miTaskModel(false), scopeOneTask)
		plan := mapping(src, tgt, "userTask->userTask")
		pi := e.startIn(src, map[string]any{"x": int64(1)})
		before, tasks := e.migrateWatched(plan, pi)
		got, ids := e.actTree(pi)
		wantEq(t, "activity instances", got, "{userTask userTask userTask}")
		wantEq(t, "user task instances", sorted(ids["userTask"]), sorted(before["userTask"]))
		wantEq(t, "executions", e.execTree(pi), "-{userTask:c userTask:c userTask:c}")
		wantEq(t, "tasks", e.taskIDs(pi), tasks)
		for _, task := range e.Tasks(pi) {
			if task.ProcessDefinitionID != tgt {
				t.Errorf("task %s of definition %s, want %s", task.ID, task.ProcessDefinitionID, tgt)
			}
		}
		// The body's variables are gone, the loop counters stay (they
		// belong to the inner instances).
		wantEq(t, "variables", e.variableNames(pi), map[string]int{"x": 1, "loopCounter": 3})
		e.wantBodyCanceled(pi, "userTask#multiInstanceBody")
		wantEq(t, "open history", e.openHistory(pi), "userTask<pi userTask<pi userTask<pi")
		e.finish(pi)

		// One instance finished: two are left.
		pi = e.startIn(src, nil)
		e.Complete(pi, "userTask", nil)
		e.migratePlan(plan, false, pi)
		wantEq(t, "executions, one finished", e.execTree(pi), "-{userTask:c userTask:c}")
		wantEq(t, "tasks, one finished", len(e.Tasks(pi)), 2)
		wantEq(t, "variables, one finished", e.variableNames(pi), map[string]int{"loopCounter": 2})
		e.finish(pi)

		// Two finished: the last runs on the process instance.
		pi = e.startIn(src, nil)
		e.Complete(pi, "userTask", nil)
		e.Complete(pi, "userTask", nil)
		_, before = e.actTree(pi)
		e.migratePlan(plan, false, pi)
		got, ids = e.actTree(pi)
		wantEq(t, "activity instances, one left", got, "{userTask}")
		wantEq(t, "user task instance, one left", ids["userTask"], before["userTask"])
		wantEq(t, "executions, one left", e.execTree(pi), "userTask")
		if ts := e.Tasks(pi); len(ts) != 1 || ts[0].ExecutionID != pi {
			t.Fatalf("tasks %+v, want one of the process instance's execution", ts)
		}
		wantEq(t, "variables, one left", e.variableNames(pi), map[string]int{"loopCounter": 1})
		if h := e.HistoryAt(pi, "userTask"); len(h) != 3 || !slices.ContainsFunc(h, func(h *bpmnlite.HistoricActivityInstance) bool {
			return h.EndTime == nil && h.ExecutionID == pi && h.ParentActivityInstanceID == pi
		}) {
			t.Errorf("user task history %+v, want the open one run by the process instance", h)
		}
		e.finish(pi)
	})
}

// testRemoveSequentialMultiInstanceBody and ...BodyVariables: the inner
// instance runs on the process instance; every multi-instance variable is
// gone, the loop counter too (Camunda keeps it on the body's execution).
func TestMigrateRemoveSequentialMultiInstanceBody(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", miTaskModel(true), scopeOneTask)
		pi := e.startIn(src, nil)
		e.Complete(pi, "userTask", nil)
		before, tasks := e.migrateWatched(mapping(src, tgt, "userTask->userTask"), pi)
		got, ids := e.actTree(pi)
		wantEq(t, "activity instances", got, "{userTask}")
		wantEq(t, "user task instance", ids["userTask"], before["userTask"])
		wantEq(t, "executions", e.execTree(pi), "userTask")
		wantEq(t, "tasks", e.taskIDs(pi), tasks)
		wantEq(t, "variables", e.variableNames(pi), map[string]int{})
		e.wantBodyCanceled(pi, "userTask#multiInstanceBody")
		wantEq(t, "open history", e.openHistory(pi), "userTask<pi")
		e.finish(pi)
		wantEq(t, "user tasks run", len(e.HistoryAt(pi, "userTask")), 2)
	})
}

// testRemoveParallelMultiInstanceBodyScope and
// testRemovSequentialMultiInstanceBodyScope: each subprocess instance
// keeps its id and its local variables.
func TestMigrateRemoveMultiInstanceBodyScope(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		parSrc, tgt := e.versions("p", miSubModel(false), scopeSub("", `<userTask id="userTask"/>`, ""))
		plan := mapping(parSrc, tgt, "sub->sub", "userTask->userTask")
		pi := e.startIn(parSrc, nil)
		before, tasks := e.migrateWatched(plan, pi)
		got, ids := e.actTree(pi)
		wantEq(t, "parallel: activity instances", got, "{sub{userTask} sub{userTask} sub{userTask}}")
		wantEq(t, "parallel: subprocess instances", sorted(ids["sub"]), sorted(before["sub"]))
		wantEq(t, "parallel: user task instances", sorted(ids["userTask"]), sorted(before["userTask"]))
		wantEq(t, "parallel: executions", e.execTree(pi), "-{-:c{userTask:s} -:c{userTask:s} -:c{userTask:s}}")
		wantEq(t, "parallel: tasks", e.taskIDs(pi), tasks)
		wantEq(t, "parallel: variables", e.variableNames(pi), map[string]int{"loopCounter": 3})
		e.wantBodyCanceled(pi, "sub#multiInstanceBody")
		wantEq(t, "parallel: open history", e.openHistory(pi), "sub<pi sub<pi sub<pi userTask<sub userTask<sub userTask<sub")
		e.finish(pi)

		seqSrc := e.deployNext("p", miSubModel(true))
		tgt = e.deployNext("p", scopeSub("", `<userTask id="userTask"/>`, ""))
		pi = e.startIn(seqSrc, nil)
		task := e.Tasks(pi)[0]
		if err := e.Eng.SetVariablesLocal(e.Ctx, task.ExecutionID, map[string]any{"subLocal": "kept"}); err != nil {
			t.Fatal(err)
		}
		_, before = e.actTree(pi)
		e.migratePlan(mapping(seqSrc, tgt, "sub->sub", "userTask->userTask"), false, pi)
		got, ids = e.actTree(pi)
		wantEq(t, "sequential: activity instances", got, "{sub{userTask}}")
		wantEq(t, "sequential: subprocess instance", ids["sub"], before["sub"])
		wantEq(t, "sequential: executions", e.execTree(pi), "-{userTask:s}")
		wantEq(t, "sequential: variables", e.variableNames(pi), map[string]int{"subLocal": 1})
		if ts := e.Tasks(pi); len(ts) != 1 || ts[0].ID != task.ID || ts[0].ExecutionID != task.ExecutionID {
			t.Fatalf("tasks %+v, want %s on %s", ts, task.ID, task.ExecutionID)
		}
		wantEq(t, "sequential: open history", e.openHistory(pi), "sub<pi userTask<sub")
		e.finish(pi)
	})
}

// Nested: the body of a multi-instance user task inside a mapped
// multi-instance subprocess is removed in each subprocess instance.
func TestMigrateRemoveNestedMultiInstanceBody(t *testing.T) {
	loop2 := `<multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>`
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", scopeSub(loop2, `<userTask id="userTask">`+loop2+`</userTask>`, ""),
			scopeSub(loop2, `<userTask id="userTask"/>`, ""))
		pi := e.startIn(src, nil)
		tasks := e.taskIDs(pi)
		e.migratePlan(mapping(src, tgt, "sub#multiInstanceBody->sub#multiInstanceBody", "sub->sub", "userTask->userTask"), false, pi)
		got, _ := e.actTree(pi)
		wantEq(t, "activity instances", got, "{sub#multiInstanceBody{sub{userTask userTask} sub{userTask userTask}}}")
		wantEq(t, "tasks", e.taskIDs(pi), tasks)
		wantEq(t, "variables", e.variableNames(pi), map[string]int{"nrOfInstances": 1, "nrOfActiveInstances": 1, "nrOfCompletedInstances": 1, "loopCounter": 6})
		wantEq(t, "open history", e.openHistory(pi),
			"sub#multiInstanceBody<pi sub<sub#multiInstanceBody sub<sub#multiInstanceBody userTask<sub userTask<sub userTask<sub userTask<sub")
		if h := e.HistoryAt(pi, "userTask#multiInstanceBody"); len(h) != 2 || h[0].EndTime == nil || !h[0].Canceled || !h[1].Canceled {
			t.Errorf("inner bodies' history %+v, want two canceled", h)
		}
		e.finish(pi)

		// Both bodies removed: two subprocess instances, each with two
		// concurrent tasks.
		plain := e.deployNext("p", scopeSub("", `<userTask id="userTask"/>`, ""))
		pi = e.startIn(src, nil)
		tasks = e.taskIDs(pi)
		e.migratePlan(mapping(src, plain, "sub->sub", "userTask->userTask"), false, pi)
		got, _ = e.actTree(pi)
		wantEq(t, "both removed: activity instances", got, "{sub{userTask userTask} sub{userTask userTask}}")
		wantEq(t, "both removed: tasks", e.taskIDs(pi), tasks)
		wantEq(t, "both removed: variables", e.variableNames(pi), map[string]int{"loopCounter": 6})
		wantEq(t, "both removed: open history", e.openHistory(pi), "sub<pi sub<pi userTask<sub userTask<sub userTask<sub userTask<sub")
		e.finish(pi)
	})
}

// What stays refused when a body is removed: a body waiting for its
// asynchronous continuation has no inner instance to migrate (Camunda's
// report for an unmapped transition instance); the instance is unchanged.
// Inner instances waiting for theirs do migrate.
func TestMigrateRemoveMultiInstanceBodyRefused(t *testing.T) {
	async := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="userTask" camunda:asyncBefore="true">
		<multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
		<endEvent id="end"/>`+enginetest.Chain("start", "userTask", "end")))
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", async, scopeOneTask)
		pi := e.startIn(src, nil)
		before := e.snapshot(pi)
		err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: mapping(src, tgt, "userTask->userTask"), ProcessInstanceIDs: []string{pi}})
		var ie *bpmnlite.MigratingInstanceError
		if !errors.As(err, &ie) {
			t.Fatalf("migrate: %v, want the instance refused", err)
		}
		r := ie.Report
		if len(r.TransitionInstanceReports) != 1 || len(r.ActivityInstanceReports) != 0 || len(r.Failures) != 0 {
			t.Fatalf("report %+v, want one transition instance report", r)
		}
		wantEq(t, "transition instance failures", r.TransitionInstanceReports[0].Failures, []string{"There is no migration instruction for this instance's activity"})
		wantEq(t, "source scope", r.TransitionInstanceReports[0].SourceScopeID, "userTask#multiInstanceBody")
		if !strings.HasPrefix(err.Error(), "Cannot migrate process instance '"+pi+"':\n\tCannot migrate transition instance '") {
			t.Errorf("message %q", err)
		}
		wantEq(t, "instance after the refusal", e.snapshot(pi), before)

		// Inner instances waiting for their own asynchronous continuation
		// migrate to an asynchronous target with their jobs.
		innerAsync := e.deployNext("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="userTask">
			<multiInstanceLoopCharacteristics camunda:asyncBefore="true"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<endEvent id="end"/>`+enginetest.Chain("start", "userTask", "end"))))
		asyncTask := e.deployNext("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="userTask" camunda:asyncBefore="true"/>
			<endEvent id="end"/>`+enginetest.Chain("start", "userTask", "end"))))
		pi = e.startIn(innerAsync, nil)
		jobs := e.Jobs(pi)
		e.migratePlan(mapping(innerAsync, asyncTask, "userTask->userTask"), false, pi)
		got, _ := e.actTree(pi)
		wantEq(t, "transition instances", got, "{~userTask ~userTask ~userTask}")
		after := e.Jobs(pi)
		if len(after) != 3 || len(jobs) != 3 {
			t.Fatalf("jobs %+v, want the three continuations", after)
		}
		for _, j := range after {
			if !slices.ContainsFunc(jobs, func(b *bpmnlite.Job) bool { return b.ID == j.ID }) || j.ProcessDefinitionID != asyncTask {
				t.Errorf("job %+v, want one of %+v moved to %s", j, jobs, asyncTask)
			}
			if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err != nil {
				t.Fatal(err)
			}
		}
		e.finish(pi)
	})
}

// BatchMigrationTest with a body removed: the batch job migrates each
// instance as the synchronous call does.
func TestBatchMigrationRemovesMultiInstanceBody(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", miTaskModel(false), scopeOneTask)
		pis := []string{e.startIn(src, nil), e.startIn(src, nil)}
		e.migrateInBatch(mapping(src, tgt, "userTask->userTask"), pis...)
		for _, pi := range pis {
			got, _ := e.actTree(pi)
			wantEq(t, "activity instances of "+pi, got, "{userTask userTask userTask}")
			wantEq(t, "executions of "+pi, e.execTree(pi), "-{userTask:c userTask:c userTask:c}")
			e.finish(pi)
		}
	})
}

// A parallel body over a collection, with a boundary timer: each inner
// instance keeps its element variable and loop counter; the body's timer
// goes and the target task's boundary timer is armed on each path.
func TestMigrateRemoveMultiInstanceBodyCollectionAndBoundary(t *testing.T) {
	withTimer := func(loop string) string {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="userTask">`+loop+`</userTask>
			<boundaryEvent id="timer" attachedToRef="userTask"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
			<endEvent id="end"/><endEvent id="timedOut"/>`+enginetest.Chain("start", "userTask", "end")+enginetest.Chain("timer", "timedOut")))
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", withTimer(`<multiInstanceLoopCharacteristics camunda:collection="items" camunda:elementVariable="item"/>`), withTimer(""))
		pi := e.startIn(src, map[string]any{"items": []any{"a", "b"}})
		bodyTimer := e.Jobs(pi)
		if len(bodyTimer) != 1 {
			t.Fatalf("jobs before %+v, want the body's timer", bodyTimer)
		}
		e.migratePlan(mapping(src, tgt, "userTask->userTask"), false, pi)
		wantEq(t, "executions", e.execTree(pi), "-{userTask:c userTask:c}")
		wantEq(t, "variables", e.variableNames(pi), map[string]int{"items": 1, "item": 2, "loopCounter": 2})
		var items []any
		for _, task := range e.Tasks(pi) {
			items = append(items, e.VarsOf(task.ExecutionID)["item"])
		}
		slices.SortFunc(items, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
		wantEq(t, "element variables", items, []any{"a", "b"})
		jobs := e.Jobs(pi)
		if len(jobs) != 2 || jobs[0].ID == bodyTimer[0].ID || jobs[1].ID == bodyTimer[0].ID || jobs[0].ExecutionID == jobs[1].ExecutionID {
			t.Fatalf("jobs after %+v, want a new timer on each path", jobs)
		}
		for _, j := range jobs {
			wantEq(t, "timer activity", j.ActivityID, "timer")
		}
		e.finish(pi)
	})
}
