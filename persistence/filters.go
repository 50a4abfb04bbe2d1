package persistence

import (
	"strings"
	"time"
)

// Filters of the public list queries (the root package's query types are
// these): each field declares its condition and its REST parameter in tags
// (see filter.go), and each filter turns into one Query; zero fields match
// all. Adding a filter is adding a field.

// DeploymentFilter selects deployments, oldest first.
type DeploymentFilter struct {
	Page          `sort:"id name deploymentTime=deploy_time"`
	ID            string     `where:"id" param:"id"`
	Name          string     `where:"name" param:"name"`
	NameLike      string     `where:"name like" param:"nameLike"`
	Source        string     `where:"source" param:"source"`
	WithoutSource bool       `where:"COALESCE(source, '') = ''" param:"withoutSource"`
	After         *time.Time `where:"deploy_time >" param:"after"`
	Before        *time.Time `where:"deploy_time <" param:"before"`
}

func (f DeploymentFilter) Query() Query[*Deployment] {
	return filterQuery[*Deployment](f, time.Time{}, "deploy_time, id")
}

// DefinitionFilter selects process definitions, by key and version.
type DefinitionFilter struct {
	Page         `sort:"key id name version deploymentId versionTag deployTime={definitionDeployTime}"`
	ID           string `where:"id" param:"processDefinitionId"`
	Key          string `where:"key" param:"key"`
	DeploymentID string `where:"deployment_id" param:"deploymentId"`
	Version      int    `where:"version"` // 0: any
	LatestOnly   bool   `where:"version = (SELECT MAX(d2.version) FROM process_definition d2 WHERE d2.key = process_definition.key)" param:"latestVersion"`
	VersionTag   string `where:"version_tag"` // camunda:versionTag
}

func (f DefinitionFilter) Query() Query[*ProcessDefinition] {
	return filterQuery[*ProcessDefinition](f, time.Time{}, "key, version")
}

// TaskFilter selects user tasks, oldest first.
type TaskFilter struct {
	Page              `sort:"instanceId=process_instance_id dueDate executionId assignee created=create_time id name priority"`
	ID                string `where:"id" param:"taskId"`
	ProcessInstanceID string `where:"process_instance_id" param:"processInstanceId"`
	TaskDefinitionKey string `where:"task_definition_key" param:"taskDefinitionKey"`
	Assignee          string `where:"assignee" param:"assignee"`
	// CandidateGroup and CandidateUser match one entry of the
	// comma-separated candidate groups or users, exactly, of a task no one
	// is assigned to, as Camunda's candidate queries do, unless
	// IncludeAssignedTasks.
	CandidateGroup       string `where:"candidate_groups member" param:"candidateGroup"`
	CandidateUser        string `where:"candidate_users member" param:"candidateUser"`
	IncludeAssignedTasks bool   `param:"includeAssignedTasks"`
	candidateUnassigned  bool   `where:"COALESCE(assignee, '') = ''"`
	// DueBefore, DueAfter, FollowUpBefore, FollowUpAfter: strictly before
	// or after the time; WithoutDueDate: tasks without one.
	DueBefore      *time.Time `where:"due_date <" param:"dueBefore"`
	DueAfter       *time.Time `where:"due_date >" param:"dueAfter"`
	FollowUpBefore *time.Time `where:"follow_up_date <" param:"followUpBefore"`
	FollowUpAfter  *time.Time `where:"follow_up_date >" param:"followUpAfter"`
	WithoutDueDate bool       `where:"due_date IS NULL" param:"withoutDueDate"`
	// Priority matches exactly; MinPriority and MaxPriority bound it.
	Priority    *int `where:"priority" param:"priority"`
	MinPriority *int `where:"priority >=" param:"minPriority"`
	MaxPriority *int `where:"priority <=" param:"maxPriority"`
}

func (f TaskFilter) Query() Query[*Task] {
	candidates := f.CandidateGroup != "" || f.CandidateUser != ""
	if f.IncludeAssignedTasks && !candidates {
		return invalidQuery[*Task]("IncludeAssignedTasks (includeAssignedTasks) needs a candidate group or user to include assigned tasks of")
	}
	f.candidateUnassigned = candidates && !f.IncludeAssignedTasks
	return filterQuery[*Task](f, time.Time{}, "create_time, id")
}

// HistoricTaskFilter selects user tasks in history, in the order they
// were created.
type HistoricTaskFilter struct {
	Page                 `sort:"taskId=id activityInstanceId processDefinitionId processInstanceId executionId duration=(end_time-start_time) endTime startTime taskName=name assignee dueDate followUpDate deleteReason taskDefinitionKey priority"`
	ID                   string `where:"id" param:"taskId"`
	ProcessInstanceID    string `where:"process_instance_id" param:"processInstanceId"`
	ProcessDefinitionKey string `where:"process_definition_key" param:"processDefinitionKey"`
	TaskDefinitionKey    string `where:"task_definition_key" param:"taskDefinitionKey"`
	Assignee             string `where:"assignee" param:"taskAssignee"`
	// Finished: ended tasks; Unfinished: open ones.
	Finished   bool `where:"end_time IS NOT NULL" param:"finished"`
	Unfinished bool `where:"end_time IS NULL" param:"unfinished"`
	// DeleteReason: TaskCompleted or TaskDeleted (cancelled with its
	// activity or instance).
	DeleteReason string `where:"delete_reason" param:"taskDeleteReason"`
}

func (f HistoricTaskFilter) Query() Query[*HistoricTask] {
	return filterQuery[*HistoricTask](f, time.Time{}, "start_time, id")
}

// ExecutionFilter selects executions, in the order they started, as
// Camunda shows them: an execution with a child execution is at no
// activity (see executionHasChild).
type ExecutionFilter struct {
	Page                 `sort:"instanceId=process_instance_id definitionId=process_definition_id definitionKey={definitionKey}"`
	ID                   string `where:"id"`
	ProcessInstanceID    string `where:"process_instance_id" param:"processInstanceId"`
	ActivityID           string `where:"activity_id = ? AND NOT {executionHasChild}" param:"activityId"`
	ProcessDefinitionID  string `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey string `where:"{definitionKey} = ?" param:"processDefinitionKey"`
	// BusinessKey: the executions of the process instance with this
	// business key.
	BusinessKey string `where:"process_instance_id IN (SELECT pi.id FROM execution pi WHERE pi.business_key = ?)" param:"businessKey"`
	// SignalSubscription and MessageSubscription: executions waiting for
	// the signal or message of this name.
	SignalSubscription  string `where:"EXISTS (SELECT 1 FROM event_subscription s WHERE s.execution_id = execution.id AND s.event_type = 'signal' AND s.event_name = ?)" param:"signalEventSubscriptionName"`
	MessageSubscription string `where:"EXISTS (SELECT 1 FROM event_subscription s WHERE s.execution_id = execution.id AND s.event_type = 'message' AND s.event_name = ?)" param:"messageEventSubscriptionName"`
	Active              bool   `where:"suspension = 1" param:"active"`
	Suspended           bool   `where:"suspension = 2" param:"suspended"`
	// IncidentID, IncidentType, IncidentMessage(Like): executions with
	// such an open incident.
	IncidentID          string `where:"EXISTS (SELECT 1 FROM incident i WHERE i.execution_id = execution.id AND i.id = ?)" param:"incidentId"`
	IncidentType        string `where:"EXISTS (SELECT 1 FROM incident i WHERE i.execution_id = execution.id AND i.type = ?)" param:"incidentType"`
	IncidentMessage     string `where:"EXISTS (SELECT 1 FROM incident i WHERE i.execution_id = execution.id AND i.message = ?)" param:"incidentMessage"`
	IncidentMessageLike string `where:"EXISTS (SELECT 1 FROM incident i WHERE i.execution_id = execution.id AND i.message LIKE ?)" param:"incidentMessageLike"`
}

// executionHasChild holds for an execution some child runs in: a path
// waiting at a subprocess, a multi-instance body or an activity with
// input/output mappings, a body's scope execution, a scope execution with
// concurrent paths. Camunda clears such an execution's activity; the
// runtime keeps the activity on a waiting path, as it leaves the activity
// from there when the child ends, and these queries derive Camunda's view
// from the tree: no second copy of the position to keep in step. Event
// scope children (kept for compensation) do not count, as in Camunda.
const executionHasChild = "EXISTS (SELECT 1 FROM execution ch WHERE ch.parent_id = execution.id AND NOT ch.is_event_scope)"

// shownExecutionColumns is the execution table's column list with the
// activity as Camunda shows it.
var shownExecutionColumns = func() string {
	cols := make([]string, len(ExecutionTable.Columns))
	for i, col := range ExecutionTable.Columns {
		cols[i] = col
		if col == "activity_id" {
			cols[i] = "CASE WHEN " + executionHasChild + " THEN NULL ELSE activity_id END"
		}
	}
	return strings.Join(cols, ", ")
}()

func (f ExecutionFilter) Query() Query[*Execution] {
	q := filterQuery[*Execution](f, time.Time{}, "start_time, id")
	q.columns = shownExecutionColumns
	return q
}

// HistoricInstanceFilter selects process instances in history, in the
// order they started. Camunda's runtime process instance resource names
// some fields otherwise (runtimeParam).
type HistoricInstanceFilter struct {
	Page                 `sort:"instanceId=id definitionId=process_definition_id definitionKey=process_definition_key businessKey startTime endTime duration=(end_time-start_time)"`
	ID                   string `where:"id" param:"processInstanceId" runtimeParam:"processInstanceIds"`
	ProcessDefinitionKey string `where:"process_definition_key" param:"processDefinitionKey" runtimeParam:"processDefinitionKey"`
	ProcessDefinitionID  string `where:"process_definition_id" param:"processDefinitionId" runtimeParam:"processDefinitionId"`
	BusinessKey          string `where:"business_key" param:"processInstanceBusinessKey" runtimeParam:"businessKey"`
	// State: "" for all, or StateActive, StateCompleted, ...
	State string `where:"state" param:"state"`
	// Finished: ended instances; Unfinished: running ones.
	Finished   bool `where:"end_time IS NOT NULL" param:"finished"`
	Unfinished bool `where:"end_time IS NULL" param:"unfinished"`
}

func (f HistoricInstanceFilter) Query() Query[*HistoricProcessInstance] {
	return filterQuery[*HistoricProcessInstance](f, time.Time{}, "start_time, id")
}

// HistoricActivityFilter selects activity instances in history, in the
// order they started.
type HistoricActivityFilter struct {
	Page                `sort:"activityInstanceId=id instanceId=process_instance_id executionId activityId activityName activityType startTime endTime duration=(end_time-start_time) definitionId=process_definition_id"`
	ID                  string `where:"id" param:"activityInstanceId"`
	ProcessInstanceID   string `where:"process_instance_id" param:"processInstanceId"`
	ProcessDefinitionID string `where:"process_definition_id" param:"processDefinitionId"`
	ExecutionID         string `where:"execution_id" param:"executionId"`
	ActivityID          string `where:"activity_id" param:"activityId"`
	ActivityName        string `where:"activity_name" param:"activityName"`
	ActivityType        string `where:"activity_type" param:"activityType"`
	// Finished: ended activity instances; Unfinished: running ones;
	// Canceled: those ended by a cancellation.
	Finished       bool       `where:"end_time IS NOT NULL" param:"finished"`
	Unfinished     bool       `where:"end_time IS NULL" param:"unfinished"`
	Canceled       bool       `where:"canceled" param:"canceled"`
	StartedBefore  *time.Time `where:"start_time <=" param:"startedBefore"`
	StartedAfter   *time.Time `where:"start_time >=" param:"startedAfter"`
	FinishedBefore *time.Time `where:"end_time <=" param:"finishedBefore"`
	FinishedAfter  *time.Time `where:"end_time >=" param:"finishedAfter"`
}

func (f HistoricActivityFilter) Query() Query[*HistoricActivityInstance] {
	return filterQuery[*HistoricActivityInstance](f, time.Time{}, "start_time, id")
}

// ActivityInstancesOf are the activity instances of a process instance in
// the order they started: the path it took.
func ActivityInstancesOf(processInstanceID string) Query[*HistoricActivityInstance] {
	return newQuery[*HistoricActivityInstance]("WHERE process_instance_id = $1 ORDER BY start_time, id", processInstanceID)
}

// JobFilter selects jobs, oldest first.
type JobFilter struct {
	Page                 `sort:"jobId=id executionId processInstanceId processDefinitionId processDefinitionKey jobPriority=priority jobRetries=retries jobDueDate=due_date"`
	ID                   string   `where:"id" param:"jobId"`
	IDs                  []string `where:"id in" param:"jobIds"`
	ProcessInstanceID    string   `where:"process_instance_id" param:"processInstanceId"`
	ProcessInstanceIDs   []string `where:"process_instance_id in" param:"processInstanceIds"`
	ExecutionID          string   `where:"execution_id" param:"executionId"`
	ProcessDefinitionID  string   `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey string   `where:"process_definition_key" param:"processDefinitionKey"`
	// RootProcessInstanceID: the jobs of a process instance and of the
	// instances its call activities started.
	RootProcessInstanceID string `where:"root_process_instance_id"`
	ActivityID            string `where:"activity_id" param:"activityId"`
	JobDefinitionID       string `where:"job_definition_id" param:"jobDefinitionId"`
	// Type: "message" (async) or "timer".
	Type      string     `where:"type" param:"timers=timer|messages=message"`
	DueBefore *time.Time `where:"due_date <"`
	DueAfter  *time.Time `where:"due_date >"`
	// DueDates and CreateTimes bound the due date and creation time.
	DueDates         []TimeBound `where:"due_date bounds" param:"dueDates"`
	CreateTimes      []TimeBound `where:"create_time bounds" param:"createTimes"`
	WithException    bool        `where:"exception_message IS NOT NULL" param:"withException"` // jobs that failed at least once
	ExceptionMessage string      `where:"exception_message" param:"exceptionMessage"`
	FailedActivityID string      `where:"failed_activity_id" param:"failedActivityId"`
	WithRetriesLeft  bool        `where:"retries > 0" param:"withRetriesLeft"`
	NoRetriesLeft    bool        `where:"retries = 0" param:"noRetriesLeft"`
	// Executable: retries left, due at the time the query is judged at
	// (the engine clock's), active.
	Executable bool `where:"retries > 0 AND (due_date IS NULL OR due_date <= @now) AND suspension = 1" param:"executable"`
	// Locked: held by a job executor (the lock holds at that time).
	Locked      bool   `where:"lock_owner IS NOT NULL AND lock_expiration > @now" param:"acquired"`
	Suspended   bool   `where:"suspension = 2" param:"suspended"`
	Active      bool   `where:"suspension = 1" param:"active"`
	PriorityMin *int64 `where:"priority >=" param:"priorityHigherThanOrEquals"`
	PriorityMax *int64 `where:"priority <=" param:"priorityLowerThanOrEquals"`
	// DueFirst orders by due date, then creation: the order in
	// which a test runs jobs by hand.
	DueFirst bool
}

// At is the filter's query with Executable and Locked judged at now.
func (f JobFilter) At(now time.Time) Query[*Job] {
	order := "create_time, id"
	if f.DueFirst {
		order = "due_date, create_time, id"
	}
	return filterQuery[*Job](f, now, order)
}

// Query is the filter's query judged at the wall clock's time.
func (f JobFilter) Query() Query[*Job] { return f.At(time.Now()) }

// JobDefinitionFilter selects job definitions.
type JobDefinitionFilter struct {
	Page                 `sort:"jobDefinitionId=id activityId processDefinitionId processDefinitionKey jobType=handler_type jobConfiguration"`
	ID                   string   `where:"id" param:"jobDefinitionId"`
	ProcessDefinitionID  string   `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey string   `where:"process_definition_key" param:"processDefinitionKey"`
	ActivityID           string   `where:"activity_id"`
	ActivityIDs          []string `where:"activity_id in" param:"activityIdIn"`
	// JobType is Camunda's job type (JobDefinition.HandlerType).
	JobType string `where:"handler_type" param:"jobType"`
	// JobConfiguration: async-before, async-after, or the timer
	// ("DATE: ...", "DURATION: ...", "CYCLE: ...").
	JobConfiguration          string `where:"job_configuration" param:"jobConfiguration"`
	Active                    bool   `where:"suspension = 1" param:"active"`
	Suspended                 bool   `where:"suspension = 2" param:"suspended"`
	WithOverridingJobPriority bool   `where:"overriding_priority IS NOT NULL" param:"withOverridingJobPriority"`
}

func (f JobDefinitionFilter) Query() Query[*JobDefinition] {
	return filterQuery[*JobDefinition](f, time.Time{}, "activity_id, job_configuration, id")
}

// SubscriptionFilter selects message and signal subscriptions, oldest first.
type SubscriptionFilter struct {
	Page              `sort:"created"`
	ID                string `where:"id" param:"eventSubscriptionId"`
	EventName         string `where:"event_name" param:"eventName"`
	EventType         string `where:"event_type" param:"eventType"` // SubscriptionMessage, ...
	ExecutionID       string `where:"execution_id" param:"executionId"`
	ProcessInstanceID string `where:"process_instance_id" param:"processInstanceId"`
	ActivityID        string `where:"activity_id" param:"activityId"`
	// WithoutTimers leaves out the subscriptions that mirror timer jobs,
	// which Camunda does not have.
	WithoutTimers bool `where:"event_type <> 'timer'"`
}

func (f SubscriptionFilter) Query() Query[*EventSubscription] {
	return filterQuery[*EventSubscription](f, time.Time{}, "created, id")
}

// ExternalTaskFilter selects external tasks, oldest first.
type ExternalTaskFilter struct {
	Page                  `sort:"id lockExpirationTime=lock_expiration processInstanceId processDefinitionId processDefinitionKey taskPriority=priority"`
	ID                    string   `where:"id" param:"externalTaskId"`
	IDs                   []string `where:"id in" param:"externalTaskIdIn"`
	Topic                 string   `where:"topic" param:"topicName"`
	WorkerID              string   `where:"worker_id" param:"workerId"`
	ExecutionID           string   `where:"execution_id" param:"executionId"`
	ProcessInstanceID     string   `where:"process_instance_id" param:"processInstanceId"`
	ProcessInstanceIDs    []string `where:"process_instance_id in" param:"processInstanceIdIn"`
	ProcessDefinitionID   string   `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey  string   `where:"process_definition_key" param:"processDefinitionKey"`
	ProcessDefinitionKeys []string `where:"process_definition_key in" param:"processDefinitionKeyIn"`
	// ProcessDefinitionName(Like): the name of the task's process definition.
	ProcessDefinitionName     string     `where:"process_definition_id IN (SELECT pd.id FROM process_definition pd WHERE pd.name = ?)" param:"processDefinitionName"`
	ProcessDefinitionNameLike string     `where:"process_definition_id IN (SELECT pd.id FROM process_definition pd WHERE pd.name LIKE ?)" param:"processDefinitionNameLike"`
	ActivityID                string     `where:"activity_id" param:"activityId"`
	ActivityIDs               []string   `where:"activity_id in" param:"activityIdIn"`
	LockExpirationBefore      *time.Time `where:"lock_expiration <" param:"lockExpirationBefore"`
	LockExpirationAfter       *time.Time `where:"lock_expiration >" param:"lockExpirationAfter"`
	PriorityMin               *int64     `where:"priority >=" param:"priorityHigherThanOrEquals"`
	PriorityMax               *int64     `where:"priority <=" param:"priorityLowerThanOrEquals"`
	// Locked: the lock holds at the time the query is judged at (the
	// engine clock's); NotLocked: it does not.
	Locked    bool `where:"lock_expiration > @now" param:"locked"`
	NotLocked bool `where:"(lock_expiration IS NULL OR lock_expiration <= @now)" param:"notLocked"`
	// WithRetriesLeft: retries unset or above 0; NoRetriesLeft: 0 (an incident).
	WithRetriesLeft bool `where:"(retries IS NULL OR retries > 0)" param:"withRetriesLeft"`
	NoRetriesLeft   bool `where:"retries = 0" param:"noRetriesLeft"`
	Suspended       bool `where:"suspension = 2" param:"suspended"`
	Active          bool `where:"suspension = 1" param:"active"`
}

// At is the filter's query with Locked and NotLocked judged at now.
func (f ExternalTaskFilter) At(now time.Time) Query[*ExternalTask] {
	return filterQuery[*ExternalTask](f, now, "create_time, id")
}

// Query is the filter's query judged at the wall clock's time.
func (f ExternalTaskFilter) Query() Query[*ExternalTask] { return f.At(time.Now()) }

// IncidentFilter selects open incidents, oldest first. Its fields are
// columns incident and hist_incident share.
type IncidentFilter struct {
	Page                `sort:"incidentId=id incidentMessage=message incidentTimestamp=timestamp incidentType=type executionId activityId processInstanceId processDefinitionId causeIncidentId rootCauseIncidentId configuration"`
	ID                  string `where:"id" param:"incidentId"`
	ProcessInstanceID   string `where:"process_instance_id" param:"processInstanceId"`
	ProcessDefinitionID string `where:"process_definition_id" param:"processDefinitionId"`
	ActivityID          string `where:"activity_id" param:"activityId"`
	Type                string `where:"type" param:"incidentType"`
	// Configuration is the failed job's (or external task's) id.
	Configuration   string `where:"configuration" param:"configuration"`
	JobDefinitionID string `where:"job_definition_id" param:"jobDefinitionId"`
	// The filters below are Camunda's, for runtime and historic incidents alike.
	JobDefinitionIDs      []string `where:"job_definition_id in" param:"jobDefinitionIdIn"`
	Message               string   `where:"message" param:"incidentMessage"`
	MessageLike           string   `where:"message like" param:"incidentMessageLike"`
	ProcessDefinitionKeys []string `where:"{definitionKey} IN (?)" param:"processDefinitionKeyIn"`
	ExecutionID           string   `where:"execution_id" param:"executionId"`
	FailedActivityID      string   `where:"failed_activity_id" param:"failedActivityId"`
	CauseIncidentID       string   `where:"cause_incident_id" param:"causeIncidentId"`
	RootCauseIncidentID   string   `where:"root_cause_incident_id" param:"rootCauseIncidentId"`
	// TimestampBefore and TimestampAfter: raised strictly before or after;
	// open incidents only (history has its own create time filters).
	TimestampBefore *time.Time `where:"timestamp <" param:"incidentTimestampBefore"`
	TimestampAfter  *time.Time `where:"timestamp >" param:"incidentTimestampAfter"`
}

func (f IncidentFilter) Query() Query[*Incident] {
	return filterQuery[*Incident](f, time.Time{}, "timestamp, id")
}

// HistoricIncidentFilter selects incidents in history, in the order they
// were raised.
type HistoricIncidentFilter struct {
	Page `sort:"incidentId=id incidentMessage=message createTime endTime incidentType=type executionId activityId processInstanceId processDefinitionId causeIncidentId rootCauseIncidentId configuration incidentState=state"`
	IncidentQuery
	// State: IncidentOpen, IncidentResolved (its job succeeded or got
	// retries) or IncidentDeleted (with its job or instance).
	State string `where:"state" param:"deleted=deleted|resolved=resolved|open=open"`
}

// IncidentQuery is IncidentFilter by the name the public
// HistoricIncidentQuery has always embedded it under.
type IncidentQuery = IncidentFilter

func (f HistoricIncidentFilter) Query() Query[*HistoricIncident] {
	if f.TimestampBefore != nil || f.TimestampAfter != nil {
		return invalidQuery[*HistoricIncident]("TimestampBefore and TimestampAfter filter open incidents; history has create times")
	}
	return filterQuery[*HistoricIncident](f, time.Time{}, "create_time, id")
}

// JobLogFilter selects job log entries in the order they were written.
// ProcessInstanceID finds the instance's jobs by their creation entries,
// the only ones indexed by instance (job_log_created_process_instance;
// the literal event lets SQLite use that partial index).
type JobLogFilter struct {
	Page              `sort:"timestamp jobId jobDefinitionId"`
	JobID             string `where:"job_id"`
	ProcessInstanceID string `where:"job_id IN (SELECT job_id FROM job_log WHERE process_instance_id = ? AND event = {jobLogCreated})"`
	JobDefinitionID   string `where:"job_definition_id"`
	Event             string `where:"event"`
}

func (f JobLogFilter) Query() Query[*JobLogEntry] {
	return filterQuery[*JobLogEntry](f, time.Time{}, "timestamp, id")
}
