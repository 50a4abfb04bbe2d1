package persistence

import (
	"cmp"
	"context"
	"slices"
	"strconv"
)

// Statistics of the running state, as Camunda's management statistics
// queries count them: per process definition, or per activity of one.

// Statistics counts what runs in one process definition or activity.
type Statistics struct {
	ID         string // the process definition's or the activity's id
	Instances  int    // process instances (of a definition), executions at the activity
	FailedJobs int    // jobs without retries left (when asked for)
	Incidents  []IncidentCount
}

// IncidentCount is how many open incidents of a type there are.
type IncidentCount struct {
	Type  string
	Count int
}

// StatisticsOptions say what Statistics count beside instances.
type StatisticsOptions struct {
	FailedJobs bool
	// Incidents counts incidents by type; IncidentType only that type's,
	// RootIncidents only the root causes (not those a call activity's
	// called instance caused in its caller).
	Incidents     bool
	IncidentType  string
	RootIncidents bool
}

// statisticsSQL is how one kind of statistics groups its rows: by the
// column group, of the rows where holds (its $1 bound to arg when set).
type statisticsSQL struct {
	group, where string
	arg          []any
}

// DefinitionStatistics counts, per process definition that has anything
// counted, its process instances, failed jobs and incidents.
func DefinitionStatistics(ctx context.Context, db DB, opt StatisticsOptions) ([]*Statistics, error) {
	return statistics(ctx, db, opt, statisticsSQL{group: "process_definition_id", where: "1 = 1"},
		"parent_id IS NULL")
}

// ActivityStatistics counts, per activity of process definition id that
// has anything counted, the executions at it (as Camunda shows them: no
// child runs in them), its failed jobs and incidents.
func ActivityStatistics(ctx context.Context, db DB, id string, opt StatisticsOptions) ([]*Statistics, error) {
	return statistics(ctx, db, opt, statisticsSQL{group: "activity_id", where: "process_definition_id = $1", arg: []any{id}},
		"activity_id IS NOT NULL AND NOT is_event_scope AND NOT "+executionHasChild)
}

func statistics(ctx context.Context, db DB, opt StatisticsOptions, s statisticsSQL, instances string) ([]*Statistics, error) {
	t, err := db.Begin(ctx, true)
	if err != nil {
		return nil, err
	}
	defer t.Rollback(ctx)
	byID := map[string]*Statistics{}
	row := func(id string) *Statistics {
		if byID[id] == nil {
			byID[id] = &Statistics{ID: id, Incidents: []IncidentCount{}}
		}
		return byID[id]
	}
	count := func(table, cond string, add func(*Statistics, string, int)) error {
		cols := s.group
		if table == "incident" {
			cols += ", type"
		}
		rows, err := t.Query(ctx, "SELECT "+cols+", count(*) FROM "+table+" WHERE "+s.where+" AND "+cond+" GROUP BY "+cols, s.arg...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, typ string
			var n int
			targets := []any{&id, &n}
			if table == "incident" {
				targets = []any{&id, &typ, &n}
			}
			if err := rows.Scan(targets...); err != nil {
				return err
			}
			add(row(id), typ, n)
		}
		return rows.Err()
	}
	if err := count("execution", instances, func(st *Statistics, _ string, n int) { st.Instances = n }); err != nil {
		return nil, err
	}
	if opt.FailedJobs {
		if err := count("job", "retries = 0 AND process_definition_id IS NOT NULL", func(st *Statistics, _ string, n int) { st.FailedJobs = n }); err != nil {
			return nil, err
		}
	}
	if opt.Incidents || opt.IncidentType != "" || opt.RootIncidents {
		cond := "process_definition_id IS NOT NULL"
		switch {
		case opt.IncidentType != "":
			cond += " AND type = $" + strconv.Itoa(len(s.arg)+1)
			s.arg = append(s.arg, opt.IncidentType)
		case opt.RootIncidents:
			cond += " AND (root_cause_incident_id IS NULL OR root_cause_incident_id = id)"
		}
		add := func(st *Statistics, typ string, n int) {
			st.Incidents = append(st.Incidents, IncidentCount{Type: typ, Count: n})
		}
		if err := count("incident", cond, add); err != nil {
			return nil, err
		}
	}
	out := make([]*Statistics, 0, len(byID))
	for _, st := range byID {
		slices.SortFunc(st.Incidents, func(a, b IncidentCount) int { return cmp.Compare(a.Type, b.Type) })
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b *Statistics) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
