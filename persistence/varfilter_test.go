package persistence_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// The variables where-form compares each kind of value on its own column,
// with every operator, on both backends: on the rows themselves
// (VariableFilter) and through an EXISTS subquery (TaskFilter).
func TestVariableConditions(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		tx := begin(t, db)
		day := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
		vars := []*persistence.Variable{
			{ID: "s", Name: "customer", Type: persistence.VarString, Text: "Acme Corp", TaskID: "t1"},
			{ID: "e", Name: "note", Type: persistence.VarString, Text: ""},
			{ID: "n", Name: "amount", Type: persistence.VarLong, Long: 42, TaskID: "t2"},
			{ID: "d", Name: "rate", Type: persistence.VarDouble, Double: 2.5},
			{ID: "b", Name: "vip", Type: persistence.VarBoolean, Long: 1, TaskID: "t1"},
			{ID: "t", Name: "due", Type: persistence.VarDate, Time: day},
			{ID: "z", Name: "gone", Type: persistence.VarNull},
			{ID: "j", Name: "doc", Type: persistence.VarJSON, Text: `{"a":1}`},
		}
		for _, v := range vars {
			v.Rev = 1
			if err := persistence.Insert(t.Context(), tx, v); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range []string{"t1", "t2"} {
			task := &persistence.Task{ID: id, Rev: 1, CreateTime: day, Suspension: persistence.Active}
			if err := persistence.Insert(t.Context(), tx, task); err != nil {
				t.Fatal(err)
			}
		}
		cond := func(name, op string, v any) persistence.VariableConditions {
			return persistence.VariableConditions{{Name: name, Operator: op, Value: v}}
		}
		for _, c := range []struct {
			what   string
			filter persistence.VariableFilter
			want   string
		}{
			{"string eq", persistence.VariableFilter{Values: cond("customer", "eq", "Acme Corp")}, "s"},
			{"string eq is case-sensitive", persistence.VariableFilter{Values: cond("customer", "eq", "acme corp")}, ""},
			{"string eq ignoring case", persistence.VariableFilter{Values: cond("customer", "eq", "acme corp"), VariableValuesIgnoreCase: true}, "s"},
			{"name ignoring case", persistence.VariableFilter{Values: cond("CUSTOMER", "eq", "Acme Corp"), VariableNamesIgnoreCase: true}, "s"},
			{"empty string eq", persistence.VariableFilter{Values: cond("note", "eq", "")}, "e"},
			{"string like", persistence.VariableFilter{Values: cond("customer", "like", "Acme%")}, "s"},
			{"string neq", persistence.VariableFilter{Values: cond("customer", "neq", "Other")}, "s"},
			{"string gt", persistence.VariableFilter{Values: cond("customer", "gt", "Aaa")}, "s"},
			{"a string is no number", persistence.VariableFilter{Values: cond("amount", "eq", "42")}, ""},
			{"long eq", persistence.VariableFilter{Values: cond("amount", "eq", int64(42))}, "n"},
			{"long gt float", persistence.VariableFilter{Values: cond("amount", "gt", 41.5)}, "n"},
			{"long lteq", persistence.VariableFilter{Values: cond("amount", "lteq", int64(41))}, ""},
			{"long neq", persistence.VariableFilter{Values: cond("amount", "neq", int64(41))}, "n"},
			{"double lt int", persistence.VariableFilter{Values: cond("rate", "lt", int64(3))}, "d"},
			{"double gteq", persistence.VariableFilter{Values: cond("rate", "gteq", 2.5)}, "d"},
			{"boolean eq", persistence.VariableFilter{Values: cond("vip", "eq", true)}, "b"},
			{"boolean neq", persistence.VariableFilter{Values: cond("vip", "neq", true)}, ""},
			{"date gt", persistence.VariableFilter{Values: cond("due", "gt", day.Add(-time.Hour))}, "t"},
			{"date eq", persistence.VariableFilter{Values: cond("due", "eq", day)}, "t"},
			{"null eq", persistence.VariableFilter{Values: cond("gone", "eq", nil)}, "z"},
			{"null neq", persistence.VariableFilter{Values: cond("doc", "neq", nil)}, "j"},
			{"all conditions hold", persistence.VariableFilter{Values: append(cond("amount", "gt", int64(1)), cond("amount", "lt", int64(100))...)}, "n"},
			{"number like matches text", persistence.VariableFilter{Values: cond("customer", "like", int64(4))}, ""},
		} {
			checkIDs(t, c.what, tx, c.filter.Query(), c.want, func(v *persistence.Variable) string { return v.ID })
		}
		for _, c := range []struct {
			what   string
			filter persistence.TaskFilter
			want   string
		}{
			{"a local variable", persistence.TaskFilter{TaskVariables: cond("vip", "eq", true)}, "t1"},
			{"two local variables", persistence.TaskFilter{TaskVariables: append(cond("vip", "eq", true), cond("customer", "like", "%Corp")...)}, "t1"},
			{"no task has it", persistence.TaskFilter{TaskVariables: cond("amount", "gt", int64(42))}, ""},
			{"another task's", persistence.TaskFilter{TaskVariables: cond("amount", "gteq", int64(42))}, "t2"},
		} {
			checkIDs(t, c.what, tx, c.filter.Query(), c.want, func(task *persistence.Task) string { return task.ID })
		}
		for _, bad := range []persistence.VariableConditions{cond("vip", "gt", true), cond("gone", "lt", nil), cond("x", "between", "a"), cond("due", "like", day)} {
			_, err := persistence.Select(t.Context(), tx, persistence.VariableFilter{Values: bad}.Query())
			if !errors.Is(err, persistence.ErrInvalidQuery) {
				t.Errorf("%v: %v, want ErrInvalidQuery", bad, err)
			}
		}
	})
}

// checkIDs fails unless q selects the rows of ids want, in that order.
func checkIDs[T persistence.Entity](t *testing.T, what string, tx persistence.Tx, q persistence.Query[T], want string, id func(T) string) {
	t.Helper()
	got, err := persistence.Select(t.Context(), tx, q)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var ids []string
	for _, row := range got {
		ids = append(ids, id(row))
	}
	if !slices.Equal(ids, strings.Fields(want)) {
		t.Errorf("%s: %v, want %s", what, ids, want)
	}
}
