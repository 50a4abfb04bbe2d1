package bpmnlite_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// The asynchronous migration, modification and restart (Camunda's
// BatchMigrationTest, BatchModificationJobHandler, RestartProcessInstanceAsyncTest):
// batches whose execution jobs change one instance each.

// twoTasks waits at task, then at other; its next version renames other,
// which a generated plan then does not map.
func twoTasks(second string) string {
	return enginetest.Process("change", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task" />
    <sequenceFlow id="f2" sourceRef="task" targetRef="`+second+`" />
    <userTask id="`+second+`" />
    <sequenceFlow id="f3" sourceRef="`+second+`" targetRef="end" />
    <endEvent id="end" />`)
}

// versions are the ids of key's definitions, by version from 1.
func (e *env) versions(key string) []string {
	e.T.Helper()
	defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: key})
	if err != nil {
		e.T.Fatal(err)
	}
	slices.SortFunc(defs, func(a, b *bpmnlite.ProcessDefinition) int { return a.Version - b.Version })
	var ids []string
	for _, d := range defs {
		ids = append(ids, d.ID)
	}
	return ids
}

// A migration batch of 50 instances, one a job: the seed job hands out 20
// jobs a run, the statistics count the jobs done; every instance that is
// at the mapped task moves to version 2 with its task's id, the one
// waiting at the unmapped activity fails its job three times and has an
// incident on the batch job that names why.
func TestBatchMigration(t *testing.T) {
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{JobsPerSeed: 20}}
	eachBackend(t, cfg, func(t *testing.T, e *env) {
		e.Deploy("v1", twoTasks("other"))
		pis := e.StartN("change", 50)
		bad := pis[49] // the last job's item
		e.Complete(bad, "task", nil)
		taskIDs := map[string]string{}
		for _, pi := range pis {
			taskIDs[pi] = e.Tasks(pi)[0].ID
		}
		e.Deploy("v2", twoTasks("renamed"))
		v := e.versions("change")
		plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, v[0], v[1], false)
		if err != nil {
			t.Fatal(err)
		}

		// An invalid plan is refused with its report, and no batch made.
		wrong := *plan
		wrong.Instructions = append(slices.Clone(plan.Instructions), bpmnlite.MigrationInstruction{SourceActivityIDs: []string{"other"}, TargetActivityIDs: []string{"nowhere"}})
		_, err = e.Eng.MigrateAsync(e.Ctx, bpmnlite.MigrationRequest{Plan: wrong, ProcessInstanceIDs: pis})
		var pe *bpmnlite.MigrationPlanError
		if !errors.As(err, &pe) || len(pe.Report.InstructionReports) != 1 {
			t.Fatalf("invalid plan: %v, want a *MigrationPlanError with one instruction report", err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{}); n != 0 {
			t.Fatalf("%d batches after an invalid plan, want 0", n)
		}

		migratedAt := time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC)
		plan.Variables = map[string]any{"migratedAt": migratedAt}
		b, err := e.Eng.MigrateAsync(e.Ctx, bpmnlite.MigrationRequest{Plan: *plan, ProcessInstanceIDs: pis})
		if err != nil {
			t.Fatal(err)
		}
		if b.Type != bpmnlite.BatchMigration || b.TotalJobs != 50 {
			t.Fatalf("batch = %+v", b)
		}
		e.wantProgress(b.ID, 50, 0, 0)
		if err := e.runOnly("first seed", b.SeedJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		for _, j := range e.batchJobs(b.BatchJobDefinitionID) {
			if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err != nil {
				t.Fatal(err)
			}
		}
		e.wantProgress(b.ID, 30, 20, 0)
		for range 2 {
			if err := e.runOnly("seed", b.SeedJobDefinitionID); err != nil {
				t.Fatal(err)
			}
		}
		for range 3 { // the default retries
			for _, j := range e.batchJobs(b.BatchJobDefinitionID) {
				if j.Retries == 0 {
					continue
				}
				err := e.Eng.ExecuteJob(e.Ctx, j.ID)
				if isBad := strings.Contains(j.HandlerConfig, bad); isBad != (err != nil) {
					t.Fatalf("job of %s: %v", j.HandlerConfig, err)
				}
			}
		}
		e.wantProgress(b.ID, 1, 49, 1)
		ins, err := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{JobDefinitionID: b.BatchJobDefinitionID})
		if err != nil || len(ins) != 1 || !strings.Contains(ins[0].Message, "Cannot migrate process instance '"+bad+"'") {
			t.Fatalf("incidents of the batch job: %+v, %v", ins, err)
		}
		for _, pi := range pis {
			tasks := e.Tasks(pi)
			want := v[1]
			if pi == bad {
				want = v[0]
			}
			if len(tasks) != 1 || tasks[0].ProcessDefinitionID != want || (pi != bad && tasks[0].ID != taskIDs[pi]) {
				t.Fatalf("task of %s after the batch: %+v; want task %s in %s", pi, tasks, taskIDs[pi], want)
			}
			if got, ok := e.Var(pi, "migratedAt").(time.Time); pi != bad && (!ok || !got.Equal(migratedAt)) {
				t.Fatalf("plan variable of %s: %#v, want the time %s", pi, e.Var(pi, "migratedAt"), migratedAt)
			}
		}
	})
}

// A migration batch on the job executor, read while it runs: the
// completed jobs never go back, and every instance ends in version 2.
func TestBatchMigrationOnTheJobExecutor(t *testing.T) {
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{JobsPerSeed: 10, PollInterval: 20 * time.Millisecond}}
	harness.EachBackendRealTime(t, cfg, func(t *testing.T, he *harness.Env) {
		e := &env{he}
		e.Deploy("v1", twoTasks("other"))
		pis := e.StartN("change", 50)
		e.Deploy("v2", twoTasks("other")+"<!-- v2 -->")
		v := e.versions("change")
		plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, v[0], v[1], false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.Eng.MigrateAsync(e.Ctx, bpmnlite.MigrationRequest{Plan: *plan, Query: &bpmnlite.InstanceQuery{ProcessDefinitionID: v[0]}})
		if err != nil {
			t.Fatal(err)
		}
		e.StartExecutor(bpmnlite.JobExecutorConfig{})
		last := 0
		harness.WaitFor(t, "the batch to end", time.Minute, func() bool {
			st, err := e.Eng.BatchStatistics(e.Ctx, bpmnlite.BatchQuery{ID: b.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(st) == 0 {
				return true
			}
			if st[0].CompletedJobs < last || st[0].FailedJobs != 0 {
				t.Fatalf("statistics went from %d completed to %+v", last, st[0])
			}
			last = st[0].CompletedJobs
			return false
		})
		for _, pi := range pis {
			if tasks := e.Tasks(pi); len(tasks) != 1 || tasks[0].ProcessDefinitionID != v[1] {
				t.Fatalf("task of %s after the batch: %+v", pi, tasks)
			}
		}
	})
}

// A modification batch on the job executor: every instance leaves task for
// other; one instance's modification in a batch of its own carries its
// variables.
func TestBatchModification(t *testing.T) {
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{InvocationsPerBatchJob: 2, PollInterval: 20 * time.Millisecond}}
	harness.EachBackendRealTime(t, cfg, func(t *testing.T, he *harness.Env) {
		e := &env{he}
		e.Deploy("v1", twoTasks("other"))
		pis := e.StartN("change", 5)
		def := e.versions("change")[0]
		move := bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{
			{Type: bpmnlite.CancelAllForActivity, ActivityID: "task"},
			{Type: bpmnlite.StartBeforeActivity, ActivityID: "other"},
		}}
		if _, err := e.Eng.ModifyProcessInstancesAsync(e.Ctx, def, pis, bpmnlite.ModificationRequest{}); !errors.Is(err, bpmnlite.ErrInvalidInstruction) {
			t.Fatalf("a batch without instructions: %v, want ErrInvalidInstruction", err)
		}
		if _, err := e.Eng.ModifyProcessInstancesAsync(e.Ctx, "no-such-definition", pis, move); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("a batch of an unknown definition: %v, want ErrNotFound", err)
		}
		b, err := e.Eng.ModifyProcessInstancesAsync(e.Ctx, def, pis[:4], move)
		if err != nil || b.Type != bpmnlite.BatchModification || b.TotalJobs != 2 {
			t.Fatalf("batch %+v, %v", b, err)
		}
		one := bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{
			{Type: bpmnlite.StartBeforeActivity, ActivityID: "other", Variables: map[string]any{"n": 7, "at": time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}},
		}}
		if _, err := e.Eng.ModifyProcessInstanceAsync(e.Ctx, "no-such-instance", one); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("a batch of an unknown instance: %v, want ErrNotFound", err)
		}
		if _, err := e.Eng.ModifyProcessInstanceAsync(e.Ctx, pis[4], one); err != nil {
			t.Fatal(err)
		}
		e.StartExecutor(bpmnlite.JobExecutorConfig{})
		harness.WaitFor(t, "the batches to end", time.Minute, func() bool {
			n, err := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{})
			return err == nil && n == 0
		})
		for _, pi := range pis[:4] {
			if got := e.TaskKeys(pi); got != "other" {
				t.Errorf("tasks of %s: %s, want other", pi, got)
			}
		}
		if got := e.TaskKeys(pis[4]); got != "other,task" {
			t.Errorf("tasks of %s: %s, want other,task", pis[4], got)
		}
		ref := e.Start("change", map[string]any{"n": 7, "at": time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)})
		for _, name := range []string{"n", "at"} {
			wantEq(t, "variable "+name+" set by the batch", e.Var(pis[4], name), e.Var(ref, name))
		}
	})
}

// A restart batch starts each ended instance anew, with its variables and
// the batch's; an instance still running fails its job.
func TestBatchRestart(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", waitModel)
		pis := e.StartN("wait", 3)
		for _, pi := range pis {
			if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "to restart"); err != nil {
				t.Fatal(err)
			}
		}
		def := e.versions("wait")[0]
		at := []bpmnlite.ModificationInstruction{{Type: bpmnlite.StartBeforeActivity, ActivityID: "task"}}
		if _, err := e.Eng.RestartProcessInstancesAsync(e.Ctx, def, bpmnlite.RestartRequest{ProcessInstanceIDs: pis}); !errors.Is(err, bpmnlite.ErrInvalidInstruction) {
			t.Fatalf("a restart without instructions: %v, want ErrInvalidInstruction", err)
		}
		b, err := e.Eng.RestartProcessInstancesAsync(e.Ctx, def, bpmnlite.RestartRequest{ProcessInstanceIDs: pis, Instructions: at, Variables: map[string]any{"n": 7}})
		if err != nil || b.Type != bpmnlite.BatchRestart || b.TotalJobs != 3 {
			t.Fatalf("batch %+v, %v", b, err)
		}
		runBatch(t, e, b)
		running, err := e.Eng.Instances(e.Ctx, bpmnlite.InstanceQuery{})
		if err != nil || len(running) != 3 {
			t.Fatalf("running after the restart: %d, %v; want 3", len(running), err)
		}
		ref := e.Start("wait", map[string]any{"n": 7})
		for _, r := range running {
			if got := e.TaskKeys(r.ID); got != "task" {
				t.Errorf("tasks of restarted %s: %s", r.ID, got)
			}
			wantEq(t, "variable n", e.Var(r.ID, "n"), e.Var(ref, "n"))
		}

		// A running instance cannot be restarted: its job fails.
		b, err = e.Eng.RestartProcessInstancesAsync(e.Ctx, def, bpmnlite.RestartRequest{ProcessInstanceIDs: []string{ref}, Instructions: at})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.runOnly("seed", b.SeedJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		if err := e.runOnly("restart", b.BatchJobDefinitionID); !errors.Is(err, bpmnlite.ErrCannotRestart) {
			t.Fatalf("restart of a running instance: %v, want ErrCannotRestart", err)
		}
	})
}
