package bpmnlite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// Batches: asynchronous operations over many items, run by the job
// executor as Camunda's batches (a seed job, execution jobs doing
// Config.Batches.InvocationsPerBatchJob items each, a monitor job). See
// docs/changing-running-processes.md.

// Batch is a running batch.
type Batch = persistence.Batch

// HistoricBatch is a batch in history (written at HistoryFull).
type HistoricBatch = persistence.HistoricBatch

// BatchQuery filters running batches; zero fields match all.
type BatchQuery = persistence.BatchFilter

// HistoricBatchQuery filters batches in history; zero fields match all.
type HistoricBatchQuery = persistence.HistoricBatchFilter

// Batch types, Camunda's names (Batch.Type).
const (
	BatchInstanceDeletion         = runtime.BatchInstanceDeletion
	BatchHistoricInstanceDeletion = runtime.BatchHistoricInstanceDeletion
	BatchSetJobRetries            = runtime.BatchSetJobRetries
	BatchSetExternalTaskRetries   = runtime.BatchSetExternalTaskRetries
	BatchUpdateSuspensionState    = runtime.BatchUpdateSuspensionState
	BatchHistoricDecisionDeletion = runtime.BatchHistoricDecisionDeletion
	BatchProcessSetRemovalTime    = runtime.BatchProcessSetRemovalTime
)

// ErrNoBatchItems: a batch was asked for without any item (no ids, and
// the queries given select nothing).
var ErrNoBatchItems = runtime.ErrNoBatchItems

// ErrInvalidBatchRequest: a batch asked for with parameters that cannot
// make one (negative retries, no removal time or several).
var ErrInvalidBatchRequest = errors.New("invalid batch request")

// BatchStatistics is a batch with its progress, as Camunda counts it:
// RemainingJobs are the execution jobs not yet created plus those not yet
// done, CompletedJobs the others, FailedJobs those without retries left.
type BatchStatistics struct {
	*Batch
	RemainingJobs int
	CompletedJobs int
	FailedJobs    int
}

// Batches lists running batches, oldest first.
func (e *Engine) Batches(ctx context.Context, q BatchQuery) ([]*Batch, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// BatchStatistics lists running batches with their progress (count them
// with Count and the same query).
func (e *Engine) BatchStatistics(ctx context.Context, q BatchQuery) ([]*BatchStatistics, error) {
	batches, err := e.Batches(ctx, q)
	if err != nil {
		return nil, err
	}
	defs := make([]string, len(batches))
	for i, b := range batches {
		defs[i] = b.BatchJobDefinitionID
	}
	counts, err := persistence.CountBatchJobs(ctx, e.db, defs)
	if err != nil {
		return nil, err
	}
	out := make([]*BatchStatistics, len(batches))
	for i, b := range batches {
		c, ok := counts[b.BatchJobDefinitionID]
		if ok {
			b.JobsCreated = c.JobsCreated // read with the jobs
		}
		remaining := b.TotalJobs - b.JobsCreated + c.Jobs
		out[i] = &BatchStatistics{Batch: b, RemainingJobs: remaining, CompletedJobs: b.TotalJobs - remaining, FailedJobs: c.Failed}
	}
	return out, nil
}

// HistoricBatches lists batches from history, oldest first.
func (e *Engine) HistoricBatches(ctx context.Context, q HistoricBatchQuery) ([]*HistoricBatch, error) {
	return persistence.List(ctx, e.db, q.Query())
}

// SuspendBatch suspends a batch: its seed, monitor and execution jobs
// are not acquired until ActivateBatch.
func (e *Engine) SuspendBatch(ctx context.Context, id string) error {
	return e.rt.SuspendBatch(ctx, id, true)
}

// ActivateBatch resumes a suspended batch.
func (e *Engine) ActivateBatch(ctx context.Context, id string) error {
	return e.rt.SuspendBatch(ctx, id, false)
}

// DeleteBatch deletes a running batch with its jobs (items not done stay
// undone); cascade removes its history too, else its history records its
// end.
func (e *Engine) DeleteBatch(ctx context.Context, id string, cascade bool) error {
	return e.rt.DeleteBatch(ctx, id, cascade)
}

// DeleteHistoricBatch removes a batch's history, with the incidents and
// job log of its jobs.
func (e *Engine) DeleteHistoricBatch(ctx context.Context, id string) error {
	return e.rt.DeleteHistoricBatch(ctx, id)
}

// DeleteProcessInstancesRequest selects process instances to delete in a
// batch: the union of IDs and of what the queries select.
type DeleteProcessInstancesRequest struct {
	IDs           []string
	Query         *InstanceQuery
	HistoricQuery *HistoricProcessInstanceQuery
	Reason        string
	// SkipCustomListeners and SkipSubprocesses as DeleteOptions.
	SkipCustomListeners bool
	SkipSubprocesses    bool
	// FailIfNotExists fails the job of an instance that ended before it
	// ran (its retries, then an incident); without it (Camunda's default)
	// such an instance is skipped.
	FailIfNotExists bool
}

// DeleteProcessInstancesAsync deletes process instances in a batch.
func (e *Engine) DeleteProcessInstancesAsync(ctx context.Context, req DeleteProcessInstancesRequest) (*Batch, error) {
	ids, err := e.instanceItems(ctx, req.IDs, req.Query, req.HistoricQuery)
	if err != nil {
		return nil, err
	}
	return e.rt.CreateBatch(ctx, BatchInstanceDeletion, ids, runtime.DeleteInstancesParams{DeleteOptions: DeleteOptions{Reason: req.Reason,
		SkipCustomListeners: req.SkipCustomListeners, SkipSubprocesses: req.SkipSubprocesses}, FailIfNotExists: req.FailIfNotExists}, runtime.BatchOptions{})
}

// InstancesSuspensionRequest selects process instances a batch suspends
// (or activates): the union of IDs and of what the queries select.
type InstancesSuspensionRequest struct {
	IDs           []string
	Query         *InstanceQuery
	HistoricQuery *HistoricProcessInstanceQuery
	// Suspend suspends them; false activates them.
	Suspend bool
}

// SuspendProcessInstancesAsync suspends or activates process instances in
// a batch (Camunda's updateProcessInstanceSuspensionState ... suspendAsync
// and activateAsync); an instance that ended meanwhile is skipped.
func (e *Engine) SuspendProcessInstancesAsync(ctx context.Context, req InstancesSuspensionRequest) (*Batch, error) {
	ids, err := e.instanceItems(ctx, req.IDs, req.Query, req.HistoricQuery)
	if err != nil {
		return nil, err
	}
	return e.rt.CreateBatch(ctx, BatchUpdateSuspensionState, ids, runtime.SuspensionParams{Suspended: req.Suspend}, runtime.BatchOptions{})
}

// DeleteHistoricProcessInstancesRequest selects ended process instances
// whose history a batch deletes: the union of IDs and of what Query
// selects.
type DeleteHistoricProcessInstancesRequest struct {
	IDs   []string
	Query *HistoricProcessInstanceQuery
	// FailIfNotExists fails the job of an instance whose history is gone
	// (its retries, then an incident); without it, it is skipped.
	FailIfNotExists bool
}

// DeleteHistoricProcessInstancesAsync deletes the history of ended process
// instances in a batch; a running instance among them fails its job.
func (e *Engine) DeleteHistoricProcessInstancesAsync(ctx context.Context, req DeleteHistoricProcessInstancesRequest) (*Batch, error) {
	ids, err := e.instanceItems(ctx, req.IDs, nil, req.Query)
	if err != nil {
		return nil, err
	}
	return e.rt.CreateBatch(ctx, BatchHistoricInstanceDeletion, ids, runtime.DeleteHistoryParams{FailIfNotExists: req.FailIfNotExists}, runtime.BatchOptions{})
}

// DeleteHistoricDecisionInstancesRequest selects decision evaluations
// whose history a batch deletes (with their inputs and outputs): the
// union of IDs and of what Query selects.
type DeleteHistoricDecisionInstancesRequest struct {
	IDs   []string
	Query *HistoricDecisionInstanceQuery
}

// DeleteHistoricDecisionInstancesAsync deletes the history of decision
// evaluations in a batch.
func (e *Engine) DeleteHistoricDecisionInstancesAsync(ctx context.Context, req DeleteHistoricDecisionInstancesRequest) (*Batch, error) {
	ids, err := e.batchItems(ctx, req.IDs, func(add func(...string)) error {
		if req.Query == nil {
			return nil
		}
		rows, err := e.HistoricDecisionInstances(ctx, *req.Query)
		for _, r := range rows {
			add(r.ID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return e.rt.CreateBatch(ctx, BatchHistoricDecisionDeletion, ids, nil, runtime.BatchOptions{})
}

// RemovalTimeRequest selects process instances in history whose removal
// time (when the history cleanup removes them) a batch sets: the union of
// IDs and of what Query selects. One of Absolute (the time), Cleared
// (kept for good) and Calculated (from the end of the instance's root and
// the history time to live, as when it ends) says the time.
type RemovalTimeRequest struct {
	IDs        []string
	Query      *HistoricProcessInstanceQuery
	Absolute   *time.Time
	Cleared    bool
	Calculated bool
	// Hierarchical sets it on every instance of each one's call hierarchy.
	Hierarchical bool
}

// SetRemovalTimeAsync sets the removal time of process instances' history
// in a batch (Camunda's setRemovalTimeToHistoricProcessInstances).
func (e *Engine) SetRemovalTimeAsync(ctx context.Context, req RemovalTimeRequest) (*Batch, error) {
	modes := 0
	for _, set := range []bool{req.Absolute != nil, req.Cleared, req.Calculated} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return nil, fmt.Errorf("%w: the removal time: give exactly one of an absolute time, cleared and calculated", ErrInvalidBatchRequest)
	}
	ids, err := e.instanceItems(ctx, req.IDs, nil, req.Query)
	if err != nil {
		return nil, err
	}
	p := runtime.RemovalTimeParams{Calculated: req.Calculated, Hierarchical: req.Hierarchical}
	if req.Absolute != nil {
		at := req.Absolute.UTC()
		p.Time = &at
	}
	return e.rt.CreateBatch(ctx, BatchProcessSetRemovalTime, ids, p, runtime.BatchOptions{})
}

// JobRetriesRequest selects jobs whose retries a batch sets: the union of
// IDs, of what Query selects, and of the jobs of ProcessInstanceIDs and of
// the instances the instance queries select.
type JobRetriesRequest struct {
	IDs                []string
	Query              *JobQuery
	ProcessInstanceIDs []string
	InstanceQuery      *InstanceQuery
	HistoricQuery      *HistoricProcessInstanceQuery
	Retries            int
	// SetDueDate also sets each job's due date to DueDate (nil: due at
	// once), as Camunda's dueDate of a retries update.
	SetDueDate bool
	DueDate    *time.Time
}

// SetJobRetriesAsync sets the retries of jobs in a batch: retries above 0
// resolve a job's incident, 0 raises one.
func (e *Engine) SetJobRetriesAsync(ctx context.Context, req JobRetriesRequest) (*Batch, error) {
	if req.Retries < 0 {
		return nil, fmt.Errorf("%w: retries must not be negative", ErrInvalidBatchRequest)
	}
	ids, err := e.batchItems(ctx, req.IDs, func(add func(...string)) error {
		instances, err := e.instanceIDs(ctx, req.ProcessInstanceIDs, req.InstanceQuery, req.HistoricQuery)
		if err != nil {
			return err
		}
		var queries []JobQuery
		if len(instances) > 0 {
			queries = append(queries, JobQuery{ProcessInstanceIDs: instances})
		}
		if req.Query != nil {
			queries = append(queries, *req.Query)
		}
		for _, q := range queries {
			jobs, err := e.Jobs(ctx, q)
			if err != nil {
				return err
			}
			for _, j := range jobs {
				add(j.ID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var due *time.Time
	if req.DueDate != nil {
		d := req.DueDate.UTC()
		due = &d
	}
	return e.rt.CreateBatch(ctx, BatchSetJobRetries, ids, runtime.RetriesParams{Retries: req.Retries, DueDate: due, DueDateSet: req.SetDueDate}, runtime.BatchOptions{})
}

// ExternalTaskRetriesRequest selects external tasks whose retries a batch
// sets: the union of IDs, of the tasks of ProcessInstanceIDs and of the
// instances the instance queries select, and of what Query selects.
type ExternalTaskRetriesRequest struct {
	IDs                []string
	ProcessInstanceIDs []string
	Query              *ExternalTaskQuery
	InstanceQuery      *InstanceQuery
	HistoricQuery      *HistoricProcessInstanceQuery
	Retries            int
}

// SetExternalTaskRetriesAsync sets the retries of external tasks in a
// batch: 0 raises a task's incident, more resolves it.
func (e *Engine) SetExternalTaskRetriesAsync(ctx context.Context, req ExternalTaskRetriesRequest) (*Batch, error) {
	if req.Retries < 0 {
		return nil, fmt.Errorf("%w: the number of retries cannot be negative", ErrInvalidBatchRequest)
	}
	ids, err := e.batchItems(ctx, req.IDs, func(add func(...string)) error {
		instances, err := e.instanceIDs(ctx, req.ProcessInstanceIDs, req.InstanceQuery, req.HistoricQuery)
		if err != nil {
			return err
		}
		var queries []ExternalTaskQuery
		if len(instances) > 0 {
			queries = append(queries, ExternalTaskQuery{ProcessInstanceIDs: instances})
		}
		if req.Query != nil {
			queries = append(queries, *req.Query)
		}
		for _, q := range queries {
			tasks, err := e.ExternalTasks(ctx, q)
			if err != nil {
				return err
			}
			for _, t := range tasks {
				add(t.ID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e.rt.CreateBatch(ctx, BatchSetExternalTaskRetries, ids, runtime.RetriesParams{Retries: req.Retries}, runtime.BatchOptions{})
}

// instanceIDs are ids and those of the running instances q and the
// instances in history hq select (each query when not nil).
func (e *Engine) instanceIDs(ctx context.Context, ids []string, q *InstanceQuery, hq *HistoricProcessInstanceQuery) ([]string, error) {
	out := append([]string{}, ids...)
	if q != nil {
		rows, err := e.Instances(ctx, *q)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, r.ID)
		}
	}
	if hq != nil {
		rows, err := persistence.List(ctx, e.db, hq.Query())
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, r.ID)
		}
	}
	return out, nil
}

// instanceItems are the process instances ids, q and hq select, as a
// batch's items.
func (e *Engine) instanceItems(ctx context.Context, ids []string, q *InstanceQuery, hq *HistoricProcessInstanceQuery) ([]string, error) {
	return e.batchItems(ctx, ids, func(add func(...string)) error {
		more, err := e.instanceIDs(ctx, nil, q, hq)
		add(more...)
		return err
	})
}

// batchItems is ids and what more adds, each once, in that order; none
// is an ErrNoBatchItems.
func (e *Engine) batchItems(ctx context.Context, ids []string, more func(add func(...string)) error) ([]string, error) {
	seen := make(map[string]bool, len(ids))
	var out []string
	add := func(ids ...string) {
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	add(ids...)
	if err := more(add); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, ErrNoBatchItems
	}
	return out, ctx.Err()
}
