package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/metrics"
	"github.com/bpmnlite/bpmnlite/rest"
	"github.com/bpmnlite/bpmnlite/ui"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const serveHelp = `usage: bpmnlite serve [flags] [FILE...]
Deploys the files (unchanged ones make no new version), serves the REST API
under /engine-rest and /metrics, the cockpit and tasklist in the browser under
/app/ (/ redirects there), and runs the job executor until SIGINT or
SIGTERM. Service tasks that name Go delegates (camunda:class,
camunda:delegateExpression) cannot run here: serve has no Go code of yours,
and says so at start. Use JavaScript script tasks (scriptFormat="javascript"),
external tasks (camunda:type="external") with a worker, or embed the engine in your Go program; bpmnlite run -stub-all runs
such processes with no-op delegates.
flags:
  -db URL          SQLite file or postgres:// URL (default $BPMNLITE_DB, else bpmnlite.db)
  -schema NAME     PostgreSQL schema (default $BPMNLITE_SCHEMA)
  -pool N          job executor workers
  -http ADDR       listen address (default 127.0.0.1:8080; "" for none)
  -auth CRED       user:password or "Bearer TOKEN" (or $BPMNLITE_AUTH); required
                   off loopback; neither part empty, a token of 16 characters or more
  -log-level L     debug, info, warn or error; -log-format text|json
  -max-deployment-bytes N    largest deployment over REST (16 MiB; 400 beyond)
  -deployments-per-minute N  (60, 10 at once; 429 beyond)
  -concurrent-deployments N  parsed at once (2; more wait)
  -definition-cache-bytes N  parsed definitions kept (128 MiB)
  -max-variable-bytes N      stored per variable (4 MiB; 400 beyond)
  -script-timeout D          longest run of one JavaScript script (5s)
  -history LEVEL             none, activity, audit (default) or full
  -history-ttl D             keep ended instances' history D (e.g. 720h); 0: for good
  -history-cleanup-interval D  cleanup job's pause when little was due (1h)
  -lock-time D               job lock (5m); -max-jobs-per-acquisition N (16)
  -wait-time D, -max-wait D  idle pauses between acquisitions (5s doubling to 1m)
  -acquire-by-priority       higher job priorities first
  -max-batch-jobs N          batch jobs run at once, on that many workers (half of -pool; 1 on SQLite)
  -job-retries N             attempts without failedJobRetryTimeCycle (3)
Every flag may also come from the environment: BPMNLITE_ and its name in
upper case with underscores (-history-ttl: BPMNLITE_HISTORY_TTL); a flag
given on the command line wins.
example:
  BPMNLITE_AUTH=demo:secret bpmnlite serve -db orders.db -http :8080 processes/*.bpmn
  curl -u demo:secret -X POST -H 'Content-Type: application/json' -d '{}' \
    http://localhost:8080/engine-rest/process-definition/key/order/start`

// serve deploys the given files (skipping unchanged ones), serves the REST
// API and runs the job executor until SIGINT or SIGTERM, then shuts down
// gracefully: waiting long polls are answered, requests finish, running
// jobs get 30 seconds.
func serve(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors name -h, which lists the flags
	db := newDBFlags(fs, "bpmnlite.db")
	pool := fs.Int("pool", 4, "job executor workers")
	addr := fs.String("http", "127.0.0.1:8080", "address of the REST API (/engine-rest); empty: none")
	auth := fs.String("auth", os.Getenv("BPMNLITE_AUTH"), `REST authentication: "user:password" (basic, neither empty) or "Bearer <token>" (at least 16 characters); required off loopback (default $BPMNLITE_AUTH)`)
	maxDeployment := fs.Int64("max-deployment-bytes", rest.DefaultMaxDeploymentBytes, "largest deployment body taken over REST, all files together (answered 400 beyond); negative: the 16 MiB bound of any request")
	deployRate := fs.Int("deployments-per-minute", rest.DefaultDeploymentsPerMinute, "deployments taken over REST per minute, 10 at once (answered 429 beyond); negative: no bound")
	deployConcurrency := fs.Int("concurrent-deployments", rest.DefaultConcurrentDeployments, "deployments parsed at once over REST (more wait); negative: no bound")
	cacheBytes := fs.Int("definition-cache-bytes", bpmnlite.DefaultDefinitionCacheBytes, "memory of the parsed definitions kept (least recently used dropped beyond, parsed again when needed); negative: no bound")
	varBytes := fs.Int("max-variable-bytes", bpmnlite.DefaultMaxVariableBytes, "largest value one variable stores; negative: no bound")
	scriptTimeout := fs.Duration("script-timeout", config.DefaultScriptTimeout, "longest run of one JavaScript script (script task, condition, parameter, listener): stopped and failed beyond it; negative: no limit")
	debug := fs.Bool("debug", false, "log every acquisition cycle and job (the same as -log-level debug)")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	history := fs.String("history", "audit", "history level: none, activity, audit or full (Camunda's levels)")
	historyTTL := fs.Duration("history-ttl", 0, "keep the history of ended instances this long (for definitions without camunda:historyTimeToLive), then the cleanup job removes it; 0: for good")
	cleanupInterval := fs.Duration("history-cleanup-interval", config.DefaultHistoryCleanupInterval, "pause of the history cleanup job after a run that found little to remove")
	lockTime := fs.Duration("lock-time", 5*time.Minute, "how long the job executor locks the jobs it takes")
	perAcquisition := fs.Int("max-jobs-per-acquisition", 16, "jobs the job executor takes per acquisition")
	waitTime := fs.Duration("wait-time", 5*time.Second, "job executor's pause after an acquisition that found nothing (doubled up to -max-wait)")
	maxWait := fs.Duration("max-wait", time.Minute, "job executor's longest pause between acquisitions")
	byPriority := fs.Bool("acquire-by-priority", false, "job executor takes jobs of higher priority first")
	maxBatchJobs := fs.Int("max-batch-jobs", 0, "batch jobs the job executor runs at once, on that many of its workers (the others run ordinary jobs only); 0: half the pool, 1 on SQLite")
	retries := fs.Int("job-retries", 3, "attempts of a job without camunda:failedJobRetryTimeCycle")
	metricsInterval := fs.Duration("metrics-interval", time.Minute, "how often the engine reports its metrics (job-successful, ...) to the database, where /engine-rest/metrics and the dashboard's job throughput read them")
	groups := fs.String("groups", "", "the groups (comma separated) of -auth's user: the tasklist's \"My groups' tasks\" are their candidate tasks")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := flagsFromEnv(fs); err != nil {
		return err
	}
	historyLevel, err := config.ParseHistoryLevel(*history)
	if err != nil {
		return fmt.Errorf("-history: %w", err)
	}
	if err := rest.CheckAuth(*auth); err != nil {
		return fmt.Errorf("-auth (or BPMNLITE_AUTH): %w", err)
	}
	if *addr != "" && *auth == "" && !loopback(*addr) {
		return fmt.Errorf("-http %s is not a loopback address: set -auth (or BPMNLITE_AUTH) to protect the API", *addr)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("-log-level %q: want debug, info, warn or error", *logLevel)
	}
	if *debug {
		level = slog.LevelDebug
	}
	var handler slog.Handler
	switch *logFormat {
	case "text":
		handler = slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})
	case "json":
		handler = slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level})
	default:
		return fmt.Errorf("-log-format %q: want text or json", *logFormat)
	}
	log := slog.New(handler)
	cfg := db.config()
	cfg.Logger = log
	cfg.Limits.DefinitionCacheBytes = *cacheBytes
	cfg.Limits.MaxVariableBytes = *varBytes
	cfg.Limits.ScriptTimeout = *scriptTimeout
	cfg.History = bpmnlite.HistoryConfig{Level: historyLevel, TimeToLive: *historyTTL, CleanupInterval: *cleanupInterval}
	cfg.Jobs.DefaultRetries = *retries
	cfg.Metrics.ReportInterval = *metricsInterval
	tp, shutdownTracing, err := tracingFromEnv(ctx)
	if err != nil {
		return fmt.Errorf("tracing (OTEL_* environment): %w", err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = shutdownTracing(ctx)
	}()
	if tp != nil {
		cfg.TracerProvider = tp
		log.Info("tracing: spans go to the OTLP endpoint of the OTEL_* environment")
	}
	eng, err := bpmnlite.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	collector := metrics.New(eng)
	executor, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{PoolSize: *pool, Logger: log, Metrics: collector.JobExecutorMetrics(),
		LockTime: *lockTime, MaxJobsPerAcquisition: *perAcquisition, WaitTime: *waitTime, MaxWait: *maxWait, AcquireByPriority: *byPriority, MaxBatchJobs: *maxBatchJobs}, eng)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		var res []bpmnlite.Resource
		for _, f := range fs.Args() {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			res = append(res, bpmnlite.Resource{Name: f, Bytes: b})
		}
		dep, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "serve", Source: "bpmnlite serve", Resources: res, SkipUnchanged: true})
		if err != nil {
			return err
		}
		for _, d := range dep.Definitions {
			log.Info("deployed", "key", d.Key, "version", d.Version, "unchanged", dep.Unchanged)
		}
		if names, err := delegatesOf(fs.Args()); err == nil && len(names) > 0 {
			log.Warn("the processes name Go delegates, which serve does not have: their service tasks and listeners will fail; use external tasks (camunda:type=\"external\") or embed the engine", "delegates", strings.Join(names, ", "))
		}
	}
	if err := executor.Start(ctx); err != nil {
		return err
	}
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var srv *http.Server
	served := make(chan error, 1)
	if *addr != "" {
		api := rest.New(eng, rest.Options{Auth: *auth, Logger: log, MaxDeploymentBytes: *maxDeployment,
			DeploymentsPerMinute: *deployRate, ConcurrentDeployments: *deployConcurrency})
		registry := prometheus.NewRegistry()
		registry.MustRegister(collector, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		// OpenMetrics, when the scraper asks for it, carries the exemplars.
		api.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{EnableOpenMetrics: true}))
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return err
		}
		srv = &http.Server{Handler: ui.Mount(eng, api, ui.Options{Groups: groupsOf(*groups)}), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
			WriteTimeout: 31 * time.Minute, IdleTimeout: 2 * time.Minute} // writes outlast the longest long poll
		go func() { served <- srv.Serve(ln) }()
		log.Info("REST API listening", "url", "http://"+ln.Addr().String()+"/engine-rest", "auth", *auth != "")
		log.Info("cockpit and tasklist", "url", "http://"+ln.Addr().String()+"/app/")
	}
	log.Info("job executor running", "lockOwner", executor.LockOwner(), "database", eng.Dialect())
	select {
	case <-sig.Done():
	case err := <-served:
		return err
	}
	log.Info("shutting down: requests and running jobs get 30s to finish")
	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eng.AnswerWaitingFetches()
	if srv != nil {
		if err := srv.Shutdown(stopCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
	if err := executor.Stop(stopCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// flagsFromEnv sets each flag not given on the command line from its
// environment variable, if set: BPMNLITE_ and the flag's name in upper
// case with underscores (-history-ttl: BPMNLITE_HISTORY_TTL).
func flagsFromEnv(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		env := envName(f.Name)
		v, ok := os.LookupEnv(env)
		if given[f.Name] || !ok || err != nil {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s=%q (for -%s): %w", env, v, f.Name, e)
		}
	})
	return err
}

// envName is the environment variable of flag name.
func envName(flagName string) string {
	return "BPMNLITE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// loopback reports whether addr (host:port) binds only loopback interfaces.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// groupsOf names the groups of -groups for the tasklist: every logged-in
// user's (serve knows one user, -auth's).
func groupsOf(list string) func(context.Context, string) ([]string, error) {
	var groups []string
	for _, g := range strings.Split(list, ",") {
		if g = strings.TrimSpace(g); g != "" {
			groups = append(groups, g)
		}
	}
	return func(context.Context, string) ([]string, error) { return groups, nil }
}
