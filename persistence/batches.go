package persistence

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Batches, as Camunda's: one operation over many items, run as jobs of
// three job definitions of the batch's own (a seed job that creates the
// execution jobs, the execution jobs, a monitor job that ends the batch).

// Batch is a running batch (the public bpmnlite.Batch).
type Batch struct {
	ID   string
	Rev  int
	Type string // the batch type, e.g. "instance-deletion"
	// TotalJobs is how many execution jobs the batch needs; JobsCreated
	// how many its seed job created so far.
	TotalJobs              int
	JobsCreated            int
	BatchJobsPerSeed       int
	InvocationsPerBatchJob int
	SeedJobDefinitionID    string
	MonitorJobDefinitionID string
	BatchJobDefinitionID   string
	Suspension             int
	// Configuration is what the seed job still has to hand to execution
	// jobs: the batch's parameters and the items not yet given to a job
	// (JSON, its type's). Lists (BatchFilter) leave it empty.
	Configuration      string
	TenantID           string
	CreateUserID       string
	StartTime          time.Time
	ExecutionStartTime *time.Time // when its first execution job ran
}

// HistoricBatch is a batch in history: written when it starts, ended
// when its monitor job finds its execution jobs done, or when it is
// deleted (the public bpmnlite.HistoricBatch).
type HistoricBatch struct {
	ID                     string
	Rev                    int
	Type                   string
	TotalJobs              int
	BatchJobsPerSeed       int
	InvocationsPerBatchJob int
	SeedJobDefinitionID    string
	MonitorJobDefinitionID string
	BatchJobDefinitionID   string
	TenantID               string
	CreateUserID           string
	StartTime              time.Time
	EndTime                *time.Time
	RemovalTime            *time.Time
	ExecutionStartTime     *time.Time
}

var BatchTable = newTable[Batch]("batch", orderRuntime)

func (e *Batch) row() (*Table, addr) { return BatchTable, addr(e) }

var HistoricBatchTable = newTable[HistoricBatch]("hist_batch", orderHistory)

func (e *HistoricBatch) row() (*Table, addr) { return HistoricBatchTable, addr(e) }

// BatchFilter selects running batches, oldest first (Camunda's batch
// query and batch statistics query).
type BatchFilter struct {
	Page `sort:"batchId=id tenantId"`
	Tenants
	ID        string     `where:"id" param:"batchId"`
	Type      string     `where:"type" param:"type"`
	Suspended *bool      `where:"suspension = CASE WHEN ? THEN 2 ELSE 1 END" param:"suspended"`
	CreatedBy string     `where:"create_user_id" param:"createdBy"`
	Before    *time.Time `where:"start_time <=" param:"startedBefore"`
	After     *time.Time `where:"start_time >=" param:"startedAfter"`
	// WithFailures: batches with an execution job without retries left;
	// WithoutFailures: those with none.
	WithFailures    bool `where:"EXISTS (SELECT 1 FROM job j WHERE j.job_definition_id = batch.batch_job_definition_id AND j.process_definition_id IS NULL AND j.retries = 0)" param:"withFailures"`
	WithoutFailures bool `where:"NOT EXISTS (SELECT 1 FROM job j WHERE j.job_definition_id = batch.batch_job_definition_id AND j.process_definition_id IS NULL AND j.retries = 0)" param:"withoutFailures"`
}

// Query is the filter's query. It leaves Configuration out: while a
// large batch is being seeded it holds every item not handed out yet,
// which a list polled for progress has no use for.
func (f BatchFilter) Query() Query[*Batch] {
	f.Tenants = f.Tenants.conditions(false)
	q := filterQuery[*Batch](f, time.Time{}, "start_time, id")
	q.columns = listedBatchColumns
	return q
}

// listedBatchColumns is the batch table's column list without its
// configuration.
var listedBatchColumns = func() string {
	cols := slices.Clone(BatchTable.Columns)
	cols[slices.Index(cols, "configuration")] = "NULL"
	return strings.Join(cols, ", ")
}()

// HistoricBatchFilter selects batches in history, oldest first.
type HistoricBatchFilter struct {
	Page `sort:"batchId=id startTime endTime tenantId"`
	Tenants
	ID   string `where:"id" param:"batchId"`
	Type string `where:"type" param:"type"`
	// Completed: true, the ended batches; false, those still running.
	Completed *bool `where:"(end_time IS NOT NULL) = ?" param:"completed"`
}

func (f HistoricBatchFilter) Query() Query[*HistoricBatch] {
	f.Tenants = f.Tenants.conditions(false)
	return filterQuery[*HistoricBatch](f, time.Time{}, "start_time, id")
}

// BatchJobCounts is how many jobs of a batch's execution job definition
// there are, how many of them have no retries left, and the batch's
// JobsCreated, read with them: in one statement, so that a seed run
// between two reads cannot make the progress go negative.
type BatchJobCounts struct{ Jobs, Failed, JobsCreated int }

// CountBatchJobs counts the jobs of each of the given job definitions
// (batch execution job definitions) of running batches, read in a
// transaction of its own.
func CountBatchJobs(ctx context.Context, db DB, jobDefinitionIDs []string) (map[string]BatchJobCounts, error) {
	out := make(map[string]BatchJobCounts, len(jobDefinitionIDs))
	if len(jobDefinitionIDs) == 0 {
		return out, nil
	}
	t, err := db.Begin(ctx, true)
	if err != nil {
		return nil, err
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(ctx)) }()
	list, args := inList(jobDefinitionIDs)
	// process_definition_id IS NULL: the partial index job_detached.
	rows, err := t.Query(ctx, "SELECT b.batch_job_definition_id, b.jobs_created, count(j.id), COALESCE(SUM(CASE WHEN j.retries = 0 THEN 1 ELSE 0 END), 0)"+
		" FROM batch b LEFT JOIN job j ON j.job_definition_id = b.batch_job_definition_id AND j.process_definition_id IS NULL"+
		" WHERE b.batch_job_definition_id IN "+list+" GROUP BY b.batch_job_definition_id, b.jobs_created", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var c BatchJobCounts
		if err := rows.Scan(&id, &c.JobsCreated, &c.Jobs, &c.Failed); err != nil {
			return nil, err
		}
		out[id] = c
	}
	return out, rows.Err()
}

// JobsOfBatchDefinition are the jobs of one of a batch's job definitions.
func JobsOfBatchDefinition(jobDefinitionID string) Query[*Job] {
	return newQuery[*Job]("WHERE job_definition_id = $1 AND process_definition_id IS NULL", jobDefinitionID)
}

// HasBatchJobs holds when a batch's execution job definition has jobs
// left: at most one row.
func HasBatchJobs(jobDefinitionID string) Query[*Job] {
	return newQuery[*Job]("WHERE job_definition_id = $1 AND process_definition_id IS NULL LIMIT 1", jobDefinitionID)
}

// StartBatchExecution records when a batch's first execution job ran,
// in the batch and its history, unless it was recorded: a write without
// a read, so that execution jobs running side by side neither read the
// batch row nor conflict over it after the first.
func StartBatchExecution(batchID string, at time.Time) []Write {
	return []Write{
		newWrite("UPDATE batch SET execution_start_time = $1, rev = rev + 1 WHERE id = $2 AND execution_start_time IS NULL", at, batchID),
		newWrite("UPDATE hist_batch SET execution_start_time = $1, rev = rev + 1 WHERE id = $2 AND execution_start_time IS NULL", at, batchID),
	}
}

// RemoveBatchHistory deletes a batch's history: its record, and the
// incidents and job log of its job definitions.
func RemoveBatchHistory(batchID string, jobDefinitionIDs []string) []Write {
	ws := []Write{newWrite("DELETE FROM hist_batch WHERE id = $1", batchID)}
	if len(jobDefinitionIDs) > 0 {
		list, args := inList(jobDefinitionIDs)
		ws = append(ws,
			newWrite("DELETE FROM hist_incident WHERE job_definition_id IN "+list, args...),
			newWrite("DELETE FROM job_log WHERE job_definition_id IN "+list, args...))
	}
	return ws
}

// SetInstanceRemovalTime gives a process instance's history the time it
// may be removed (nil: kept), or with hierarchy every instance of the
// hierarchy whose root is rootID.
func SetInstanceRemovalTime(id, rootID string, hierarchy bool, at *time.Time) Write {
	if hierarchy {
		return newWrite("UPDATE hist_process_instance SET removal_time = $1, rev = rev + 1 WHERE root_process_instance_id = $2", at, rootID)
	}
	return newWrite("UPDATE hist_process_instance SET removal_time = $1, rev = rev + 1 WHERE id = $2", at, id)
}
