package persistence

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// The filters' fields declare their conditions in struct tags; one
// where-builder turns a filter value into its WHERE clause. A field's
// `where` tag is one of:
//
//	column            column = value
//	column OP         column OP value, OP one of = < > <= >=
//	column member     value is one entry of the comma-separated column
//	expression        an SQL condition: ? stands for the value, @now for
//	                  the time the query is judged at, {name} for a
//	                  fragment below; a bool field's expression is the
//	                  condition that holds when the field is true
//
// A field at its zero value (empty string, 0, nil, false) adds nothing.
// Times are compared in UTC, pointers are compared by what they point to.
// Its `param` tag names it in Camunda's REST API (rest reads it); a
// `name=value|...` param lists boolean parameters of which the first true
// one sets the field to its value.

// fragments are the SQL too long or too shared to repeat in a tag.
var fragments = map[string]string{
	"executionHasChild": executionHasChild,
	"jobLogCreated":     "'" + JobLogCreated + "'",
}

// condition is one field's compiled `where` tag.
type condition struct {
	index []int  // the field, through embedded structs
	sql   string // with ? for the value, @now for the time
	value func(reflect.Value) any
}

var conditionsOf sync.Map // reflect.Type: []condition

// filterConditions compiles the `where` tags of filter type t (once).
func filterConditions(t reflect.Type) []condition {
	if cs, ok := conditionsOf.Load(t); ok {
		return cs.([]condition)
	}
	var cs []condition
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("where")
		if !ok || f.Anonymous {
			continue
		}
		c, err := compileCondition(f, tag)
		if err != nil {
			panic(fmt.Sprintf("persistence: %s.%s: %v", t.Name(), f.Name, err))
		}
		cs = append(cs, c)
	}
	conditionsOf.Store(t, cs)
	return cs
}

func compileCondition(f reflect.StructField, tag string) (condition, error) {
	c := condition{index: f.Index, value: plainValue}
	words := strings.Fields(tag)
	switch {
	case f.Type.Kind() == reflect.Bool:
		c.sql = tag
	case len(words) == 1:
		c.sql = tag + " = ?"
	case len(words) == 2 && words[1] == "member":
		c.sql = "(',' || " + words[0] + " || ',') LIKE ? ESCAPE '\\'"
		c.value = func(v reflect.Value) any { return "%," + escapeLike(v.String()) + ",%" }
	case len(words) == 2 && slices.Contains([]string{"=", "<", ">", "<=", ">="}, words[1]):
		c.sql = tag + " ?"
	case strings.Contains(tag, "?") || strings.Contains(tag, "@now"):
		c.sql = tag
	default:
		return c, fmt.Errorf("where %q: want a column, a column and an operator, or an expression with ?", tag)
	}
	for name, sql := range fragments {
		c.sql = strings.ReplaceAll(c.sql, "{"+name+"}", sql)
	}
	if strings.ContainsAny(c.sql, "{}") {
		return c, fmt.Errorf("where %q: unknown fragment", tag)
	}
	return c, nil
}

// plainValue is the argument of a field: times in UTC, pointers followed.
func plainValue(v reflect.Value) any {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if t, ok := v.Interface().(time.Time); ok {
		return t.UTC()
	}
	return v.Interface()
}

// filterQuery is the query of the rows filter selects, judged at now, in
// the order given.
func filterQuery[T Entity](filter any, now time.Time, order string) Query[T] {
	v := reflect.ValueOf(filter)
	var terms []string
	var args []any
	arg := func(a any) string {
		args = append(args, a)
		return fmt.Sprintf("$%d", len(args))
	}
	for _, c := range filterConditions(v.Type()) {
		fv := v.FieldByIndex(c.index)
		if fv.IsZero() {
			continue
		}
		sql := c.sql
		if strings.Contains(sql, "?") {
			sql = strings.ReplaceAll(sql, "?", arg(c.value(fv)))
		}
		if strings.Contains(sql, "@now") {
			sql = strings.ReplaceAll(sql, "@now", arg(now.UTC()))
		}
		terms = append(terms, sql)
	}
	s := ""
	if len(terms) > 0 {
		s = "WHERE " + strings.Join(terms, " AND ")
	}
	if order != "" {
		s += " ORDER BY " + order
	}
	return newQuery[T](s, args...)
}

// likeEscaper makes a string match itself only in a LIKE pattern with
// ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

func escapeLike(s string) string { return likeEscaper.Replace(s) }
