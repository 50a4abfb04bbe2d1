package persistence_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Each field of JobFilter selects what it says, on both backends, and the
// jobs come back oldest first (or by due date with DueFirst).
func TestJobFilter(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		tx := begin(t, db)
		created := func(m int) func(*persistence.Job) {
			return func(j *persistence.Job) { j.CreateTime = acqNow.Add(time.Duration(m) * time.Minute) }
		}
		insertJobs(t, tx,
			newJob("a", created(1), func(j *persistence.Job) { j.DueDate = minutes(-10); j.Priority = 5 }),
			newJob("b", created(2), func(j *persistence.Job) { j.DueDate = minutes(10); j.Type = persistence.JobTimer }),
			newJob("c", created(3), func(j *persistence.Job) { j.Retries = 0; j.ExceptionMessage = "boom" }),
			newJob("d", created(4), func(j *persistence.Job) { j.Suspension = persistence.Suspended; j.Priority = 50 }),
			newJob("e", created(5), func(j *persistence.Job) { j.LockOwner = "node"; j.LockExpiration = minutes(1) }),
			newJob("f", created(6), func(j *persistence.Job) {
				j.LockOwner = "dead"
				j.LockExpiration = minutes(-1)
				j.DueDate = minutes(-20)
			}),
		)
		now := acqNow
		for _, c := range []struct {
			name   string
			filter persistence.JobFilter
			want   string // ids in the order returned
		}{
			{"all, oldest first", persistence.JobFilter{}, "a b c d e f"},
			{"id", persistence.JobFilter{ID: "c"}, "c"},
			{"type", persistence.JobFilter{Type: persistence.JobTimer}, "b"},
			{"due before", persistence.JobFilter{DueBefore: &now}, "a f"},
			{"due after", persistence.JobFilter{DueAfter: &now}, "b"},
			{"with exception", persistence.JobFilter{WithException: true}, "c"},
			{"no retries left", persistence.JobFilter{NoRetriesLeft: true}, "c"},
			{"retries left", persistence.JobFilter{WithRetriesLeft: true}, "a b d e f"},
			{"due now: retries, due, active", persistence.JobFilter{Executable: true}, "a e f"},
			{"locked now", persistence.JobFilter{Locked: true}, "e"},
			{"suspended", persistence.JobFilter{Suspended: true}, "d"},
			{"active", persistence.JobFilter{Active: true}, "a b c e f"},
			{"priority range", persistence.JobFilter{PriorityMin: ptr(int64(1)), PriorityMax: ptr(int64(10))}, "a"},
			{"instance", persistence.JobFilter{ProcessInstanceID: "pi-b"}, "b"},
		} {
			got, err := persistence.Select(t.Context(), tx, c.filter.At(now))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if s := strings.Join(ids(got), " "); s != c.want {
				t.Errorf("%s: got %q, want %q", c.name, s, c.want)
			}
		}
		// By due date: the dated jobs in date order; the undated ones wherever
		// the backend sorts nulls, creation order among them.
		got, err := persistence.Select(t.Context(), tx, persistence.JobFilter{DueFirst: true}.Query())
		if err != nil {
			t.Fatal(err)
		}
		var dated []string
		for _, j := range got {
			if j.DueDate != nil {
				dated = append(dated, j.ID)
			}
		}
		if !slices.Equal(dated, []string{"f", "a", "b"}) {
			t.Errorf("due first: dated jobs in order %v, want f a b", dated)
		}
	})
}

// A candidate group matches one whole entry of the comma-separated list.
func TestTaskFilterCandidateGroup(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		tx := begin(t, db)
		for i, groups := range []string{"accounting", "sales,accounting", "accountingx", "support"} {
			task := &persistence.Task{ID: string(rune('a' + i)), ExecutionID: "x", ProcessInstanceID: "pi", TaskDefinitionKey: "t",
				CandidateGroups: groups, CreateTime: acqNow.Add(time.Duration(i) * time.Minute), Suspension: persistence.Active}
			if err := persistence.Insert(t.Context(), tx, task); err != nil {
				t.Fatal(err)
			}
		}
		got, err := persistence.Select(t.Context(), tx, persistence.TaskFilter{CandidateGroup: "accounting"}.Query())
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, task := range got {
			s = append(s, task.ID)
		}
		if strings.Join(s, " ") != "a b" {
			t.Errorf("candidate group accounting: tasks %v, want a b", s)
		}
	})
}

// Every filter field's condition is SQL both backends run: each filter with
// all its fields set (strings to "x", times to now, numbers to 1, flags on).
func TestFilterConditionsRun(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		tx := begin(t, db)
		for _, f := range []any{&persistence.InstanceFilter{}, &persistence.DeploymentFilter{}, &persistence.HistoricActivityFilter{}, &persistence.DefinitionFilter{}, &persistence.TaskFilter{}, &persistence.HistoricTaskFilter{},
			&persistence.ExecutionFilter{}, &persistence.HistoricProcessInstanceFilter{}, &persistence.JobFilter{}, &persistence.JobDefinitionFilter{},
			&persistence.SubscriptionFilter{}, &persistence.ExternalTaskFilter{}, &persistence.IncidentFilter{},
			&persistence.HistoricIncidentFilter{}, &persistence.JobLogFilter{}} {
			fillFilter(f, acqNow)
			q := reflect.ValueOf(f).Elem().MethodByName("Query").Call(nil)[0].Interface().(interface {
				Run(context.Context, persistence.Tx) error
			})
			if err := q.Run(t.Context(), tx); err != nil {
				t.Errorf("%T with every field set: %v", f, err)
			}
		}
	})
}

// fillFilter sets every field of *filter, embedded ones too.
func fillFilter(filter any, now time.Time) {
	v := reflect.ValueOf(filter).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		if !f.IsExported() {
			continue
		}
		fv := v.FieldByIndex(f.Index)
		switch p := fv.Addr().Interface().(type) {
		case *[]string:
			*p = []string{"x", "y"}
		case *string:
			*p = "x"
		case *bool:
			*p = true
		case *int:
			*p = 1
		case **int:
			*p = ptr(1)
		case **int64:
			*p = ptr(int64(1))
		case **time.Time:
			*p = &now
		}
	}
}

// A filter's Page pages and sorts in the database, Count counts what the
// filter selects whatever the page, and an unknown sort key is refused.
func TestFilterPageSortCount(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		tx := begin(t, db)
		insertJobs(t, tx,
			newJob("a", func(j *persistence.Job) { j.Priority = 5; j.CreateTime = acqNow }),
			newJob("b", func(j *persistence.Job) { j.Priority = 50; j.CreateTime = acqNow.Add(time.Minute) }),
			newJob("c", func(j *persistence.Job) { j.Priority = 20; j.CreateTime = acqNow.Add(2 * time.Minute) }),
			newJob("d", func(j *persistence.Job) { j.Priority = 20; j.CreateTime = acqNow.Add(3 * time.Minute) }),
		)
		commit(t, tx)
		for _, c := range []struct {
			name   string
			filter persistence.JobFilter
			want   string
		}{
			{"in", persistence.JobFilter{IDs: []string{"d", "b", "x"}}, "b d"},
			{"page", persistence.JobFilter{Page: persistence.Page{FirstResult: 1, MaxResults: 2}}, "b c"},
			{"offset only", persistence.JobFilter{Page: persistence.Page{FirstResult: 3}}, "d"},
			{"by priority, ties by creation", persistence.JobFilter{Page: persistence.Page{Sort: []persistence.SortKey{{By: "jobPriority"}}}}, "a c d b"},
			{"by priority descending, paged, ties by creation descending", persistence.JobFilter{Page: persistence.Page{MaxResults: 2, Sort: []persistence.SortKey{{By: "jobPriority", Desc: true}}}}, "b d"},
		} {
			got, err := persistence.List(t.Context(), db, c.filter.Query())
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if s := strings.Join(ids(got), " "); s != c.want {
				t.Errorf("%s: got %q, want %q", c.name, s, c.want)
			}
			n, err := persistence.CountFilter(t.Context(), db, c.filter, acqNow)
			wantN := len(strings.Fields(c.want))
			if c.filter.IDs == nil {
				wantN = 4 // the page aside
			}
			if err != nil || n != wantN {
				t.Errorf("%s: count %d, %v; want %d", c.name, n, err, wantN)
			}
		}
		bad := persistence.JobFilter{Page: persistence.Page{Sort: []persistence.SortKey{{By: "nope"}}}}
		if _, err := persistence.List(t.Context(), db, bad.Query()); !errors.Is(err, persistence.ErrInvalidQuery) {
			t.Errorf("unknown sort key: %v, want ErrInvalidQuery", err)
		}
		if _, err := persistence.CountFilter(t.Context(), db, 42, acqNow); !errors.Is(err, persistence.ErrInvalidQuery) {
			t.Errorf("count of no filter: %v, want ErrInvalidQuery", err)
		}
	})
}

// Every sort key of every filter names a column (or expression) its
// table can order by.
func TestFilterSortKeysExist(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		for _, f := range []any{
			persistence.InstanceFilter{}, persistence.DeploymentFilter{}, persistence.DefinitionFilter{}, persistence.TaskFilter{}, persistence.HistoricTaskFilter{},
			persistence.ExecutionFilter{}, persistence.HistoricProcessInstanceFilter{}, persistence.HistoricActivityFilter{}, persistence.JobFilter{},
			persistence.JobDefinitionFilter{}, persistence.SubscriptionFilter{}, persistence.ExternalTaskFilter{}, persistence.IncidentFilter{},
			persistence.HistoricIncidentFilter{}, persistence.JobLogFilter{},
		} {
			keys := persistence.SortKeys(f)
			if len(keys) == 0 {
				t.Errorf("%T sorts by nothing", f)
			}
			for key := range keys {
				v := reflect.New(reflect.TypeOf(f)).Elem()
				v.FieldByName("Page").Set(reflect.ValueOf(persistence.Page{Sort: []persistence.SortKey{{By: key, Desc: true}}}))
				if _, err := persistence.CountFilter(t.Context(), db, v.Interface(), acqNow); err != nil {
					t.Errorf("%T count: %v", f, err)
				}
				if err := persistence.ListFilter(t.Context(), db, v.Interface()); err != nil {
					t.Errorf("%T sorted by %s: %v", f, key, err)
				}
			}
		}
	})
}
