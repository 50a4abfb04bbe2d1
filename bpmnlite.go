package bpmnlite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/jobexecutor"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// Config configures an engine. The zero value opens bpmnlite.db in the
// working directory with history and job priorities on.
type Config struct {
	// Database is a PostgreSQL URL (postgres://...) or an SQLite file path;
	// ":memory:" gives a private in-memory database (tests). Default
	// "bpmnlite.db".
	Database string
	// Schema, on PostgreSQL, keeps the engine's tables in this schema
	// (created when missing). Default: the connection's search_path.
	Schema string
	// MaxConns bounds the PostgreSQL pool (default 20, or the URL's
	// pool_max_conns): a running job holds a connection, so give it at
	// least the job executor's PoolSize plus the application's own.
	MaxConns int
	// SQLiteSynchronous is SQLite's synchronous pragma: "NORMAL" (default)
	// or "FULL" (durable at every commit, slower).
	SQLiteSynchronous string
	// SQLiteIntegrityCheck runs SQLite's quick_check when the engine opens
	// a file, failing Open with ErrCorrupt when pages are damaged (a file
	// with a sound header and damaged pages otherwise opens, and fails at
	// its first write there). It reads the whole file, so it is off by
	// default; see CheckIntegrity for the full check.
	SQLiteIntegrityCheck bool
	// OpenExisting opens only a database that exists with a current schema:
	// a missing SQLite file is an error instead of a new one, and a schema
	// that needs a migration is ErrSchema. For tools that only read.
	OpenExisting bool

	// Clock gives the engine's time (timers, due dates, history). Default
	// time.Now; tests inject a fake clock.
	Clock func() time.Time
	// Logger receives the engine's structured logs. Default slog.Default().
	Logger *slog.Logger

	// HistoryLevel is how much history the engine writes, as Camunda's
	// levels: HistoryNone, HistoryActivity (process and activity
	// instances, user tasks), HistoryAudit (the default, Camunda's too:
	// also the variables of ended instances), HistoryFull (also incidents
	// and the job log, three rows more per job).
	HistoryLevel string
	// NoHistory is HistoryLevel HistoryNone.
	NoHistory bool
	// HistoryTimeToLive keeps the history of an ended instance (with its
	// called instances) this long, for definitions without a
	// camunda:historyTimeToLive of their own. Default 0: for good. A time
	// to live, here or on a deployed definition, schedules the history
	// cleanup job, which the job executor runs: it removes up to
	// HistoryCleanupBatchSize instances (default 500) per run and, when
	// fewer were due, waits HistoryCleanupInterval (default 1 hour).
	HistoryTimeToLive       time.Duration
	HistoryCleanupBatchSize int
	HistoryCleanupInterval  time.Duration
	// NoJobPriorities gives every job priority 0 (Camunda's
	// producePrioritizedJobs=false).
	NoJobPriorities bool
	// PriorityFallback: a camunda:jobPriority expression that names an
	// unknown variable or bean gives the job FallbackPriority instead of
	// failing the command (Camunda's
	// enableGracefulDegradationOnContextSwitchFailure with
	// defaultPriorityOnResolutionFailure). Other expression errors (syntax,
	// a value that is not an integer) still fail. Off by default: the
	// command fails, naming the expression.
	PriorityFallback bool
	// FallbackPriority is the priority PriorityFallback gives. Default 0.
	FallbackPriority int64
	// DefaultRetries is the retries of a job whose activity has no
	// failedJobRetryTimeCycle. Default 3.
	DefaultRetries int
	// DefaultRetryCycle applies to jobs without a retry cycle of their own,
	// e.g. "R3/PT5M". Default "": retries follow at once.
	DefaultRetryCycle string
	// EnsureJobDueDateNotNull gives asynchronous continuations their
	// creation time as due date, as Camunda does when jobs are acquired by
	// due date (on by itself when JobExecutor.AcquireByDueDate is set);
	// otherwise they have none and count as due at once.
	EnsureJobDueDateNotNull bool
	// MaxOperations bounds the operations one command (an API call, a job)
	// runs before it reaches its wait states: a loop without a wait state
	// then fails with a *LoopError naming its activities and rolls back,
	// instead of running forever. Default 100,000 (about 50,000 activities
	// in one transaction); negative: no bound.
	MaxOperations int
	// MaxWaitingFetches bounds the long-polling external task fetches
	// waiting at once (default 1,000); one more returns at once, empty.
	MaxWaitingFetches int
	// MaxResourceBytes bounds the size of a deployed BPMN file: a larger
	// one is refused before it is parsed. Default 10 MiB; negative: none.
	MaxResourceBytes int
	// MaxVariableBytes bounds what one variable stores: a string's bytes in
	// UTF-8, a []byte's length, a map's, slice's or struct's JSON. A larger
	// value is refused with a *VariableError naming it, its size and the
	// limit, wherever it is set (transient ones too: commands hold their
	// variables in memory). Default 4 MiB; negative: none.
	MaxVariableBytes int
	// DefinitionCacheBytes bounds the memory of the parsed process
	// definitions the engine keeps, as estimated when each is parsed.
	// Beyond it the least recently used are dropped and parsed again from
	// their stored file when an instance, job or start needs them. Default
	// 128 MiB (a model as Camunda Modeler writes it holds about 1.3 times
	// its file, the densest about 8 times); negative: no bound. Stats
	// report what it holds.
	DefinitionCacheBytes int
	// MaxExpressionLength bounds the length of one ${...} expression, in
	// bytes (default 10,000; negative: none), and MaxQuotedSource how much
	// of an expression an error message quotes before an ellipsis
	// (default 200 characters). Each engine has its own.
	MaxExpressionLength int
	MaxQuotedSource     int

	// JobExecutorActivate starts a job executor with the engine, running
	// asynchronous continuations and timers in the background. Off by
	// default, as for an embedded Camunda engine: tests run jobs by hand
	// with ExecuteJob. `bpmnlite serve` turns it on.
	JobExecutorActivate bool
	// JobExecutor configures that executor (pool, queue, lock time, waits,
	// ordering, priority range...); its Clock defaults to Clock.
	JobExecutor JobExecutorConfig
}

// DefaultDefinitionCacheBytes is Config.DefinitionCacheBytes's default.
const DefaultDefinitionCacheBytes = runtime.DefaultDefinitionCacheBytes

// DefaultMaxVariableBytes is Config.MaxVariableBytes's default.
const DefaultMaxVariableBytes = runtime.DefaultMaxVariableBytes

// JobExecutorConfig configures a job executor; see jobexecutor.Config.
type JobExecutorConfig = jobexecutor.Config

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
	// ErrSchema: Config.OpenExisting found no current bpmnlite schema.
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
	// ErrOperationLimit: a command ran Config.MaxOperations operations
	// without reaching a wait state (a *LoopError).
	ErrOperationLimit = runtime.ErrOperationLimit
	// ErrInvalidVariable: a variable's name or value cannot be stored so
	// that it reads back equal (a *VariableError naming it): NUL or invalid
	// UTF-8 text, NaN or infinite numbers, dates beyond the year 294275,
	// values nested more than 1,000 levels deep, an empty name, a struct
	// with no exported field (JSON would store it as {}), a value over
	// Config.MaxVariableBytes.
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
	// LoopError is a command stopped at Config.MaxOperations, with the
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
	rt  *runtime.Engine
	je  *jobexecutor.Executor // when JobExecutorActivate
}

// Open opens (and migrates) the database and returns an engine.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Database == "" {
		cfg.Database = "bpmnlite.db"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	level, err := historyLevel(cfg)
	if err != nil {
		return nil, err
	}
	db, err := persistence.Open(ctx, cfg.Database, persistence.Options{
		Schema:         cfg.Schema,
		MaxConns:       cfg.MaxConns,
		Synchronous:    cfg.SQLiteSynchronous,
		IntegrityCheck: cfg.SQLiteIntegrityCheck,
		Existing:       cfg.OpenExisting,
		Logger:         cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("bpmnlite: open %s: %w", redact(cfg.Database), err)
	}
	rt := runtime.New(db, cfg.Clock, cfg.Logger, runtime.Config{
		HistoryLevel:            level,
		ProducePrioritizedJobs:  !cfg.NoJobPriorities,
		PriorityFallback:        cfg.PriorityFallback,
		FallbackPriority:        cfg.FallbackPriority,
		DefaultRetries:          cfg.DefaultRetries,
		DefaultRetryCycle:       cfg.DefaultRetryCycle,
		EnsureJobDueDateNotNull: cfg.EnsureJobDueDateNotNull || cfg.JobExecutor.AcquireByDueDate,
		MaxOperations:           cfg.MaxOperations,
		MaxWaitingFetches:       cfg.MaxWaitingFetches,
		MaxResourceBytes:        cfg.MaxResourceBytes,
		MaxVariableBytes:        cfg.MaxVariableBytes,
		DefinitionCacheBytes:    cfg.DefinitionCacheBytes,
		MaxQuoted:               cfg.MaxQuotedSource,
		MaxExpressionLength:     cfg.MaxExpressionLength,
		HistoryTimeToLive:       cfg.HistoryTimeToLive,
		HistoryCleanupBatchSize: cfg.HistoryCleanupBatchSize,
		HistoryCleanupInterval:  cfg.HistoryCleanupInterval,
	})
	e := &Engine{cfg: cfg, db: db, rt: rt}
	if cfg.HistoryTimeToLive > 0 && level > runtime.HistoryNone && !cfg.OpenExisting {
		if err := rt.ScheduleHistoryCleanup(ctx); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("bpmnlite: scheduling the history cleanup: %w", err)
		}
	}
	if cfg.JobExecutorActivate {
		jc := cfg.JobExecutor
		if jc.Clock == nil {
			jc.Clock = cfg.Clock
		}
		if jc.Logger == nil {
			jc.Logger = cfg.Logger
		}
		if e.je, err = jobexecutor.New(jc, rt); err == nil {
			err = e.je.Start(ctx)
		}
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("bpmnlite: job executor: %w", err)
		}
	}
	return e, nil
}

// History levels (Config.HistoryLevel), as Camunda's.
const (
	HistoryNone     = "none"
	HistoryActivity = "activity"
	HistoryAudit    = "audit"
	HistoryFull     = "full"
)

func historyLevel(cfg Config) (runtime.HistoryLevel, error) {
	if cfg.NoHistory {
		return runtime.HistoryNone, nil
	}
	switch cfg.HistoryLevel {
	case HistoryNone:
		return runtime.HistoryNone, nil
	case HistoryActivity:
		return runtime.HistoryActivity, nil
	case HistoryAudit, "":
		return runtime.HistoryAudit, nil
	case HistoryFull:
		return runtime.HistoryFull, nil
	}
	return 0, fmt.Errorf("bpmnlite: HistoryLevel %q: want none, activity, audit or full", cfg.HistoryLevel)
}

// NewJobExecutor returns a job executor serving one or more engines (each
// with its own database); Start runs it, Stop shuts it down gracefully.
// Several executors, in one process or on several nodes, may share a
// database.
func NewJobExecutor(cfg JobExecutorConfig, engines ...*Engine) (*jobexecutor.Executor, error) {
	rts := make([]jobexecutor.Engine, len(engines))
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
	return e.db.Close()
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
