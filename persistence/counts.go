package persistence

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kept counts (migration 0027). Counting history's process instances or
// the open user tasks with count(*) reads every matching row: at a
// million rows, tens of milliseconds. So the database keeps their number
// per dimension (definition key and id, tenant, and the instance's state
// or the task's definition key) in count_total, and a count whose filter
// only names those dimensions sums a few rows of it instead.
//
// No trigger keeps them: the engine's own flush knows which rows it
// inserts, updates and deletes, and adds the change of each dimension's
// number as delta rows to count_delta, in one multi-row insert at the end
// of the batch it sends anyway (countStatement). Writes that change rows
// without the engine knowing their dimensions derive their deltas from the
// rows in SQL, in the same batch: ending an instance whose history an
// earlier transaction wrote (from the row after the update), removing
// history (from the rows before the delete). A merge (MergeCounts), run
// periodically by one node at a time, folds the deltas into count_total
// and deletes exactly the rows it summed. A count reads count_total plus
// the pending deltas in one statement, so it sees the same snapshot as
// count(*) would: the answer is exact.

// The kinds of kept counts.
const (
	countInstances = "hpi"  // hist_process_instance; sub: state
	countTasks     = "task" // task; sub: task_definition_key
)

// KeptCountTables are the tables of the kept counts (no entity's): what
// empties the entity tables must empty them too.
var KeptCountTables = []string{"count_total", "count_delta"}

// countKey is one dimension's row of count_total ("" for NULL).
type countKey struct{ kind, key, definitionID, tenant, sub string }

// countColumns are the dimension columns of count_total and count_delta,
// in countKey's order.
const countColumns = "kind, definition_key, definition_id, tenant_id, sub"

// countDims are, per counted table, the columns of its rows that make the
// dimensions (key, definition id, tenant, sub; -1: none), as indexes into
// the table's Values.
var countDims = map[*Table]struct {
	kind string
	cols [4]int
}{
	HistoricProcessInstanceTable: {countInstances, colIndexes(HistoricProcessInstanceTable, "process_definition_key", "process_definition_id", "tenant_id", "state")},
	TaskTable:                    {countTasks, colIndexes(TaskTable, "", "process_definition_id", "tenant_id", "task_definition_key")},
}

func colIndexes(t *Table, cols ...string) (out [4]int) {
	for i, c := range cols {
		out[i] = slices.Index(t.Columns, c)
		if c != "" && out[i] < 0 {
			panic("persistence: " + t.Name + " has no column " + c)
		}
	}
	return out
}

// countKeyOf is the dimension row of a counted table's row values.
func countKeyOf(t *Table, vals []any) (countKey, bool) {
	d, ok := countDims[t]
	if !ok {
		return countKey{}, false
	}
	s := func(i int) string {
		if i < 0 {
			return ""
		}
		v, _ := vals[i].(string)
		return v
	}
	return countKey{d.kind, s(d.cols[0]), s(d.cols[1]), s(d.cols[2]), s(d.cols[3])}, true
}

// countDeltas nets the changes of kept counts.
type countDeltas struct {
	keys []countKey
	n    []int64
}

func (c *countDeltas) add(k countKey, n int64) {
	if i := slices.Index(c.keys, k); i >= 0 {
		c.n[i] += n
		return
	}
	c.keys, c.n = append(c.keys, k), append(c.n, n)
}

// opDeltas are the kept counts' changes that ops make.
func opDeltas(ops []Op) countDeltas {
	var d countDeltas
	for _, op := range ops {
		if op.Entity == nil {
			continue
		}
		t := TableOf(op.Entity)
		if _, counted := countDims[t]; !counted {
			continue
		}
		switch op.Kind {
		case OpInsert, OpDelete:
			k, _ := countKeyOf(t, Values(op.Entity))
			n := int64(1)
			if op.Kind == OpDelete {
				n = -1
			}
			d.add(k, n)
		case OpUpdate:
			if op.Loaded == nil { // not read by the transaction: its dimensions are taken as unchanged
				continue
			}
			was, _ := countKeyOf(t, op.Loaded)
			is, _ := countKeyOf(t, Values(op.Entity))
			if was != is {
				d.add(was, -1)
				d.add(is, 1)
			}
		}
	}
	return d
}

// countStatement is the statement that records the changes d and the ends
// of the historic process instances ended (by writes before it, from their
// rows); ok is false when there is nothing to record.
func countStatement(d countDeltas, ended []string) (st Stmt, ok bool) {
	var parts []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	for i, k := range d.keys {
		if d.n[i] == 0 {
			continue
		}
		parts = append(parts, "SELECT CAST("+arg(k.kind)+" AS TEXT), CAST("+arg(k.key)+" AS TEXT), CAST("+arg(k.definitionID)+
			" AS TEXT), CAST("+arg(k.tenant)+" AS TEXT), CAST("+arg(k.sub)+" AS TEXT), CAST("+arg(d.n[i])+" AS BIGINT)")
	}
	if len(ended) > 0 {
		// The instances' rows already have their end state; they were
		// active before (no row: no history kept, nothing to count).
		ps := make([]string, len(ended))
		for i, id := range ended {
			ps[i] = arg(id)
		}
		where := " FROM hist_process_instance WHERE id IN (" + strings.Join(ps, ", ") + ")"
		parts = append(parts, "SELECT "+instanceDims+", '"+StateActive+"', -1"+where, "SELECT "+instanceDims+", state, 1"+where)
	}
	if len(parts) == 0 {
		return Stmt{}, false
	}
	return Stmt{SQL: "INSERT INTO count_delta (" + countColumns + ", delta) " + strings.Join(parts, " UNION ALL "), Args: args}, true
}

// instanceDims selects a historic process instance's dimensions but its
// state.
const instanceDims = "'" + countInstances + "', COALESCE(process_definition_key, ''), COALESCE(process_definition_id, ''), COALESCE(tenant_id, '')"

// removedInstancesCount is the write that takes the historic process
// instances that where selects (SQL after FROM hist_process_instance) out
// of the kept counts; it goes before the statement that deletes them.
func removedInstancesCount(where string, args []any) Write {
	w := newWrite("INSERT INTO count_delta ("+countColumns+", delta) SELECT "+instanceDims+", state, -count(*) FROM hist_process_instance "+
		where+" GROUP BY process_definition_key, process_definition_id, tenant_id, state", args...)
	w.countRemoval = true
	return w
}

// withCounts is the flush's raw statements with the kept counts' changes:
// one statement after them all. Only when an instance's end precedes a
// removal of history in the same flush, the ends so far are recorded
// before the removal (which takes the removed rows out in their state then).
func withCounts(ops []Op, writes []Write) []Stmt {
	out := make([]Stmt, 0, len(writes)+1)
	var ended []string
	for _, w := range writes {
		if w.countRemoval && len(ended) > 0 {
			st, _ := countStatement(countDeltas{}, ended)
			out, ended = append(out, st), nil
		}
		out = append(out, w.stmt)
		if w.countEnded != "" {
			ended = append(ended, w.countEnded)
		}
	}
	if st, ok := countStatement(opDeltas(ops), ended); ok {
		out = append(out, st)
	}
	return out
}

// countLockClass is the first key of the merge's advisory lock.
const countLockClass int32 = 0x636e7473 // "cnts"

// MergeCounts folds the pending count deltas into the totals, deleting
// exactly the deltas it summed; on PostgreSQL one node at a time (a node
// that finds another merging skips its turn). Writers only insert deltas,
// so a merge blocks none of them.
func MergeCounts(ctx context.Context, db DB) error {
	// Most turns find nothing: a read says so without taking SQLite's one
	// writer or PostgreSQL's lock.
	var pending bool
	if err := readRows(ctx, db, "SELECT EXISTS (SELECT 1 FROM count_delta)", nil, func(r Rows) error { return r.Scan(&pending) }); err != nil {
		return fmt.Errorf("merge counts: %w", err)
	}
	if !pending {
		if d, ok := db.(*pgDB); ok {
			vacuumCountDeltas(ctx, d) // deltas merged earlier
		}
		return nil
	}
	tx, err := db.Begin(ctx, false)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	upsert := " ON CONFLICT (" + countColumns + ") DO UPDATE SET total = count_total.total + excluded.total"
	if db.Dialect() == Postgres {
		rows, err := tx.Query(ctx, "SELECT pg_try_advisory_xact_lock($1, hashtext(current_schema()))", countLockClass)
		if err != nil {
			return fmt.Errorf("merge counts: %w", err)
		}
		var locked bool
		if rows.Next() {
			err = rows.Scan(&locked)
		}
		rows.Close()
		if err != nil || !locked {
			return err
		}
		// One statement: it deletes the deltas its snapshot sees and adds
		// just those; deltas committed meanwhile wait for the next merge.
		merged, err := tx.Exec(ctx, "WITH d AS (DELETE FROM count_delta RETURNING "+countColumns+", delta)"+
			" INSERT INTO count_total ("+countColumns+", total) SELECT "+countColumns+", SUM(delta) FROM d GROUP BY "+countColumns+upsert)
		if err != nil {
			return fmt.Errorf("merge counts: %w", err)
		}
		if d, ok := db.(*pgDB); ok {
			if merged > 0 {
				d.countsMerged.Store(true)
			}
			defer vacuumCountDeltas(ctx, d) // after the commit
		}
	} else {
		// SQLite's one writer: nothing inserts between the two statements.
		for _, sql := range []string{
			"INSERT INTO count_total (" + countColumns + ", total) SELECT " + countColumns + ", SUM(delta) FROM count_delta WHERE true GROUP BY " + countColumns + upsert,
			"DELETE FROM count_delta",
		} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("merge counts: %w", err)
			}
		}
	}
	if _, err := tx.Exec(ctx, "DELETE FROM count_total WHERE total = 0"); err != nil {
		return fmt.Errorf("merge counts: %w", err)
	}
	return tx.Commit(ctx)
}

// countVacuumInterval is how often at most a node vacuums count_delta.
const countVacuumInterval = 10 * time.Second

// vacuumCountDeltas vacuums count_delta after a merge committed, when this
// node merged deltas since it last did, at most every countVacuumInterval:
// the deltas merged away are dead rows that every count scans until they
// are vacuumed, and autovacuum may be off or a minute away. A node that finds another
// vacuuming skips its turn; a failure waits for the next turn.
func vacuumCountDeltas(ctx context.Context, d *pgDB) {
	now := time.Now().UnixNano()
	last := d.countsVacuumed.Load()
	if !d.countsMerged.Load() || now-last < int64(countVacuumInterval) || !d.countsVacuumed.CompareAndSwap(last, now) {
		return
	}
	d.countsMerged.Store(false)
	if _, err := d.pool.Exec(ctx, "VACUUM (SKIP_LOCKED) count_delta"); err != nil && ctx.Err() == nil {
		d.log.Warn("persistence: vacuum count_delta", "error", err)
	}
}

// Recount rebuilds the kept counts from the rows, as migration 0027 seeds
// them: for tools that write counted rows past the engine (a benchmark's
// fill). Nothing else may write counted rows meanwhile.
func Recount(ctx context.Context, tx Tx) error {
	for _, sql := range []string{
		"DELETE FROM count_delta",
		"DELETE FROM count_total",
		"INSERT INTO count_total (" + countColumns + ", total) SELECT " + instanceDims + ", state, count(*) FROM hist_process_instance" +
			" GROUP BY process_definition_key, process_definition_id, tenant_id, state",
		"INSERT INTO count_total (" + countColumns + ", total) SELECT '" + countTasks + "', '', COALESCE(process_definition_id, ''), COALESCE(tenant_id, ''), COALESCE(task_definition_key, ''), count(*)" +
			" FROM task GROUP BY process_definition_id, tenant_id, task_definition_key",
	} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return fmt.Errorf("recount: %w", err)
		}
	}
	return nil
}

// keptCount answers a count of filter from the kept counts when its
// conditions are all on their dimensions; ok is false otherwise (the
// caller counts the rows).
func keptCount(ctx context.Context, db DB, filter any) (n int, ok bool, err error) {
	var conds []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	in := func(col string, vs []string) {
		ps := make([]string, len(vs))
		for i, v := range vs {
			ps[i] = arg(v)
		}
		conds = append(conds, col+" IN ("+strings.Join(ps, ", ")+")")
	}
	eq := func(col, v string) {
		if v != "" {
			conds = append(conds, col+" = "+arg(v))
		}
	}
	switch f := filter.(type) {
	case HistoricProcessInstanceFilter:
		if f.Query().err != nil || !plainValues([]string{f.ProcessDefinitionID, f.ProcessDefinitionKey, f.State}, f.ProcessDefinitionKeyIn) {
			return 0, false, nil
		}
		rest := f
		rest.Page = Page{}
		rest.ProcessDefinitionID, rest.ProcessDefinitionKey, rest.ProcessDefinitionKeyIn = "", "", nil
		rest.Finished, rest.Unfinished, rest.Completed, rest.ExternallyTerminated, rest.InternallyTerminated, rest.State = false, false, false, false, false, ""
		rest.VariableNamesIgnoreCase, rest.VariableValuesIgnoreCase = false, false
		if !reflect.ValueOf(rest).IsZero() {
			return 0, false, nil
		}
		eq("kind", countInstances)
		eq("definition_id", f.ProcessDefinitionID)
		eq("definition_key", f.ProcessDefinitionKey)
		if len(f.ProcessDefinitionKeyIn) > 0 {
			in("definition_key", f.ProcessDefinitionKeyIn)
		}
		if f.Finished {
			conds = append(conds, "sub <> '"+StateActive+"'")
		}
		if f.Unfinished {
			conds = append(conds, "sub = '"+StateActive+"'")
		}
		for _, s := range []struct {
			on    bool
			state string
		}{{f.Completed, StateCompleted}, {f.ExternallyTerminated, StateExternallyTerminated}, {f.InternallyTerminated, StateDeleted}, {f.State != "", f.State}} {
			if s.on {
				conds = append(conds, "sub = "+arg(s.state))
			}
		}
	case TaskFilter:
		if f.invalid() != "" || !plainValues([]string{f.ProcessDefinitionID, f.ProcessDefinitionKey, f.TaskDefinitionKey},
			f.ProcessDefinitionKeyIn, f.TaskDefinitionKeyIn, f.TenantIDIn) {
			return 0, false, nil
		}
		rest := f
		rest.Page = Page{}
		rest.ProcessDefinitionID, rest.ProcessDefinitionKey, rest.ProcessDefinitionKeyIn = "", "", nil
		rest.TaskDefinitionKey, rest.TaskDefinitionKeyIn, rest.Tenants = "", nil, Tenants{}
		rest.WithCommentAttachmentInfo, rest.WithTaskVariablesInReturn, rest.WithTaskLocalVariablesInReturn = false, false, false
		rest.VariableNamesIgnoreCase, rest.VariableValuesIgnoreCase = false, false
		if !reflect.ValueOf(rest).IsZero() {
			return 0, false, nil
		}
		eq("kind", countTasks)
		eq("definition_id", f.ProcessDefinitionID)
		if f.ProcessDefinitionKey != "" {
			conds = append(conds, "definition_id IN (SELECT d.id FROM process_definition d WHERE d.key = "+arg(f.ProcessDefinitionKey)+")")
		}
		if len(f.ProcessDefinitionKeyIn) > 0 {
			ps := make([]string, len(f.ProcessDefinitionKeyIn))
			for i, k := range f.ProcessDefinitionKeyIn {
				ps[i] = arg(k)
			}
			conds = append(conds, "definition_id IN (SELECT d.id FROM process_definition d WHERE d.key IN ("+strings.Join(ps, ", ")+"))")
		}
		eq("sub", f.TaskDefinitionKey)
		if len(f.TaskDefinitionKeyIn) > 0 {
			in("sub", f.TaskDefinitionKeyIn)
		}
		if len(f.TenantIDIn) > 0 {
			in("tenant_id", f.TenantIDIn)
		}
		if f.WithoutTenantID {
			conds = append(conds, "tenant_id = ''")
		}
	default:
		return 0, false, nil
	}
	n, err = countKept(ctx, db, strings.Join(conds, " AND "), args)
	return n, true, err
}

// countKept sums the totals and the pending deltas that where selects, in
// one statement: one snapshot.
func countKept(ctx context.Context, db DB, where string, args []any) (int, error) {
	var n int64
	sql := "SELECT (SELECT COALESCE(SUM(total), 0) FROM count_total WHERE " + where + ") + (SELECT COALESCE(SUM(delta), 0) FROM count_delta WHERE " + where + ")"
	if err := readRows(ctx, db, sql, args, func(r Rows) error { return r.Scan(&n) }); err != nil {
		return 0, fmt.Errorf("kept count: %w", err)
	}
	return int(n), nil
}

// plainValues reports whether a filter's values on kept dimensions can be
// compared as they are: text a row can hold, no empty list (which the
// rows' count treats as no condition), no "" in a list (the kept counts
// keep NULL as "", which a list holding the empty string must not match).
func plainValues(values []string, lists ...[]string) bool {
	for _, l := range lists {
		if l != nil && len(l) == 0 || slices.Contains(l, "") {
			return false
		}
		values = append(values, l...)
	}
	for _, v := range values {
		if !StorableText(v) {
			return false
		}
	}
	return true
}
