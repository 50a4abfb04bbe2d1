package persistence

import (
	"slices"
	"strings"
	"time"
)

// Filters of the public list queries (the root package's query types are
// these): each field declares its condition and its REST parameter in tags
// (see filter.go), and each filter turns into one Query; zero fields match
// all. Adding a filter is adding a field.

// DeploymentFilter selects deployments, oldest first.
type DeploymentFilter struct {
	Page          `sort:"id name deploymentTime=deploy_time tenantId"`
	ID            string     `where:"id" param:"id"`
	Name          string     `where:"name" param:"name"`
	NameLike      string     `where:"name like" param:"nameLike"`
	Source        string     `where:"source" param:"source"`
	WithoutSource bool       `where:"COALESCE(source, '') = ''" param:"withoutSource"`
	After         *time.Time `where:"deploy_time >" param:"after"`
	Before        *time.Time `where:"deploy_time <" param:"before"`
	Tenants
	// IncludeWithoutTenantID: with TenantIDIn, those of no tenant too.
	IncludeWithoutTenantID bool `param:"includeDeploymentsWithoutTenantId"`
}

func (f DeploymentFilter) Query() Query[*Deployment] {
	f.Tenants = f.Tenants.conditions(f.IncludeWithoutTenantID)
	return filterQuery[*Deployment](f, time.Time{}, "deploy_time, id")
}

// Tenants selects rows by their tenant, as Camunda's tenantIdIn and
// withoutTenantId do; a filter that embeds it has its own
// include...WithoutTenantId, given to conditions.
type Tenants struct {
	TenantIDIn      []string `param:"tenantIdIn"`                                // of one of these tenants
	WithoutTenantID bool     `where:"tenant_id IS NULL" param:"withoutTenantId"` // of no tenant
	// the condition TenantIDIn makes, with or without the rows of no tenant
	in       []string `where:"tenant_id in"`
	inOrNone []string `where:"(tenant_id IN (?) OR tenant_id IS NULL)"`
}

// conditions is t with the condition of TenantIDIn set: with
// includeWithoutTenant, the rows of no tenant match too.
func (t Tenants) conditions(includeWithoutTenant bool) Tenants {
	t.in, t.inOrNone = nil, nil
	if includeWithoutTenant {
		t.inOrNone = t.TenantIDIn
	} else {
		t.in = t.TenantIDIn
	}
	return t
}

// OfTenant selects the rows of tenant exactly ("": of no tenant).
func OfTenant(tenant string) Tenants {
	if tenant == "" {
		return Tenants{WithoutTenantID: true}
	}
	return Tenants{TenantIDIn: []string{tenant}}
}

// DefinitionFilter selects process definitions, by key and version.
type DefinitionFilter struct {
	Page             `sort:"category key id name version deploymentId versionTag deployTime={definitionDeployTime}"`
	ID               string   `where:"id" param:"processDefinitionId"`
	IDs              []string `where:"id in" param:"processDefinitionIdIn"`
	Key              string   `where:"key" param:"key"`
	Keys             []string `where:"key in" param:"keysIn"`
	KeyLike          string   `where:"key like" param:"keyLike"`
	Category         string   `where:"category" param:"category"`
	CategoryLike     string   `where:"category like" param:"categoryLike"`
	Name             string   `where:"name" param:"name"`
	NameLike         string   `where:"name like" param:"nameLike"`
	DeploymentID     string   `where:"deployment_id" param:"deploymentId"`
	ResourceName     string   `where:"resource_name" param:"resourceName"`
	ResourceNameLike string   `where:"resource_name like" param:"resourceNameLike"`
	// DeployedAfter: deployed strictly after the time; DeployedAt: within
	// its millisecond (Camunda's dates have milliseconds).
	DeployedAfter  *time.Time `where:"{definitionDeployTime} > ?" param:"deployedAfter"`
	DeployedAt     *time.Time `param:"deployedAt"`
	deployedFrom   *time.Time `where:"{definitionDeployTime} >= ?"`
	deployedBefore *time.Time `where:"{definitionDeployTime} < ?"`
	Version        *int       `where:"version" param:"version"` // nil: any
	// LatestOnly: the latest version of each key, per tenant.
	LatestOnly        bool   `where:"version = (SELECT MAX(d2.version) FROM process_definition d2 WHERE d2.key = process_definition.key AND COALESCE(d2.tenant_id, '') = COALESCE(process_definition.tenant_id, ''))" param:"latestVersion"`
	VersionTag        string `where:"version_tag" param:"versionTag"` // camunda:versionTag
	VersionTagLike    string `where:"version_tag like" param:"versionTagLike"`
	WithoutVersionTag bool   `where:"version_tag IS NULL" param:"withoutVersionTag"`
	Suspended         bool   `where:"suspension = 2" param:"suspended"`
	Active            bool   `where:"suspension = 1" param:"active"`
	// camunda:isStartableInTasklist true or false
	StartableInTasklist    bool `where:"startable_in_tasklist" param:"startableInTasklist"`
	NotStartableInTasklist bool `where:"NOT startable_in_tasklist" param:"notStartableInTasklist"`
	// IncidentID, IncidentType, IncidentMessage(Like): definitions with an
	// open incident of that id, type or message.
	IncidentID          string `where:"EXISTS (SELECT 1 FROM incident i WHERE i.process_definition_id = process_definition.id AND i.id = ?)" param:"incidentId"`
	IncidentType        string `where:"EXISTS (SELECT 1 FROM incident i WHERE i.process_definition_id = process_definition.id AND i.type = ?)" param:"incidentType"`
	IncidentMessage     string `where:"EXISTS (SELECT 1 FROM incident i WHERE i.process_definition_id = process_definition.id AND i.message = ?)" param:"incidentMessage"`
	IncidentMessageLike string `where:"EXISTS (SELECT 1 FROM incident i WHERE i.process_definition_id = process_definition.id AND i.message LIKE ?)" param:"incidentMessageLike"`
	Tenants
	// IncludeWithoutTenantID: with TenantIDIn, those of no tenant too.
	IncludeWithoutTenantID bool `param:"includeProcessDefinitionsWithoutTenantId"`
}

func (f DefinitionFilter) Query() Query[*ProcessDefinition] {
	f.Tenants = f.Tenants.conditions(f.IncludeWithoutTenantID)
	f.deployedFrom, f.deployedBefore = millisecond(f.DeployedAt)
	return filterQuery[*ProcessDefinition](f, time.Time{}, "key, version, id")
}

// TaskFilter selects user tasks, oldest first, as Camunda's task query
// does: names and descriptions compare case-insensitively, *Like fields
// are SQL LIKE patterns with the caller's % and _, *In fields are lists.
type TaskFilter struct {
	Page                `sort:"instanceId=process_instance_id dueDate executionId assignee created=create_time lastUpdated description id name nameCaseInsensitive=LOWER(name) priority"`
	ID                  string   `where:"id" param:"taskId"`
	IDIn                []string `where:"id in" param:"taskIdIn"`
	ProcessInstanceID   string   `where:"process_instance_id" param:"processInstanceId"`
	ProcessInstanceIDIn []string `where:"process_instance_id in" param:"processInstanceIdIn"`
	// The business key, definition key and name are the task's process
	// instance's and process definition's.
	ProcessInstanceBusinessKey     string   `where:"{taskInstance}business_key = ?)" param:"processInstanceBusinessKey"`
	ProcessInstanceBusinessKeyIn   []string `where:"{taskInstance}business_key IN (?))" param:"processInstanceBusinessKeyIn"`
	ProcessInstanceBusinessKeyLike string   `where:"{taskInstance}business_key LIKE ?)" param:"processInstanceBusinessKeyLike"`
	ProcessDefinitionID            string   `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey           string   `where:"{taskDefinition}key = ?)" param:"processDefinitionKey"`
	ProcessDefinitionKeyIn         []string `where:"{taskDefinition}key IN (?))" param:"processDefinitionKeyIn"`
	ProcessDefinitionName          string   `where:"{taskDefinition}name = ?)" param:"processDefinitionName"`
	ProcessDefinitionNameLike      string   `where:"{taskDefinition}name LIKE ?)" param:"processDefinitionNameLike"`
	ExecutionID                    string   `where:"execution_id" param:"executionId"`
	ActivityInstanceIDIn           []string `where:"activity_instance_id in" param:"activityInstanceIdIn"`
	TaskDefinitionKey              string   `where:"task_definition_key" param:"taskDefinitionKey"`
	TaskDefinitionKeyIn            []string `where:"task_definition_key in" param:"taskDefinitionKeyIn"`
	TaskDefinitionKeyNotIn         []string `where:"task_definition_key NOT IN (?)" param:"taskDefinitionKeyNotIn"`
	TaskDefinitionKeyLike          string   `where:"task_definition_key like" param:"taskDefinitionKeyLike"`
	Name                           string   `where:"UPPER(name) = UPPER(?)" param:"name"`
	NameNotEqual                   string   `where:"UPPER(name) <> UPPER(?)" param:"nameNotEqual"`
	NameLike                       string   `where:"UPPER(name) LIKE UPPER(?)" param:"nameLike"`
	NameNotLike                    string   `where:"UPPER(name) NOT LIKE UPPER(?)" param:"nameNotLike"`
	Description                    string   `where:"UPPER(description) = UPPER(?)" param:"description"`
	DescriptionLike                string   `where:"UPPER(description) LIKE UPPER(?)" param:"descriptionLike"`
	ParentTaskID                   string   `where:"parent_task_id" param:"parentTaskId"`
	// Assignee..., Owner: the task's assignee and owner; InvolvedUser:
	// its assignee, owner or a candidate user.
	Assignee      string   `where:"assignee" param:"assignee"`
	AssigneeLike  string   `where:"assignee like" param:"assigneeLike"`
	AssigneeIn    []string `where:"assignee in" param:"assigneeIn"`
	AssigneeNotIn []string `where:"assignee NOT IN (?)" param:"assigneeNotIn"`
	Assigned      bool     `where:"assignee IS NOT NULL" param:"assigned"`
	Unassigned    bool     `where:"assignee IS NULL" param:"unassigned"`
	Owner         string   `where:"owner" param:"owner"`
	InvolvedUser  string   `where:"(assignee = ? OR owner = ? OR EXISTS ({candidateUserEntries} = ?))" param:"involvedUser"`
	// DelegationState: DelegationPending or DelegationResolved (in any case).
	DelegationState string `where:"delegation_state" param:"delegationState"`
	// The candidate fields select tasks no one is assigned to, as Camunda's
	// candidate queries do, unless IncludeAssignedTasks: CandidateGroup and
	// CandidateUser by one entry of the task's candidate groups or users,
	// CandidateGroups by any of several groups (CandidateGroup among them),
	// CandidateGroupLike by a pattern one group matches.
	CandidateGroup         string   `where:"candidate_groups member" param:"candidateGroup"`
	CandidateGroups        []string `where:"EXISTS ({candidateGroupEntries} IN (?))" param:"candidateGroups"`
	CandidateGroupLike     string   `where:"EXISTS ({candidateGroupEntries} LIKE ?)" param:"candidateGroupLike"`
	CandidateUser          string   `where:"candidate_users member" param:"candidateUser"`
	WithCandidateGroups    bool     `where:"candidate_groups IS NOT NULL" param:"withCandidateGroups"`
	WithoutCandidateGroups bool     `where:"candidate_groups IS NULL" param:"withoutCandidateGroups"`
	WithCandidateUsers     bool     `where:"candidate_users IS NOT NULL" param:"withCandidateUsers"`
	WithoutCandidateUsers  bool     `where:"candidate_users IS NULL" param:"withoutCandidateUsers"`
	IncludeAssignedTasks   bool     `param:"includeAssignedTasks"`
	candidateUnassigned    bool     `where:"assignee IS NULL"`
	// Due..., FollowUp..., Created...: exactly at, strictly before or
	// after the time; WithoutDueDate: tasks without one;
	// FollowUpBeforeOrNotExistent: before the time or without a follow-up
	// date; UpdatedAfter: changed (or, never changed, created) after it.
	DueDate                     *time.Time `where:"due_date" param:"dueDate"`
	DueBefore                   *time.Time `where:"due_date <" param:"dueBefore"`
	DueAfter                    *time.Time `where:"due_date >" param:"dueAfter"`
	WithoutDueDate              bool       `where:"due_date IS NULL" param:"withoutDueDate"`
	FollowUpDate                *time.Time `where:"follow_up_date" param:"followUpDate"`
	FollowUpBefore              *time.Time `where:"follow_up_date <" param:"followUpBefore"`
	FollowUpAfter               *time.Time `where:"follow_up_date >" param:"followUpAfter"`
	FollowUpBeforeOrNotExistent *time.Time `where:"(follow_up_date IS NULL OR follow_up_date < ?)" param:"followUpBeforeOrNotExistent"`
	CreatedOn                   *time.Time `where:"create_time" param:"createdOn"`
	CreatedBefore               *time.Time `where:"create_time <" param:"createdBefore"`
	CreatedAfter                *time.Time `where:"create_time >" param:"createdAfter"`
	UpdatedAfter                *time.Time `where:"(last_updated > ? OR last_updated IS NULL AND create_time > ?)" param:"updatedAfter"`
	// Priority matches exactly; MinPriority and MaxPriority bound it.
	Priority    *int `where:"priority" param:"priority"`
	MinPriority *int `where:"priority >=" param:"minPriority"`
	MaxPriority *int `where:"priority <=" param:"maxPriority"`
	Active      bool `where:"suspension = 1" param:"active"`
	Suspended   bool `where:"suspension = 2" param:"suspended"`
	Tenants
	// Due, FollowUp and Created are the older names Camunda still takes
	// for DueDate, FollowUpDate and CreatedOn.
	Due      *time.Time `where:"due_date" param:"due"`
	FollowUp *time.Time `where:"follow_up_date" param:"followUp"`
	Created  *time.Time `where:"create_time" param:"created"`
	// WithCommentAttachmentInfo, WithTaskVariablesInReturn and
	// WithTaskLocalVariablesInReturn select nothing: they ask the REST API
	// to show whether each task has comments and attachments, and its
	// variables (all it sees, or its own).
	WithCommentAttachmentInfo      bool `param:"withCommentAttachmentInfo"`
	WithTaskVariablesInReturn      bool `param:"withTaskVariablesInReturn"`
	WithTaskLocalVariablesInReturn bool `param:"withTaskLocalVariablesInReturn"`
	// OrQueries (a POST query's disjunctions, as JSON) are not supported:
	// a query with them is refused rather than run without them.
	OrQueries string `param:"orQueries"`
	// TaskVariables: conditions on the task's local variables;
	// ProcessVariables: on its process instance's variables (of any scope).
	TaskVariables            VariableConditions `where:"variables FROM variable v WHERE v.task_id = task.id" param:"taskVariables"`
	ProcessVariables         VariableConditions `where:"variables FROM variable v WHERE v.process_instance_id = task.process_instance_id AND v.task_id IS NULL" param:"processVariables"`
	VariableNamesIgnoreCase  bool               `param:"variableNamesIgnoreCase"`
	VariableValuesIgnoreCase bool               `param:"variableValuesIgnoreCase"`
}

func (f TaskFilter) Query() Query[*Task] {
	if why := f.invalid(); why != "" {
		return invalidQuery[*Task](why)
	}
	if f.CandidateGroup != "" && len(f.CandidateGroups) > 0 {
		// Camunda matches any of them
		f.CandidateGroups, f.CandidateGroup = append(slices.Clip(f.CandidateGroups), f.CandidateGroup), ""
	}
	f.DelegationState = strings.ToUpper(f.DelegationState)
	f.candidateUnassigned = f.candidates() && !f.IncludeAssignedTasks
	f.Tenants = f.Tenants.conditions(false)
	return filterQuery[*Task](f, time.Time{}, "create_time, id")
}

// candidates reports whether f selects by candidates.
func (f TaskFilter) candidates() bool {
	return f.CandidateGroup != "" || len(f.CandidateGroups) > 0 || f.CandidateGroupLike != "" || f.CandidateUser != "" ||
		f.WithCandidateGroups || f.WithoutCandidateGroups || f.WithCandidateUsers || f.WithoutCandidateUsers
}

// invalid is why f is not a query Camunda would run, or "".
func (f TaskFilter) invalid() string {
	groups := f.CandidateGroup != "" || len(f.CandidateGroups) > 0
	switch {
	case f.IncludeAssignedTasks && !f.candidates():
		return "Invalid query usage: candidateUser, candidateGroup, candidateGroupLike, candidateGroupIn, withCandidateGroups, withoutCandidateGroups, withCandidateUsers, withoutCandidateUsers has to be called before 'includeAssignedTasks'."
	case f.CandidateUser != "" && groups:
		return "Invalid query usage: cannot set both candidateUser and candidateGroup"
	case f.CandidateUser != "" && f.CandidateGroupLike != "":
		return "Invalid query usage: cannot set both candidateGroupLike and candidateUser"
	case f.CandidateGroupLike != "" && groups:
		return "bpmnlite does not support candidateGroupLike together with candidateGroup or candidateGroups (Camunda matches either)"
	case f.OrQueries != "":
		return "bpmnlite does not support orQueries in a task query"
	case f.WithoutDueDate && (f.DueDate != nil || f.Due != nil || f.DueBefore != nil || f.DueAfter != nil):
		return "Invalid query usage: cannot set both dueDate, dueBefore or dueAfter and withoutDueDate filters."
	case f.DelegationState != "" && !slices.Contains([]string{DelegationPending, DelegationResolved}, strings.ToUpper(f.DelegationState)):
		return "Valid values for property 'delegationState' are 'PENDING' or 'RESOLVED', but was '" + f.DelegationState + "'"
	}
	return ""
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

	DeleteReasonLike    string   `where:"delete_reason like" param:"taskDeleteReasonLike"`
	AssigneeLike        string   `where:"assignee like" param:"taskAssigneeLike"`
	ProcessDefinitionID string   `where:"process_definition_id" param:"processDefinitionId"`
	ExecutionID         string   `where:"execution_id" param:"executionId"`
	ActivityInstanceIDs []string `where:"activity_instance_id in" param:"activityInstanceIdIn"`
	TaskDefinitionKeys  []string `where:"task_definition_key in" param:"taskDefinitionKeyIn"`
	// TaskName and TaskNameLike ignore case, as Camunda's.
	TaskName              string `where:"UPPER(name) = UPPER(?)" param:"taskName"`
	TaskNameLike          string `where:"UPPER(name) LIKE UPPER(?)" param:"taskNameLike"`
	ProcessDefinitionName string `where:"process_definition_id IN (SELECT id FROM process_definition WHERE name = ?)" param:"processDefinitionName"`
	// Of the task's process instance in history.
	RootProcessInstanceID string   `where:"{taskInstance} root_process_instance_id = ?)" param:"rootProcessInstanceId"`
	BusinessKey           string   `where:"{taskInstance} business_key = ?)" param:"processInstanceBusinessKey"`
	BusinessKeyIn         []string `where:"{taskInstance} business_key IN (?))" param:"processInstanceBusinessKeyIn"`
	BusinessKeyLike       string   `where:"{taskInstance} business_key LIKE ?)" param:"processInstanceBusinessKeyLike"`
	ProcessFinished       bool     `where:"{taskInstance} end_time IS NOT NULL)" param:"processFinished"`
	ProcessUnfinished     bool     `where:"{taskInstance} end_time IS NULL)" param:"processUnfinished"`
	Priority              *int     `where:"priority" param:"taskPriority"`
	Assigned              bool     `where:"assignee IS NOT NULL" param:"assigned"`
	Unassigned            bool     `where:"assignee IS NULL" param:"unassigned"`
	// The due and follow-up dates: only tasks that have one match.
	DueDate        *time.Time `where:"due_date" param:"taskDueDate"`
	DueBefore      *time.Time `where:"due_date <" param:"taskDueDateBefore"`
	DueAfter       *time.Time `where:"due_date >" param:"taskDueDateAfter"`
	WithoutDueDate bool       `where:"due_date IS NULL" param:"withoutTaskDueDate"`
	FollowUpDate   *time.Time `where:"follow_up_date" param:"taskFollowUpDate"`
	FollowUpBefore *time.Time `where:"follow_up_date <" param:"taskFollowUpDateBefore"`
	FollowUpAfter  *time.Time `where:"follow_up_date >" param:"taskFollowUpDateAfter"`
	StartedBefore  *time.Time `where:"start_time <=" param:"startedBefore"`
	StartedAfter   *time.Time `where:"start_time >=" param:"startedAfter"`
	FinishedBefore *time.Time `where:"end_time <=" param:"finishedBefore"`
	FinishedAfter  *time.Time `where:"end_time >=" param:"finishedAfter"`
	// The candidates the task had when it was created.
	HadCandidateUser       string `where:"candidate_users member" param:"taskHadCandidateUser"`
	HadCandidateGroup      string `where:"candidate_groups member" param:"taskHadCandidateGroup"`
	InvolvedGroup          string `where:"candidate_groups member" param:"taskInvolvedGroup"`
	WithCandidateGroups    bool   `where:"candidate_groups IS NOT NULL" param:"withCandidateGroups"`
	WithoutCandidateGroups bool   `where:"candidate_groups IS NULL" param:"withoutCandidateGroups"`
	// TaskVariables: conditions on the task's local variables (their
	// history); ProcessVariables: on its instance's (of any scope).
	TaskVariables            VariableConditions `where:"variables FROM hist_variable v WHERE v.task_id = hist_task.id AND v.state = 'CREATED'" param:"taskVariables"`
	ProcessVariables         VariableConditions `where:"variables FROM {allVariables} v WHERE v.process_instance_id = hist_task.process_instance_id AND v.task_id IS NULL" param:"processVariables"`
	VariableNamesIgnoreCase  bool               `param:"variableNamesIgnoreCase"`
	VariableValuesIgnoreCase bool               `param:"variableValuesIgnoreCase"`
}

func (f HistoricTaskFilter) Query() Query[*HistoricTask] {
	return filterQuery[*HistoricTask](f, time.Time{}, "start_time, id")
}

// ExecutionFilter selects executions, in the order they started, as
// Camunda shows them: an execution with a child execution is at no
// activity (see executionHasChild).
type ExecutionFilter struct {
	Page `sort:"instanceId=process_instance_id definitionId=process_definition_id definitionKey={definitionKey} tenantId"`
	Tenants
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
	// Variables: conditions on the execution's local variables;
	// ProcessVariables: on its process instance's own.
	Variables                VariableConditions `where:"variables FROM variable v WHERE v.execution_id = execution.id AND v.task_id IS NULL" param:"variables"`
	ProcessVariables         VariableConditions `where:"variables FROM variable v WHERE v.execution_id = execution.process_instance_id AND v.task_id IS NULL" param:"processVariables"`
	VariableNamesIgnoreCase  bool               `param:"variableNamesIgnoreCase"`
	VariableValuesIgnoreCase bool               `param:"variableValuesIgnoreCase"`
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
	f.Tenants = f.Tenants.conditions(false)
	q := filterQuery[*Execution](f, time.Time{}, "start_time, id")
	q.columns = shownExecutionColumns
	return q
}

// InstanceFilter selects running process instances (root executions of
// the runtime tables, whatever the history level), in the order they
// started, by Camunda's runtime process instance query.
type InstanceFilter struct {
	Page `sort:"instanceId=id definitionId=process_definition_id definitionKey={definitionKey} businessKey tenantId"`
	Tenants
	// ProcessDefinitionWithoutTenantID: instances of definitions of no tenant.
	ProcessDefinitionWithoutTenantID bool     `where:"process_definition_id IN (SELECT id FROM process_definition WHERE tenant_id IS NULL)" param:"processDefinitionWithoutTenantId"`
	IDs                              []string `where:"id in" param:"processInstanceIds"`
	BusinessKey                      string   `where:"business_key" param:"businessKey"`
	BusinessKeyLike                  string   `where:"business_key like" param:"businessKeyLike"`
	ProcessDefinitionID              string   `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey             string   `where:"process_definition_id IN (SELECT id FROM process_definition WHERE key = ?)" param:"processDefinitionKey"`
	ProcessDefinitionKeys            []string `where:"{definitionKey} in" param:"processDefinitionKeyIn"`
	// ProcessDefinitionKeyNotIn: instances of other definitions than these.
	ProcessDefinitionKeyNotIn []string `where:"{definitionKey} not in" param:"processDefinitionKeyNotIn"`
	DeploymentID              string   `where:"process_definition_id IN (SELECT id FROM process_definition WHERE deployment_id = ?)" param:"deploymentId"`
	// SuperProcessInstance: the instances a call activity of this
	// instance started; SubProcessInstance: the instance that started this
	// one.
	SuperProcessInstance string `where:"super_execution_id IN (SELECT id FROM execution WHERE process_instance_id = ?)" param:"superProcessInstance"`
	SubProcessInstance   string `where:"id IN (SELECT s.process_instance_id FROM execution s WHERE s.id = (SELECT super_execution_id FROM execution c WHERE c.id = ? AND c.parent_id IS NULL))" param:"subProcessInstance"`
	Active               bool   `where:"suspension = 1" param:"active"`
	Suspended            bool   `where:"suspension = 2" param:"suspended"`
	WithIncident         bool   `where:"id IN (SELECT process_instance_id FROM incident)" param:"withIncident"`
	IncidentID           string `where:"id IN (SELECT process_instance_id FROM incident WHERE id = ?)" param:"incidentId"`
	IncidentType         string `where:"id IN (SELECT process_instance_id FROM incident WHERE type = ?)" param:"incidentType"`
	IncidentMessage      string `where:"id IN (SELECT process_instance_id FROM incident WHERE message = ?)" param:"incidentMessage"`
	IncidentMessageLike  string `where:"id IN (SELECT process_instance_id FROM incident WHERE message LIKE ?)" param:"incidentMessageLike"`
	// ActivityIDs: instances with an execution at one of these activities
	// (Camunda's view: see executionHasChild).
	ActivityIDs []string `where:"id IN (SELECT e.process_instance_id FROM execution e WHERE e.activity_id IN (?) AND NOT EXISTS (SELECT 1 FROM execution ch WHERE ch.parent_id = e.id AND NOT ch.is_event_scope))" param:"activityIdIn"`
	// RootProcessInstances: instances no call activity started;
	// LeafProcessInstances: instances that started none.
	RootProcessInstances  bool   `where:"COALESCE(super_execution_id, '') = ''" param:"rootProcessInstances"`
	LeafProcessInstances  bool   `where:"NOT EXISTS (SELECT 1 FROM execution sub WHERE sub.super_execution_id IN (SELECT id FROM execution x WHERE x.process_instance_id = execution.id))" param:"leafProcessInstances"`
	RootProcessInstanceID string `where:"root_process_instance_id" param:"rootProcessInstanceId"`
	// Variables: conditions on the instance's own (process-level)
	// variables, as Camunda's variableValue... conditions.
	Variables                VariableConditions `where:"variables FROM variable v WHERE v.execution_id = execution.id AND v.task_id IS NULL" param:"variables"`
	VariableNamesIgnoreCase  bool               `param:"variableNamesIgnoreCase"`
	VariableValuesIgnoreCase bool               `param:"variableValuesIgnoreCase"`
	root                     bool               `where:"parent_id IS NULL"`
}

func (f InstanceFilter) Query() Query[*Execution] {
	f.root = true
	f.Tenants = f.Tenants.conditions(false)
	return filterQuery[*Execution](f, time.Time{}, "start_time, id")
}

// HistoricActivityFilter selects activity instances in history, in the
// order they started. Camunda's occurrence (a sequence counter) sorts by
// id: ids are time-ordered (UUIDv7), in the order rows were written.
type HistoricActivityFilter struct {
	Page                `sort:"activityInstanceId=id instanceId=process_instance_id executionId activityId activityName activityType startTime endTime duration=(end_time-start_time) definitionId=process_definition_id occurrence=id"`
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
	// TaskAssignee: the user task instance's task is assigned to the user.
	TaskAssignee string `where:"task_id IN (SELECT id FROM hist_task WHERE assignee = ?)" param:"taskAssignee"`
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
	Page `sort:"jobId=id executionId processInstanceId processDefinitionId processDefinitionKey jobPriority=priority jobRetries=retries jobDueDate=due_date tenantId"`
	Tenants
	IncludeJobsWithoutTenantID bool     `param:"includeJobsWithoutTenantId"` // with TenantIDIn: the jobs of no tenant too
	ID                         string   `where:"id" param:"jobId"`
	IDs                        []string `where:"id in" param:"jobIds"`
	ProcessInstanceID          string   `where:"process_instance_id" param:"processInstanceId"`
	ProcessInstanceIDs         []string `where:"process_instance_id in" param:"processInstanceIds"`
	ExecutionID                string   `where:"execution_id" param:"executionId"`
	ProcessDefinitionID        string   `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey       string   `where:"process_definition_key" param:"processDefinitionKey"`
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
	f.Tenants = f.Tenants.conditions(f.IncludeJobsWithoutTenantID)
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
	Page `sort:"id lockExpirationTime=lock_expiration processInstanceId processDefinitionId processDefinitionKey taskPriority=priority tenantId"`
	Tenants
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
	// ProcessVariables: conditions on the instance's variables (of any scope).
	ProcessVariables         VariableConditions `where:"variables FROM variable v WHERE v.process_instance_id = external_task.process_instance_id AND v.task_id IS NULL" param:"processVariables"`
	VariableNamesIgnoreCase  bool               `param:"variableNamesIgnoreCase"`
	VariableValuesIgnoreCase bool               `param:"variableValuesIgnoreCase"`
}

// At is the filter's query with Locked and NotLocked judged at now.
func (f ExternalTaskFilter) At(now time.Time) Query[*ExternalTask] {
	f.Tenants = f.Tenants.conditions(false)
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
	Page `sort:"incidentId=id incidentMessage=message createTime endTime incidentType=type executionId activityId processInstanceId processDefinitionId processDefinitionKey={incidentDefinitionKey} causeIncidentId rootCauseIncidentId configuration historyConfiguration incidentState={incidentStateCode}"`
	IncidentQuery
	// State: IncidentOpen, IncidentResolved (its job succeeded or got
	// retries) or IncidentDeleted (with its job or instance).
	State string `where:"state" param:"deleted=deleted|resolved=resolved|open=open"`

	IncidentMessage       string     `where:"message" param:"incidentMessage"`
	IncidentMessageLike   string     `where:"message like" param:"incidentMessageLike"`
	ProcessDefinitionKey  string     `where:"{incidentDefinitionKey} = ?" param:"processDefinitionKey"`
	ProcessDefinitionKeys []string   `where:"{incidentDefinitionKey} IN (?)" param:"processDefinitionKeyIn"`
	ExecutionID           string     `where:"execution_id" param:"executionId"`
	FailedActivityID      string     `where:"failed_activity_id" param:"failedActivityId"`
	CauseIncidentID       string     `where:"cause_incident_id" param:"causeIncidentId"`
	RootCauseIncidentID   string     `where:"root_cause_incident_id" param:"rootCauseIncidentId"`
	JobDefinitionIDs      []string   `where:"job_definition_id in" param:"jobDefinitionIdIn"`
	CreateTimeBefore      *time.Time `where:"create_time <" param:"createTimeBefore"`
	CreateTimeAfter       *time.Time `where:"create_time >" param:"createTimeAfter"`
	EndTimeBefore         *time.Time `where:"end_time <" param:"endTimeBefore"`
	EndTimeAfter          *time.Time `where:"end_time >" param:"endTimeAfter"`
	HistoryConfiguration  string     `where:"history_configuration" param:"historyConfiguration"`
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

// JobLogFilter selects job log entries in the order they were written
// (occurrence sorts by their time-ordered ids).
// ProcessInstanceID finds the instance's jobs by their creation entries,
// the only ones indexed by instance (job_log_created_process_instance;
// the literal event lets SQLite use that partial index).
type JobLogFilter struct {
	Page              `sort:"timestamp jobId jobDefinitionId jobDueDate jobRetries=retries jobPriority=priority activityId executionId processInstanceId processDefinitionId processDefinitionKey deploymentId occurrence=id"`
	JobID             string `where:"job_id" param:"jobId"`
	ProcessInstanceID string `where:"job_id IN (SELECT job_id FROM job_log WHERE process_instance_id = ? AND event = {jobLogCreated})" param:"processInstanceId"`
	JobDefinitionID   string `where:"job_definition_id" param:"jobDefinitionId"`
	// Event: JobLogCreated, ... As Camunda's, the last of its REST flags
	// given wins.
	Event string `where:"event" param:"deletionLog=deleted|successLog=succeeded|failureLog=failed|creationLog=created"`

	ID                         string   `where:"id" param:"logId"`
	ExceptionMessage           string   `where:"message" param:"jobExceptionMessage"`
	JobDefinitionType          string   `where:"job_definition_type" param:"jobDefinitionType"`
	JobDefinitionConfiguration string   `where:"job_definition_configuration" param:"jobDefinitionConfiguration"`
	ActivityIDs                []string `where:"activity_id in" param:"activityIdIn"`
	FailedActivityIDs          []string `where:"failed_activity_id in" param:"failedActivityIdIn"`
	ExecutionIDs               []string `where:"execution_id in" param:"executionIdIn"`
	ProcessDefinitionID        string   `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey       string   `where:"process_definition_key" param:"processDefinitionKey"`
	DeploymentID               string   `where:"deployment_id" param:"deploymentId"`
	PriorityAtMost             *int64   `where:"priority <=" param:"jobPriorityLowerThanOrEquals"`
	PriorityAtLeast            *int64   `where:"priority >=" param:"jobPriorityHigherThanOrEquals"`
	// SkipLocked leaves out the entries of jobs being locked by a job
	// executor, which Camunda's job log does not have.
	SkipLocked bool `where:"event <> 'locked'"`
}

func (f JobLogFilter) Query() Query[*JobLogEntry] {
	return filterQuery[*JobLogEntry](f, time.Time{}, "timestamp, id")
}

// MeterLogFilter selects meter reports, oldest first.
type MeterLogFilter struct {
	Name      string     `where:"name" param:"name"`
	Reporter  string     `where:"reporter" param:"reporter"`
	StartDate *time.Time `where:"timestamp >=" param:"startDate"`
	EndDate   *time.Time `where:"timestamp <" param:"endDate"`
}

func (f MeterLogFilter) Query() Query[*MeterLog] {
	return filterQuery[*MeterLog](f, time.Time{}, "timestamp, id")
}
