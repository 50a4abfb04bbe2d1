package persistence

import (
	"strconv"
	"strings"
	"time"
)

// Filters of the history's lists as Camunda's REST API has them. Their
// conditions on other tables are subqueries (EXISTS or IN), so that a row
// matches once however many rows of the other table match.

func init() {
	for name, sql := range map[string]string{
		// the historic incident's definition key, for sorting
		"incidentDefinitionKey": "(SELECT key FROM process_definition WHERE process_definition.id = hist_incident.process_definition_id)",
		// Camunda's order of incident states
		"incidentStateCode": "(CASE state WHEN 'open' THEN 0 WHEN 'deleted' THEN 1 ELSE 2 END)",
		// an activity instance of the historic process instance
		"instanceActivity":  "EXISTS (SELECT 1 FROM hist_activity_instance act WHERE act.process_instance_id = hist_process_instance.id AND ",
		"instanceSuspended": instanceSuspended,
		// the historic task's process instance
		"taskInstance": "process_instance_id IN (SELECT id FROM hist_process_instance WHERE ",
	} {
		fragments[name] = sql
	}
}

// HistoricProcessInstanceFilter selects process instances in history as
// Camunda's history resource does, in the order they started. Conditions
// on incidents hold for one incident of the instance together, as in
// Camunda (which joins the incidents once); so do the times of an
// executed activity and of an executed job.
type HistoricProcessInstanceFilter struct {
	Page                      `sort:"instanceId=id definitionId=process_definition_id definitionKey=process_definition_key definitionName=process_definition_name definitionVersion=process_definition_version businessKey startTime endTime duration=(end_time-start_time)"`
	ID                        string     `where:"id" param:"processInstanceId"`
	IDs                       []string   `where:"id in" param:"processInstanceIds"`
	IDNotIn                   []string   `where:"id NOT IN (?)" param:"processInstanceIdNotIn"`
	ProcessDefinitionID       string     `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey      string     `where:"process_definition_key" param:"processDefinitionKey"`
	ProcessDefinitionKeyIn    []string   `where:"process_definition_key in" param:"processDefinitionKeyIn"`
	ProcessDefinitionKeyNotIn []string   `where:"process_definition_key NOT IN (?)" param:"processDefinitionKeyNotIn"`
	ProcessDefinitionName     string     `where:"process_definition_name" param:"processDefinitionName"`
	ProcessDefinitionNameLike string     `where:"process_definition_name like" param:"processDefinitionNameLike"`
	BusinessKey               string     `where:"business_key" param:"processInstanceBusinessKey"`
	BusinessKeyIn             []string   `where:"business_key in" param:"processInstanceBusinessKeyIn"`
	BusinessKeyLike           string     `where:"business_key like" param:"processInstanceBusinessKeyLike"`
	RootProcessInstances      bool       `where:"super_process_instance_id IS NULL" param:"rootProcessInstances"`
	RootProcessInstanceID     string     `where:"root_process_instance_id" param:"rootProcessInstanceId"`
	SuperProcessInstanceID    string     `where:"super_process_instance_id" param:"superProcessInstanceId"`
	SubProcessInstanceID      string     `where:"id = (SELECT super_process_instance_id FROM hist_process_instance sub WHERE sub.id = ?)" param:"subProcessInstanceId"`
	Finished                  bool       `where:"end_time IS NOT NULL" param:"finished"`
	Unfinished                bool       `where:"end_time IS NULL" param:"unfinished"`
	StartedBefore             *time.Time `where:"start_time <=" param:"startedBefore"`
	StartedAfter              *time.Time `where:"start_time >=" param:"startedAfter"`
	FinishedBefore            *time.Time `where:"end_time <=" param:"finishedBefore"`
	FinishedAfter             *time.Time `where:"end_time >=" param:"finishedAfter"`
	// Incidents, open or ended, of the instance: one incident meets all
	// these conditions (see Query).
	WithIncidents       bool     `param:"withIncidents"`
	WithRootIncidents   bool     `param:"withRootIncidents"`
	IncidentIDIn        []string `param:"incidentIdIn"`
	IncidentType        string   `param:"incidentType"`
	IncidentMessage     string   `param:"incidentMessage"`
	IncidentMessageLike string   `param:"incidentMessageLike"`
	// IncidentStatus: "open" (not ended) or "resolved" (ended); another
	// value asks for any incident, as in Camunda.
	IncidentStatus string `param:"incidentStatus"`
	// Activity instances of the instance: one activity instance started
	// or ended within both times (see Query).
	ExecutedActivityAfter  *time.Time `param:"executedActivityAfter"`
	ExecutedActivityBefore *time.Time `param:"executedActivityBefore"`
	ExecutedActivityIDIn   []string   `where:"{instanceActivity} act.end_time IS NOT NULL AND act.activity_id IN (?))" param:"executedActivityIdIn"`
	ActiveActivityIDIn     []string   `where:"{instanceActivity} act.end_time IS NULL AND act.activity_id IN (?))" param:"activeActivityIdIn"`
	// ActivityIDIn: an execution of the running instance is at one of the
	// activities (Camunda's runtime execution join).
	ActivityIDIn []string `where:"EXISTS (SELECT 1 FROM execution WHERE execution.process_instance_id = hist_process_instance.id AND NOT execution.is_event_scope AND execution.activity_id IN (?) AND NOT {executionHasChild})" param:"activityIdIn"`
	// ExecutedJobAfter, ExecutedJobBefore: a job log entry (created,
	// failed, succeeded, deleted) of a job of the instance was written in
	// the time (see Query).
	ExecutedJobAfter  *time.Time `param:"executedJobAfter"`
	ExecutedJobBefore *time.Time `param:"executedJobBefore"`
	// WithJobsRetrying: a job of the instance failed and has retries left.
	WithJobsRetrying bool `where:"EXISTS (SELECT 1 FROM job WHERE job.process_instance_id = hist_process_instance.id AND job.retries > 0 AND job.exception_message IS NOT NULL)" param:"withJobsRetrying"`
	// The states, at most one of them: Active and Suspended are running
	// instances as their runtime suspension has them.
	Active               bool `where:"state = 'ACTIVE' AND NOT {instanceSuspended}" param:"active"`
	Suspended            bool `where:"state = 'ACTIVE' AND {instanceSuspended}" param:"suspended"`
	Completed            bool `where:"state = 'COMPLETED'" param:"completed"`
	ExternallyTerminated bool `where:"state = 'EXTERNALLY_TERMINATED'" param:"externallyTerminated"`
	InternallyTerminated bool `where:"state = 'INTERNALLY_TERMINATED'" param:"internallyTerminated"`
	// State: "" for all, or StateActive, StateCompleted, ... as stored.
	State string `where:"state"`
	// Variables: conditions on the instance's own variables (an ended
	// one's as history has them).
	Variables                VariableConditions `where:"variables FROM {allVariables} v WHERE v.process_instance_id = hist_process_instance.id AND v.execution_id = v.process_instance_id AND v.task_id IS NULL" param:"variables"`
	VariableNamesIgnoreCase  bool               `param:"variableNamesIgnoreCase"`
	VariableValuesIgnoreCase bool               `param:"variableValuesIgnoreCase"`
}

// instanceSuspended holds for a historic process instance whose running
// instance is suspended.
const instanceSuspended = "EXISTS (SELECT 1 FROM execution WHERE execution.id = hist_process_instance.id AND execution.suspension = 2)"

// StateSuspended is the state history shows for a running instance that is
// suspended.
const StateSuspended = "SUSPENDED"

func (f HistoricProcessInstanceFilter) Query() Query[*HistoricProcessInstance] {
	states := 0
	for _, on := range []bool{f.Active, f.Suspended, f.Completed, f.ExternallyTerminated, f.InternallyTerminated} {
		if on {
			states++
		}
	}
	if states > 1 {
		return invalidQuery[*HistoricProcessInstance]("Already querying for historic process instance with another state")
	}
	q := filterQuery[*HistoricProcessInstance](f, time.Time{}, "start_time, id")
	incident := related{exists: "EXISTS (SELECT 1 FROM hist_incident inc WHERE inc.process_instance_id = hist_process_instance.id", used: f.WithIncidents}
	if f.WithRootIncidents {
		incident.add("inc.id = inc.root_cause_incident_id")
	}
	if len(f.IncidentIDIn) > 0 {
		incident.addIn("inc.id", f.IncidentIDIn)
	}
	incident.addIf(f.IncidentType != "", "inc.type = ?", f.IncidentType)
	incident.addIf(f.IncidentMessage != "", "inc.message = ?", f.IncidentMessage)
	incident.addIf(f.IncidentMessageLike != "", "inc.message LIKE ?", f.IncidentMessageLike)
	switch f.IncidentStatus {
	case "":
	case "open":
		incident.add("inc.end_time IS NULL")
	case "resolved":
		incident.add("inc.end_time IS NOT NULL")
	default:
		incident.used = true
	}
	// An instance's jobs are found by their creation entries (indexed by
	// instance); locked entries are not in Camunda's log.
	activity := related{exists: "EXISTS (SELECT 1 FROM hist_activity_instance act WHERE act.process_instance_id = hist_process_instance.id"}
	job := related{exists: "EXISTS (SELECT 1 FROM job_log c JOIN job_log j ON j.job_id = c.job_id WHERE c.process_instance_id = hist_process_instance.id AND c.event = {jobLogCreated} AND j.event <> 'locked'"}
	if t := f.ExecutedActivityAfter; t != nil {
		activity.add("(act.start_time >= ? OR act.end_time >= ?)", t.UTC(), t.UTC())
	}
	if t := f.ExecutedActivityBefore; t != nil {
		activity.add("(act.start_time <= ? OR act.end_time <= ?)", t.UTC(), t.UTC())
	}
	if t := f.ExecutedJobAfter; t != nil {
		job.add("j.timestamp >= ?", t.UTC())
	}
	if t := f.ExecutedJobBefore; t != nil {
		job.add("j.timestamp <= ?", t.UTC())
	}
	return withRelated(q, incident, activity, job)
}

// related is a condition on the rows of another table that several
// fields share: one row meets all their terms, as where Camunda joins the
// table once.
type related struct {
	exists string // "EXISTS (SELECT 1 FROM ... WHERE <correlation>", closed by withRelated
	used   bool   // a field asks for a row even without terms
	terms  []string
	args   []any
}

// add adds a term, with ? for each of args.
func (r *related) add(term string, args ...any) {
	r.used, r.terms, r.args = true, append(r.terms, term), append(r.args, args...)
}

// addIf adds a term when cond holds.
func (r *related) addIf(cond bool, term string, args ...any) {
	if cond {
		r.add(term, args...)
	}
}

// addIn adds "column IN (values)".
func (r *related) addIn(column string, values []string) {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	r.add(column+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(values)), ", ")+")", args...)
}

// withRelated is q with the conditions of the related rows used, their ?s
// numbered after q's arguments.
func withRelated[T Entity](q Query[T], rs ...related) Query[T] {
	if q.err != nil {
		return q
	}
	for _, r := range rs {
		if !r.used {
			continue
		}
		sql := withFragments(r.exists)
		for _, term := range r.terms {
			sql += " AND " + term
		}
		sql += ")"
		for _, a := range r.args {
			q.args = append(q.args, a)
			sql = strings.Replace(sql, "?", "$"+strconv.Itoa(len(q.args)), 1)
		}
		rest := strings.TrimPrefix(q.where, q.conds)
		if q.conds == "" {
			q.conds = "WHERE " + sql
		} else {
			q.conds += " AND " + sql
		}
		q.where = q.conds + rest
	}
	return q
}

// ExternalTaskLogFilter selects external task log entries in the order
// they were written.
type ExternalTaskLogFilter struct {
	Page                 `sort:"timestamp externalTaskId topicName=topic workerId retries priority activityId activityInstanceId executionId processInstanceId processDefinitionId processDefinitionKey"`
	ID                   string   `where:"id" param:"logId"`
	ExternalTaskID       string   `where:"external_task_id" param:"externalTaskId"`
	Topic                string   `where:"topic" param:"topicName"`
	WorkerID             string   `where:"worker_id" param:"workerId"`
	ErrorMessage         string   `where:"error_message" param:"errorMessage"`
	ActivityIDs          []string `where:"activity_id in" param:"activityIdIn"`
	ActivityInstanceIDs  []string `where:"activity_instance_id in" param:"activityInstanceIdIn"`
	ExecutionIDs         []string `where:"execution_id in" param:"executionIdIn"`
	ProcessInstanceID    string   `where:"process_instance_id" param:"processInstanceId"`
	ProcessDefinitionID  string   `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey string   `where:"process_definition_key" param:"processDefinitionKey"`
	PriorityAtMost       *int64   `where:"priority <=" param:"priorityLowerThanOrEquals"`
	PriorityAtLeast      *int64   `where:"priority >=" param:"priorityHigherThanOrEquals"`
	// Event: ExternalTaskLogCreated, ... As Camunda's, the last of its
	// REST flags given wins.
	Event string `where:"event" param:"deletionLog=deleted|successLog=succeeded|failureLog=failed|creationLog=created"`
}

func (f ExternalTaskLogFilter) Query() Query[*ExternalTaskLogEntry] {
	return filterQuery[*ExternalTaskLogEntry](f, time.Time{}, "timestamp, id")
}

// HistoricDetailFilter selects historic details (variable updates) in the
// order they were written (occurrence sorts by their time-ordered ids). TaskID, when set, overrides ExcludeTaskDetails,
// as in Camunda.
type HistoricDetailFilter struct {
	Page               `sort:"processInstanceId variableName=name variableType=type variableRevision=revision time occurrence=id"`
	ID                 string     `where:"id"`
	ProcessInstanceID  string     `where:"process_instance_id" param:"processInstanceId"`
	ProcessInstanceIDs []string   `where:"process_instance_id in" param:"processInstanceIdIn"`
	ExecutionID        string     `where:"execution_id" param:"executionId"`
	TaskID             string     `where:"task_id" param:"taskId"`
	ActivityInstanceID string     `where:"activity_instance_id" param:"activityInstanceId"`
	VariableInstanceID string     `where:"variable_instance_id" param:"variableInstanceId"`
	VariableNameLike   string     `where:"UPPER(name) LIKE UPPER(?)" param:"variableNameLike"`
	ExcludeTaskDetails bool       `where:"task_id IS NULL" param:"excludeTaskDetails"`
	Initial            bool       `where:"initial" param:"initial"`
	OccurredBefore     *time.Time `where:"time <=" param:"occurredBefore"`
	OccurredAfter      *time.Time `where:"time >=" param:"occurredAfter"`
	// VariableUpdates: only variable updates; FormFields: only values
	// submitted with forms.
	VariableUpdates bool `where:"NOT form_field" param:"variableUpdates"`
	FormFields      bool `where:"form_field" param:"formFields"`
	// DeserializeValues changes nothing: values are stored as they are
	// read (no serialized objects).
	DeserializeValues bool `param:"deserializeValues"`
}

func (f HistoricDetailFilter) Query() Query[*HistoricDetail] {
	if f.TaskID != "" {
		f.ExcludeTaskDetails = false
	}
	return filterQuery[*HistoricDetail](f, time.Time{}, "time, id")
}
