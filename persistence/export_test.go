package persistence

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// SelectWhere and SelectAs let this package's external tests read rows with
// conditions of their own; the engine reads through named queries only.
func SelectWhere(ctx context.Context, tx Tx, table *Table, where string, args ...any) ([]Entity, error) {
	var out []Entity
	err := scanAll(ctx, tx, table, "", where, args, func(e Entity) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

func SelectAs[T Entity](ctx context.Context, tx Tx, where string, args ...any) ([]T, error) {
	return Select(ctx, tx, newQuery[T](where, args...))
}

// Run runs q and drops its rows: whether the database takes its SQL.
func (q Query[T]) Run(ctx context.Context, tx Tx) error {
	return scanAll(ctx, tx, q.Table(), q.columns, q.where, q.args, func(Entity) error { return nil })
}

func (q Query[T]) listed(ctx context.Context, db DB) error {
	_, err := List(ctx, db, q)
	return err
}

// ListFilter runs the query filter's Query method makes, for its error.
func ListFilter(ctx context.Context, db DB, filter any) error {
	q := reflect.ValueOf(filter).MethodByName("Query").Call(nil)[0]
	return q.Interface().(interface {
		listed(context.Context, DB) error
	}).listed(ctx, db)
}

// SetSlowStatement sets the run time from which an SQLite statement is a
// span until the test ends.
func SetSlowStatement(t testing.TB, d time.Duration) {
	old := slowStatement
	slowStatement = d
	t.Cleanup(func() { slowStatement = old })
}
