package persistence

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Snapshot returns e's column values as a copy that later changes to e do
// not reach, for Op.Loaded.
func Snapshot(e Entity) []any {
	vs := Values(e)
	for i, v := range vs {
		vs[i] = frozen(v)
	}
	return vs
}

// frozen returns v without references into the entity: a *time.Time as its
// time (or nil), bytes copied.
func frozen(v any) any {
	switch x := v.(type) {
	case *time.Time:
		if x == nil {
			return nil
		}
		return *x
	case []byte:
		return bytes.Clone(x)
	}
	return v
}

// sameValue reports whether column values a and b (frozen) are equal; for
// types it does not know it answers false, so the column is written.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case nil, string, int, int64, bool, float64:
		return a == b // interface equality: same type and value
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return false
}

// changedUpdate builds the update of e that writes only the columns whose
// values differ from loaded (the row as read or last written), with the
// same revision check and bump as a full update. Writing unchanged columns
// is not free: SQLite rewrites the index entries of every column named in
// SET, and PostgreSQL binds and compares them all.
func changedUpdate(e Entity, loaded []any) (Stmt, bool) {
	t := TableOf(e)
	values := Values(e)
	if len(loaded) != len(values) || len(values) > 66 {
		return Stmt{}, false
	}
	var mask uint64
	args := []any{values[0], values[1]}
	for i := 2; i < len(values); i++ {
		if !sameValue(frozen(values[i]), loaded[i]) {
			mask |= 1 << (i - 2)
			args = append(args, values[i])
		}
	}
	return Stmt{SQL: t.updateSQL(mask), Args: args}, true
}

var updateSQLCache sync.Map // updateKey → string

type updateKey struct {
	table *Table
	mask  uint64
}

// updateSQL is the update of the columns in mask (bit i: Columns[i+2]);
// $1 is the id, $2 the revision read, then the columns in order.
func (t *Table) updateSQL(mask uint64) string {
	k := updateKey{t, mask}
	if s, ok := updateSQLCache.Load(k); ok {
		return s.(string)
	}
	var b strings.Builder
	b.WriteString("UPDATE " + t.Name + " SET ")
	n := 2
	for i, c := range t.Columns[2:] {
		if mask&(1<<i) != 0 {
			n++
			b.WriteString(c + " = $" + strconv.Itoa(n) + ", ")
		}
	}
	b.WriteString("rev = rev + 1 WHERE id = $1 AND rev = $2")
	s := b.String()
	updateSQLCache.Store(k, s)
	return s
}
