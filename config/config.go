package config

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/bpmnlite/bpmnlite/expression"
)

// Config configures an engine. The zero value opens bpmnlite.db in the
// working directory with history (level audit) and job priorities on;
// WithDefaults spells every default out.
type Config struct {
	// Database is where the engine keeps its state.
	Database Database
	// Clock gives the engine's time (timers, due dates, history). Default
	// time.Now; tests inject a fake clock.
	Clock func() time.Time
	// Logger receives the engine's structured logs. Default slog.Default().
	Logger *slog.Logger
	// TracerProvider, when set, gets a span for every engine command
	// (start, complete, correlate, signal, ...) and every job run, with the
	// process, activity, instance and job they concern; delegates run under
	// them (the span is in their context), so their own spans nest. Nil
	// (the default): no spans, and no cost. Pass otel.GetTracerProvider()
	// to use the process's global one.
	TracerProvider trace.TracerProvider
	// History is what the engine records of what ran, and for how long.
	History History
	// SequenceFlowTaken, when set, is told of every sequence flow that a
	// committed transaction took (work rolled back is not reported): the
	// test kit's coverage report uses it. It runs on the committing
	// goroutine right after the commit, so it must be quick and safe for
	// concurrent use. Nil (the default): no cost.
	SequenceFlowTaken func(FlowTaken)
	// Jobs is how the engine creates jobs: priorities, retries, due dates.
	Jobs Jobs
	// Limits bound what one command, deployment, variable or cache may
	// take, so that one bad input cannot exhaust the process.
	Limits Limits
	// Metrics is how the engine reports its meters (Camunda's metrics:
	// activity instances, jobs, root instances) for the REST API's
	// /metrics queries.
	Metrics Metrics
	// Batches is how batches (asynchronous operations over many items)
	// split their work into jobs.
	Batches Batches
	// JobExecutorActivate starts a job executor with the engine, running
	// asynchronous continuations and timers in the background. Off by
	// default, as for an embedded Camunda engine: tests run jobs by hand
	// with ExecuteJob. `bpmnlite serve` turns it on.
	JobExecutorActivate bool
	// JobExecutor configures that executor (pool, queue, lock time, waits,
	// ordering, priority range...); its Clock and Logger default to the
	// engine's.
	JobExecutor JobExecutor
}

// FlowTaken is a sequence flow taken by a process instance.
type FlowTaken struct {
	ProcessDefinitionID, ProcessInstanceID, FlowID string
}

// Database says which database the engine uses and how it opens it.
type Database struct {
	// URL is a PostgreSQL URL (postgres://...) or an SQLite file path;
	// ":memory:" gives a private in-memory database (tests). Default
	// "bpmnlite.db".
	URL string
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
}

// DefaultDatabase is Database.URL's default: an SQLite file in the working
// directory.
const DefaultDatabase = "bpmnlite.db"

// History says what the engine records of what ran, and for how long.
type History struct {
	// Level is how much history the engine writes, as Camunda's levels.
	// Default HistoryAudit, Camunda's default too.
	Level HistoryLevel
	// TimeToLive keeps the history of an ended instance (with its called
	// instances) this long, for definitions without a
	// camunda:historyTimeToLive of their own. Default 0: for good. A time
	// to live, here or on a deployed definition, schedules the history
	// cleanup job, which the job executor runs: it removes up to
	// CleanupBatchSize instances per run and, when fewer were due, waits
	// CleanupInterval.
	TimeToLive time.Duration
	// CleanupBatchSize bounds the instances one cleanup run removes.
	// Default 500.
	CleanupBatchSize int
	// CleanupInterval is the pause after a cleanup run that found fewer
	// instances than CleanupBatchSize. Default 1 hour.
	CleanupInterval time.Duration
}

// Defaults of History.
const (
	DefaultHistoryCleanupBatchSize = 500
	DefaultHistoryCleanupInterval  = time.Hour
)

// Jobs says how the engine creates jobs.
type Jobs struct {
	// NoPriorities gives every job priority 0 (Camunda's
	// producePrioritizedJobs=false).
	NoPriorities bool
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
	// EnsureDueDateNotNull gives asynchronous continuations their creation
	// time as due date, as Camunda does when jobs are acquired by due date
	// (WithDefaults turns it on when JobExecutor.AcquireByDueDate is set);
	// otherwise they have none and count as due at once.
	EnsureDueDateNotNull bool
}

// DefaultRetries is Jobs.DefaultRetries's default, Camunda's too.
const DefaultRetries = 3

// Limits bound what one command, deployment, variable or cache may take.
// Zero means the default; a negative value means no bound.
type Limits struct {
	// MaxOperations bounds the operations one command (an API call, a job)
	// runs before it reaches its wait states: a loop without a wait state
	// then fails with a *LoopError naming its activities and rolls back,
	// instead of running forever. Default 100,000 (about 50,000 activities
	// in one transaction).
	MaxOperations int
	// MaxWaitingFetches bounds the long-polling external task fetches
	// waiting at once (default 1,000); one more returns at once, empty.
	MaxWaitingFetches int
	// MaxResourceBytes bounds the size of a deployed BPMN file: a larger
	// one is refused before it is parsed. Default 10 MiB.
	MaxResourceBytes int
	// MaxVariableBytes bounds what one variable stores: a string's bytes in
	// UTF-8, a []byte's length, a map's, slice's or struct's JSON. A larger
	// value is refused with a *VariableError naming it, its size and the
	// limit, wherever it is set (transient ones too: commands hold their
	// variables in memory). Default 4 MiB.
	MaxVariableBytes int
	// DefinitionCacheBytes bounds the memory of the parsed process
	// definitions the engine keeps, as estimated when each is parsed.
	// Beyond it the least recently used are dropped and parsed again from
	// their stored file when an instance, job or start needs them. Default
	// 128 MiB (a model as Camunda Modeler writes it holds about 1.3 times
	// its file, the densest about 8 times). Stats report what it holds.
	DefinitionCacheBytes int
	// MaxExpressionLength bounds the length of one ${...} expression the
	// engine deploys, in bytes. Default 10,000.
	MaxExpressionLength int
	// MaxQuotedSource is how much of an expression an error message quotes
	// before an ellipsis. Default 200 characters; negative: all of it.
	MaxQuotedSource int
	// ScriptTimeout bounds how long one JavaScript script (a script task,
	// condition, parameter or listener) runs: a longer one is stopped and
	// fails its command like a delegate error. Default 5 seconds;
	// negative: no limit.
	ScriptTimeout time.Duration
	// MaxScriptBytes bounds the source of one script, inline or a
	// deployment's resource. Default 1 MiB.
	MaxScriptBytes int
}

// Defaults of Limits.
const (
	// DefaultMaxOperations: about 50,000 activities run in one transaction.
	DefaultMaxOperations = 100_000
	// DefaultMaxWaitingFetches: long-polling fetches waiting at once.
	DefaultMaxWaitingFetches = 1000
	// DefaultMaxResourceBytes: the largest models of real projects are a
	// few hundred kilobytes, and parsing takes time and memory in
	// proportion to the size.
	DefaultMaxResourceBytes = 10 << 20
	// DefaultMaxVariableBytes: every command holds its variables in memory,
	// and a larger document belongs in a store of its own.
	DefaultMaxVariableBytes = 4 << 20
	// DefaultDefinitionCacheBytes: the densest model of the largest file
	// accepted (DefaultMaxResourceBytes) holds about 85 MiB, a model as
	// Camunda Modeler writes it about 1.3 times its file.
	DefaultDefinitionCacheBytes = 128 << 20
	// DefaultMaxExpressionLength and DefaultMaxQuotedSource: an expression
	// longer than a page is a program, and an error quoting it whole is
	// unreadable.
	DefaultMaxExpressionLength = expression.DefaultMaxLength
	DefaultMaxQuotedSource     = expression.DefaultMaxQuoted
	// DefaultScriptTimeout: a script computes a value or a decision in
	// milliseconds; seconds mean a loop that does not end.
	DefaultScriptTimeout = 5 * time.Second
	// DefaultMaxScriptBytes: a script longer than this belongs in a
	// delegate.
	DefaultMaxScriptBytes = 1 << 20
)

// Metrics configures the reports of the engine's meters to the database.
type Metrics struct {
	// ReportInterval is how often the engine writes what its meters grew
	// (and once more when it closes). Default 15 minutes, as Camunda's;
	// negative: never (the meters are not kept).
	ReportInterval time.Duration
	// Reporter names this engine in the reports. Default the host name
	// and "$default".
	Reporter string
}

// Batches says how a batch splits its items into jobs, as Camunda's
// batch settings of the engine configuration.
type Batches struct {
	// InvocationsPerBatchJob is how many items one execution job does.
	// Default 1, Camunda's.
	InvocationsPerBatchJob int
	// InvocationsPerBatchJobByType overrides it per batch type (e.g.
	// "instance-deletion"), as Camunda's invocationsPerBatchJobByBatchType.
	InvocationsPerBatchJobByType map[string]int
	// JobsPerSeed is how many execution jobs one run of a batch's seed job
	// creates. Default 100, Camunda's.
	JobsPerSeed int
	// PollInterval is how long a batch's monitor job waits before it looks
	// again whether the batch is done. Default 30 seconds, Camunda's
	// batchPollTime.
	PollInterval time.Duration
	// JobPriority is the priority of every seed, execution and monitor job
	// of a batch (Camunda's batchJobPriority). Default 0, Camunda's, the
	// same as ordinary jobs': with JobExecutor.AcquireByPriority a lower
	// one (e.g. -1) makes a node acquire its ordinary jobs first.
	JobPriority int64
}

// Defaults of Batches.
const (
	DefaultInvocationsPerBatchJob = 1
	DefaultBatchJobsPerSeed       = 100
	DefaultBatchPollInterval      = 30 * time.Second
)

// DefaultMetricsReportInterval is Config.Metrics.ReportInterval's default.
const DefaultMetricsReportInterval = 15 * time.Minute

// HistoryLevel is how much history an engine writes, as Camunda's levels.
// The zero value is the default, HistoryAudit.
type HistoryLevel int

// History levels, from least to most. Each records what the one before it
// does and more.
const (
	// HistoryNone writes no history.
	HistoryNone HistoryLevel = iota + 1
	// HistoryActivity records process instances, activity instances and
	// user tasks.
	HistoryActivity
	// HistoryAudit adds the variables' history: each stored variable's
	// last value, written as it changes and kept when its scope ends.
	// Camunda's default, and bpmnlite's.
	HistoryAudit
	// HistoryFull adds incidents and the job log (a job's creation, lock,
	// failures and outcome: three rows more per job).
	HistoryFull
)

var historyNames = [...]string{HistoryNone: "none", HistoryActivity: "activity", HistoryAudit: "audit", HistoryFull: "full"}

// String returns Camunda's name of the level ("none", "activity", "audit",
// "full"); the zero value is "audit", the level it stands for.
func (l HistoryLevel) String() string {
	if l == 0 {
		return historyNames[HistoryAudit]
	}
	if l < HistoryNone || l > HistoryFull {
		return fmt.Sprintf("HistoryLevel(%d)", int(l))
	}
	return historyNames[l]
}

// ParseHistoryLevel reads a level by Camunda's name ("" is the default).
func ParseHistoryLevel(s string) (HistoryLevel, error) {
	if s == "" {
		return HistoryAudit, nil
	}
	for l, name := range historyNames {
		if name != "" && name == s {
			return HistoryLevel(l), nil
		}
	}
	return 0, fmt.Errorf("history level %q: want none, activity, audit or full", s)
}

// WithDefaults returns c with every zero field that has a default set to
// it. The job executor's own defaults depend on the databases it serves:
// jobexecutor.New sets them.
func (c Config) WithDefaults() Config {
	if c.Database.URL == "" {
		c.Database.URL = DefaultDatabase
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.History.Level == 0 {
		c.History.Level = HistoryAudit
	}
	positiveOr(&c.History.CleanupBatchSize, DefaultHistoryCleanupBatchSize)
	positiveOr(&c.History.CleanupInterval, DefaultHistoryCleanupInterval)
	positiveOr(&c.Jobs.DefaultRetries, DefaultRetries)
	if c.JobExecutor.AcquireByDueDate {
		c.Jobs.EnsureDueDateNotNull = true
	}
	l := &c.Limits
	if c.Metrics.ReportInterval == 0 {
		c.Metrics.ReportInterval = DefaultMetricsReportInterval
	}
	if c.Metrics.Reporter == "" {
		host, _ := os.Hostname()
		c.Metrics.Reporter = host + "$default" // as Camunda names a reporter: host and engine
	}
	orDefault(&l.MaxOperations, DefaultMaxOperations)
	orDefault(&l.MaxResourceBytes, DefaultMaxResourceBytes)
	orDefault(&l.MaxVariableBytes, DefaultMaxVariableBytes)
	orDefault(&l.DefinitionCacheBytes, DefaultDefinitionCacheBytes)
	orDefault(&l.MaxExpressionLength, DefaultMaxExpressionLength)
	orDefault(&l.MaxQuotedSource, DefaultMaxQuotedSource)
	if l.ScriptTimeout == 0 {
		l.ScriptTimeout = DefaultScriptTimeout
	}
	orDefault(&l.MaxScriptBytes, DefaultMaxScriptBytes)
	positiveOr(&l.MaxWaitingFetches, DefaultMaxWaitingFetches) // no bound would be no bound on goroutines
	positiveOr(&c.Batches.InvocationsPerBatchJob, DefaultInvocationsPerBatchJob)
	positiveOr(&c.Batches.JobsPerSeed, DefaultBatchJobsPerSeed)
	positiveOr(&c.Batches.PollInterval, DefaultBatchPollInterval)
	if c.JobExecutor.Clock == nil {
		c.JobExecutor.Clock = c.Clock
	}
	if c.JobExecutor.Logger == nil {
		c.JobExecutor.Logger = c.Logger
	}
	return c
}

func orDefault(v *int, def int) {
	if *v == 0 {
		*v = def
	}
}

// Validate reports the first setting that cannot work, naming it.
func (c Config) Validate() error {
	if c.History.Level < 0 || c.History.Level > HistoryFull {
		return fmt.Errorf("History.Level %d: want HistoryNone, HistoryActivity, HistoryAudit or HistoryFull", int(c.History.Level))
	}
	return c.JobExecutor.Validate()
}
