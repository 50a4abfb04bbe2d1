package persistence

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// A record is declared once: an entity struct whose fields are its
// columns, in column order, and in tables.go its table's newTable line
// with the one-line row method that ties the struct to the table. A
// field's column is its name in snake case, an initialism as one word
// (ProcessInstanceID: process_instance_id), unless a db tag names it
// (Variable's value columns are suffixed _value because text, long,
// double and time are type names in SQL). An embedded struct contributes
// its columns (HistoricVariable has Variable's). Everything else about the
// row is derived from that declaration, once per type when the package
// initializes: the table's column list and statements, the values an
// insert or update binds (Values) and the scan destinations of a read
// (Targets), the id and the revision.
//
// Values and Targets run on every insert, update and row read, so they use
// no reflection per call: each column is a field offset and a kind found
// at init, and the accessors reach the field by pointer arithmetic from
// the entity's address, typed by its kind. That is safe because the
// address and the table come together from the entity's row method: an
// entity is always read with its own type's offsets.

// colKind is how a column's field is bound and scanned: one kind per Go
// type that the backends convert (see Tx).
type colKind uint8

const (
	colID       colKind = iota + 1 // the id: a string, never NULL
	colString                      // string, NULL when ""
	colBytes                       // []byte, NULL when empty
	colInt                         // int
	colInt64                       // int64
	colFloat64                     // float64
	colBool                        // bool
	colTime                        // time.Time, never NULL
	colTimePtr                     // *time.Time, NULL when nil
	colIntPtr                      // *int, NULL when nil
	colInt64Ptr                    // *int64, NULL when nil
)

var colKinds = map[reflect.Type]colKind{
	reflect.TypeFor[string]():     colString,
	reflect.TypeFor[[]byte]():     colBytes,
	reflect.TypeFor[int]():        colInt,
	reflect.TypeFor[int64]():      colInt64,
	reflect.TypeFor[float64]():    colFloat64,
	reflect.TypeFor[bool]():       colBool,
	reflect.TypeFor[time.Time]():  colTime,
	reflect.TypeFor[*time.Time](): colTimePtr,
	reflect.TypeFor[*int]():       colIntPtr,
	reflect.TypeFor[*int64]():     colInt64Ptr,
}

// field is a column's place in its entity.
type field struct {
	off  uintptr // from the start of the entity struct
	kind colKind
}

// allTables collects the tables as newTable declares them.
var allTables []*Table

// newTable declares the table of entity type T from T's fields. The first
// column must be the string id; a second column rev (an int) makes the
// table mutable, with optimistic locking; without it the table is
// immutable. It panics on a declaration it cannot derive, when the
// package initializes.
func newTable[T any, P interface {
	*T
	Entity
}](name string, order int) *Table {
	typ := reflect.TypeFor[T]()
	t := &Table{
		Name:       name,
		EntityName: typ.Name(),
		Order:      order,
		New:        func() Entity { return P(new(T)) },
	}
	t.declare(typ, 0)
	if len(t.Columns) < 2 || t.Columns[0] != "id" || t.fields[0].kind != colID {
		panic(fmt.Sprintf("persistence: %s: the first column must be the string id", typ))
	}
	if i := slices.Index(t.Columns, "rev"); i >= 0 {
		if i != 1 || t.fields[1].kind != colInt {
			panic(fmt.Sprintf("persistence: %s: rev must be the second column, an int", typ))
		}
		t.revOff = t.fields[1].off
	} else {
		t.Immutable = true
	}
	allTables = append(allTables, t)
	return t
}

// declare adds the columns of struct type typ at offset base.
func (t *Table) declare(typ reflect.Type, base uintptr) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		col, tagged := f.Tag.Lookup("db")
		if !tagged && f.Anonymous && f.Type.Kind() == reflect.Struct {
			t.declare(f.Type, base+f.Offset)
			continue
		}
		if !tagged {
			col = snakeCase(f.Name)
		}
		kind := colKinds[f.Type]
		switch {
		case !f.IsExported() || col == "":
			panic(fmt.Sprintf("persistence: %s.%s is no column", typ, f.Name))
		case kind == 0:
			panic(fmt.Sprintf("persistence: %s.%s: no column kind for %s", typ, f.Name, f.Type))
		case slices.Contains(t.Columns, col):
			panic(fmt.Sprintf("persistence: %s.%s: column %s declared twice", typ, f.Name, col))
		case col == "id" && kind == colString:
			kind = colID
		}
		t.Columns = append(t.Columns, col)
		t.fields = append(t.fields, field{off: base + f.Offset, kind: kind})
	}
}

// neverNull reports whether column col (or an expression: false) is never
// NULL.
func (t *Table) neverNull(col string) bool {
	i := slices.Index(t.Columns, col)
	if i < 0 {
		return false
	}
	switch t.fields[i].kind {
	case colID, colInt, colInt64, colFloat64, colBool, colTime:
		return true
	}
	return false
}

// snakeCase is the column of field name: ProcessInstanceID is
// process_instance_id, HasStartForm has_start_form.
func snakeCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		if 'A' <= r && r <= 'Z' {
			// A word starts at an upper-case letter after a lower-case one,
			// or at the last upper-case letter of an initialism before a
			// lower-case one (HTTPServer: http_server).
			if i > 0 && (isLower(name[i-1]) || i+1 < len(name) && isLower(name[i+1]) && !isLower(name[i-1])) {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// TableOf returns e's table; e may be a nil pointer.
func TableOf(e Entity) *Table {
	t, _ := e.row()
	return t
}

// Values returns e's column values in TableOf(e).Columns order, with the
// column conventions (see tables.go): the arguments of an insert or update.
func Values(e Entity) []any {
	t, p := e.row()
	return t.values(p)
}

// Targets returns pointers to e's fields in TableOf(e).Columns order, for
// Rows.Scan.
func Targets(e Entity) []any {
	t, p := e.row()
	return t.targets(make([]any, len(t.fields)), p)
}

// scanRow scans the current row of rows into e. The targets go in *buf,
// which a loop reading row after row reuses.
func scanRow(rows Rows, e Entity, buf *[]any) error {
	t, p := e.row()
	if cap(*buf) < len(t.fields) {
		*buf = make([]any, len(t.fields))
	}
	*buf = t.targets((*buf)[:len(t.fields)], p)
	return rows.Scan(*buf...)
}

// EntityID returns e's id.
func EntityID(e Entity) string {
	t, p := e.row()
	return *(*string)(unsafe.Add(p, t.fields[0].off))
}

// Revision returns e's revision: 1 on immutable tables.
func Revision(e Entity) int {
	t, p := e.row()
	if t.Immutable {
		return 1
	}
	return *(*int)(unsafe.Add(p, t.revOff))
}

// SetRevision sets e's revision; on immutable tables it does nothing.
func SetRevision(e Entity, rev int) {
	if t, p := e.row(); !t.Immutable {
		*(*int)(unsafe.Add(p, t.revOff)) = rev
	}
}

// values reads the columns of the entity at p (of t's type).
func (t *Table) values(p unsafe.Pointer) []any {
	out := make([]any, len(t.fields))
	for i, f := range t.fields {
		at := unsafe.Add(p, f.off)
		switch f.kind {
		case colID:
			out[i] = *(*string)(at)
		case colString:
			if s := *(*string)(at); s != "" {
				out[i] = s
			}
		case colBytes:
			if b := *(*[]byte)(at); len(b) > 0 {
				out[i] = b
			}
		case colInt:
			out[i] = *(*int)(at)
		case colInt64:
			out[i] = *(*int64)(at)
		case colFloat64:
			out[i] = *(*float64)(at)
		case colBool:
			out[i] = *(*bool)(at)
		case colTime:
			out[i] = *(*time.Time)(at)
		case colTimePtr:
			out[i] = *(**time.Time)(at) // a nil pointer binds NULL
		case colIntPtr:
			out[i] = *(**int)(at)
		case colInt64Ptr:
			out[i] = *(**int64)(at)
		}
	}
	return out
}

// targets points out, as long as t's columns, at the columns of the
// entity at p (of t's type).
func (t *Table) targets(out []any, p unsafe.Pointer) []any {
	fields := t.fields[:len(out)]
	for i := range fields {
		at := unsafe.Add(p, fields[i].off)
		switch fields[i].kind {
		case colID, colString:
			out[i] = (*string)(at)
		case colBytes:
			out[i] = (*[]byte)(at)
		case colInt:
			out[i] = (*int)(at)
		case colInt64:
			out[i] = (*int64)(at)
		case colFloat64:
			out[i] = (*float64)(at)
		case colBool:
			out[i] = (*bool)(at)
		case colTime:
			out[i] = (*time.Time)(at)
		case colTimePtr:
			out[i] = (**time.Time)(at)
		case colIntPtr:
			out[i] = (**int)(at)
		case colInt64Ptr:
			out[i] = (**int64)(at)
		}
	}
	return out
}
