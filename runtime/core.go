package runtime

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// history reports whether the engine writes history of level l.
func (e *Core) history(l config.HistoryLevel) bool { return e.Config.History.Level >= l }

// Core is the engine's runtime on one database: definitions, delegates,
// beans, and the commands that advance process instances. The public
// bpmnlite.Engine wraps it with the database and the job executor.
type Core struct {
	// Config is the engine's configuration, defaults set.
	Config config.Config

	db  persistence.DB
	cmd *tx.Executor
	// tracer records spans; nil without Config.TracerProvider.
	tracer trace.Tracer
	clock  tx.Clock
	log    *slog.Logger

	// ID identifies this engine instance (process) among the nodes sharing
	// a database, e.g. in job notifications.
	ID string
	// jobChannel is the database's NOTIFY channel for new jobs.
	jobChannel string
	// extChannel: the NOTIFY channel for external tasks made fetchable;
	// extWake wakes the fetches waiting on this engine.
	extChannel string
	extWake    taskWake
	// lifetime ends when the engine closes.
	lifetime context.Context
	stop     context.CancelFunc
	// counts of committed work, for metrics
	meters *meters
	counts struct {
		started, ended, fetched, completed atomic.Int64
		retried, exhausted                 atomic.Int64
	}

	mu          sync.RWMutex
	jobCreated  []func(jobs []*persistence.Job) bool
	deployments map[string]bool // registered with the job executor
	delegates   map[string]Delegate
	beans       map[string]any
	// defs holds parsed definitions and their job definitions, bounded.
	defs *defCache
	// decisionModels holds parsed DMN files, bounded.
	decisionModels decisionModels
	// pace tells quick jobs from ones that may run long (MayRunLong).
	pace jobPace
}

// New returns a runtime engine on db, configured by cfg (its database
// settings are db's business: the caller opened it with them).
func New(db persistence.DB, cfg config.Config) *Core {
	cfg = cfg.WithDefaults()
	clock, log := cfg.Clock, cfg.Logger
	lifetime, stop := context.WithCancel(context.Background())
	var tracer trace.Tracer
	if cfg.TracerProvider != nil {
		tracer = cfg.TracerProvider.Tracer(tracerName)
	}
	return &Core{
		tracer:      tracer,
		ID:          newID(),
		jobChannel:  persistence.JobChannel(db),
		extChannel:  persistence.ExternalTaskChannel(db),
		lifetime:    lifetime,
		stop:        stop,
		deployments: make(map[string]bool),
		meters:      newMeters(),
		db:          db,
		cmd:         &tx.Executor{DB: db, Clock: clock, Log: log},
		clock:       clock,
		log:         log,
		Config:      cfg,
		delegates:   make(map[string]Delegate),
		beans:       make(map[string]any),
		defs:        newDefCache(int64(cfg.Limits.DefinitionCacheBytes)),
		pace:        jobPace{slow: slowWork(db.Capabilities())},
	}
}

// RegisterDelegate makes d callable by name from camunda:class (and
// listeners' class attribute).
func (e *Core) RegisterDelegate(name string, d Delegate) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.delegates[name] = d
}

// RegisterBean makes v reachable by name in expressions
// (${name.method(...)}, camunda:delegateExpression="${name}").
func (e *Core) RegisterBean(name string, v any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.beans[name] = v
}

func (e *Core) delegate(name string) (Delegate, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	d, ok := e.delegates[name]
	return d, ok
}

// OnJobCreated registers fn to be called after a command that created jobs
// commits, with those jobs. Job executors use it to wake up; fn reports
// whether its executor will run all of them, and when none will, the engine
// wakes the executors of other nodes (PostgreSQL NOTIFY).
func (e *Core) OnJobCreated(fn func(jobs []*persistence.Job) bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.jobCreated = append(e.jobCreated, fn)
}

// RegisterDeployment marks a deployment as served by this engine's job
// executor (deployment-aware acquisition). Deployments made through this
// engine register themselves.
func (e *Core) RegisterDeployment(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.deployments[id] = true
}

// UnregisterDeployment removes a deployment from this engine's job executor.
func (e *Core) UnregisterDeployment(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.deployments, id)
}

// IsRegistered reports whether deployment id is registered with this
// engine's job executor.
func (e *Core) IsRegistered(id string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.deployments[id]
}

// RegisteredDeployments lists the deployments registered with this engine.
func (e *Core) RegisteredDeployments() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]string, 0, len(e.deployments))
	for id := range e.deployments {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// HasDelegate reports whether a delegate is registered under name.
func (e *Core) HasDelegate(name string) bool {
	_, ok := e.delegate(name)
	return ok
}

func (e *Core) bean(name string) (any, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	b, ok := e.beans[name]
	return b, ok
}

// CheckExpression checks an expression the engine deploys, for the
// parser's validation: its length against the engine's limit, then its
// syntax.
func (e *Core) CheckExpression(src string) error {
	return e.quoting(checkExpression(src, e.Config.Limits.MaxExpressionLength, e.Config.Limits.MaxQuotedSource))
}

// CheckExpressionDefaults checks an expression as an engine with the
// default limits deploys it (bpmnlite validate, which has no engine).
func CheckExpressionDefaults(src string) error { return checkExpression(src, 0, 0) }

func checkExpression(src string, maxLength, maxQuoted int) error {
	if err := expression.CheckLength(src, maxLength, maxQuoted); err != nil {
		return err
	}
	_, err := expression.Compile(src)
	return err
}

// quoting makes an expression error in err quote as much of its source as
// this engine's MaxQuoted says: compiled expressions, and so the errors
// they make, are shared by every engine of the process.
func (e *Core) quoting(err error) error {
	var xe *expression.Error
	if errors.As(err, &xe) {
		xe.MaxQuoted = e.Config.Limits.MaxQuotedSource
	}
	return err
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// Stats are counts of committed work since the engine opened.
type Stats struct {
	InstancesStarted, InstancesEnded             int64
	ExternalTasksFetched, ExternalTasksCompleted int64
	// JobsRetried: failed job runs with retries left (the job runs again);
	// JobsExhausted: failed runs that left none (an incident).
	JobsRetried, JobsExhausted int64
	// FetchesWaiting is how many long-polling fetches wait now.
	FetchesWaiting int
	// DefinitionsCached is how many parsed definitions the engine keeps
	// now, and DefinitionCacheBytes their estimated memory.
	DefinitionsCached    int
	DefinitionCacheBytes int64
}

// Stats returns the engine's counts.
func (e *Core) Stats() Stats {
	e.extWake.mu.Lock()
	waiting := e.extWake.waiting
	e.extWake.mu.Unlock()
	cached, cacheBytes := e.defs.stats()
	return Stats{
		InstancesStarted: e.counts.started.Load(), InstancesEnded: e.counts.ended.Load(),
		ExternalTasksFetched: e.counts.fetched.Load(), ExternalTasksCompleted: e.counts.completed.Load(),
		JobsRetried: e.counts.retried.Load(), JobsExhausted: e.counts.exhausted.Load(),
		FetchesWaiting: waiting, DefinitionsCached: cached, DefinitionCacheBytes: cacheBytes,
	}
}
