package runtime_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// keptCountFilters are counts the kept counts answer (see
// persistence/counts.go).
var keptCountFilters = []any{
	bpmnlite.HistoricProcessInstanceQuery{},
	bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "p"},
	bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "p", Finished: true},
	bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "quick"},
	bpmnlite.HistoricProcessInstanceQuery{Unfinished: true},
	bpmnlite.HistoricProcessInstanceQuery{Completed: true},
	bpmnlite.HistoricProcessInstanceQuery{ExternallyTerminated: true},
	bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKeyIn: []string{"p", "quick"}, Finished: true},
	bpmnlite.TaskQuery{},
	bpmnlite.TaskQuery{TaskDefinitionKey: "work"},
	bpmnlite.TaskQuery{ProcessDefinitionKey: "p"},
	bpmnlite.TaskQuery{TaskDefinitionKeyIn: []string{"work", "other"}},
	bpmnlite.TaskQuery{Tenants: persistence.Tenants{WithoutTenantID: true}},
	bpmnlite.TaskQuery{Tenants: persistence.Tenants{TenantIDIn: []string{"t1", "t2"}}},
	bpmnlite.TaskQuery{TaskDefinitionKey: "work", Tenants: persistence.Tenants{TenantIDIn: []string{"t1"}}},
}

// checkKeptCounts compares every kept count with count(*), before and
// after a merge of the deltas.
func checkKeptCounts(t *testing.T, e *harness.Env, after string) {
	t.Helper()
	db := e.DB()
	for _, merged := range []bool{false, true} {
		if merged {
			if err := persistence.MergeCounts(e.Ctx, db); err != nil {
				t.Fatalf("after %s: merge: %v", after, err)
			}
		}
		for _, f := range keptCountFilters {
			got, err := e.Eng.Count(e.Ctx, f)
			if err != nil {
				t.Fatalf("after %s: count %+v: %v", after, f, err)
			}
			if want := exactCount(t, db, f); got != want {
				t.Errorf("after %s (merged %v): count %+v = %d, count(*) %d", after, merged, f, got, want)
			}
		}
	}
}

// exactCount is count(*) of the rows filter f selects.
func exactCount(t *testing.T, db persistence.DB, f any) int {
	t.Helper()
	var n int
	var err error
	switch f := f.(type) {
	case bpmnlite.HistoricProcessInstanceQuery:
		n, err = persistence.Count(t.Context(), db, f.Query())
	case bpmnlite.TaskQuery:
		n, err = persistence.Count(t.Context(), db, f.Query())
	default:
		t.Fatalf("no exact count of %T", f)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Every kind of change of historic process instances and open tasks keeps
// the kept counts equal to count(*): starts (ending at once or waiting),
// completions, deletions, standalone tasks, migration to another
// definition, removal of history by id and by the history cleanup.
func TestKeptCountsFollowEveryChange(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{History: bpmnlite.HistoryConfig{TimeToLive: time.Hour}}, func(t *testing.T, e *harness.Env) {
		e.Eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.Deploy("p", harness.UserTaskProcess)
		e.Deploy("quick", enginetest.Process("quick", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/><endEvent id="e"/>`))
		tenant, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "tp", TenantID: "t1", Resources: []bpmnlite.Resource{{Name: "tp.bpmn",
			Bytes: []byte(enginetest.Defs(enginetest.Executable("tp", `<startEvent id="start"/><userTask id="work"/><endEvent id="end"/>`, enginetest.Chain("start", "work", "end"))))}}})
		if err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e, "deploying")
		if _, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{DefinitionID: tenant.Definitions[0].ID}); err != nil {
			t.Fatal(err)
		}
		var pis []string
		for range 4 {
			pis = append(pis, e.Start("p", nil))
		}
		e.Start("quick", nil)
		checkKeptCounts(t, e, "starts")
		e.Complete(pis[0], "work", nil)
		checkKeptCounts(t, e, "a completion")
		if err := e.Eng.DeleteProcessInstance(e.Ctx, pis[1], "gone"); err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e, "a deletion")
		standalone, err := e.Eng.CreateTask(e.Ctx, "", bpmnlite.TaskFields{Name: "alone"})
		if err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e, "a standalone task")
		if err := e.Eng.DeleteTask(e.Ctx, standalone); err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e, "deleting the standalone task")

		// migration to a new version of p
		d2 := e.Deploy("p", enginetest.Defs(enginetest.Executable("p",
			`<startEvent id="start"/><userTask id="work" name="Work"/><endEvent id="end"/>`, enginetest.Chain("start", "work", "end"))))
		defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "p"})
		if err != nil || len(defs) != 2 {
			t.Fatalf("definitions of p: %d, %v", len(defs), err)
		}
		plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, defs[0].ID, defs[1].ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.Migrate(e.Ctx, bpmnlite.MigrationRequest{Plan: *plan, ProcessInstanceIDs: []string{pis[2]}}); err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e, "a migration")
		for _, id := range []string{defs[0].ID, defs[1].ID} {
			for _, f := range []any{bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionID: id}, bpmnlite.TaskQuery{ProcessDefinitionID: id}} {
				got, err := e.Eng.Count(e.Ctx, f)
				if want := exactCount(t, e.DB(), f); err != nil || got != want || want == 0 {
					t.Errorf("%+v: %d (%v), count(*) %d", f, got, err, want)
				}
			}
		}
		_ = d2

		if err := e.Eng.DeleteHistoricProcessInstance(e.Ctx, pis[1], false); err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e, "deleting an instance's history")
		e.Clock.Add(2 * time.Hour)
		if n, err := e.Eng.CleanUpHistory(e.Ctx); err != nil || n == 0 {
			t.Fatalf("CleanUpHistory: %d %v", n, err)
		}
		checkKeptCounts(t, e, "the history cleanup")
		if err := e.Eng.DeleteDeployment(e.Ctx, d2.ID, true); err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e, "a cascading deployment deletion")
	})
}

// Counts with a condition the kept counts do not keep count the rows.
func TestKeptCountsFallBack(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.Deploy("p", harness.UserTaskProcess)
		pi := e.Start("p", nil)
		e.Start("p", nil)
		for _, c := range []struct {
			f    any
			want int
		}{
			{bpmnlite.HistoricProcessInstanceQuery{ID: pi}, 1},
			{bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "p", BusinessKey: "none"}, 0},
			{bpmnlite.TaskQuery{ProcessInstanceID: pi}, 1},
			{bpmnlite.TaskQuery{TaskDefinitionKey: "work", Assigned: true}, 0},
			{bpmnlite.TaskQuery{TaskDefinitionKeyIn: []string{}}, -1}, // as count(*) does
		} {
			got, err := e.Eng.Count(e.Ctx, c.f)
			if c.want < 0 {
				_, want := persistence.CountFilter(e.Ctx, e.DB(), c.f, time.Now())
				if fmt.Sprint(err) != fmt.Sprint(want) {
					t.Errorf("count %+v: %v, count(*) %v", c.f, err, want)
				}
				continue
			}
			if err != nil || got != c.want {
				t.Errorf("count %+v = %d (%v), want %d", c.f, got, err, c.want)
			}
		}
	})
}

// The engine merges the deltas into the totals by itself, every second.
func TestKeptCountsMergedByTheEngine(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.Deploy("p", harness.UserTaskProcess)
		for range 3 {
			e.Start("p", nil)
		}
		rows := func(table string) int {
			t.Helper()
			tx, err := e.DB().Begin(e.Ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(e.Ctx)
			r, err := tx.Query(e.Ctx, "SELECT count(*) FROM "+table)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var n int
			for r.Next() {
				if err := r.Scan(&n); err != nil {
					t.Fatal(err)
				}
			}
			return n
		}
		deadline := time.Now().Add(10 * time.Second)
		for rows("count_delta") > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d deltas still unmerged after 10 s", rows("count_delta"))
			}
			time.Sleep(100 * time.Millisecond)
		}
		if n := rows("count_total"); n != 2 { // the instances, their tasks
			t.Errorf("%d total rows, want 2", n)
		}
		if n, err := e.Eng.Count(e.Ctx, bpmnlite.TaskQuery{TaskDefinitionKey: "work"}); err != nil || n != 3 {
			t.Errorf("tasks at work: %d (%v), want 3", n, err)
		}
	})
}
