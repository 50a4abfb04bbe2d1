package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// Migration between process definition versions, modelled on Camunda's
// MigrationUserTaskTest, MigrationBoundaryEventsTest,
// MigrationMultiInstanceTest, MigrationEventSubProcessTest and
// MigrationPlanGenerationTest.

// versions deploys two versions of process key and returns their ids.
func (e *env) versions(key, v1, v2 string) (string, string) {
	e.T.Helper()
	e.Deploy(key+"-v1", v1)
	e.Deploy(key+"-v2", v2)
	defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: key})
	if err != nil || len(defs) != 2 {
		e.T.Fatalf("definitions of %s: %d, %v", key, len(defs), err)
	}
	slices.SortFunc(defs, func(a, b *bpmnlite.ProcessDefinition) int { return a.Version - b.Version })
	return defs[0].ID, defs[1].ID
}

// startIn starts an instance of definition id.
func (e *env) startIn(id string, vars map[string]any) string {
	e.T.Helper()
	pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{DefinitionID: id, Variables: vars})
	if err != nil {
		e.T.Fatalf("start %s: %v", id, err)
	}
	return pi
}

// migrate generates the plan between src and tgt and executes it for pis.
func (e *env) migrate(src, tgt string, update bool, pis ...string) *bpmnlite.MigrationPlan {
	e.T.Helper()
	plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, src, tgt, update)
	if err != nil {
		e.T.Fatalf("generate: %v", err)
	}
	if err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: *plan, ProcessInstanceIDs: pis}); err != nil {
		e.T.Fatalf("migrate: %v", err)
	}
	return plan
}

// snapshot is everything the public API shows of instance pi, to compare
// before and after a refused migration.
func (e *env) snapshot(pi string) string {
	e.T.Helper()
	hist, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
	if err != nil {
		e.T.Fatal(err)
	}
	b, err := json.Marshal([]any{e.Executions(pi, ""), e.Tasks(pi), e.Jobs(pi), e.SubsOf(pi), e.HistoryOf(pi), hist, e.VarsOf(pi)})
	if err != nil {
		e.T.Fatal(err)
	}
	return string(b)
}

func instructionIDs(plan *bpmnlite.MigrationPlan) string {
	var out []string
	for _, in := range plan.Instructions {
		s := in.SourceActivityIDs[0] + "->" + in.TargetActivityIDs[0]
		if in.UpdateEventTrigger {
			s += "(update)"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

const (
	migTask      = `<startEvent id="start"/><userTask id="userTask"/><endEvent id="end"/>`
	migTaskFlows = `<sequenceFlow id="f1" sourceRef="start" targetRef="userTask"/><sequenceFlow id="f2" sourceRef="userTask" targetRef="end"/>`
)

func subProcessModel(inner string) string {
	return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
		<subProcess id="sub"><startEvent id="subStart"/>`+inner+`<endEvent id="subEnd"/>
			<sequenceFlow id="s1" sourceRef="subStart" targetRef="userTask"/><sequenceFlow id="s2" sourceRef="userTask" targetRef="subEnd"/></subProcess>
		<endEvent id="end"/><sequenceFlow id="f1" sourceRef="start" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="end"/>`))
}

// MigrationPlanGenerationTest: equal activities in equal scopes are
// mapped; an activity whose type changed or whose scope is not mapped is
// not.
func TestMigrationPlanGeneration(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", subProcessModel(`<userTask id="userTask"/>`), subProcessModel(`<userTask id="userTask"/>`))
		plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, src, tgt, false)
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "instructions", instructionIDs(plan), "sub->sub userTask->userTask")
		// A receive task where the user task was: not the same type.
		tgt3 := e.deployNext("p", subProcessModel(`<receiveTask id="userTask"/>`))
		plan, err = e.Eng.GenerateMigrationPlan(e.Ctx, src, tgt3, false)
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "instructions to a receive task", instructionIDs(plan), "sub->sub")
		// The user task at process level, no subprocess: its scope is not mapped.
		tgt4 := e.deployNext("p", enginetest.Defs(enginetest.Executable("p", migTask+migTaskFlows)))
		plan, err = e.Eng.GenerateMigrationPlan(e.Ctx, src, tgt4, false)
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "instructions out of the subprocess", instructionIDs(plan), "")
		if _, err := e.Eng.GenerateMigrationPlan(e.Ctx, src, "nope:1:x", false); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("unknown target: %v, want ErrNotFound", err)
		}
	})
}

// deployNext deploys a new version of key and returns its id.
func (e *env) deployNext(key, xml string) string {
	e.T.Helper()
	d := e.Deploy(key+"-next", xml)
	defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{DeploymentID: d.ID})
	if err != nil || len(defs) != 1 {
		e.T.Fatalf("definitions of deployment: %d, %v", len(defs), err)
	}
	return defs[0].ID
}

// MigrationPlanCreationTest: each invalid instruction is reported with
// Camunda's reasons.
func TestMigrationPlanValidation(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", subProcessModel(`<userTask id="userTask"/>`),
			enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><receiveTask id="receive"/><userTask id="userTask"/><endEvent id="end"/>`+
				enginetest.Chain("start", "receive", "userTask", "end"))))
		in := func(s, t string) bpmnlite.MigrationInstruction {
			return bpmnlite.MigrationInstruction{SourceActivityIDs: []string{s}, TargetActivityIDs: []string{t}}
		}
		plan := bpmnlite.MigrationPlan{SourceProcessDefinitionID: src, TargetProcessDefinitionID: tgt, Instructions: []bpmnlite.MigrationInstruction{
			in("nothing", "userTask"), in("sub", "receive"), in("userTask", "userTask"),
			{SourceActivityIDs: []string{"userTask"}, TargetActivityIDs: []string{"userTask"}, UpdateEventTrigger: true},
		}}
		report, err := e.Eng.ValidateMigrationPlan(e.Ctx, plan)
		if err != nil {
			t.Fatal(err)
		}
		if report.Valid() || len(report.InstructionReports) != 4 {
			t.Fatalf("reports: %+v, want one per instruction", report.InstructionReports)
		}
		want := [][]string{
			{"Source activity 'nothing' does not exist"},
			{"Activities have incompatible types (subProcess is not compatible with receiveTask)"},
			{"There are multiple mappings for source activity id 'userTask'",
				"The closest mapped ancestor 'sub' is mapped to scope 'receive' which is not an ancestor of target scope 'userTask'"},
			{"There are multiple mappings for source activity id 'userTask'",
				"Cannot update event trigger because the activity does not define a persistent event trigger",
				"The closest mapped ancestor 'sub' is mapped to scope 'receive' which is not an ancestor of target scope 'userTask'"},
		}
		for i, r := range report.InstructionReports {
			wantEq(t, "failures of "+r.Instruction.String(), r.Failures, want[i])
		}
		// Executing it is refused with the same report.
		err = e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: plan, ProcessInstanceIDs: []string{"any"}})
		var pe *bpmnlite.MigrationPlanError
		if !errors.As(err, &pe) || !errors.Is(err, bpmnlite.ErrMigration) || len(pe.Report.InstructionReports) != 4 {
			t.Fatalf("migrate an invalid plan: %v", err)
		}
		if !strings.Contains(err.Error(), "Migration plan for process definition '"+src+"' to '"+tgt+"' is not valid:") {
			t.Errorf("message: %s", err)
		}
		// An unmapped flow scope: the subprocess is removed (migrate_scopes_test.go).
		report, err = e.Eng.ValidateMigrationPlan(e.Ctx, bpmnlite.MigrationPlan{SourceProcessDefinitionID: src, TargetProcessDefinitionID: tgt,
			Instructions: []bpmnlite.MigrationInstruction{in("userTask", "userTask")}})
		if err != nil || !report.Valid() {
			t.Fatalf("report %+v, %v", report, err)
		}
		// A plan variable that cannot be stored is reported by name.
		report, err = e.Eng.ValidateMigrationPlan(e.Ctx, bpmnlite.MigrationPlan{SourceProcessDefinitionID: src, TargetProcessDefinitionID: tgt,
			Variables: map[string]any{"bad": make(chan int), "good": "ok"}})
		if err != nil || len(report.InstructionReports) != 0 || len(report.VariableReports) != 1 || len(report.VariableReports["bad"]) != 1 ||
			!strings.HasPrefix(report.VariableReports["bad"][0], "Cannot set variable with name bad: ") {
			t.Errorf("variable report %+v, %v", report, err)
		}
	})
}

// MigrationUserTaskTest: the task keeps its id and assignee; its
// definition key and process definition follow the target; it completes
// in the target.
func TestMigrateUserTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", enginetest.Defs(enginetest.Executable("p", migTask+migTaskFlows)),
			enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="userTask2" name="Renamed"/><userTask id="after"/><endEvent id="end"/>`+
				enginetest.Chain("start", "userTask2", "after", "end"))))
		pi := e.startIn(src, map[string]any{"x": int64(1)})
		task := e.Tasks(pi)[0]
		if err := e.Eng.SetTaskAssignee(e.Ctx, task.ID, "kermit"); err != nil {
			t.Fatal(err)
		}
		plan := bpmnlite.MigrationPlan{SourceProcessDefinitionID: src, TargetProcessDefinitionID: tgt,
			Instructions: []bpmnlite.MigrationInstruction{{SourceActivityIDs: []string{"userTask"}, TargetActivityIDs: []string{"userTask2"}}},
			Variables:    map[string]any{"migrated": true}}
		if err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: plan, ProcessInstanceIDs: []string{pi}}); err != nil {
			t.Fatal(err)
		}
		tasks := e.Tasks(pi)
		if len(tasks) != 1 {
			t.Fatalf("tasks %d", len(tasks))
		}
		got := tasks[0]
		wantEq(t, "task id", got.ID, task.ID)
		wantEq(t, "assignee", got.Assignee, "kermit")
		wantEq(t, "task definition key", got.TaskDefinitionKey, "userTask2")
		wantEq(t, "process definition", got.ProcessDefinitionID, tgt)
		xs := e.Executions(pi, "")
		if len(xs) != 1 || xs[0].ProcessDefinitionID != tgt || xs[0].ActivityID != "userTask2" {
			t.Errorf("executions %s", harness.ExecList(xs))
		}
		tree, err := e.Eng.ActivityInstances(e.Ctx, pi)
		if err != nil || len(tree.Children) != 1 || tree.Children[0].ActivityID != "userTask2" || tree.ActivityID != tgt {
			t.Fatalf("activity instance tree %+v, %v", tree, err)
		}
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"x": int64(1), "migrated": true})
		hist, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
		if err != nil || len(hist) != 1 || hist[0].ProcessDefinitionID != tgt || hist[0].ProcessDefinitionVersion != 2 {
			t.Errorf("historic instance %+v, %v", hist, err)
		}
		if h := e.HistoryAt(pi, "userTask2"); len(h) != 1 || h[0].ProcessDefinitionID != tgt || h[0].ID != tree.Children[0].ID {
			t.Errorf("activity history at userTask2: %+v", h)
		}
		e.Complete(pi, "userTask2", nil)
		wantEq(t, "tasks after completing", e.TaskKeys(pi), "after")
	})
}

// MigrationBoundaryEventsTest: a boundary timer's job is kept (same id,
// same due date) unless the instruction updates its event trigger, which
// re-creates it from the target; a boundary message added in the target is
// subscribed, one removed is unsubscribed.
func TestMigrateBoundaryEvents(t *testing.T) {
	model := func(timer, boundaries string) string {
		return enginetest.Defs(enginetest.Executable("p", migTask+migTaskFlows+
			`<boundaryEvent id="timer" attachedToRef="userTask"><timerEventDefinition><timeDuration>`+timer+`</timeDuration></timerEventDefinition></boundaryEvent>
			<endEvent id="timedOut"/><sequenceFlow id="f3" sourceRef="timer" targetRef="timedOut"/>`+boundaries),
			`<message id="m1" name="Msg1"/><message id="m2" name="Msg2"/>`)
	}
	message := func(id, ref string) string {
		return `<boundaryEvent id="` + id + `" attachedToRef="userTask"><messageEventDefinition messageRef="` + ref + `"/></boundaryEvent>
			<endEvent id="` + id + `End"/><sequenceFlow id="` + id + `Flow" sourceRef="` + id + `" targetRef="` + id + `End"/>`
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model("PT5M", message("old", "m1")), model("PT10M", message("new", "m2")))
		kept, updated := e.startIn(src, nil), e.startIn(src, nil)
		before := e.OneJob(kept)
		e.Clock.Add(time.Minute)
		e.migrate(src, tgt, false, kept)
		plan := e.migrate(src, tgt, true, updated)
		wantEq(t, "plan with updateEventTriggers", instructionIDs(plan), "timer->timer(update) userTask->userTask")

		after := e.OneJob(kept)
		wantEq(t, "kept timer job id", after.ID, before.ID)
		wantEq(t, "kept timer due", after.DueDate.Equal(*before.DueDate), true)
		wantEq(t, "kept timer definition", after.ProcessDefinitionID, tgt)
		re := e.OneJob(updated)
		wantEq(t, "re-created timer due", re.DueDate.Equal(e.Clock.Now().Add(10*time.Minute)), true)
		for _, pi := range []string{kept, updated} {
			subs := e.SubsOf(pi)
			if len(subs) != 1 || subs[0].ActivityID != "new" || subs[0].EventName != "Msg2" {
				t.Errorf("subscriptions of %s: %+v, want the added boundary's only", pi, subs)
			}
		}
		e.Correlate("Msg2", kept, nil)
		if !e.Ended(kept) {
			t.Errorf("the added boundary message did not end the instance")
		}
		e.Clock.Add(11 * time.Minute)
		e.ExecJob(re.ID)
		if !e.Ended(updated) || len(e.HistoryAt(updated, "timedOut")) != 1 {
			t.Errorf("the re-created timer did not fire through the target")
		}
	})
}

// MigrationMultiInstanceTest: a parallel multi-instance body and its inner
// instances move together; the body's variables stay.
func TestMigrateMultiInstance(t *testing.T) {
	model := func(task string) string {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="`+task+`"><multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<endEvent id="end"/>`+enginetest.Chain("start", task, "end")))
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model("userTask"), model("userTask"))
		pi := e.startIn(src, nil)
		ids := func() []string {
			var out []string
			for _, tk := range e.Tasks(pi) {
				out = append(out, tk.ID+"/"+tk.ProcessDefinitionID)
			}
			slices.Sort(out)
			return out
		}
		tasks := e.Tasks(pi)
		e.Complete(pi, "userTask", nil)
		_ = tasks
		before := ids()
		plan := e.migrate(src, tgt, false, pi)
		wantEq(t, "plan", instructionIDs(plan), "userTask#multiInstanceBody->userTask#multiInstanceBody userTask->userTask")
		after := ids()
		if len(after) != 2 {
			t.Fatalf("tasks after migration %v", after)
		}
		for i := range after {
			wantEq(t, "task", after[i], strings.Replace(before[i], src, tgt, 1))
		}
		tree, err := e.Eng.ActivityInstances(e.Ctx, pi)
		if err != nil || len(tree.Children) != 1 || tree.Children[0].ActivityID != "userTask#multiInstanceBody" ||
			len(tree.Children[0].Children) != 2 || tree.Children[0].ProcessDefinitionID != tgt {
			t.Errorf("activity instance tree %+v, %v", tree, err)
		}
		e.Complete(pi, "userTask", nil)
		e.Complete(pi, "userTask", nil)
		if !e.Ended(pi) {
			t.Errorf("instance did not end after the inner instances completed in the target")
		}
		// Into a sequential body: refused with the reason.
		seq := e.deployNext("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="userTask"><multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
			<endEvent id="end"/>`+enginetest.Chain("start", "userTask", "end"))))
		report, err := e.Eng.ValidateMigrationPlan(e.Ctx, bpmnlite.MigrationPlan{SourceProcessDefinitionID: src, TargetProcessDefinitionID: seq,
			Instructions: plan.Instructions})
		if err != nil || len(report.InstructionReports) != 1 {
			t.Fatalf("report %+v, %v", report, err)
		}
		wantEq(t, "body failure", report.InstructionReports[0].Failures[0],
			"Activities have incompatible types (parallelMultiInstanceBody is not compatible with sequentialMultiInstanceBody)")
	})
}

// MigrationEventSubProcessTest: the message start of an event subprocess
// keeps its subscription (renamed with updateEventTrigger) and triggers the
// target's event subprocess; an event subprocess added in the target is
// armed.
func TestMigrateEventSubProcess(t *testing.T) {
	model := func(msg, extra string) string {
		return enginetest.Defs(enginetest.Executable("p", migTask+migTaskFlows+`
			<subProcess id="esp" triggeredByEvent="true"><startEvent id="espStart"><messageEventDefinition messageRef="m"/></startEvent>
				<userTask id="espTask"/><endEvent id="espEnd"/>`+enginetest.Chain("espStart", "espTask", "espEnd")+`</subProcess>`+extra),
			`<message id="m" name="`+msg+`"/><signal id="s" name="Sig"/>`)
	}
	added := `<subProcess id="esp2" triggeredByEvent="true"><startEvent id="esp2Start" isInterrupting="false"><signalEventDefinition signalRef="s"/></startEvent>
		<endEvent id="esp2End"/><sequenceFlow id="e2" sourceRef="esp2Start" targetRef="esp2End"/></subProcess>`
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model("Old", ""), model("New", added))
		pi := e.startIn(src, nil)
		sub := e.SubsOf(pi)[0]
		plan := e.migrate(src, tgt, true, pi)
		wantEq(t, "plan", instructionIDs(plan), "esp->esp espStart->espStart(update) espTask->espTask userTask->userTask")
		var names []string
		for _, s := range e.SubsOf(pi) {
			names = append(names, s.ActivityID+":"+s.EventName)
			if s.ActivityID == "espStart" && s.ID != sub.ID {
				t.Errorf("the event subprocess's subscription was re-created (%s), want it kept", s.ID)
			}
		}
		slices.Sort(names)
		wantEq(t, "subscriptions", names, []string{"esp2Start:Sig", "espStart:New"})
		e.Correlate("New", pi, nil)
		wantEq(t, "tasks after the message", e.TaskKeys(pi), "espTask")

		// An instance inside the interrupting event subprocess migrates with
		// it, and its scope's triggers stay disarmed.
		pi2 := e.startIn(tgt, nil)
		_ = pi2
		e2 := e.deployNext("p", model("Newer", added))
		e.Correlate("New", pi2, nil)
		e.migrate(tgt, e2, false, pi, pi2)
		for _, pi := range []string{pi, pi2} {
			if subs := e.SubsOf(pi); len(subs) != 0 {
				t.Errorf("subscriptions of %s inside the interrupting event subprocess: %+v", pi, subs)
			}
			wantEq(t, "task after migration", e.TaskKeys(pi), "espTask")
			e.Complete(pi, "espTask", nil)
			if !e.Ended(pi) {
				t.Errorf("%s did not end", pi)
			}
		}
	})
}

// Asynchronous continuations and external tasks move with their instance:
// the job takes the target's job definition and runs the target's
// activity; the external task keeps its id and lock.
func TestMigrateAsyncJobAndExternalTask(t *testing.T) {
	model := func(next string) string {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<task id="async" camunda:asyncBefore="true"/>
			<serviceTask id="ext" camunda:type="external" camunda:topic="t"/>`+next+enginetest.Chain("start", "async", "ext", "next")))
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model(`<endEvent id="next"/>`), model(`<userTask id="next"/>`))
		atJob, atExt := e.startIn(src, nil), e.startIn(src, nil)
		e.ExecJob(e.OneJob(atExt).ID)
		locked := e.Fetch("w", 10, harness.Topic("t", time.Minute))
		if len(locked) != 1 {
			t.Fatalf("fetched %d", len(locked))
		}
		job := e.OneJob(atJob)
		e.migrate(src, tgt, false, atJob, atExt)
		moved := e.OneJob(atJob)
		defs, err := e.Eng.JobDefinitions(e.Ctx, tgt, "")
		if err != nil || len(defs) != 1 {
			t.Fatalf("job definitions %v %v", defs, err)
		}
		wantEq(t, "job id", moved.ID, job.ID)
		wantEq(t, "job definition", moved.JobDefinitionID, defs[0].ID)
		wantEq(t, "job process definition", moved.ProcessDefinitionID, tgt)
		ext, err := e.Eng.ExternalTasks(e.Ctx, bpmnlite.ExternalTaskQuery{ProcessInstanceID: atExt})
		if err != nil || len(ext) != 1 || ext[0].ID != locked[0].ID || ext[0].ProcessDefinitionID != tgt || ext[0].WorkerID != "w" {
			t.Fatalf("external task after migration %+v, %v", ext, err)
		}
		if err := e.Eng.CompleteExternalTask(e.Ctx, ext[0].ID, "w", nil, nil); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "after the external task", e.TaskKeys(atExt), "next")
	})
}

// A plan that cannot be applied to one instance migrates none: the report
// names the activity instance and why; every instance is exactly as before.
func TestMigrateRefusedLeavesInstancesUnchanged(t *testing.T) {
	model := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
		<userTask id="a"/><userTask id="b"/><endEvent id="endA"/><endEvent id="endB"/>
		<sequenceFlow id="f0" sourceRef="start" targetRef="fork"/>
		<sequenceFlow id="f1" sourceRef="fork" targetRef="a"/><sequenceFlow id="f2" sourceRef="fork" targetRef="b"/>
		<sequenceFlow id="f3" sourceRef="a" targetRef="endA"/><sequenceFlow id="f4" sourceRef="b" targetRef="endB"/>
		<boundaryEvent id="timer" attachedToRef="a"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
		<endEvent id="late"/><sequenceFlow id="f5" sourceRef="timer" targetRef="late"/>`))
	target := enginetest.Defs(enginetest.Executable("p", migTask+migTaskFlows))
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model, target)
		good, bad := e.startIn(src, nil), e.startIn(src, nil)
		e.Complete(good, "b", nil) // good waits at a only
		before := map[string]string{good: e.snapshot(good), bad: e.snapshot(bad)}
		plan := bpmnlite.MigrationPlan{SourceProcessDefinitionID: src, TargetProcessDefinitionID: tgt,
			Instructions: []bpmnlite.MigrationInstruction{{SourceActivityIDs: []string{"a"}, TargetActivityIDs: []string{"userTask"}}}}
		err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: plan, ProcessInstanceIDs: []string{good, bad}})
		var me *bpmnlite.MigratingInstanceError
		if !errors.As(err, &me) || !errors.Is(err, bpmnlite.ErrMigration) {
			t.Fatalf("migrate: %v, want a MigratingInstanceError", err)
		}
		r := me.Report
		wantEq(t, "reported instance", r.ProcessInstanceID, bad)
		if len(r.ActivityInstanceReports) != 1 || r.ActivityInstanceReports[0].SourceScopeID != "b" {
			t.Fatalf("activity instance reports %+v", r.ActivityInstanceReports)
		}
		wantEq(t, "failures", r.ActivityInstanceReports[0].Failures, []string{"There is no migration instruction for this instance's activity"})
		if !strings.Contains(err.Error(), "Cannot migrate process instance '"+bad+"'") {
			t.Errorf("message %s", err)
		}
		for pi, snap := range before {
			if got := e.snapshot(pi); got != snap {
				t.Errorf("instance %s changed by a refused migration:\n%s\nwant\n%s", pi, got, snap)
			}
		}
		// By query, the good one alone migrates: its timer is removed
		// (the target's task has no boundary event).
		err = e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: plan, Query: &bpmnlite.InstanceQuery{IDs: []string{good}}})
		if err != nil {
			t.Fatal(err)
		}
		if js := e.Jobs(good); len(js) != 0 {
			t.Errorf("jobs after migration %s", harness.JobList(js))
		}
		e.Complete(good, "userTask", nil)
		if !e.Ended(good) {
			t.Errorf("migrated instance did not end")
		}
	})
}

// MigrationGatewayTest and an embedded subprocess: a path waiting at a
// parallel join and one inside a subprocess migrate; the join then
// completes in the target.
func TestMigrateSubProcessAndJoin(t *testing.T) {
	model := func(after string) string {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<subProcess id="sub"><startEvent id="subStart"/><userTask id="inner"/><endEvent id="subEnd"/>`+
			enginetest.Chain("subStart", "inner", "subEnd")+`</subProcess>
			<userTask id="side"/><parallelGateway id="join"/><userTask id="`+after+`"/><endEvent id="end"/>
			<sequenceFlow id="f0" sourceRef="start" targetRef="fork"/>
			<sequenceFlow id="f1" sourceRef="fork" targetRef="sub"/><sequenceFlow id="f2" sourceRef="fork" targetRef="side"/>
			<sequenceFlow id="f3" sourceRef="sub" targetRef="join"/><sequenceFlow id="f4" sourceRef="side" targetRef="join"/>
			<sequenceFlow id="f5" sourceRef="join" targetRef="`+after+`"/><sequenceFlow id="f6" sourceRef="`+after+`" targetRef="end"/>`))
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model("after"), model("afterV2"))
		pi := e.startIn(src, nil)
		e.Complete(pi, "side", nil)
		treeBefore, err := e.Eng.ActivityInstances(e.Ctx, pi)
		if err != nil {
			t.Fatal(err)
		}
		inner := e.Tasks(pi)[0].ID
		plan := e.migrate(src, tgt, false, pi)
		wantEq(t, "plan", instructionIDs(plan), "fork->fork inner->inner join->join side->side sub->sub")
		tree, err := e.Eng.ActivityInstances(e.Ctx, pi)
		if err != nil || len(tree.Children) != 2 {
			t.Fatalf("tree %+v, %v", tree, err)
		}
		for i, n := range tree.Children {
			if n.ID != treeBefore.Children[i].ID || n.ActivityID != treeBefore.Children[i].ActivityID || n.ProcessDefinitionID != tgt {
				t.Errorf("activity instance %d: %+v, want %+v in the target", i, n, treeBefore.Children[i])
			}
		}
		if e.Tasks(pi)[0].ID != inner {
			t.Errorf("inner task id changed")
		}
		e.Complete(pi, "inner", nil)
		wantEq(t, "after the join", e.TaskKeys(pi), "afterV2")
	})
}

// MigrationIncidentTest and MigrationTransitionInstancesTest: a failed
// asynchronous job keeps its incident, which takes the target's job
// definition; a target activity without the continuation refuses the
// transition instance.
func TestMigrateIncidentAndTransition(t *testing.T) {
	model := func(async string) string {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<serviceTask id="work" `+async+` camunda:class="fail"/><userTask id="done"/><endEvent id="end"/>`+
			enginetest.Chain("start", "work", "done", "end")))
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.FailingDelegate()
		src, tgt := e.versions("p", model(`camunda:asyncBefore="true"`), model(`camunda:asyncBefore="true"`))
		after := e.deployNext("p", model(`camunda:asyncAfter="true"`))
		pi := e.startIn(src, nil)
		job := e.OneJob(pi)
		for e.OneJob(pi).Retries > 0 {
			e.Clock.Add(time.Hour)
			e.FailJob(job.ID)
		}
		if len(e.IncidentsOf(job.ID)) != 1 {
			t.Fatalf("incidents of the failed job: %d", len(e.IncidentsOf(job.ID)))
		}
		before := e.snapshot(pi)
		plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, src, after, false)
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "plan to an async-after task", instructionIDs(plan), "done->done work->work")
		err = e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: *plan, ProcessInstanceIDs: []string{pi}})
		var me *bpmnlite.MigratingInstanceError
		if errors.As(err, &me) {
			wantEq(t, "transition reports", len(me.Report.TransitionInstanceReports), 1)
			tr := me.Report.TransitionInstanceReports[0]
			wantEq(t, "transition", []any{tr.TransitionInstanceID, tr.SourceScopeID, tr.Failures}, []any{pi, "work", []string{"Target activity is not asyncBefore"}})
		} else {
			t.Fatalf("migrate to an async-after task: %v", err)
		}
		if e.snapshot(pi) != before {
			t.Errorf("a refused migration changed the instance")
		}
		e.migrate(src, tgt, false, pi)
		defs, err := e.Eng.JobDefinitions(e.Ctx, tgt, "")
		if err != nil || len(defs) != 1 {
			t.Fatal(defs, err)
		}
		incidents := e.IncidentsOf(job.ID)
		if len(incidents) != 1 || incidents[0].ProcessDefinitionID != tgt || incidents[0].JobDefinitionID != defs[0].ID {
			t.Fatalf("incident after migration %+v, want in %s with job definition %s", incidents, tgt, defs[0].ID)
		}
		e.Eng.RegisterDelegate("fail", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		if err := e.Eng.SetJobRetries(e.Ctx, job.ID, 1); err != nil {
			t.Fatal(err)
		}
		e.ExecJob(job.ID)
		wantEq(t, "after the job ran in the target", e.TaskKeys(pi), "done")
	})
}

// MigrationReceiveTaskTest and MigrationTimerCatchEventTest: with
// updateEventTrigger a receive task's subscription takes the target's
// message name and a catch event's timer is re-created from the target;
// without, both are kept.
func TestMigrateCatchEventTriggers(t *testing.T) {
	model := func(msg, timer string) string {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><parallelGateway id="fork"/>
			<receiveTask id="receive" messageRef="m"/><intermediateCatchEvent id="timer"><timerEventDefinition><timeDuration>`+timer+`</timeDuration></timerEventDefinition></intermediateCatchEvent>
			<userTask id="afterReceive"/><userTask id="afterTimer"/>
			<sequenceFlow id="f0" sourceRef="start" targetRef="fork"/>
			<sequenceFlow id="f1" sourceRef="fork" targetRef="receive"/><sequenceFlow id="f2" sourceRef="fork" targetRef="timer"/>
			<sequenceFlow id="f3" sourceRef="receive" targetRef="afterReceive"/><sequenceFlow id="f4" sourceRef="timer" targetRef="afterTimer"/>`),
			`<message id="m" name="`+msg+`"/>`)
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model("A", "PT1H"), model("B", "PT2H"))
		kept, updated := e.startIn(src, nil), e.startIn(src, nil)
		keptJob := e.OneJob(kept)
		e.Clock.Add(10 * time.Minute)
		e.migrate(src, tgt, false, kept)
		e.migrate(src, tgt, true, updated)
		if j := e.OneJob(kept); j.ID != keptJob.ID || !j.DueDate.Equal(*keptJob.DueDate) {
			t.Errorf("kept timer %+v, want %+v", j, keptJob)
		}
		if j := e.OneJob(updated); !j.DueDate.Equal(e.Clock.Now().Add(2 * time.Hour)) {
			t.Errorf("re-created timer due %v, want %v", j.DueDate, e.Clock.Now().Add(2*time.Hour))
		}
		wantEq(t, "kept message", e.SubsOf(kept)[0].EventName, "A")
		wantEq(t, "updated message", e.SubsOf(updated)[0].EventName, "B")
		e.Correlate("B", updated, nil)
		e.Correlate("A", kept, nil)
		wantEq(t, "after the updated message", e.TaskKeys(updated), "afterReceive")
		wantEq(t, "after the kept message", e.TaskKeys(kept), "afterReceive")
	})
}

// MigrationWithoutTriggerConditionTest: a conditional boundary event added
// by the target is armed but not evaluated by the migration, even when its
// condition holds; the instance's next variable change fires it.
func TestMigrateConditionalNotTriggered(t *testing.T) {
	target := enginetest.Defs(enginetest.Executable("p", migTask+migTaskFlows+`
		<boundaryEvent id="cond" attachedToRef="userTask"><conditionalEventDefinition><condition>${x == 1}</condition></conditionalEventDefinition></boundaryEvent>
		<userTask id="afterCond"/><sequenceFlow id="f3" sourceRef="cond" targetRef="afterCond"/>`))
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", enginetest.Defs(enginetest.Executable("p", migTask+migTaskFlows)), target)
		pi := e.startIn(src, map[string]any{"x": int64(1)})
		plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, src, tgt, false)
		if err != nil {
			t.Fatal(err)
		}
		plan.Variables = map[string]any{"y": int64(2)}
		if err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: *plan, ProcessInstanceIDs: []string{pi}}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks after migration", e.TaskKeys(pi), "userTask")
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].ActivityID != "cond" {
			t.Errorf("subscriptions %+v, want the conditional boundary event's", subs)
		}
		if err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"z": int64(3)}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks after a variable change", e.TaskKeys(pi), "afterCond")
	})
}

// MigrationMultiInstanceTest with a sequential body and a boundary event on
// the multi-instance activity: the body's subscription is kept, the next
// inner instance starts in the target, the boundary event cancels the body.
func TestMigrateSequentialMultiInstanceWithBoundary(t *testing.T) {
	model := enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
		<userTask id="userTask"><multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
		<boundaryEvent id="stop" attachedToRef="userTask"><messageEventDefinition messageRef="m"/></boundaryEvent>
		<userTask id="stopped"/><endEvent id="end"/>`+enginetest.Chain("start", "userTask", "end")+`
		<sequenceFlow id="fs" sourceRef="stop" targetRef="stopped"/>`), `<message id="m" name="Stop"/>`)
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model, model)
		pi := e.startIn(src, nil)
		e.Complete(pi, "userTask", nil)
		sub := e.SubsOf(pi)[0]
		plan := e.migrate(src, tgt, false, pi)
		wantEq(t, "plan", instructionIDs(plan), "stop->stop stopped->stopped userTask#multiInstanceBody->userTask#multiInstanceBody userTask->userTask")
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].ID != sub.ID || subs[0].ProcessDefinitionID != tgt {
			t.Errorf("subscriptions %+v, want %s kept", subs, sub.ID)
		}
		wantEq(t, "loop counter", e.Var(pi, "nrOfCompletedInstances"), nil) // body-local: not visible at the instance
		e.Complete(pi, "userTask", nil)
		tasks := e.Tasks(pi)
		if len(tasks) != 1 || tasks[0].ProcessDefinitionID != tgt {
			t.Fatalf("third inner instance %+v, want a task of the target", tasks)
		}
		e.Correlate("Stop", pi, nil)
		wantEq(t, "after the boundary event", e.TaskKeys(pi), "stopped")
	})
}

// MigrationActiveEventSubProcessTest, non-interrupting: a running event
// subprocess migrates beside the path it did not interrupt, and its start
// event keeps listening with the same subscription.
func TestMigrateActiveNonInterruptingEventSubProcess(t *testing.T) {
	model := enginetest.Defs(enginetest.Executable("p", migTask+migTaskFlows+`
		<subProcess id="esp" triggeredByEvent="true"><startEvent id="espStart" isInterrupting="false"><messageEventDefinition messageRef="m"/></startEvent>
			<userTask id="espTask"/><endEvent id="espEnd"/>`+enginetest.Chain("espStart", "espTask", "espEnd")+`</subProcess>`),
		`<message id="m" name="Go"/>`)
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model, model)
		pi := e.startIn(src, nil)
		e.Correlate("Go", pi, nil)
		sub := e.SubsOf(pi)[0]
		e.migrate(src, tgt, false, pi)
		if subs := e.SubsOf(pi); len(subs) != 1 || subs[0].ID != sub.ID || subs[0].ProcessDefinitionID != tgt {
			t.Errorf("subscriptions %+v, want %s kept in the target", subs, sub.ID)
		}
		for _, tk := range e.Tasks(pi) {
			if tk.ProcessDefinitionID != tgt {
				t.Errorf("task %s in %s", tk.TaskDefinitionKey, tk.ProcessDefinitionID)
			}
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "espTask,userTask")
		e.Complete(pi, "espTask", nil)
		e.Complete(pi, "userTask", nil)
		if !e.Ended(pi) {
			t.Errorf("instance did not end")
		}
	})
}

// MigrationCallActivityTest: the instance a call activity started keeps
// its caller; when it ends, the caller continues in the target.
func TestMigrateCallActivity(t *testing.T) {
	caller := func(after string) string {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><callActivity id="call" calledElement="callee"/>
			<userTask id="`+after+`"/><endEvent id="end"/>`+enginetest.Chain("start", "call", after, "end")))
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("callee", enginetest.Defs(enginetest.Executable("callee", `<startEvent id="cs"/><userTask id="calleeTask"/><endEvent id="ce"/>`+
			enginetest.Chain("cs", "calleeTask", "ce"))))
		src, tgt := e.versions("p", caller("after"), caller("afterV2"))
		pi := e.startIn(src, nil)
		called, err := e.Eng.Instances(e.Ctx, bpmnlite.InstanceQuery{SuperProcessInstance: pi})
		if err != nil || len(called) != 1 {
			t.Fatalf("called instances %v, %v", called, err)
		}
		e.migrate(src, tgt, false, pi)
		e.Complete(called[0].ID, "calleeTask", nil)
		wantEq(t, "caller after the called instance ended", e.TaskKeys(pi), "afterV2")
	})
}

// MigrationPlanCreationTest for events: a boundary event must keep its
// event scope, and an event trigger takes one source only.
func TestMigrationPlanValidationEvents(t *testing.T) {
	model := func(attached string) string {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><userTask id="a"/><userTask id="b"/><endEvent id="end"/>`+
			enginetest.Chain("start", "a", "b", "end")+`
			<boundaryEvent id="t1" attachedToRef="`+attached+`"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
			<boundaryEvent id="t2" attachedToRef="b"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
			<endEvent id="late"/><sequenceFlow id="l1" sourceRef="t1" targetRef="late"/><sequenceFlow id="l2" sourceRef="t2" targetRef="late"/>`))
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		src, tgt := e.versions("p", model("a"), model("b"))
		in := func(s, t string) bpmnlite.MigrationInstruction {
			return bpmnlite.MigrationInstruction{SourceActivityIDs: []string{s}, TargetActivityIDs: []string{t}}
		}
		report, err := e.Eng.ValidateMigrationPlan(e.Ctx, bpmnlite.MigrationPlan{SourceProcessDefinitionID: src, TargetProcessDefinitionID: tgt,
			Instructions: []bpmnlite.MigrationInstruction{in("a", "a"), in("b", "b"), in("t1", "t1"), in("t2", "t1")}})
		if err != nil || len(report.InstructionReports) != 2 {
			t.Fatalf("report %+v, %v", report, err)
		}
		wantEq(t, "t1 failures", report.InstructionReports[0].Failures, []string{
			"Only one source activity can be mapped to 't1': several source activities are mapped to it",
			"The source activity's event scope (a) must be mapped to the target activity's event scope (b)"})
		wantEq(t, "t2 failures", report.InstructionReports[1].Failures, []string{
			"Only one source activity can be mapped to 't1': several source activities are mapped to it"})
		plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, src, tgt, false)
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "generated", instructionIDs(plan), "a->a b->b t2->t2")
	})
}

// A timeout task listener's timer job moves to the task it maps to and
// fires its listener there; a target task without that listener refuses
// the instance.
func TestMigrateTimeoutListener(t *testing.T) {
	model := func(task, listener string) string {
		return enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<userTask id="`+task+`"><extensionElements>`+timeoutListener(listener, `<timeDuration>PT1H</timeDuration>`)+`</extensionElements></userTask>
			<endEvent id="end"/>`+enginetest.Chain("start", task, "end")))
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var seen []string
		registerTimeout(e.Env, &seen)
		src, tgt := e.versions("p", model("task", "friendly"), model("renamed", "friendly"))
		other := e.deployNext("p", model("renamed", "other"))
		pi := e.startIn(src, nil)
		job := e.OneJob(pi)
		plan := bpmnlite.MigrationPlan{SourceProcessDefinitionID: src, TargetProcessDefinitionID: other,
			Instructions: []bpmnlite.MigrationInstruction{{SourceActivityIDs: []string{"task"}, TargetActivityIDs: []string{"renamed"}}}}
		err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: plan, ProcessInstanceIDs: []string{pi}})
		var me *bpmnlite.MigratingInstanceError
		if !errors.As(err, &me) || len(me.Report.Failures) != 1 || !strings.Contains(me.Report.Failures[0], "timeout task listener 'friendly'") {
			t.Fatalf("migrate to a task without the listener: %v", err)
		}
		plan.TargetProcessDefinitionID = tgt
		if err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: plan, ProcessInstanceIDs: []string{pi}}); err != nil {
			t.Fatal(err)
		}
		if j := e.OneJob(pi); j.ID != job.ID || j.ActivityID != "renamed" {
			t.Fatalf("timeout job %+v", j)
		}
		e.Clock.Add(2 * time.Hour)
		runDue(t, e)
		if len(seen) != 1 || !strings.HasPrefix(seen[0], "timeout:renamed:") {
			t.Errorf("listener calls %v, want one at renamed", seen)
		}
	})
}
