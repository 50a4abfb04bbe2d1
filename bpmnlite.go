package bpmnlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/jobexecutor"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// Config configures an engine; package config documents every field and
// its default. The zero value opens bpmnlite.db in the working directory
// with history and job priorities on.
type Config = config.Config

// The parts of Config.
type (
	// DatabaseConfig says which database the engine uses (Config.Database).
	DatabaseConfig = config.Database
	// HistoryConfig says what history the engine writes (Config.History).
	HistoryConfig = config.History
	// JobsConfig says how the engine creates jobs (Config.Jobs).
	JobsConfig = config.Jobs
	// LimitsConfig bounds commands, deployments, variables and the
	// definition cache (Config.Limits).
	LimitsConfig = config.Limits
	// JobExecutorConfig configures a job executor (Config.JobExecutor, or
	// NewJobExecutor).
	JobExecutorConfig = config.JobExecutor
	// MetricsConfig says how the engine reports its meters (Config.Metrics).
	MetricsConfig = config.Metrics
	// FlowTaken is what Config.SequenceFlowTaken is told.
	FlowTaken = config.FlowTaken
	// BatchConfig says how batches split their items into jobs
	// (Config.Batches).
	BatchConfig = config.Batches
)

// DefaultBatchPollInterval is Config.Batches.PollInterval's default.
const DefaultBatchPollInterval = config.DefaultBatchPollInterval

// HistoryLevel is how much history an engine writes (Config.History.Level).
type HistoryLevel = config.HistoryLevel

// History levels, as Camunda's: each records what the one before it does
// and more.
const (
	HistoryNone     = config.HistoryNone
	HistoryActivity = config.HistoryActivity
	HistoryAudit    = config.HistoryAudit // the default
	HistoryFull     = config.HistoryFull
)

// DefaultDefinitionCacheBytes is Config.Limits.DefinitionCacheBytes's default.
const DefaultDefinitionCacheBytes = config.DefaultDefinitionCacheBytes

// DefaultMaxVariableBytes is Config.Limits.MaxVariableBytes's default.
const DefaultMaxVariableBytes = config.DefaultMaxVariableBytes

// Errors. Use errors.Is; parse and expression failures are typed (errors.As
// with *ParseError or *ExpressionError).
var (
	// ErrNotFound: no deployment, definition, instance, execution, task or
	// job with the given id or key.
	ErrNotFound = persistence.ErrNotFound
	// ErrOptimisticLock: a concurrent transaction changed the same data
	// first (completing the same task twice, two paths reaching a join).
	// The command was rolled back; retry it if that makes sense.
	ErrOptimisticLock = persistence.ErrOptimisticLock
	// ErrSchema: Config.Database.OpenExisting found no current bpmnlite schema.
	ErrSchema = persistence.ErrSchema
	// ErrSuspended: the definition, instance or task is suspended.
	ErrSuspended = runtime.ErrSuspended
	// ErrTaskClaimed: ClaimTask found the task assigned to another user.
	ErrTaskClaimed = runtime.ErrTaskClaimed
	// ErrJobLocked: the job is locked by a job executor running it.
	ErrJobLocked = runtime.ErrJobLocked
	// ErrNoMatch: a message found nobody waiting for it.
	ErrNoMatch = runtime.ErrNoMatch
	// ErrNoConditionalStart: EvaluateStartConditions found no conditional
	// start event deployed (of the definition asked for).
	ErrNoConditionalStart = runtime.ErrNoConditionalStart
	// ErrAmbiguous: a message for exactly one receiver matched several.
	ErrAmbiguous = runtime.ErrAmbiguous
	// ErrOperationLimit: a command ran Config.Limits.MaxOperations operations
	// without reaching a wait state (a *LoopError).
	ErrOperationLimit = runtime.ErrOperationLimit
	// ErrInvalidVariable: a variable's name or value cannot be stored so
	// that it reads back equal (a *VariableError naming it): NUL or invalid
	// UTF-8 text, NaN or infinite numbers, dates beyond the year 294275,
	// values nested more than 1,000 levels deep, an empty name, a struct
	// with no exported field (JSON would store it as {}), a value over
	// Config.Limits.MaxVariableBytes.
	ErrInvalidVariable = runtime.ErrInvalidVariable
	// ErrTransientConflict: a transient value was set where a stored
	// variable of the same name is defined, or a stored value where a
	// transient one is (also after removing it in the same command), as
	// Camunda refuses ("Cannot set transient variable with name ... to
	// non-transient variable and vice versa").
	ErrTransientConflict = runtime.ErrTransientConflict
	// ErrCorrupt: an integrity check found the database file damaged.
	ErrCorrupt = persistence.ErrCorrupt
	// ErrBackend: the call needs the other database backend (…Tx calls
	// need PostgreSQL).
	ErrBackend = errors.New("not supported by this database backend")
)

// Typed errors.
type (
	// ParseError lists every problem found in a BPMN file, each with the
	// element id, type, file and line:column.
	ParseError = bpmn.ParseError
	// Problem is one entry of a ParseError.
	Problem = bpmn.Problem
	// ExpressionError is a failure compiling or evaluating an expression.
	ExpressionError = expression.Error
	// DelegateError is an error returned by a delegate, with the element
	// that called it.
	DelegateError = runtime.DelegateError
	// ActivityError is a failure at an element other than a delegate's own
	// error (an expression that fails, a delegate not registered), with the
	// element's id in a field of its own.
	ActivityError = runtime.ActivityError
	// BpmnError is returned by a delegate to throw a BPMN error, caught by
	// an error boundary event.
	BpmnError = runtime.BpmnError
	// LoopError is a command stopped at Config.Limits.MaxOperations, with the
	// activities it kept entering.
	LoopError = runtime.LoopError
	// VariableError names a variable that cannot be stored, and why.
	VariableError = runtime.VariableError
)

// Delegate is Go code called by service tasks (camunda:class,
// camunda:delegateExpression) and execution listeners.
type Delegate = runtime.Delegate

// DelegateFunc adapts a function to Delegate.
type DelegateFunc = runtime.DelegateFunc

// VariableMapping maps a call activity's variables in Go
// (camunda:variableMappingClass names one registered with RegisterBean,
// camunda:variableMappingDelegateExpression an expression resolving to
// one), as Camunda's DelegateVariableMapping.
type VariableMapping = runtime.VariableMapping

// Execution is what a delegate receives: variables and ids of the running
// execution.
type Execution = runtime.Execution

// TransientValue is a variable value marked transient (see Transient).
type TransientValue = runtime.TransientValue

// Transient marks v as the value of a transient variable, Camunda's
// Variables.stringValue("x", true): put it in any variables map the engine
// takes (start, task completion, correlation, signal, trigger, external
// task completion and BPMN error, SetVariables, condition evaluation) or
// give it to Execution.SetVariable. The command sees it (conditions,
// delegates, listeners, mappings, expressions) as the plain value, after
// the same checks and conversions as a stored one, but it is never stored
// and has no history: it is gone when the command reaches its wait states.
// A name cannot switch between transient and stored in one scope
// (ErrTransientConflict). Only a variable's whole value can be transient.
func Transient(v any) TransientValue { return runtime.Transient(v) }

// Engine is an open process engine. It is safe for concurrent use.
type Engine struct {
	cfg Config
	db  persistence.DB
	rt  *runtime.Core
	je  *jobexecutor.Executor // when JobExecutorActivate
	// stopMeters ends the meter reports (with a last one) and the merges
	// of kept counts; metersDone closes when both have stopped.
	stopMeters context.CancelFunc
	metersDone chan struct{}
}

// Open opens (and migrates) the database and returns an engine.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("bpmnlite: %w", err)
	}
	d := cfg.Database
	db, err := persistence.Open(ctx, d.URL, persistence.Options{
		Schema:         d.Schema,
		MaxConns:       d.MaxConns,
		Synchronous:    d.SQLiteSynchronous,
		IntegrityCheck: d.SQLiteIntegrityCheck,
		Existing:       d.OpenExisting,
		Logger:         cfg.Logger,
		TracerProvider: cfg.TracerProvider,
	})
	if err != nil {
		return nil, fmt.Errorf("bpmnlite: open %s: %w", redact(d.URL), err)
	}
	rt := runtime.New(db, cfg)
	e := &Engine{cfg: cfg, db: db, rt: rt}
	if cfg.History.TimeToLive > 0 && cfg.History.Level > HistoryNone && !d.OpenExisting {
		if err := rt.ScheduleHistoryCleanup(ctx); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("bpmnlite: scheduling the history cleanup: %w", err)
		}
	}
	e.reportMeters()
	if cfg.JobExecutorActivate {
		if e.je, err = jobexecutor.New(cfg.JobExecutor, rt); err == nil {
			err = e.je.Start(ctx)
		}
		if err != nil {
			e.stopMeters()
			<-e.metersDone
			_ = db.Close()
			return nil, fmt.Errorf("bpmnlite: job executor: %w", err)
		}
	}
	return e, nil
}

// NewJobExecutor returns a job executor serving one or more engines (each
// with its own database); Start runs it, Stop shuts it down gracefully.
// Several executors, in one process or on several nodes, may share a
// database.
func NewJobExecutor(cfg JobExecutorConfig, engines ...*Engine) (*jobexecutor.Executor, error) {
	rts := make([]jobexecutor.JobRuntime, len(engines))
	for i, e := range engines {
		rts[i] = e.rt
	}
	return jobexecutor.New(cfg, rts...)
}

// JobExecutor returns the engine's own job executor, or nil when
// JobExecutorActivate is off.
func (e *Engine) JobExecutor() *jobexecutor.Executor { return e.je }

// CheckIntegrity runs SQLite's full integrity check on the database file
// at path, without migrating or writing it: nil when it is sound, else an
// error wrapping ErrCorrupt with what was found. PostgreSQL checks its own
// pages: for a postgres:// URL it returns ErrBackend.
func CheckIntegrity(ctx context.Context, path string) error {
	if strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://") {
		return fmt.Errorf("bpmnlite: the integrity check is for SQLite files: %w", ErrBackend)
	}
	return persistence.CheckSQLiteFile(ctx, strings.TrimPrefix(strings.TrimPrefix(path, "sqlite://"), "sqlite:"))
}

// redact hides a password in a database URL for error messages.
func redact(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.Index(url[i+3:], "@"); j >= 0 {
			creds := url[i+3 : i+3+j]
			if k := strings.Index(creds, ":"); k >= 0 {
				return url[:i+3] + creds[:k] + ":***" + url[i+3+j:]
			}
		}
	}
	return url
}

// Close answers the external task fetches waiting for tasks, stops the
// engine's job executor (running jobs get up to ten seconds to finish) and
// releases the database.
func (e *Engine) Close() error {
	e.rt.Close() // answers waiting external task fetches
	if e.je != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.je.Stop(ctx)
	}
	e.stopMeters()
	<-e.metersDone
	return e.db.Close()
}

// reportMeters starts the meter reports Config.Metrics asks for, and the
// periodic merge of the kept counts (see persistence.MergeCounts).
func (e *Engine) reportMeters() {
	ctx, stop := context.WithCancel(context.Background())
	e.stopMeters, e.metersDone = stop, make(chan struct{})
	if e.cfg.Database.OpenExisting {
		close(e.metersDone) // a read-only tool writes nothing
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { e.mergeCounts(ctx) })
	if e.cfg.Metrics.ReportInterval >= 0 {
		wg.Go(func() { e.rt.ReportMetersEvery(ctx, e.cfg.Metrics.ReportInterval, e.cfg.Metrics.Reporter) })
	}
	go func() {
		wg.Wait()
		close(e.metersDone)
	}()
}

// countMergeInterval is how often an engine folds the kept counts' deltas
// into their totals: the deltas a count sums besides the totals are at
// most this old.
const countMergeInterval = time.Second

// mergeCounts merges the kept counts every countMergeInterval until ctx
// ends; a failed merge is logged and tried again at the next tick.
func (e *Engine) mergeCounts(ctx context.Context) {
	t := time.NewTicker(countMergeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := persistence.MergeCounts(ctx, e.db); err != nil && ctx.Err() == nil {
				e.cfg.Logger.Warn("bpmnlite: merging kept counts", "error", err)
			}
		}
	}
}

// Dialect names the database backend in use ("sqlite" or "postgres").
func (e *Engine) Dialect() string { return string(e.db.Dialect()) }

// Now returns the engine clock's time.
func (e *Engine) Now() time.Time { return e.cfg.Clock() }

// RegisterDelegate makes d callable as camunda:class="name" (service tasks
// and listeners). A class that is not registered fails when the activity
// runs, naming the delegate.
func (e *Engine) RegisterDelegate(name string, d Delegate) { e.rt.RegisterDelegate(name, d) }

// RegisterBean makes v reachable by name in expressions: its methods
// (${name.method(arg)}) and, when it implements Delegate, as
// camunda:delegateExpression="${name}". A func value is callable as a function.
func (e *Engine) RegisterBean(name string, v any) { e.rt.RegisterBean(name, v) }

// joinedTx runs fn, a ...Tx call's command, inside the caller's pgx
// transaction t.
func joinedTx[T any](e *Engine, ctx context.Context, t pgx.Tx, fn func(pt persistence.Tx) (T, error)) (T, error) {
	pt, err := e.joinTx(ctx, t)
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(pt)
}

// inPgxTx is joinedTx for a command without a result.
func (e *Engine) inPgxTx(ctx context.Context, t pgx.Tx, fn func(pt persistence.Tx) error) error {
	_, err := joinedTx(e, ctx, t, func(pt persistence.Tx) (struct{}, error) { return struct{}{}, fn(pt) })
	return err
}

// joinTx wraps a caller's pgx transaction for a ...Tx call.
func (e *Engine) joinTx(ctx context.Context, t pgx.Tx) (persistence.Tx, error) {
	j, ok := e.db.(persistence.TxJoiner)
	if !ok {
		return nil, fmt.Errorf("bpmnlite: running inside a pgx.Tx needs the PostgreSQL backend: %w", ErrBackend)
	}
	if t == nil {
		return nil, errors.New("bpmnlite: nil pgx.Tx")
	}
	return j.Join(ctx, t)
}
