package persistence

import (
	"sync"
	"time"
	"unsafe"
)

// Entity is a row of one of the engine's tables. Every entity has a string
// id; mutable entities carry a revision for optimistic locking (Rev starts at
// 1 on insert and is bumped by every update). An entity type is a struct
// whose fields are its columns (see record.go), with a row method that
// names its table; the table, id, revision, values and scan targets of an
// entity are derived from the declaration (TableOf, EntityID, Revision,
// SetRevision, Values, Targets). A type that embeds an entity is that
// entity (its row method is promoted).
type Entity interface {
	// row returns the entity's table and its address. It must not
	// dereference its receiver: TableOf is called on nil pointers.
	row() (*Table, addr)
}

// addr is an entity's address, which its table's field offsets apply to.
type addr = unsafe.Pointer

// Table describes a table: its name and its columns. The first column is
// always id; on mutable tables the second is rev. Immutable tables (Deployment,
// Resource, JobLogEntry) have no rev column: their rows are never updated, so
// there is nothing to check, and their entities report revision 1.
type Table struct {
	Name string
	// EntityName names the entity in messages, e.g. "Execution".
	EntityName string
	Columns    []string
	// Order is the flush order: inserts run in ascending order, deletes in
	// descending order, so that rows referenced by others exist first and go last.
	Order int
	// Immutable tables are only inserted and deleted (no revision check).
	Immutable bool
	// New returns an empty entity of this table, for scanning.
	New func() Entity

	fields []field // Columns' places in the entity
	revOff uintptr // the rev field's offset (mutable tables)

	sqlOnce sync.Once
	sql     tableSQL
}

// Suspension states, as in Camunda.
const (
	Active    = 1
	Suspended = 2
)

// Deployment is a set of resources deployed together.
type Deployment struct {
	ID         string
	Name       string
	Source     string
	DeployTime time.Time
	// TenantID: the tenant the deployment was made for ("": none).
	TenantID string
}

// Resource is one deployed file, kept as it was given.
type Resource struct {
	ID           string
	DeploymentID string
	Name         string
	Bytes        []byte
	Hash         string // hex SHA-256 of Bytes, to skip unchanged resources
}

// ProcessDefinition is one deployed version of a process (the public
// bpmnlite.ProcessDefinition).
type ProcessDefinition struct {
	ID           string // key:version:uuid
	Rev          int
	Key          string
	Version      int
	Name         string
	DeploymentID string
	ResourceName string
	Suspension   int // Active or Suspended
	HasStartForm bool
	VersionTag   string
	// HistoryTimeToLive is camunda:historyTimeToLive in days; nil: the
	// engine's default (bpmnlite.Config.History.TimeToLive).
	HistoryTimeToLive *int
	// CandidateStarterGroups and CandidateStarterUsers are the process's
	// camunda:candidateStarterGroups and candidateStarterUsers, as written.
	CandidateStarterGroups string
	CandidateStarterUsers  string
	// TenantID is its deployment's tenant ("": none).
	TenantID string
	// StartableInTasklist is camunda:isStartableInTasklist (default true).
	StartableInTasklist bool
	// Category is the targetNamespace of the model's definitions.
	Category string
	// Description is the process's documentation.
	Description string
	// DiagramResourceName is the image of the process deployed beside its
	// model ("" when none; see runtime.DiagramResourceName).
	DiagramResourceName string
}

// Execution is a node of an instance's execution tree (the public
// bpmnlite.ExecutionRow): the process instance, which is the root
// execution (ID == ProcessInstanceID) and runs the instance's path itself
// while there is no concurrency; a concurrent path (IsConcurrent); or the
// scope execution of an embedded subprocess, a multi-instance body or an
// activity with input/output mappings (IsScope), with children.
type Execution struct {
	ID                  string
	Rev                 int
	ProcessInstanceID   string
	ParentID            string // "" for the process instance
	ProcessDefinitionID string
	// ActivityID is where the path is; "" when nowhere or when a child
	// execution runs in it.
	ActivityID         string
	ActivityInstanceID string
	BusinessKey        string // on the process instance only
	SuperExecutionID   string // the calling call activity's execution, in the calling instance
	IsActive           bool
	IsScope            bool
	IsConcurrent       bool
	IsEventScope       bool
	Suspension         int
	// TransitionID: the sequence flow an async-after continuation will take,
	// or a flow being waited on at a join.
	TransitionID string
	StartTime    time.Time
	// RootProcessInstanceID is the top of the instance's call hierarchy
	// (itself unless a call activity started it); on the process instance only.
	RootProcessInstanceID string
	// TenantID is its process definition's tenant ("": none).
	TenantID string
}

// Variable types stored in the Type column.
const (
	VarNull    = "null"
	VarString  = "string"
	VarLong    = "long"
	VarDouble  = "double"
	VarBoolean = "boolean"
	VarDate    = "date"
	VarJSON    = "json"
	VarBytes   = "bytes"
)

// Variable is a typed variable of an execution scope (or of a task).
type Variable struct {
	ID                string
	Rev               int
	Name              string
	Type              string
	ExecutionID       string
	ProcessInstanceID string
	TaskID            string
	Text              string    `db:"text_value"`   // string, json
	Long              int64     `db:"long_value"`   // long, boolean (0/1)
	Double            float64   `db:"double_value"` // double
	Time              time.Time `db:"time_value"`   // date
	Bytes             []byte    `db:"bytes_value"`  // bytes
	// ValueType is the Camunda type the value was declared with (Short,
	// Object, Xml, File, ...); "": the type its value implies.
	ValueType string
	// ValueInfo is the declared type's Camunda valueInfo as a JSON object
	// (objectTypeName and serializationDataFormat, filename, mimeType and
	// encoding), "" when it has none.
	ValueInfo string
}

// Task is an open user task, waiting for completion (the public
// bpmnlite.Task).
type Task struct {
	ID                  string
	Rev                 int
	Name                string
	ExecutionID         string
	ProcessInstanceID   string
	ProcessDefinitionID string
	TaskDefinitionKey   string // the user task's activity id
	Assignee            string
	CandidateGroups     string // comma-separated
	CandidateUsers      string // comma-separated
	Priority            int
	CreateTime          time.Time
	DueDate             *time.Time
	Suspension          int
	FollowUpDate        *time.Time
	FormKey             string // camunda:formKey, evaluated at creation
	// TenantID is its process definition's tenant ("": none).
	TenantID    string
	Description string
	// Owner is who is responsible for the task; DelegationState is
	// DelegationPending while the assignee it was delegated to works on it,
	// DelegationResolved once they resolved it back to the owner, "" when
	// never delegated.
	Owner           string
	DelegationState string
	ParentTaskID    string
	// LastUpdated: when the task was last changed (nil: never since created).
	LastUpdated *time.Time
	// ActivityInstanceID is the user task's activity instance ("" for a
	// standalone task).
	ActivityInstanceID string
	// FormRef, FormRefBinding and FormRefVersion are the user task's
	// camunda:formRef, formRefBinding and formRefVersion, evaluated at
	// creation ("" and nil when it has none).
	FormRef        string
	FormRefBinding string
	FormRefVersion *int
}

// FormDefinition is a deployed Camunda Form (a .form resource): Key is the
// form's id, Version counts per key and tenant, as Camunda's
// CamundaFormDefinition.
type FormDefinition struct {
	ID           string
	Key          string
	Version      int
	DeploymentID string
	ResourceName string
	TenantID     string
}

// Delegation states of a task (Task.DelegationState), as Camunda's.
const (
	DelegationPending  = "PENDING"
	DelegationResolved = "RESOLVED"
)

// TaskComment is a comment on a task, kept as history: it outlives the task.
type TaskComment struct {
	ID                    string
	Rev                   int
	TaskID                string
	ProcessInstanceID     string
	RootProcessInstanceID string
	UserID                string
	Time                  time.Time `db:"create_time"`
	Message               string
}

// TaskAttachment is a file or link attached to a task, kept as history:
// its content (uploaded) or its URL (a link).
type TaskAttachment struct {
	ID                    string
	Rev                   int
	TaskID                string
	ProcessInstanceID     string
	RootProcessInstanceID string
	Name                  string
	Description           string
	Type                  string
	URL                   string
	Content               []byte
	CreateTime            time.Time
}

// Event subscription types.
const (
	SubscriptionMessage = "message"
	SubscriptionSignal  = "signal"
	SubscriptionTimer   = "timer" // a timer behind an event-based gateway or start event, mirrored by a job
	// SubscriptionConditional: a conditional event waiting for its
	// condition, evaluated when variables of its instance change.
	SubscriptionConditional = "conditional"
	// SubscriptionCompensate: a completed activity's compensation handler,
	// run when compensation is thrown in its scope. EventName is the
	// handler, ActivityID the activity, Configuration the scope execution;
	// it belongs to no execution, so that it stays with the scope when
	// the scope's path moves.
	SubscriptionCompensate = "compensate"
)

// EventSubprocessTrigger is the Configuration of the subscription of an
// event subprocess's start event: it belongs to the execution of the
// enclosing scope while that scope runs, whichever path the execution runs.
const EventSubprocessTrigger = "event-subprocess"

// EventSubscription is a wait for a message or signal: by an execution
// (catch events, receive tasks, boundary events) or by a process definition
// (message and signal start events, ExecutionID "") (the public
// bpmnlite.EventSubscription).
type EventSubscription struct {
	ID                  string
	Rev                 int
	EventType           string // SubscriptionMessage, SubscriptionSignal, ...
	EventName           string
	ExecutionID         string
	ProcessInstanceID   string
	ActivityID          string
	ProcessDefinitionID string
	Configuration       string
	Created             time.Time
}

// Job types.
const (
	JobMessage = "message" // asynchronous continuation
	JobTimer   = "timer"
)

// Job is a unit of work for the job executor: an asynchronous continuation or
// a timer (the public bpmnlite.Job).
type Job struct {
	ID                   string
	Rev                  int
	Type                 string // JobMessage or JobTimer (bpmnlite.JobTypeMessage, JobTypeTimer)
	LockOwner            string
	LockExpiration       *time.Time
	Exclusive            bool
	ExecutionID          string
	ProcessInstanceID    string
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	JobDefinitionID      string
	DeploymentID         string
	ActivityID           string
	Retries              int
	ExceptionMessage     string
	ExceptionStack       string
	DueDate              *time.Time // nil: due at once
	// Repeat is a repeating timer's remaining cycle as stored (Camunda's
	// form: "R5/2026-11-27T10:00:00/PT1H").
	Repeat        string
	HandlerType   string // declared by the runtime file that registers its handler
	HandlerConfig string
	Priority      int64
	Suspension    int
	CreateTime    time.Time
	// FailedAttempts counts the runs that ended without a result because
	// the node running the job died or its lock expired (poison jobs).
	FailedAttempts int
	// Failures counts the runs that failed and recorded their failure
	// (whatever the retries were set to since): with FailedAttempts, the
	// runs before the next one.
	Failures int
	// FailedActivityID is the activity where the last failure happened: not
	// the job's own when the job ran several activities in its transaction.
	FailedActivityID string
	// RootProcessInstanceID is the top of the job's call hierarchy (for
	// exclusive acquisition across process hierarchies).
	RootProcessInstanceID string
	// TenantID is its process definition's tenant ("": none).
	TenantID string
}

// JobDefinition describes the jobs one activity creates: an asynchronous
// continuation before or after it, or its timer. Deployment creates one
// for each job-producing declaration (process definition, activity, job
// kind) (the public bpmnlite.JobDefinition).
type JobDefinition struct {
	ID                   string
	Rev                  int
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	ActivityID           string
	JobType              string // JobMessage or JobTimer
	JobConfiguration     string // async-before, async-after, or the timer ("DATE: ...", ...)
	OverridingPriority   *int64
	Suspension           int
	DeploymentID         string // its process definition's deployment
	// HandlerType is Camunda's job type of the definition's jobs:
	// async-continuation, timer-start-event, timer-start-event-subprocess,
	// timer-intermediate-transition or timer-transition (boundary).
	HandlerType string
}

// ExternalTask is a service task with camunda:type="external" waiting for a
// worker (the public bpmnlite.ExternalTask).
type ExternalTask struct {
	ID                   string
	Rev                  int
	Topic                string
	WorkerID             string
	LockExpiration       *time.Time
	Retries              *int
	ErrorMessage         string
	ErrorDetails         string
	ExecutionID          string
	ProcessInstanceID    string
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	ActivityID           string
	ActivityInstanceID   string
	Priority             int64
	Suspension           int
	BusinessKey          string
	CreateTime           time.Time
	// TraceParent is the W3C traceparent of the span that created the task
	// (empty when it ran in none): its worker continues that trace.
	TraceParent string
	// TenantID is its process definition's tenant ("": none).
	TenantID string
}

// Incident types.
const (
	IncidentFailedJob          = "failedJob"
	IncidentFailedExternalTask = "failedExternalTask"
)

// Incident records a job or external task that ran out of retries, and
// the incidents it caused in the calling process instances (the public
// bpmnlite.Incident).
type Incident struct {
	ID                  string
	Rev                 int
	Type                string // IncidentFailedJob, IncidentFailedExternalTask
	Timestamp           time.Time
	Message             string
	ExecutionID         string
	ActivityID          string
	ProcessInstanceID   string
	ProcessDefinitionID string
	CauseIncidentID     string
	RootCauseIncidentID string
	Configuration       string // the job's or external task's id
	JobDefinitionID     string
	FailedActivityID    string // the activity where the failure happened
	Annotation          string // a note of an operator's (Camunda's incident annotation)
}

// Process instance states in history.
const (
	StateActive               = "ACTIVE"
	StateCompleted            = "COMPLETED"
	StateDeleted              = "INTERNALLY_TERMINATED"
	StateExternallyTerminated = "EXTERNALLY_TERMINATED"
)

// HistoricProcessInstance records an instance's start, end and state: a
// process instance in history, running or ended (the public
// bpmnlite.HistoricProcessInstance).
type HistoricProcessInstance struct {
	ID                     string // the process instance id
	Rev                    int
	ProcessDefinitionID    string
	ProcessDefinitionKey   string
	BusinessKey            string
	StartTime              time.Time
	EndTime                *time.Time
	State                  string // StateActive, StateCompleted, ...
	StartActivityID        string
	EndActivityID          string
	DeleteReason           string
	SuperProcessInstanceID string
	RootProcessInstanceID  string
	// RemovalTime: when the history cleanup may remove the instance's
	// history (set when its root instance ends, if a time to live applies).
	RemovalTime *time.Time
	// The definition's name and version, as Camunda's history shows them.
	ProcessDefinitionName    string
	ProcessDefinitionVersion int
	// TenantID is its process definition's tenant ("": none).
	TenantID string
	// RestartedProcessInstanceID is the ended instance this one was
	// restarted from ("": none).
	RestartedProcessInstanceID string
}

// Incident states in history.
const (
	IncidentOpen     = "open"
	IncidentResolved = "resolved"
	IncidentDeleted  = "deleted"
)

// HistoricIncident is an incident in history: open, resolved (its job or
// external task got retries, or it succeeded), or deleted (with its job or
// instance).
type HistoricIncident struct {
	ID                  string // the incident's id
	Rev                 int
	Type                string
	CreateTime          time.Time
	EndTime             *time.Time
	State               string // IncidentOpen, IncidentResolved, IncidentDeleted
	Message             string
	ExecutionID         string
	ActivityID          string
	FailedActivityID    string
	ProcessInstanceID   string
	ProcessDefinitionID string
	CauseIncidentID     string
	RootCauseIncidentID string
	Configuration       string
	JobDefinitionID     string
	Annotation          string // the open incident's annotation, kept in step
	// HistoryConfiguration is the job log entry of the failure that raised
	// a failed job's incident (Camunda's), when history logged it.
	HistoryConfiguration string
}

// HistoricTask is a user task in history, open or ended.
type HistoricTask struct {
	ID                   string // the task's id
	Rev                  int
	Name                 string
	ExecutionID          string
	ProcessInstanceID    string
	ProcessDefinitionID  string
	ProcessDefinitionKey string
	TaskDefinitionKey    string
	ActivityInstanceID   string
	Assignee             string
	Priority             int
	DueDate              *time.Time
	FollowUpDate         *time.Time
	StartTime            time.Time
	EndTime              *time.Time
	DeleteReason         string // TaskCompleted or TaskDeleted once ended
	Description          string
	Owner                string
	ParentTaskID         string
	// CandidateGroups and CandidateUsers: the task's when it was created,
	// comma-separated.
	CandidateGroups string
	CandidateUsers  string
	// TenantID is its process definition's tenant ("": none).
	TenantID string
}

// Why a historic task ended.
const (
	TaskCompleted = "completed"
	TaskDeleted   = "deleted"
)

// JobExecutorInfo is a running job executor's report: what it acquires
// and how busy it is, renewed at each heartbeat.
type JobExecutorInfo struct {
	ID              string // its lock owner
	DeploymentAware bool
	Deployments     string // comma-separated registered deployments (deployment-aware)
	PriorityMin     *int64
	PriorityMax     *int64
	PoolSize        int
	QueueSize       int
	Inflight        int // jobs acquired and not finished
	Heartbeat       time.Time
}

// HistoricVariable is a stored variable's history (Camunda's historic
// variable instance): its last value, under its id, written as it changes
// and kept when its scope or instance ends.
type HistoricVariable struct {
	Variable
	State      string     // VariableCreated, or VariableDeleted once removed
	CreateTime *time.Time // when the variable was created (nil: before it was recorded)
}

// Historic variable states.
const (
	VariableCreated = "CREATED"
	VariableDeleted = "DELETED"
)

// HistoricActivityInstance records one pass through an activity: an
// activity instance in history (the public
// bpmnlite.HistoricActivityInstance).
type HistoricActivityInstance struct {
	ID                       string
	Rev                      int
	ProcessInstanceID        string
	ProcessDefinitionID      string
	ExecutionID              string
	ActivityID               string
	ActivityName             string
	ActivityType             string
	ParentActivityInstanceID string
	StartTime                time.Time
	EndTime                  *time.Time
	Canceled                 bool
	CalledProcessInstanceID  string
	TaskID                   string
}

// Job log events.
const (
	JobLogCreated   = "created"
	JobLogLocked    = "locked"
	JobLogFailed    = "failed"
	JobLogSucceeded = "succeeded"
	JobLogDeleted   = "deleted"
)

// JobLogEntry is one event in a job's life, kept as history (the public
// bpmnlite.JobLogEntry).
type JobLogEntry struct {
	ID                string
	JobID             string
	Event             string // JobLogCreated, JobLogLocked, ...
	Timestamp         time.Time
	LockOwner         string
	Retries           int
	Message           string
	JobDefinitionID   string
	ActivityID        string
	ProcessInstanceID string
	Priority          int64
	// ExecutionStart is when the run that a succeeded or failed entry
	// reports began (nil for other events).
	ExecutionStart *time.Time
	// The job's, as Camunda's job log has them.
	ExecutionID           string
	ProcessDefinitionID   string
	ProcessDefinitionKey  string
	DeploymentID          string
	RootProcessInstanceID string
	JobDueDate            *time.Time
	FailedActivityID      string
	ExceptionStack        string // on a failed entry
	// JobDefinitionType and JobDefinitionConfiguration are Camunda's:
	// "async-continuation" with "async-before" or "async-after", a timer's
	// handler with its "DURATION: PT5M"; a job without a definition's
	// handler type.
	JobDefinitionType          string
	JobDefinitionConfiguration string
}

// MeterLog is one report of an engine's meter: how much a counter (one of
// Camunda's metric names, e.g. activity-instance-start) grew since the
// reporter's previous report.
type MeterLog struct {
	ID        string
	Name      string
	Reporter  string
	Value     int64
	Timestamp time.Time
}

// DecisionRequirementsDefinition is one deployed version of a DMN file's
// decision requirements graph (the public
// bpmnlite.DecisionRequirementsDefinition): Camunda keeps one only for a
// file of more than one decision, and so does bpmnlite.
type DecisionRequirementsDefinition struct {
	ID                  string // key:version:uuid
	Rev                 int
	Key                 string // the definitions' id
	Version             int
	Name                string
	Category            string // the definitions' namespace
	DeploymentID        string
	ResourceName        string
	DiagramResourceName string
	TenantID            string
}

// DecisionDefinition is one deployed version of a decision (the public
// bpmnlite.DecisionDefinition), versioned by key and tenant as process
// definitions are.
type DecisionDefinition struct {
	ID           string // key:version:uuid
	Rev          int
	Key          string // the decision's id
	Version      int
	Name         string
	Category     string // the definitions' namespace
	DeploymentID string
	ResourceName string
	// DiagramResourceName is the image deployed beside its model.
	DiagramResourceName string
	// DecisionRequirementsDefinitionID and Key: the graph it belongs to
	// ("" when its file has one decision).
	DecisionRequirementsDefinitionID  string
	DecisionRequirementsDefinitionKey string
	VersionTag                        string
	// HistoryTimeToLive is camunda:historyTimeToLive in days; nil: the
	// engine's default.
	HistoryTimeToLive *int
	TenantID          string
}

// HistoricDecisionInstance records one evaluation of a decision (the
// public bpmnlite.HistoricDecisionInstance); a decision's required
// decisions get one each, with the requiring one's as their root.
type HistoricDecisionInstance struct {
	ID                     string
	Rev                    int
	DecisionDefinitionID   string
	DecisionDefinitionKey  string
	DecisionDefinitionName string
	EvaluationTime         time.Time
	ProcessDefinitionID    string
	ProcessDefinitionKey   string
	ProcessInstanceID      string
	RootProcessInstanceID  string
	ExecutionID            string
	ActivityID             string
	ActivityInstanceID     string
	// CollectResultValue is the aggregate of COLLECT with SUM, MIN, MAX
	// or COUNT (HasCollectResult set).
	CollectResultValue                float64
	HasCollectResult                  bool
	RootDecisionInstanceID            string // "" for the decision evaluated as asked
	DecisionRequirementsDefinitionID  string
	DecisionRequirementsDefinitionKey string
	TenantID                          string
	// RemovalTime: when the history cleanup removes a decision evaluated
	// outside a process (its evaluation plus the time to live).
	RemovalTime *time.Time
}

// HistoricDecisionInput is an input's value in a decision's evaluation
// (history level full); its Variable holds the value, its Name the
// input's label.
type HistoricDecisionInput struct {
	Variable
	DecisionInstanceID string
	ClauseID           string
	CreateTime         time.Time
}

// HistoricDecisionOutput is a matched rule's output value in a decision's
// evaluation (history level full); its Variable holds the value, its Name
// the output's name.
type HistoricDecisionOutput struct {
	Variable
	DecisionInstanceID string
	ClauseID           string
	ClauseName         string
	RuleID             string
	RuleOrder          int
	CreateTime         time.Time
}
