package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// The counts of history's process instances and of open user tasks are
// read from counts kept as rows change (persistence/counts.go) when every
// condition of the query allows it. Each is compared with the count of
// the rows themselves (the same query with a condition that holds for
// every row but is not countable), after every kind of change: starts,
// completions, claims, suspension, deletion, a called instance, and
// before and after the kept counts are compacted.
func TestKeptCountsMatchTheRows(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		deployCounted(e.Env)
		var started []string
		for i := range 6 {
			started = append(started, e.Start("a", map[string]any{"who": fmt.Sprintf("u%d", i%2)}))
		}
		for range 3 {
			e.Start("b", nil)
		}
		e.Start("parent", nil)
		checkKeptCounts(t, e.Env, "after the starts")
		e.Complete(started[0], "t1", nil)
		e.Complete(started[1], "t1", nil)
		e.Complete(started[1], "t2", nil)
		task := e.Tasks(started[2])[0]
		if err := e.Eng.ClaimTask(t.Context(), task.ID, "x"); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.SuspendProcessInstance(t.Context(), started[3]); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.DeleteProcessInstance(t.Context(), started[4], "gone"); err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e.Env, "after the changes")
		if err := persistence.CompactCounts(t.Context(), e.DB()); err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e.Env, "after a compaction")
		// One row per group is left, none of them zero.
		for _, q := range []string{
			"SELECT count(*) FROM task_count WHERE n = 0",
			"SELECT count(*) - (SELECT count(*) FROM (SELECT DISTINCT task_definition_key, assignee, candidate_groups, candidate_users, suspension, process_definition_id, tenant_id FROM task_count) g) FROM task_count",
			"SELECT count(*) - (SELECT count(*) FROM (SELECT DISTINCT process_definition_id, process_definition_key, tenant_id, state, end_time, super_process_instance_id FROM hist_process_instance_count) g) FROM hist_process_instance_count",
		} {
			if n := scalar(t, e.DB(), q); n != 0 {
				t.Errorf("after a compaction, %s: %d", q, n)
			}
		}
		if err := e.Eng.DeleteHistoricProcessInstance(t.Context(), started[1], false); err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e.Env, "after a history deletion")
		if err := persistence.CompactCounts(t.Context(), e.DB()); err != nil {
			t.Fatal(err)
		}
		checkKeptCounts(t, e.Env, "after a second compaction")
		// The counts above were read from the kept counts: a row written
		// there alone is counted.
		tx, err := e.DB().Begin(t.Context(), false)
		if err != nil {
			t.Fatal(err)
		}
		for _, sql := range []string{"INSERT INTO task_count (task_definition_key, n) VALUES ('planted', 5)",
			"INSERT INTO hist_process_instance_count (process_definition_key, n) VALUES ('planted', 7)"} {
			if _, err := tx.Exec(t.Context(), sql); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n, err := e.Eng.Count(t.Context(), bpmnlite.TaskQuery{TaskDefinitionKey: "planted"}); err != nil || n != 5 {
			t.Errorf("tasks counted from the kept counts: %d %v, want 5", n, err)
		}
		if n, err := e.Eng.Count(t.Context(), bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "planted"}); err != nil || n != 7 {
			t.Errorf("instances counted from the kept counts: %d %v, want 7", n, err)
		}
	})
}

// Starts, completions and compactions running at once leave the kept
// counts exact (PostgreSQL: the only backend with concurrent writers).
func TestKeptCountsUnderConcurrentChanges(t *testing.T) {
	e := harness.Open(t, testdb.Postgres(t), bpmnlite.Config{})
	deployCounted(e)
	// The commands run to their end (a cancelled commit may still land
	// after its caller returned, between the two counts compared).
	ctx := t.Context()
	deadline := time.Now().Add(1500 * time.Millisecond)
	running := func() bool { return time.Now().Before(deadline) }
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for running() {
				pi, err := e.Eng.Start(ctx, bpmnlite.StartRequest{Key: "a", Variables: map[string]any{"who": fmt.Sprintf("u%d", w)}})
				if err != nil {
					return
				}
				tasks, err := e.Eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi})
				if err != nil || len(tasks) == 0 {
					return
				}
				_ = e.Eng.CompleteTask(ctx, tasks[0].ID, nil)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for running() {
			if err := persistence.CompactCounts(ctx, e.DB()); err != nil {
				t.Errorf("compact: %v", err)
			}
		}
	}()
	wg.Wait()
	if n, err := e.Eng.Count(t.Context(), bpmnlite.HistoricProcessInstanceQuery{}); err != nil || n < 20 {
		t.Fatalf("%d instances started (%v): too few to show anything", n, err)
	}
	checkKeptCounts(t, e, "after concurrent starts, completions and compactions")
}

func deployCounted(e *harness.Env) {
	e.Deploy("a", enginetest.Defs(enginetest.Executable("a",
		`<startEvent id="s"/><userTask id="t1" camunda:candidateGroups="g1,g2"/><userTask id="t2" camunda:assignee="${who}"/><endEvent id="e"/>`,
		enginetest.Chain("s", "t1", "t2", "e"))))
	e.Deploy("b", enginetest.Defs(enginetest.Executable("b",
		`<startEvent id="s"/><userTask id="t1" camunda:candidateUsers="x,y"/><endEvent id="e"/>`,
		enginetest.Chain("s", "t1", "e"))))
	e.Deploy("parent", enginetest.Defs(enginetest.Executable("parent",
		`<startEvent id="s"/><callActivity id="call" calledElement="b"/><endEvent id="e"/>`,
		enginetest.Chain("s", "call", "e"))))
}

// checkKeptCounts compares each countable query's count with the rows'.
func checkKeptCounts(t *testing.T, e *harness.Env, when string) {
	t.Helper()
	long := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	count := func(q any) int {
		n, err := e.Eng.Count(t.Context(), q)
		if err != nil {
			t.Fatalf("%s: count %#v: %v", when, q, err)
		}
		return n
	}
	some := 0
	for _, q := range []bpmnlite.HistoricProcessInstanceQuery{
		{}, {ProcessDefinitionKey: "a"}, {ProcessDefinitionKey: "a", Finished: true}, {Unfinished: true},
		{Completed: true}, {ExternallyTerminated: true}, {RootProcessInstances: true},
		{ProcessDefinitionKeyIn: []string{"a", "b"}}, {ProcessDefinitionKeyNotIn: []string{"a"}}, {State: persistence.StateActive},
	} {
		kept := count(q)
		q.StartedAfter = &long // not countable: the rows are counted
		if rows := count(q); kept != rows {
			t.Errorf("%s: %+v counts %d, its rows %d", when, q, kept, rows)
		}
		some += kept
	}
	for _, q := range []bpmnlite.TaskQuery{
		{}, {TaskDefinitionKey: "t1"}, {TaskDefinitionKeyLike: "t%"}, {TaskDefinitionKeyIn: []string{"t2"}}, {Assignee: "u0"},
		{Unassigned: true}, {Assigned: true}, {CandidateGroup: "g1"}, {CandidateGroups: []string{"g2", "g3"}}, {CandidateUser: "y"},
		{CandidateUser: "x", IncludeAssignedTasks: true}, {Suspended: true}, {Active: true}, {ProcessDefinitionKey: "b"},
		{Tenants: persistence.Tenants{WithoutTenantID: true}},
	} {
		kept := count(q)
		q.CreatedAfter = &long
		if rows := count(q); kept != rows {
			t.Errorf("%s: %+v counts %d, its rows %d", when, q, kept, rows)
		}
		some += kept
	}
	if some == 0 {
		t.Fatalf("%s: every count is 0", when)
	}
}

// scalar is the integer a query of db answers.
func scalar(t *testing.T, db persistence.DB, query string) int64 {
	t.Helper()
	tx, err := db.Begin(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	rows, err := tx.Query(t.Context(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int64
	if !rows.Next() || rows.Scan(&n) != nil {
		t.Fatalf("%s: no value (%v)", query, rows.Err())
	}
	return n
}
