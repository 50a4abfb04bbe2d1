package persistence

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Query is a read of the rows of T's table. The named operations below and
// the filters (filters.go) build queries; upper layers run them (Select, or
// tx.Select to go through a command's entity cache) and never write SQL.
type Query[T Entity] struct {
	where string // the SQL after "FROM table"; values only as $N arguments
	args  []any
	// columns, when set, replaces the table's column list: a read-only
	// view of the rows (see ExecutionFilter), never cached or written back.
	columns string
	// conds, for a filter's query (filter set), is its WHERE clause alone:
	// what Count counts.
	conds  string
	filter bool
	err    error // a filter's invalid Page
}

func newQuery[T Entity](where string, args ...any) Query[T] {
	return Query[T]{where: where, args: args}
}

// invalidQuery is a query that fails with ErrInvalidQuery, its message
// why alone (Camunda's words, as the REST API shows them).
func invalidQuery[T Entity](why string) Query[T] {
	return Query[T]{err: invalidQueryError(why), filter: true}
}

type invalidQueryError string

func (e invalidQueryError) Error() string { return string(e) }
func (e invalidQueryError) Unwrap() error { return ErrInvalidQuery }

// Table is the table the query reads.
func (q Query[T]) Table() *Table { return tableOf[T]() }

// String describes the query for error messages.
func (q Query[T]) String() string {
	return strings.TrimSpace(q.Table().Name + " " + q.where)
}

// Select runs q in tx and returns its rows in the query's order.
func Select[T Entity](ctx context.Context, tx Tx, q Query[T]) ([]T, error) {
	if q.err != nil {
		return nil, q.err
	}
	var out []T
	err := scanAll(ctx, tx, q.Table(), q.columns, q.where, q.args, func(e Entity) error {
		out = append(out, e.(T))
		return nil
	})
	return out, err
}

// Executions.

// ExecutionsOfInstance is the whole execution tree of a process instance.
func ExecutionsOfInstance(processInstanceID string) Query[*Execution] {
	return newQuery[*Execution]("WHERE process_instance_id = $1", processInstanceID)
}

// InstancesOfDefinition are the root executions (process instances) of a
// process definition.
func InstancesOfDefinition(processDefinitionID string) Query[*Execution] {
	return newQuery[*Execution]("WHERE process_definition_id = $1 AND parent_id IS NULL", processDefinitionID)
}

// InstancesCalledBy are the process instances a call activity's execution
// started.
func InstancesCalledBy(superExecutionID string) Query[*Execution] {
	return newQuery[*Execution]("WHERE super_execution_id = $1", superExecutionID)
}

// Waits of an execution.

// SubscriptionsOfExecution are the message and signal subscriptions an
// execution holds.
func SubscriptionsOfExecution(executionID string) Query[*EventSubscription] {
	return newQuery[*EventSubscription]("WHERE execution_id = $1", executionID)
}

// ConditionalSubscriptionsOf are the conditional events a process instance
// waits for.
func ConditionalSubscriptionsOf(processInstanceID string) Query[*EventSubscription] {
	return newQuery[*EventSubscription]("WHERE process_instance_id = $1 AND event_type = 'conditional' ORDER BY created", processInstanceID)
}

// ConditionalStarts are the conditional start events of the process
// definitions deployed last (all, or the one with processDefinitionID).
func ConditionalStarts(processDefinitionID string) Query[*EventSubscription] {
	if processDefinitionID != "" {
		return newQuery[*EventSubscription]("WHERE event_type = 'conditional' AND process_instance_id IS NULL AND process_definition_id = $1 ORDER BY created", processDefinitionID)
	}
	return newQuery[*EventSubscription]("WHERE event_type = 'conditional' AND process_instance_id IS NULL ORDER BY created")
}

// CompensationsOf are the compensation handlers a process instance keeps
// for its completed activities.
func CompensationsOf(processInstanceID string) Query[*EventSubscription] {
	return newQuery[*EventSubscription]("WHERE process_instance_id = $1 AND event_type = 'compensate'", processInstanceID)
}

// SubscriptionsTo are the subscriptions to one message or signal, oldest
// first: executions waiting and, with no execution, start events.
func SubscriptionsTo(eventType, eventName string) Query[*EventSubscription] {
	return newQuery[*EventSubscription]("WHERE event_type = $1 AND event_name = $2 ORDER BY created", eventType, eventName)
}

// TasksOfExecution are the user tasks of an execution.
func TasksOfExecution(executionID string) Query[*Task] {
	return newQuery[*Task]("WHERE execution_id = $1", executionID)
}

// ExternalTasksOfExecution are the external tasks of an execution.
func ExternalTasksOfExecution(executionID string) Query[*ExternalTask] {
	return newQuery[*ExternalTask]("WHERE execution_id = $1", executionID)
}

// Instance rows, for suspension.

// TasksOfInstance are the user tasks of a process instance.
func TasksOfInstance(processInstanceID string) Query[*Task] {
	return newQuery[*Task]("WHERE process_instance_id = $1", processInstanceID)
}

// ExternalTasksOfInstance are the external tasks of a process instance.
func ExternalTasksOfInstance(processInstanceID string) Query[*ExternalTask] {
	return newQuery[*ExternalTask]("WHERE process_instance_id = $1", processInstanceID)
}

// JobsOfInstance are the jobs of a process instance.
func JobsOfInstance(processInstanceID string) Query[*Job] {
	return newQuery[*Job]("WHERE process_instance_id = $1", processInstanceID)
}

// VariablesOfInstance are the variables of every scope of a process instance.
func VariablesOfInstance(processInstanceID string) Query[*Variable] {
	return newQuery[*Variable]("WHERE process_instance_id = $1", processInstanceID)
}

// Jobs and incidents.

// JobsOfExecution are the jobs (timers, continuations) of an execution.
// The instance narrows the read to the jobs of one instance, since the job
// table has no index on executions.
func JobsOfExecution(processInstanceID, executionID string) Query[*Job] {
	return newQuery[*Job]("WHERE process_instance_id = $1 AND execution_id = $2", processInstanceID, executionID)
}

// JobsOfJobDefinition are the jobs created from a job definition.
func JobsOfJobDefinition(jobDefinitionID string) Query[*Job] {
	return newQuery[*Job]("WHERE job_definition_id = $1", jobDefinitionID)
}

// JobsLockedBy are the jobs owner holds locked. "lock_owner IS NOT NULL"
// lets the partial index of locked jobs serve it: they are few.
func JobsLockedBy(owner string) Query[*Job] {
	return newQuery[*Job]("WHERE lock_owner IS NOT NULL AND lock_owner = $1", owner)
}

// IncidentsOfJob are the failed-job incidents raised for a job in its own
// instance (the roots of their chains up the call activities).
func IncidentsOfJob(jobID string) Query[*Incident] {
	return newQuery[*Incident]("WHERE configuration = $1 AND type = $2", jobID, IncidentFailedJob)
}

// IncidentsOfExternalTask is the open incident of an external task.
func IncidentsOfExternalTask(taskID string) Query[*Incident] {
	return newQuery[*Incident]("WHERE configuration = $1 AND type = $2", taskID, IncidentFailedExternalTask)
}

// IncidentsCausedBy are the incidents whose root cause is rootID, the
// incidents of calling instances included.
func IncidentsCausedBy(rootID string) Query[*Incident] {
	return newQuery[*Incident]("WHERE root_cause_incident_id = $1", rootID)
}

// Definitions and deployments.

// JobDefinitionsOf are the job definitions of a process definition.
func JobDefinitionsOf(processDefinitionID string) Query[*JobDefinition] {
	return newQuery[*JobDefinition]("WHERE process_definition_id = $1", processDefinitionID)
}

// DefinitionsOfDeployment are the process definitions of a deployment, by key.
func DefinitionsOfDeployment(deploymentID string) Query[*ProcessDefinition] {
	return newQuery[*ProcessDefinition]("WHERE deployment_id = $1 ORDER BY key", deploymentID)
}

// LatestDefinition is the latest version of the process definition with
// key of tenant ("": of no tenant) and, when versionTag is set, that
// version tag.
func LatestDefinition(key, tenant, versionTag string) Query[*ProcessDefinition] {
	if versionTag != "" {
		return newQuery[*ProcessDefinition]("WHERE key = $1 AND COALESCE(tenant_id, '') = $2 AND version_tag = $3 ORDER BY version DESC LIMIT 1", key, tenant, versionTag)
	}
	return newQuery[*ProcessDefinition]("WHERE key = $1 AND COALESCE(tenant_id, '') = $2 ORDER BY version DESC LIMIT 1", key, tenant)
}

// LatestResourcesNamed are, of each of the resource names, the one of the
// latest deployment named deployment with source and tenant ("": none)
// that has it: what Camunda's duplicate filtering compares with.
func LatestResourcesNamed(deployment, source, tenant string, names []string) Query[*Resource] {
	args := []any{deployment, source, tenant}
	marks := make([]string, len(names))
	for i, n := range names {
		args = append(args, n)
		marks[i] = "$" + strconv.Itoa(len(args))
	}
	return newQuery[*Resource](`WHERE name IN (`+strings.Join(marks, ", ")+`)
		AND deployment_id IN (SELECT id FROM deployment WHERE name = $1 AND COALESCE(source, '') = $2 AND COALESCE(tenant_id, '') = $3)
		AND NOT EXISTS (SELECT 1 FROM resource r2, deployment d2, deployment d1
			WHERE r2.name = resource.name AND d2.id = r2.deployment_id AND d1.id = resource.deployment_id
			AND d2.name = $1 AND COALESCE(d2.source, '') = $2 AND COALESCE(d2.tenant_id, '') = $3
			AND (d2.deploy_time > d1.deploy_time OR d2.deploy_time = d1.deploy_time AND d2.id > d1.id))
		ORDER BY name`, args...)
}

// ResourcesOfDeployment are the files of a deployment.
func ResourcesOfDeployment(deploymentID string) Query[*Resource] {
	return newQuery[*Resource]("WHERE deployment_id = $1 ORDER BY id", deploymentID)
}

// ResourceNamed is one file of a deployment.
func ResourceNamed(deploymentID, name string) Query[*Resource] {
	return newQuery[*Resource]("WHERE deployment_id = $1 AND name = $2", deploymentID, name)
}

// Write is a statement a command runs at its flush, after its entity
// changes, without a revision check: history end times, bulk deletes. The
// named writes below build them.
type Write struct {
	stmt Stmt
	// countEnded is the historic process instance this write ends;
	// countRemoval marks the write that takes removed historic process
	// instances out of the kept counts (see withCounts).
	countEnded   string
	countRemoval bool
}

func newWrite(sql string, args ...any) Write { return Write{stmt: Stmt{SQL: sql, Args: args}} }

func (w Write) String() string { return fmt.Sprintf("%s %v", w.stmt.SQL, w.stmt.Args) }

// EndActivityInstance closes an activity instance in history.
func EndActivityInstance(id string, end time.Time, canceled bool) Write {
	return newWrite("UPDATE hist_activity_instance SET end_time = $1, canceled = $2 WHERE id = $3", end, canceled, id)
}

// EndProcessInstance closes a process instance in history.
func EndProcessInstance(id string, end time.Time, state, reason, endActivityID string) Write {
	w := newWrite("UPDATE hist_process_instance SET end_time = $1, state = $2, delete_reason = $3, end_activity_id = $4 WHERE id = $5",
		end, state, reason, endActivityID, id)
	w.countEnded = id
	return w
}

// DeleteIncidentsOfInstance deletes every incident of a process instance.
func DeleteIncidentsOfInstance(processInstanceID string) Write {
	return newWrite("DELETE FROM incident WHERE process_instance_id = $1", processInstanceID)
}

// EndHistoricIncident closes an incident's history record.
func EndHistoricIncident(id string, end time.Time, state string) Write {
	return newWrite("UPDATE hist_incident SET end_time = $1, state = $2, rev = rev + 1 WHERE id = $3", end, state, id)
}

// DeleteHistoricIncidentsOfInstance closes the open history records of an
// ending instance's incidents as deleted.
func DeleteHistoricIncidentsOfInstance(processInstanceID string, end time.Time) Write {
	return newWrite("UPDATE hist_incident SET end_time = $1, state = $2, rev = rev + 1 WHERE process_instance_id = $3 AND end_time IS NULL",
		end, IncidentDeleted, processInstanceID)
}

// EndHistoricTask closes a user task's history record.
func EndHistoricTask(id string, end time.Time, reason string) Write {
	return newWrite("UPDATE hist_task SET end_time = $1, delete_reason = $2, rev = rev + 1 WHERE id = $3", end, reason, id)
}

// MovePath hands what a path owns from one execution of a process instance
// to another (the execution tree's expansion and compaction): its jobs,
// tasks, external tasks, event subscriptions, incidents and the instances
// its call activity started. Variables are moved by MoveVariables. The
// triggers of event subprocesses stay: they belong to the scope execution,
// not to the path it ran: scopeTimers names the handler type of their
// timer jobs.
func MovePath(processInstanceID, from, to, scopeTimers string) []Write {
	return []Write{
		newWrite("UPDATE job SET execution_id = $1 WHERE execution_id = $2 AND (handler_type IS NULL OR handler_type <> $3)", to, from, scopeTimers),
		newWrite("UPDATE task SET execution_id = $1 WHERE execution_id = $2", to, from),
		newWrite("UPDATE external_task SET execution_id = $1 WHERE execution_id = $2", to, from),
		newWrite("UPDATE event_subscription SET execution_id = $1 WHERE execution_id = $2 AND (configuration IS NULL OR configuration <> $3)",
			to, from, EventSubprocessTrigger),
		newWrite("UPDATE incident SET execution_id = $1 WHERE process_instance_id = $2 AND execution_id = $3", to, processInstanceID, from),
		newWrite("UPDATE execution SET super_execution_id = $1 WHERE super_execution_id = $2", to, from),
	}
}

// MoveVariables moves an execution's local variables to another execution,
// replacing the ones of the same name there.
func MoveVariables(from, to string) []Write {
	return []Write{
		newWrite("DELETE FROM variable WHERE execution_id = $1 AND name IN (SELECT name FROM variable WHERE execution_id = $2)", to, from),
		newWrite("UPDATE variable SET execution_id = $1 WHERE execution_id = $2", to, from),
	}
}

// RecordVariable writes variable r's history at time now: its value,
// under its id, created at now the first time.
func RecordVariable(r *Variable, now time.Time) Write {
	return newWrite(recordVariableSQL, Values(&HistoricVariable{Variable: *r, State: VariableCreated, CreateTime: &now})...)
}

var recordVariableSQL = func() string {
	var set, params []string
	for i, col := range HistoricVariableTable.Columns {
		params = append(params, "$"+strconv.Itoa(i+1))
		if col != "id" && col != "create_time" {
			set = append(set, col+" = excluded."+col)
		}
	}
	return "INSERT INTO hist_variable (" + strings.Join(HistoricVariableTable.Columns, ", ") + ") VALUES (" + strings.Join(params, ", ") +
		") ON CONFLICT (id) DO UPDATE SET " + strings.Join(set, ", ")
}()

// MarkVariableDeleted marks variable id's history deleted (the variable
// was removed).
func MarkVariableDeleted(id string) Write {
	return newWrite("UPDATE hist_variable SET state = '"+VariableDeleted+"' WHERE id = $1", id)
}

// HistoricVariablesOf are the variables of process instance id's own scope
// as history has them: for an ended instance, those it had at its end.
func HistoricVariablesOf(processInstanceID string) Query[*HistoricVariable] {
	return newQuery[*HistoricVariable]("WHERE process_instance_id = $1 AND execution_id = $1 AND task_id IS NULL AND state = '"+VariableCreated+"'", processInstanceID)
}

// ReportJobExecutor writes a job executor's report (insert or replace).
func ReportJobExecutor(info *JobExecutorInfo) Write {
	cols := JobExecutorTable.statements().columnList
	return newWrite("INSERT INTO job_executor ("+cols+") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"+
		" ON CONFLICT (id) DO UPDATE SET deployment_aware = excluded.deployment_aware, deployments = excluded.deployments,"+
		" priority_min = excluded.priority_min, priority_max = excluded.priority_max, pool_size = excluded.pool_size,"+
		" queue_size = excluded.queue_size, inflight = excluded.inflight, heartbeat = excluded.heartbeat",
		Values(info)...)
}

// RemoveJobExecutor deletes a stopped executor's report.
func RemoveJobExecutor(id string) Write {
	return newWrite("DELETE FROM job_executor WHERE id = $1", id)
}

// StaleJobExecutors are the executors other than self that have not
// reported since staleBefore.
func StaleJobExecutors(staleBefore time.Time, self string) Query[*JobExecutorInfo] {
	return newQuery[*JobExecutorInfo]("WHERE heartbeat < $1 AND id <> $2", staleBefore, self)
}

// TakeOverLocksOfStaleExecutors removes the reports of the stale
// executors (as StaleJobExecutors found them) that still have not reported
// since staleBefore, and releases the job locks they held (the revision is
// bumped: the old holder is fenced). It returns how many locks per
// executor. A report is removed before its locks are released, under its
// row lock: of two executors taking over the same owner, one does it.
func TakeOverLocksOfStaleExecutors(ctx context.Context, tx Tx, stale []*JobExecutorInfo, staleBefore time.Time) (map[string]int, error) {
	taken := map[string]int{}
	for _, x := range stale {
		n, err := tx.Exec(ctx, "DELETE FROM job_executor WHERE id = $1 AND heartbeat < $2", x.ID, staleBefore)
		if err != nil {
			return nil, fmt.Errorf("remove the report of job executor %s: %w", x.ID, err)
		}
		if n == 0 {
			continue // reported again, or taken over by another executor
		}
		n, err = tx.Exec(ctx, "UPDATE job SET lock_owner = NULL, lock_expiration = NULL, rev = rev + 1 WHERE lock_owner IS NOT NULL AND lock_owner = $1", x.ID)
		if err != nil {
			return nil, fmt.Errorf("release the job locks of job executor %s: %w", x.ID, err)
		}
		taken[x.ID] = int(n)
	}
	return taken, nil
}

// LiveJobExecutors are the executors that reported since since.
func LiveJobExecutors(since time.Time) Query[*JobExecutorInfo] {
	return newQuery[*JobExecutorInfo]("WHERE heartbeat >= $1 ORDER BY id", since)
}

// DeleteVariablesOfExecution deletes the local variables of an execution.
func DeleteVariablesOfExecution(executionID string) Write {
	return newWrite("DELETE FROM variable WHERE execution_id = $1", executionID)
}

// DeleteStartTimers deletes the timer start jobs (handler type handler) of
// a process definition.
func DeleteStartTimers(processDefinitionID, handler string) Write {
	return newWrite("DELETE FROM job WHERE process_definition_id = $1 AND process_instance_id IS NULL AND handler_type = $2",
		processDefinitionID, handler)
}

// DeleteStartSubscriptions deletes the start event subscriptions (message,
// signal, conditional) of a process definition; those of its instances
// (compensations, which belong to no execution) stay.
func DeleteStartSubscriptions(processDefinitionID string) Write {
	return newWrite("DELETE FROM event_subscription WHERE process_definition_id = $1 AND execution_id IS NULL AND process_instance_id IS NULL", processDefinitionID)
}

// DeleteDefinitionRows deletes what a process definition leaves once no
// instance of it runs: its jobs, subscriptions and job definitions.
func DeleteDefinitionRows(processDefinitionID string) []Write {
	return []Write{
		newWrite("DELETE FROM job WHERE process_definition_id = $1", processDefinitionID),
		newWrite("DELETE FROM event_subscription WHERE process_definition_id = $1", processDefinitionID),
		newWrite("DELETE FROM job_definition WHERE process_definition_id = $1", processDefinitionID),
	}
}

// LatestFormDefinition is the latest version of the form with key of
// tenant ("": of no tenant).
func LatestFormDefinition(key, tenant string) Query[*FormDefinition] {
	return newQuery[*FormDefinition]("WHERE key = $1 AND COALESCE(tenant_id, '') = $2 ORDER BY version DESC LIMIT 1", key, tenant)
}

// FormDefinitionVersion is version of the form with key of tenant.
func FormDefinitionVersion(key, tenant string, version int) Query[*FormDefinition] {
	return newQuery[*FormDefinition]("WHERE key = $1 AND COALESCE(tenant_id, '') = $2 AND version = $3", key, tenant, version)
}

// FormDefinitionOfDeployment is the form with key deployed by deployment.
func FormDefinitionOfDeployment(key, deploymentID string) Query[*FormDefinition] {
	return newQuery[*FormDefinition]("WHERE key = $1 AND deployment_id = $2", key, deploymentID)
}

// DeleteFormDefinitionsOfDeployment deletes the forms of a deployment.
func DeleteFormDefinitionsOfDeployment(deploymentID string) Write {
	return newWrite("DELETE FROM form_definition WHERE deployment_id = $1", deploymentID)
}

// DeleteResourcesOfDeployment deletes the files of a deployment.
func DeleteResourcesOfDeployment(deploymentID string) Write {
	return newWrite("DELETE FROM resource WHERE deployment_id = $1", deploymentID)
}

// List runs q in a read-only transaction of its own.
func List[T Entity](ctx context.Context, db DB, q Query[T]) ([]T, error) {
	t, err := db.Begin(ctx, true)
	if err != nil {
		return nil, err
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(ctx)) }()
	return Select(ctx, t, q)
}

// counter is a filter's query, whatever its entity.
type counter interface {
	count(ctx context.Context, db DB) (int, error)
}

// CountFilter is the number of rows filter (a value of a filter type
// above) selects, its Page aside, judged at now: what Count counts of the
// query its At or Query method makes.
func CountFilter(ctx context.Context, db DB, filter any, now time.Time) (int, error) {
	if n, ok, err := keptCount(ctx, db, filter); ok {
		return n, err
	}
	v := reflect.ValueOf(filter)
	var q []reflect.Value
	if at := v.MethodByName("At"); at.IsValid() {
		q = at.Call([]reflect.Value{reflect.ValueOf(now)})
	} else if m := v.MethodByName("Query"); m.IsValid() && m.Type().NumIn() == 0 {
		q = m.Call(nil)
	}
	if len(q) != 1 {
		return 0, fmt.Errorf("%w: %T is no query type", ErrInvalidQuery, filter)
	}
	c, ok := q[0].Interface().(counter)
	if !ok {
		return 0, fmt.Errorf("%w: %T is no query type", ErrInvalidQuery, filter)
	}
	return c.count(ctx, db)
}

func (q Query[T]) count(ctx context.Context, db DB) (int, error) { return Count(ctx, db, q) }

// Count is the number of rows filter query q selects (all of them, its
// Page aside), read in a transaction of its own.
func Count[T Entity](ctx context.Context, db DB, q Query[T]) (int, error) {
	n, err := aggregate(ctx, db, q, "count(*)")
	return int(n), err
}

// Sum is the sum of an integer column over the rows filter query q
// selects (0 for none), read in a transaction of its own.
func Sum[T Entity](ctx context.Context, db DB, q Query[T], column string) (int64, error) {
	if !slices.Contains(q.Table().Columns, column) {
		return 0, fmt.Errorf("persistence: sum of %s: no column %s", q.Table().Name, column)
	}
	return aggregate(ctx, db, q, "COALESCE(SUM("+column+"), 0)")
}

// aggregate is the integer value of expr over the rows of filter query q.
func aggregate[T Entity](ctx context.Context, db DB, q Query[T], expr string) (int64, error) {
	if q.err != nil {
		return 0, q.err
	}
	if !q.filter {
		return 0, fmt.Errorf("persistence: %s of %s: not a filter's query", expr, q)
	}
	t, err := db.Begin(ctx, true)
	if err != nil {
		return 0, err
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(ctx)) }()
	rows, err := t.Query(ctx, "SELECT "+expr+" FROM "+q.Table().Name+" "+q.conds, q.args...)
	if err != nil {
		return 0, fmt.Errorf("%s of %s: %w", expr, q, err)
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return 0, fmt.Errorf("%s of %s: %w", expr, q, err)
	}
	return n, nil
}

// EnsureJob inserts j unless a job with its id exists (the one history
// cleanup job, which several nodes may schedule at once).
func EnsureJob(j *Job) Write {
	s := JobTable.statements()
	return newWrite(s.insert+" ON CONFLICT (id) DO NOTHING", Values(j)...)
}

// SetRemovalTime gives every process instance of a hierarchy (by its root
// instance) the time its history may be removed.
func SetRemovalTime(rootProcessInstanceID string, at time.Time) Write {
	return newWrite("UPDATE hist_process_instance SET removal_time = $1, rev = rev + 1 WHERE root_process_instance_id = $2",
		at, rootProcessInstanceID)
}

// ExpiredHistory is up to limit process instances whose history may be
// removed at now, the longest expired first.
func ExpiredHistory(now time.Time, limit int) Query[*HistoricProcessInstance] {
	return newQuery[*HistoricProcessInstance]("WHERE removal_time <= $1 ORDER BY removal_time, id LIMIT $2", now, limit)
}

// RemoveHistory deletes the history of the given process instances: their
// decision evaluations, activity instances, variables, tasks (with their
// comments and attachments), incidents, job log and themselves.
func RemoveHistory(processInstanceIDs []string) []Write {
	if len(processInstanceIDs) == 0 {
		return nil
	}
	list, args := inList(processInstanceIDs)
	ws := removeDecisionsOfInstances(list, args)
	// The comments and attachments of their tasks go before the tasks.
	for _, t := range []string{"task_comment", "task_attachment"} {
		ws = append(ws, newWrite("DELETE FROM "+t+" WHERE task_id IN (SELECT id FROM hist_task WHERE process_instance_id IN "+list+")", args...))
	}
	for _, t := range []string{"hist_activity_instance", "hist_variable", "hist_task", "hist_incident", "external_task_log", "hist_detail"} {
		ws = append(ws, newWrite("DELETE FROM "+t+" WHERE process_instance_id IN "+list, args...))
	}
	// Job log entries carry the instance on their creation entry (indexed);
	// a job's other entries are found through it.
	ws = append(ws, newWrite("DELETE FROM job_log WHERE job_id IN (SELECT job_id FROM job_log WHERE event = 'created' AND process_instance_id IN "+list+")", args...))
	return append(ws, removedInstancesCount("WHERE id IN "+list, args), newWrite("DELETE FROM hist_process_instance WHERE id IN "+list, args...))
}

// VariablesOfTask are a user task's local variables.
func VariablesOfTask(taskID string) Query[*Variable] {
	return newQuery[*Variable]("WHERE task_id = $1", taskID)
}

// DeleteVariablesOfTask deletes a user task's local variables (the task ends).
func DeleteVariablesOfTask(taskID string) Write {
	return newWrite("DELETE FROM variable WHERE task_id = $1", taskID)
}

// FormDefinitionsOfDeployment are the forms a deployment deployed.
func FormDefinitionsOfDeployment(deploymentID string) Query[*FormDefinition] {
	return newQuery[*FormDefinition]("WHERE deployment_id = $1 ORDER BY key", deploymentID)
}
