package persistence

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Reports over the history: counts per process definition and per
// activity, aggregated in SQL.

func init() {
	fragments["definitionFinished"] = "(SELECT count(*) FROM hist_process_instance h WHERE h.process_definition_id = process_definition.id AND h.end_time IS NOT NULL)"
}

// CleanableReportFilter selects the process definitions of the cleanable
// process instance report, by id.
type CleanableReportFilter struct {
	Page                  `sort:"finished={definitionFinished}"`
	ProcessDefinitionIDs  []string `where:"id in" param:"processDefinitionIdIn"`
	ProcessDefinitionKeys []string `where:"key in" param:"processDefinitionKeyIn"`
	// Compact leaves out definitions without finished or cleanable
	// instances.
	Compact bool `where:"EXISTS (SELECT 1 FROM hist_process_instance h WHERE h.process_definition_id = process_definition.id AND (h.end_time IS NOT NULL OR h.removal_time <= @now))" param:"compact"`
}

// At is the filter's query of definitions, cleanable judged at now.
func (f CleanableReportFilter) At(now time.Time) Query[*ProcessDefinition] {
	return filterQuery[*ProcessDefinition](f, now, "id")
}

// CleanableReportRow is one process definition in the cleanable process
// instance report: its finished instances, and those of them whose
// removal time has come (the history cleanup removes them).
type CleanableReportRow struct {
	ProcessDefinitionID      string
	ProcessDefinitionKey     string
	ProcessDefinitionName    string
	ProcessDefinitionVersion int
	HistoryTimeToLive        *int // days; nil: the engine's default
	Finished                 int
	Cleanable                int
}

// CleanableReport is the cleanable process instance report of the
// definitions f selects, judged at now.
func CleanableReport(ctx context.Context, db DB, f CleanableReportFilter, now time.Time) ([]*CleanableReportRow, error) {
	q := f.At(now)
	if q.err != nil {
		return nil, q.err
	}
	args := append(slices.Clone(q.args), now.UTC())
	sql := "SELECT id, key, name, version, COALESCE(history_time_to_live, -1), " + withFragments("{definitionFinished}") +
		", (SELECT count(*) FROM hist_process_instance h WHERE h.process_definition_id = process_definition.id AND h.removal_time <= $" +
		strconv.Itoa(len(args)) + ") FROM process_definition " + q.where
	var out []*CleanableReportRow
	err := readRows(ctx, db, sql, args, func(rows Rows) error {
		r := &CleanableReportRow{}
		var ttl, version, finished, cleanable int64
		if err := rows.Scan(&r.ProcessDefinitionID, &r.ProcessDefinitionKey, &r.ProcessDefinitionName, &version, &ttl, &finished, &cleanable); err != nil {
			return err
		}
		r.ProcessDefinitionVersion, r.Finished, r.Cleanable = int(version), int(finished), int(cleanable)
		if ttl >= 0 {
			days := int(ttl)
			r.HistoryTimeToLive = &days
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// HistoricActivityStatisticsQuery asks for the statistics of one process
// definition's activities in history, by activity id (Page's sort: its
// first key descending or not). Without Finished only activity instances
// that run (or were canceled, with Canceled) count.
type HistoricActivityStatisticsQuery struct {
	Page                `sort:"activityId"`
	ProcessDefinitionID string
	Finished            bool `param:"finished"`  // count the finished activity instances
	Canceled            bool `param:"canceled"`  // count the canceled activity instances
	Incidents           bool `param:"incidents"` // count the incidents by state
	// Of the process instances: started or finished in the time.
	StartedBefore      *time.Time `param:"startedBefore"`
	StartedAfter       *time.Time `param:"startedAfter"`
	FinishedBefore     *time.Time `param:"finishedBefore"`
	FinishedAfter      *time.Time `param:"finishedAfter"`
	ProcessInstanceIDs []string   `param:"processInstanceIdIn"`
}

// HistoricActivityStatistics is what history holds of one activity of a
// process definition.
type HistoricActivityStatistics struct {
	ActivityID        string
	Instances         int // running
	Finished          int
	Canceled          int
	OpenIncidents     int
	ResolvedIncidents int
	DeletedIncidents  int
}

// HistoricActivityStatisticsOf are the statistics q asks for, by activity id.
func HistoricActivityStatisticsOf(ctx context.Context, db DB, q HistoricActivityStatisticsQuery) ([]*HistoricActivityStatistics, error) {
	args := []any{q.ProcessDefinitionID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var instance []string // conditions on the process instance
	for _, c := range []struct {
		cond string
		at   *time.Time
	}{{"start_time <=", q.StartedBefore}, {"start_time >=", q.StartedAfter}, {"end_time <=", q.FinishedBefore}, {"end_time >=", q.FinishedAfter}} {
		if c.at != nil {
			instance = append(instance, c.cond+" "+arg(c.at.UTC()))
		}
	}
	if len(q.ProcessInstanceIDs) > 0 {
		ps := make([]string, len(q.ProcessInstanceIDs))
		for i, id := range q.ProcessInstanceIDs {
			ps[i] = arg(id)
		}
		instance = append(instance, "id IN ("+strings.Join(ps, ", ")+")")
	}
	ofInstances := ""
	if len(instance) > 0 {
		ofInstances = " AND process_instance_id IN (SELECT id FROM hist_process_instance WHERE " + strings.Join(instance, " AND ") + ")"
	}
	counted := ""
	if !q.Finished {
		counted = " AND (end_time IS NULL"
		if q.Canceled {
			counted += " OR canceled"
		}
		counted += ")"
	}
	byID := map[string]*HistoricActivityStatistics{}
	stat := func(id string) *HistoricActivityStatistics {
		if byID[id] == nil {
			byID[id] = &HistoricActivityStatistics{ActivityID: id}
		}
		return byID[id]
	}
	err := readRows(ctx, db, "SELECT activity_id, SUM(CASE WHEN end_time IS NULL THEN 1 ELSE 0 END), SUM(CASE WHEN end_time IS NOT NULL THEN 1 ELSE 0 END),"+
		" SUM(CASE WHEN canceled THEN 1 ELSE 0 END) FROM hist_activity_instance WHERE process_definition_id = $1"+counted+ofInstances+
		" GROUP BY activity_id", args, func(rows Rows) error {
		var id string
		var running, finished, canceled int64
		if err := rows.Scan(&id, &running, &finished, &canceled); err != nil {
			return err
		}
		s := stat(id)
		s.Instances = int(running)
		if q.Finished {
			s.Finished = int(finished)
		}
		if q.Canceled {
			s.Canceled = int(canceled)
		}
		return nil
	})
	if err == nil && q.Incidents {
		err = readRows(ctx, db, "SELECT activity_id, SUM(CASE WHEN state = 'open' THEN 1 ELSE 0 END), SUM(CASE WHEN state = 'resolved' THEN 1 ELSE 0 END),"+
			" SUM(CASE WHEN state = 'deleted' THEN 1 ELSE 0 END) FROM hist_incident WHERE process_definition_id = $1"+ofInstances+
			" GROUP BY activity_id", args, func(rows Rows) error {
			var id string
			var open, resolved, deleted int64
			if err := rows.Scan(&id, &open, &resolved, &deleted); err != nil {
				return err
			}
			s := stat(id)
			s.OpenIncidents, s.ResolvedIncidents, s.DeletedIncidents = int(open), int(resolved), int(deleted)
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	out := make([]*HistoricActivityStatistics, 0, len(byID))
	for _, s := range byID {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *HistoricActivityStatistics) int {
		if len(q.Sort) > 0 && q.Sort[0].Desc {
			a, b = b, a
		}
		return cmp.Compare(a.ActivityID, b.ActivityID)
	})
	return out, nil
}

// readRows runs a query in a read-only transaction of its own and hands
// each row to scan.
func readRows(ctx context.Context, db DB, sql string, args []any, scan func(Rows) error) error {
	t, err := db.Begin(ctx, true)
	if err != nil {
		return err
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(ctx)) }()
	rows, err := t.Query(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
	}
	return rows.Err()
}

// DurationReportRow is one period of a duration report: the shortest,
// longest and average duration, in milliseconds, of what ended (process
// instances: started) in it. Period is the month (1-12) or quarter (1-4),
// of any year, in UTC.
type DurationReportRow struct {
	Period     int
	PeriodUnit string // "MONTH" or "QUARTER"
	Minimum    int64
	Maximum    int64
	Average    int64
}

// Period units of duration reports.
const (
	PeriodMonth   = "MONTH"
	PeriodQuarter = "QUARTER"
)

// InstanceDurationFilter selects the finished process instances of a
// process instance duration report.
type InstanceDurationFilter struct {
	ProcessDefinitionIDs  []string   `where:"process_definition_id in" param:"processDefinitionIdIn"`
	ProcessDefinitionKeys []string   `where:"process_definition_key in" param:"processDefinitionKeyIn"`
	StartedBefore         *time.Time `where:"start_time <=" param:"startedBefore"`
	StartedAfter          *time.Time `where:"start_time >=" param:"startedAfter"`
	finished              bool       `where:"end_time IS NOT NULL"`
}

// TaskReportFilter selects the completed user tasks of a task report.
type TaskReportFilter struct {
	CompletedBefore *time.Time `where:"end_time <=" param:"completedBefore"`
	CompletedAfter  *time.Time `where:"end_time >=" param:"completedAfter"`
	finished        bool       `where:"end_time IS NOT NULL"`
}

// InstanceDurationReport is the duration report of the finished process
// instances f selects, by the period (unit) they started in.
func InstanceDurationReport(ctx context.Context, db DB, f InstanceDurationFilter, unit string) ([]*DurationReportRow, error) {
	f.finished = true
	return durationReport(ctx, db, filterQuery[*HistoricProcessInstance](f, time.Time{}, "id"), unit, false)
}

// TaskDurationReport is the duration report of the completed user tasks f
// selects, by the period (unit) they were completed in.
func TaskDurationReport(ctx context.Context, db DB, f TaskReportFilter, unit string) ([]*DurationReportRow, error) {
	f.finished = true
	return durationReport(ctx, db, filterQuery[*HistoricTask](f, time.Time{}, "id"), unit, true)
}

// durationReport aggregates the start and end times of the rows q selects
// by period, of their end or start, as they stream by.
func durationReport[T Entity](ctx context.Context, db DB, q Query[T], unit string, byEnd bool) ([]*DurationReportRow, error) {
	if unit != PeriodMonth && unit != PeriodQuarter {
		return nil, fmt.Errorf("%w: period unit %q (want %s or %s)", ErrInvalidQuery, unit, PeriodMonth, PeriodQuarter)
	}
	type agg struct{ min, max, sum, n int64 }
	periods := map[int]*agg{}
	err := readRows(ctx, db, "SELECT start_time, end_time FROM "+q.Table().Name+" "+q.where, q.args, func(rows Rows) error {
		var start, end time.Time
		if err := rows.Scan(&start, &end); err != nil {
			return err
		}
		at := start
		if byEnd {
			at = end
		}
		p := int(at.UTC().Month())
		if unit == PeriodQuarter {
			p = (p + 2) / 3
		}
		d := end.Sub(start).Milliseconds()
		a := periods[p]
		if a == nil {
			a = &agg{min: d, max: d}
			periods[p] = a
		}
		a.min, a.max, a.sum, a.n = min(a.min, d), max(a.max, d), a.sum+d, a.n+1
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*DurationReportRow, 0, len(periods))
	for p, a := range periods {
		out = append(out, &DurationReportRow{Period: p, PeriodUnit: unit, Minimum: a.min, Maximum: a.max, Average: a.sum / a.n})
	}
	slices.SortFunc(out, func(a, b *DurationReportRow) int { return cmp.Compare(a.Period, b.Period) })
	return out, nil
}

// TaskCountRow is one group of the task count report: completed user
// tasks of one name (unless grouped by process definition) of one process
// definition key, with that key's latest definition (in the tasks' tenant).
type TaskCountRow struct {
	TaskName              string
	Count                 int
	ProcessDefinitionKey  string
	ProcessDefinitionID   string
	ProcessDefinitionName string
}

// TaskCountReport counts the completed user tasks f selects by task name
// and process definition key, or by key alone (byDefinition), as
// Camunda's count report orders them.
func TaskCountReport(ctx context.Context, db DB, f TaskReportFilter, byDefinition bool) ([]*TaskCountRow, error) {
	f.finished = true
	q := filterQuery[*HistoricTask](f, time.Time{}, "id")
	where, _, _ := strings.Cut(q.where, " ORDER BY ")
	name, group, order := "t.name", "t.name, ", "t.name ASC, count(*) DESC"
	if byDefinition {
		name, group, order = "''", "", "d.name ASC, t.process_definition_key ASC, count(*) DESC"
	} else {
		where += " AND t.name IS NOT NULL"
	}
	// The latest definition of the key in the task's tenant.
	sql := "SELECT " + name + ", count(*), t.process_definition_key, d.id, d.name FROM hist_task t JOIN process_definition d ON d.key = t.process_definition_key" +
		" AND COALESCE(d.tenant_id, '') = COALESCE(t.tenant_id, '')" +
		" AND d.version = (SELECT MAX(d2.version) FROM process_definition d2 WHERE d2.key = d.key AND COALESCE(d2.tenant_id, '') = COALESCE(d.tenant_id, '')) " + where +
		" GROUP BY " + group + "t.process_definition_key, d.id, d.name ORDER BY " + order
	var out []*TaskCountRow
	err := readRows(ctx, db, sql, q.args, func(rows Rows) error {
		r := &TaskCountRow{}
		var n int64
		if err := rows.Scan(&r.TaskName, &n, &r.ProcessDefinitionKey, &r.ProcessDefinitionID, &r.ProcessDefinitionName); err != nil {
			return err
		}
		r.Count = int(n)
		out = append(out, r)
		return nil
	})
	return out, err
}
