package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Batches, as Camunda's batch model: one operation over many items (process
// instances, jobs, ...) runs as ordinary jobs of three job definitions the
// batch creates for itself, so the job executor runs them with retries,
// incidents, suspension and several nodes like any job:
//
//   - the seed job creates Config.Batches.JobsPerSeed execution jobs at a
//     time, each with InvocationsPerBatchJob items in its own handler
//     configuration (Camunda's byte array per job: no job holds more
//     than its items), then schedules itself again until every item has
//     its job, and then the monitor job;
//   - an execution job does its items in its own transaction, by the
//     batch type's handler;
//   - the monitor job looks every PollInterval whether execution jobs are
//     left and, when none are, ends the batch (its history gets its end).
//
// A batch type is one registerBatchType call (batch_types.go registers
// deletion and retries): its name, Camunda's batch type, is the batch's
// type and its execution jobs' handler type; its handler gets the batch's
// parameters as they were given to CreateBatch (JSON) and the items of one
// job. A new type (migration, modification, restart) needs nothing else:
// create its batches with CreateBatch.

// Handler types of a batch's seed and monitor jobs (Camunda's job types of
// their job definitions).
const (
	handlerBatchSeed    = "batch-seed-job"
	handlerBatchMonitor = "batch-monitor-job"
)

// BatchHandler does one execution job's items in c's transaction; params
// is the batch's parameters as CreateBatch was given them, as JSON. Its
// error fails the job (and rolls back its work): retries, then an
// incident on the job.
type BatchHandler func(c *command, params json.RawMessage, items []string) error

var batchHandlers = map[string]BatchHandler{}

// registerBatchType makes typ a batch type whose execution jobs run run.
func registerBatchType(typ string, run BatchHandler) {
	batchHandlers[typ] = run
	registerJobHandler(typ, jobHandler{detached: true,
		run: func(c *command, j *persistence.Job, _ *execution, _ *bpmn.Activity) error {
			return c.runBatchJob(j, run)
		}})
}

func init() {
	registerJobHandler(handlerBatchSeed, jobHandler{detached: true,
		run: func(c *command, j *persistence.Job, _ *execution, _ *bpmn.Activity) error {
			return c.runBatchSeed(j)
		}})
	registerJobHandler(handlerBatchMonitor, jobHandler{detached: true,
		run: func(c *command, j *persistence.Job, _ *execution, _ *bpmn.Activity) error {
			return c.runBatchMonitor(j)
		}})
}

// BatchHandlerTypes lists the handler types of batch jobs (seed, monitor
// and every batch type's execution jobs), sorted: a job executor tells
// them from ordinary jobs by these, to keep its share of batch jobs.
func (e *Core) BatchHandlerTypes() []string {
	types := []string{handlerBatchSeed, handlerBatchMonitor}
	for typ := range batchHandlers {
		types = append(types, typ)
	}
	slices.Sort(types)
	return types
}

// ErrNoBatchItems: a batch needs at least one item.
var ErrNoBatchItems = errors.New("a batch needs at least one item")

// batchConfig is what a batch's seed job still has to hand out.
type batchConfig struct {
	Params json.RawMessage `json:"params,omitempty"`
	Items  []string        `json:"items"`
}

// batchJobConfig is an execution job's handler configuration: its items.
type batchJobConfig struct {
	BatchID string          `json:"batchId"`
	Params  json.RawMessage `json:"params,omitempty"`
	Items   []string        `json:"items"`
}

// BatchOptions say who creates a batch, for its record.
type BatchOptions struct {
	TenantID     string
	CreateUserID string
}

// CreateBatch creates a batch of type typ (registered) over items, with
// params (marshalled to JSON) for its handler, and its seed job.
func (e *Core) CreateBatch(ctx context.Context, typ string, items []string, params any, opt BatchOptions) (*persistence.Batch, error) {
	var b *persistence.Batch
	err := e.command(ctx, nil, "create_batch", func(c *command) error {
		var err error
		b, err = c.createBatch(typ, items, params, opt)
		return err
	})
	return b, err
}

func (c *command) createBatch(typ string, items []string, params any, opt BatchOptions) (*persistence.Batch, error) {
	if batchHandlers[typ] == nil {
		return nil, fmt.Errorf("batch type %q: no such type", typ)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("batch %s: %w", typ, ErrNoBatchItems)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("batch %s: its parameters: %w", typ, err)
	}
	conf, err := json.Marshal(batchConfig{Params: raw, Items: items})
	if err != nil {
		return nil, err
	}
	cfg := c.e.Config.Batches
	perJob := cfg.InvocationsPerBatchJob
	if n := cfg.InvocationsPerBatchJobByType[typ]; n > 0 {
		perJob = n
	}
	now := c.cc.Now().UTC()
	b := &persistence.Batch{
		ID: newID(), Rev: 1, Type: typ,
		TotalJobs: (len(items) + perJob - 1) / perJob, BatchJobsPerSeed: cfg.JobsPerSeed, InvocationsPerBatchJob: perJob,
		Suspension: persistence.Active, Configuration: string(conf),
		TenantID: opt.TenantID, CreateUserID: opt.CreateUserID, StartTime: now,
	}
	def := func(handler string) string {
		jd := &persistence.JobDefinition{ID: newID(), Rev: 1, JobType: persistence.JobMessage, JobConfiguration: b.ID,
			Suspension: persistence.Active, HandlerType: handler}
		c.cc.Insert(jd)
		return jd.ID
	}
	b.SeedJobDefinitionID, b.MonitorJobDefinitionID, b.BatchJobDefinitionID = def(handlerBatchSeed), def(handlerBatchMonitor), def(typ)
	c.cc.Insert(b)
	if c.e.history(config.HistoryFull) {
		c.cc.Insert(&persistence.HistoricBatch{
			ID: b.ID, Rev: 1, Type: typ, TotalJobs: b.TotalJobs, BatchJobsPerSeed: b.BatchJobsPerSeed,
			InvocationsPerBatchJob: perJob, SeedJobDefinitionID: b.SeedJobDefinitionID,
			MonitorJobDefinitionID: b.MonitorJobDefinitionID, BatchJobDefinitionID: b.BatchJobDefinitionID,
			TenantID: b.TenantID, CreateUserID: b.CreateUserID, StartTime: now,
		})
	}
	c.insertJob(c.batchJob(b, b.SeedJobDefinitionID, handlerBatchSeed, b.ID))
	return b, nil
}

// batchJob is a new job of batch b, of job definition defID.
func (c *command) batchJob(b *persistence.Batch, defID, handler, handlerConfig string) *persistence.Job {
	now := c.cc.Now().UTC()
	j := &persistence.Job{
		ID: newID(), Rev: 1, Type: persistence.JobMessage, JobDefinitionID: defID,
		Retries: c.e.initialRetries(""), HandlerType: handler, HandlerConfig: handlerConfig,
		Suspension: b.Suspension, CreateTime: now, TenantID: b.TenantID, Priority: c.e.Config.Batches.JobPriority,
	}
	if c.e.Config.Jobs.EnsureDueDateNotNull {
		j.DueDate = &now
	}
	return j
}

// batch is batch id, read in c's transaction.
func (c *command) batch(id string) (*persistence.Batch, error) {
	ent, err := c.cc.Get(persistence.BatchTable, id)
	if err != nil {
		return nil, fmt.Errorf("Batch with id '%s' cannot be found: %w", id, err)
	}
	return ent.(*persistence.Batch), nil
}

// runBatchSeed creates the next execution jobs of the batch, then the
// next seed job or, once every item has its job, the monitor job.
func (c *command) runBatchSeed(j *persistence.Job) error {
	b, err := c.batch(j.HandlerConfig)
	if err != nil {
		return err
	}
	var conf batchConfig
	if err := json.Unmarshal([]byte(b.Configuration), &conf); err != nil {
		return fmt.Errorf("batch %s: its configuration: %w", b.ID, err)
	}
	n := min(b.InvocationsPerBatchJob*b.BatchJobsPerSeed, len(conf.Items))
	for chunk := range slices.Chunk(conf.Items[:n], b.InvocationsPerBatchJob) {
		cfg, err := json.Marshal(batchJobConfig{BatchID: b.ID, Params: conf.Params, Items: chunk})
		if err != nil {
			return err
		}
		c.insertJob(c.batchJob(b, b.BatchJobDefinitionID, b.Type, string(cfg)))
		b.JobsCreated++
	}
	conf.Items = conf.Items[n:]
	raw, err := json.Marshal(conf)
	if err != nil {
		return err
	}
	b.Configuration = string(raw)
	c.cc.Update(b)
	if len(conf.Items) > 0 {
		c.insertJob(c.batchJob(b, b.SeedJobDefinitionID, handlerBatchSeed, b.ID))
	} else {
		// Due at once: a small batch may be done by the time it runs.
		c.insertJob(c.batchJob(b, b.MonitorJobDefinitionID, handlerBatchMonitor, b.ID))
	}
	return nil
}

// runBatchJob does an execution job's items by the batch type's handler.
func (c *command) runBatchJob(j *persistence.Job, run BatchHandler) error {
	var conf batchJobConfig
	if err := json.Unmarshal([]byte(j.HandlerConfig), &conf); err != nil {
		return fmt.Errorf("batch job %s: its configuration: %w", j.ID, err)
	}
	c.cc.Write(persistence.StartBatchExecution(conf.BatchID, c.cc.Now().UTC())...)
	return run(c, conf.Params, conf.Items)
}

// runBatchMonitor ends the batch when its execution jobs are done, else
// looks again after the poll interval.
func (c *command) runBatchMonitor(j *persistence.Job) error {
	b, err := c.batch(j.HandlerConfig)
	if err != nil {
		return err
	}
	left, err := tx.Select(c.cc, persistence.HasBatchJobs(b.BatchJobDefinitionID))
	if err != nil {
		return err
	}
	if len(left) > 0 {
		next := c.cc.Now().UTC().Add(c.e.Config.Batches.PollInterval)
		j.DueDate = &next
		c.rescheduled = true
		return nil
	}
	return c.deleteBatch(b, false)
}

// deleteBatch removes batch b with its jobs (not the one running) and job
// definitions, and ends its history, or with cascade removes it with its
// job definitions' incidents and job log.
func (c *command) deleteBatch(b *persistence.Batch, cascade bool) error {
	defIDs := []string{b.SeedJobDefinitionID, b.MonitorJobDefinitionID, b.BatchJobDefinitionID}
	for _, id := range defIDs {
		jobs, err := tx.Select(c.cc, persistence.JobsOfBatchDefinition(id))
		if err != nil {
			return err
		}
		for _, j := range jobs {
			if err := c.deleteJob(j); err != nil {
				return err
			}
		}
		jd, err := c.cc.Get(persistence.JobDefinitionTable, id)
		if err != nil && !errors.Is(err, persistence.ErrNotFound) {
			return err
		}
		if err == nil {
			c.cc.Delete(jd)
		}
	}
	c.cc.Delete(b)
	if cascade {
		c.cc.Write(persistence.RemoveBatchHistory(b.ID, defIDs)...)
		return nil
	}
	ent, err := c.cc.Get(persistence.HistoricBatchTable, b.ID)
	if errors.Is(err, persistence.ErrNotFound) {
		return nil // history off when it started
	}
	if err != nil {
		return err
	}
	h := ent.(*persistence.HistoricBatch)
	end := c.cc.Now().UTC()
	h.EndTime = &end
	c.cc.Update(h)
	return nil
}

// DeleteBatch deletes a running batch and its jobs; cascade removes its
// history too, else its history records its end.
func (e *Core) DeleteBatch(ctx context.Context, id string, cascade bool) error {
	return e.command(ctx, nil, "delete_batch", func(c *command) error {
		b, err := c.batch(id)
		if err != nil {
			return err
		}
		return c.deleteBatch(b, cascade)
	})
}

// SuspendBatch suspends (or with suspend false activates) a batch: its
// job definitions and jobs, so that no job executor acquires them.
func (e *Core) SuspendBatch(ctx context.Context, id string, suspend bool) error {
	return e.command(ctx, nil, "suspend_batch", func(c *command) error {
		b, err := c.batch(id)
		if err != nil {
			return err
		}
		if b.Suspension == suspension(suspend) {
			return nil
		}
		b.Suspension = suspension(suspend)
		c.cc.Update(b)
		for _, defID := range []string{b.SeedJobDefinitionID, b.MonitorJobDefinitionID, b.BatchJobDefinitionID} {
			jd, err := e.jobDefinitionRow(c.cc, defID)
			if err != nil {
				return err
			}
			if err := e.suspendJobDefinition(c.cc, jd, suspend, true); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteHistoricBatch removes a batch's history: its record, and the
// incidents and job log of its jobs.
func (e *Core) DeleteHistoricBatch(ctx context.Context, id string) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		ent, err := cc.Get(persistence.HistoricBatchTable, id)
		if err != nil {
			return fmt.Errorf("Historic batch with id '%s' cannot be found: %w", id, err)
		}
		h := ent.(*persistence.HistoricBatch)
		cc.Write(persistence.RemoveBatchHistory(id, []string{h.SeedJobDefinitionID, h.MonitorJobDefinitionID, h.BatchJobDefinitionID})...)
		return nil
	})
}
