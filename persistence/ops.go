package persistence

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// OpKind is what Flush does with an entity.
type OpKind uint8

// Flush operations.
const (
	OpInsert OpKind = iota + 1
	OpUpdate
	OpDelete
)

var opKindNames = [...]string{OpInsert: "insert", OpUpdate: "update", OpDelete: "delete"}

func (k OpKind) String() string {
	if k > 0 && int(k) < len(opKindNames) {
		return opKindNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", k)
}

// Op is one change for Flush.
type Op struct {
	Kind   OpKind
	Entity Entity
	// Loaded, for an update, is the row as the transaction read or last
	// wrote it (Snapshot); the update then writes only the columns that
	// changed. nil: every column.
	Loaded []any
}

// OptimisticLockError reports an update or delete that matched no row at the
// revision read. errors.Is(err, ErrOptimisticLock) holds for it.
type OptimisticLockError struct {
	Op     OpKind // OpUpdate or OpDelete
	Entity string // e.g. "Execution"
	ID     string
	Rev    int // the revision the statement expected
}

func (e *OptimisticLockError) Error() string {
	if e.Op == OpDelete {
		return fmt.Sprintf("%s[%s] was updated or deleted by another transaction concurrently", e.Entity, e.ID)
	}
	return fmt.Sprintf("%s[%s] was updated by another transaction concurrently", e.Entity, e.ID)
}

func (e *OptimisticLockError) Unwrap() error { return ErrOptimisticLock }

func lockError(kind OpKind, e Entity) error {
	return &OptimisticLockError{Op: kind, Entity: TableOf(e).EntityName, ID: EntityID(e), Rev: Revision(e)}
}

// stmtFor builds the statement of one operation. An insert of an entity at
// revision 0 starts it at 1.
func stmtFor(kind OpKind, e Entity) (Stmt, error) {
	t := TableOf(e)
	s := t.statements()
	switch kind {
	case OpInsert:
		if Revision(e) == 0 {
			SetRevision(e, 1)
		}
		return Stmt{SQL: s.insert, Args: Values(e)}, nil
	case OpUpdate:
		if t.Immutable {
			return Stmt{}, fmt.Errorf("update %s[%s]: %s is immutable", t.EntityName, EntityID(e), t.EntityName)
		}
		return Stmt{SQL: s.update, Args: Values(e)}, nil
	case OpDelete:
		if t.Immutable {
			return Stmt{SQL: s.delete, Args: []any{EntityID(e)}}, nil
		}
		return Stmt{SQL: s.delete, Args: []any{EntityID(e), Revision(e)}}, nil
	}
	return Stmt{}, fmt.Errorf("%s %s[%s]: unknown operation", kind, t.EntityName, EntityID(e))
}

// Insert inserts e (at revision 1 when its revision is 0).
func Insert(ctx context.Context, tx Tx, e Entity) error {
	st, err := stmtFor(OpInsert, e)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, st.SQL, st.Args...); err != nil {
		return fmt.Errorf("insert %s[%s]: %w", TableOf(e).EntityName, EntityID(e), err)
	}
	return nil
}

// Update writes every column of e where the row still has e's revision, and
// bumps the revision. Updating an unchanged entity only bumps the revision,
// which is how concurrent arrivals at a join conflict.
func Update(ctx context.Context, tx Tx, e Entity) error {
	return execChecked(ctx, tx, OpUpdate, e)
}

// Delete deletes e's row where it still has e's revision.
func Delete(ctx context.Context, tx Tx, e Entity) error {
	return execChecked(ctx, tx, OpDelete, e)
}

func execChecked(ctx context.Context, tx Tx, kind OpKind, e Entity) error {
	st, err := stmtFor(kind, e)
	if err != nil {
		return err
	}
	n, err := tx.Exec(ctx, st.SQL, st.Args...)
	if err != nil {
		return fmt.Errorf("%s %s[%s]: %w", kind, TableOf(e).EntityName, EntityID(e), err)
	}
	if n == 0 {
		return lockError(kind, e)
	}
	if kind == OpUpdate {
		SetRevision(e, Revision(e)+1)
	}
	return nil
}

// Get reads the row of table with that id; ErrNotFound when there is none.
func Get(ctx context.Context, tx Tx, table *Table, id string) (Entity, error) {
	if !StorableText(id) { // no row has it; PostgreSQL would refuse to look
		return nil, fmt.Errorf("%s[%q]: %w", table.EntityName, id, ErrNotFound)
	}
	rows, err := tx.Query(ctx, table.statements().get, id)
	if err != nil {
		return nil, fmt.Errorf("get %s[%s]: %w", table.EntityName, id, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("get %s[%s]: %w", table.EntityName, id, err)
		}
		return nil, fmt.Errorf("%s[%s]: %w", table.EntityName, id, ErrNotFound)
	}
	e := table.New()
	if err := rows.Scan(Targets(e)...); err != nil {
		return nil, fmt.Errorf("get %s[%s]: %w", table.EntityName, id, err)
	}
	return e, nil
}

// scanAll reads the rows of table that where selects; columns, when set,
// replaces the table's column list.
func scanAll(ctx context.Context, tx Tx, table *Table, columns, where string, args []any, add func(Entity) error) error {
	prefix := table.statements().selectPrefix
	if columns != "" {
		prefix = "SELECT " + columns + " FROM " + table.Name + " "
	}
	rows, err := tx.Query(ctx, prefix+where, args...)
	if err != nil {
		return fmt.Errorf("select %s %s: %w", table.Name, where, err)
	}
	defer rows.Close()
	var targets []any
	for rows.Next() {
		e := table.New()
		if err := scanRow(rows, e, &targets); err != nil {
			return fmt.Errorf("select %s %s: %w", table.Name, where, err)
		}
		if err := add(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("select %s %s: %w", table.Name, where, err)
	}
	return nil
}

// tableOf returns the table of entity type T, a pointer type such as
// *Execution (whose row method does not dereference its receiver).
func tableOf[T Entity]() *Table {
	var zero T
	return TableOf(zero)
}

// GetAs is Get for entity type T, e.g. GetAs[*Execution](ctx, tx, id).
func GetAs[T Entity](ctx context.Context, tx Tx, id string) (T, error) {
	var zero T
	e, err := Get(ctx, tx, tableOf[T](), id)
	if err != nil {
		return zero, err
	}
	return e.(T), nil
}

// Flush writes ops in one batch (one round trip on PostgreSQL): inserts by
// ascending table order (stable, so the caller's order holds within a
// table), then updates, then deletes by descending table order. Updates and
// deletes are sorted by table and id so that concurrent transactions lock
// rows in the same order and do not deadlock. Any update or delete that
// matches no row fails the flush with an *OptimisticLockError; the
// transaction must then be rolled back. Revisions are bumped only when the
// whole flush succeeded. The writes (history end times, bulk deletes:
// statements without a revision check) follow in the same batch.
func Flush(ctx context.Context, tx Tx, ops []Op, writes ...Write) error {
	if len(ops) == 0 && len(writes) == 0 {
		return nil
	}
	sorted, stmts, first, err := flushStatements(ops, withCounts(ops, writes), false)
	if err != nil {
		return err
	}
	counts, err := tx.Batch(ctx, stmts)
	if err != nil {
		if i := len(counts); i < len(first) {
			op := sorted[first[i]]
			return fmt.Errorf("flush: %s %s[%s]: %w", op.Kind, TableOf(op.Entity).EntityName, EntityID(op.Entity), err)
		}
		return fmt.Errorf("flush: %w", err)
	}
	var errs []error
	for i, k := range first {
		if op := sorted[k]; op.Kind != OpInsert && counts[i] == 0 {
			errs = append(errs, lockError(op.Kind, op.Entity))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, op := range sorted {
		if op.Kind == OpUpdate {
			SetRevision(op.Entity, Revision(op.Entity)+1)
		}
	}
	return nil
}

func compareOps(a, b Op) int {
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if a.Entity == nil || b.Entity == nil {
		return 0 // reported when the statements are built
	}
	ta, tb := TableOf(a.Entity).Order, TableOf(b.Entity).Order
	switch a.Kind {
	case OpInsert:
		return cmp.Compare(ta, tb)
	case OpDelete:
		ta, tb = tb, ta
	}
	if c := cmp.Compare(ta, tb); c != 0 {
		return c
	}
	return cmp.Compare(EntityID(a.Entity), EntityID(b.Entity))
}

// FlushCommit writes ops and writes like Flush, then commits. On PostgreSQL
// (outside a caller's transaction) the statements and the COMMIT go in one
// round trip: updates and deletes check their row count on the server, so
// a conflict aborts the transaction before COMMIT runs and comes back as an
// *OptimisticLockError. On any error the transaction is left open and
// aborted: roll it back (or back to a savepoint set before).
func FlushCommit(ctx context.Context, tx Tx, ops []Op, writes ...Write) error {
	pg, ok := tx.(*pgTx)
	if !ok || pg.joined != nil {
		if err := Flush(ctx, tx, ops, writes...); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	sorted, stmts, first, err := flushStatements(ops, withCounts(ops, writes), true)
	if err != nil {
		return err
	}
	stmts = append(stmts, Stmt{SQL: "COMMIT"})
	counts, err := pg.commitBatch(ctx, stmts)
	if err != nil {
		if i := len(counts); i < len(first) {
			op := sorted[first[i]]
			if errors.Is(err, ErrOptimisticLock) {
				return fmt.Errorf("flush: %w", lockError(op.Kind, op.Entity))
			}
			return fmt.Errorf("flush: %s %s[%s]: %w", op.Kind, TableOf(op.Entity).EntityName, EntityID(op.Entity), err)
		}
		return fmt.Errorf("flush and commit: %w", err)
	}
	for _, op := range sorted {
		if op.Kind == OpUpdate {
			SetRevision(op.Entity, Revision(op.Entity)+1)
		}
	}
	return nil
}

// flushStatements orders ops for a flush (see Flush) and builds their
// statements followed by raw; first[i] is the index in sorted of the first
// op of statement i. Consecutive inserts into one insert-only table (the
// job log, three rows per job; resources) share a multi-row INSERT; other
// tables keep a statement per row, so that a violated constraint names its
// entity. With serverChecks, updates and deletes fail on the server when
// they match no row (PostgreSQL's bpmnlite_expect_row).
func flushStatements(ops []Op, raw []Stmt, serverChecks bool) (sorted []Op, stmts []Stmt, first []int, err error) {
	sorted = make([]Op, len(ops))
	copy(sorted, ops)
	slices.SortStableFunc(sorted, compareOps)
	stmts = make([]Stmt, 0, len(sorted)+len(raw)+1)
	rows := 0 // rows in the last statement, when it is a multi-row insert
	for i, op := range sorted {
		if op.Entity == nil {
			return nil, nil, nil, fmt.Errorf("flush: %s of a nil entity", op.Kind)
		}
		st, err := stmtFor(op.Kind, op.Entity)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("flush: %w", err)
		}
		if t := TableOf(op.Entity); op.Kind == OpInsert && t.Immutable {
			if n := len(stmts); rows > 0 && rows < maxInsertRows && TableOf(sorted[first[n-1]].Entity) == t {
				rows++
				stmts[n-1] = Stmt{SQL: t.insertSQL(rows), Args: append(stmts[n-1].Args, st.Args...)}
				continue
			}
			rows = 1
		} else {
			rows = 0
		}
		if op.Kind == OpUpdate && op.Loaded != nil {
			if changed, ok := changedUpdate(op.Entity, op.Loaded); ok {
				st = changed
			}
		}
		if serverChecks && op.Kind != OpInsert && !TableOf(op.Entity).Immutable {
			// WITH r AS (UPDATE ... RETURNING 1) SELECT bpmnlite_expect_row(count(*), 'Execution[id]') FROM r
			what := fmt.Sprintf("%s[%s]", TableOf(op.Entity).EntityName, EntityID(op.Entity))
			st = Stmt{
				SQL:  "WITH r AS (" + st.SQL + " RETURNING 1) SELECT bpmnlite_expect_row(count(*), $" + strconv.Itoa(len(st.Args)+1) + ") FROM r",
				Args: append(st.Args, what),
			}
		}
		stmts = append(stmts, st)
		first = append(first, i)
	}
	return sorted, append(stmts, raw...), first, nil
}

// maxInsertRows bounds a multi-row insert: well under both backends'
// parameter limits, and modernc's binding takes time quadratic in the
// number of parameters.
const maxInsertRows = 16

var insertSQLCache sync.Map // insertKey → string

type insertKey struct {
	table *Table
	rows  int
}

// insertSQL inserts rows rows, the columns of each in order.
func (t *Table) insertSQL(rows int) string {
	if rows == 1 {
		return t.statements().insert
	}
	k := insertKey{t, rows}
	if s, ok := insertSQLCache.Load(k); ok {
		return s.(string)
	}
	var b strings.Builder
	b.WriteString("INSERT INTO " + t.Name + " (" + t.statements().columnList + ") VALUES ")
	n := 0
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for c := range t.Columns {
			if c > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString("$" + strconv.Itoa(n))
		}
		b.WriteString(")")
	}
	s := b.String()
	insertSQLCache.Store(k, s)
	return s
}
