package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	_ "modernc.org/sqlite"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/jobexecutor"
	"github.com/bpmnlite/bpmnlite/metrics"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// chain is a process of steps asynchronous no-op service tasks: every step
// is one job, and each job creates the next.
func chain(key string, steps int, delegate string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="bench">
  <process id="%s" isExecutable="true">
    <startEvent id="s0" />`, key)
	impl := `camunda:expression="${true}"`
	if delegate != "" {
		impl = `camunda:class="` + delegate + `"`
	}
	for i := 1; i <= steps; i++ {
		fmt.Fprintf(&b, "\n    <sequenceFlow id=\"f%d\" sourceRef=\"s%d\" targetRef=\"s%d\" />\n    <serviceTask id=\"s%d\" camunda:asyncBefore=\"true\" %s />", i, i-1, i, i, impl)
	}
	fmt.Fprintf(&b, `
    <sequenceFlow id="fEnd" sourceRef="s%d" targetRef="end" />
    <endEvent id="end" />
  </process>
</definitions>`, steps)
	return b.String()
}

// counter is a Metrics that counts executed jobs.
type counter struct {
	executed, failed, conflicts atomic.Int64
	cycles, acquired            atomic.Int64 // acquisitions that locked jobs, and how many
}

func (c *counter) Acquired(n int) {
	if n > 0 {
		c.cycles.Add(1)
		c.acquired.Add(int64(n))
	}
}
func (c *counter) Executed(time.Duration)      { c.executed.Add(1) }
func (c *counter) Failed()                     { c.failed.Add(1) }
func (c *counter) Conflict()                   { c.conflicts.Add(1) }
func (c *counter) QueueDepth(int)              {}
func (c *counter) PickupLatency(time.Duration) {}

// collected is a counter that also reports to the metrics package's
// collector, as serve does (-serve-metrics, and always with -tracing): so
// that a run with tracing and one without differ in tracing only. The
// collector takes the jobs' traces as exemplars when there are any.
type collected struct {
	*counter
	collector jobexecutor.Metrics
}

func (c collected) Acquired(n int) { c.counter.Acquired(n); c.collector.Acquired(n) }
func (c collected) Executed(d time.Duration) {
	c.counter.Executed(d)
	c.collector.Executed(d)
}
func (c collected) Failed()                       { c.counter.Failed(); c.collector.Failed() }
func (c collected) Conflict()                     { c.counter.Conflict(); c.collector.Conflict() }
func (c collected) QueueDepth(n int)              { c.collector.QueueDepth(n) }
func (c collected) PickupLatency(d time.Duration) { c.collector.PickupLatency(d) }
func (c collected) ExecutedTraced(d time.Duration, span trace.SpanContext) {
	c.counter.Executed(d)
	c.collector.(jobexecutor.TracedMetrics).ExecutedTraced(d, span)
}
func (c collected) PickupLatencyTraced(d time.Duration, span trace.SpanContext) {
	c.collector.(jobexecutor.TracedMetrics).PickupLatencyTraced(d, span)
}

type throughputCase struct {
	backend   string // "postgres", "sqlite NORMAL", "sqlite FULL"
	workers   int
	queue     int // 0: the default (PoolSize)
	executors int
	history   bpmnlite.HistoryLevel
	url       string // a database to run on (the scale suite's); "": a fresh one
}

// measureThroughput runs chains of async no-op jobs for o.duration and
// returns jobs executed per second.
func measureThroughput(ctx context.Context, o options, c throughputCase) (float64, string, error) {
	var urls []string
	var cfg bpmnlite.Config
	switch {
	case c.backend == "postgres":
		url := c.url
		if url == "" {
			var err error
			if url, err = freshDatabase(ctx, o.pgURL, "bpmnlite_bench"); err != nil {
				return 0, "", err
			}
		}
		for range c.executors {
			urls = append(urls, url)
		}
		cfg.Database.MaxConns = c.workers + 4
	case c.url != "":
		urls = []string{c.url}
		cfg.Database.SQLiteSynchronous = strings.TrimPrefix(c.backend, "sqlite ")
	default:
		dir, err := os.MkdirTemp("", "bpmnbench")
		if err != nil {
			return 0, "", err
		}
		defer os.RemoveAll(dir)
		urls = []string{filepath.Join(dir, "jobs.db")}
		cfg.Database.SQLiteSynchronous = strings.TrimPrefix(c.backend, "sqlite ")
	}
	cfg.History.Level = c.history
	cfg.Logger = slog.New(slog.DiscardHandler)
	if o.tracing {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		defer tp.Shutdown(context.Background())
		cfg.TracerProvider = tp
	}
	var engines []*bpmnlite.Engine
	for _, u := range urls {
		cfg.Database.URL = u
		eng, err := bpmnlite.Open(ctx, cfg)
		if err != nil {
			return 0, "", err
		}
		defer eng.Close()
		engines = append(engines, eng)
	}
	const steps = 20
	if _, err := engines[0].Deploy(ctx, bpmnlite.DeployRequest{Name: "chain", Resources: []bpmnlite.Resource{{Name: "chain.bpmn", Bytes: []byte(chain("chain", steps, ""))}}}); err != nil {
		return 0, "", err
	}
	// Enough instances that the workers never run dry during the run (up
	// to 6,000 jobs/s on PostgreSQL, 12,000 on SQLite).
	rate := 6000.0
	if c.backend != "postgres" {
		rate = 12000
	}
	instances := max(400, int(rate*(o.duration.Seconds()+2))/steps)
	if err := startMany(ctx, engines[0], "chain", instances, 8); err != nil {
		return 0, "", err
	}
	if c.backend == "postgres" {
		if err := checkpoint(ctx, o.pgURL); err != nil {
			return 0, "", err
		}
	}
	count := &counter{}
	var reports jobexecutor.Metrics = count
	if o.tracing || o.serveMetrics {
		reports = collected{count, metrics.New(engines[0]).JobExecutorMetrics()}
	}
	var execs []interface{ Stop(context.Context) error }
	perAcquisition := 32
	if c.backend != "postgres" {
		perAcquisition = 0 // SQLite's default: the group size (64)
	}
	for _, eng := range engines {
		x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{
			PoolSize: c.workers, QueueSize: c.queue, MaxJobsPerAcquisition: perAcquisition, WaitTime: 100 * time.Millisecond, GroupCommit: o.groupCommit,
			Metrics: reports, Logger: slog.New(slog.DiscardHandler),
		}, eng)
		if err != nil {
			return 0, "", err
		}
		if err := x.Start(ctx); err != nil {
			return 0, "", err
		}
		execs = append(execs, x)
	}
	// Warm up, then measure.
	time.Sleep(time.Second)
	before, cyclesBefore, acquiredBefore := count.executed.Load(), count.cycles.Load(), count.acquired.Load()
	cpuBefore, ownBefore := machineCPU(), processCPU()
	begin := time.Now()
	time.Sleep(o.duration)
	done := count.executed.Load() - before
	elapsed := time.Since(begin)
	cpu, own := machineCPU()-cpuBefore, processCPU()-ownBefore
	for _, x := range execs {
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_ = x.Stop(stopCtx)
		cancel()
	}
	if left := int64(instances*steps) - count.executed.Load(); left <= 0 {
		return 0, "", fmt.Errorf("the workers ran out of jobs: raise the instance count")
	}
	note := cpuNote("job", done, cpu, own, c.backend == "postgres")
	if cycles := count.cycles.Load() - cyclesBefore; cycles > 0 {
		note += fmt.Sprintf(", %.1f jobs per acquisition", float64(count.acquired.Load()-acquiredBefore)/float64(cycles))
	}
	if n := count.conflicts.Load(); n > 0 {
		note += fmt.Sprintf(", %d conflicts", n)
	}
	if n := count.failed.Load(); n > 0 {
		note += fmt.Sprintf(", %d failures", n)
	}
	return float64(done) / elapsed.Seconds(), strings.TrimPrefix(note, ", "), nil
}

// cpuNote gives the CPU time per unit of work (a job, a start) of a
// measurement: the whole machine's, and on PostgreSQL this process's (the
// engine) and the rest (the database, on a quiet machine): what one costs,
// beside how fast they went.
func cpuNote(unit string, n int64, cpu, own time.Duration, postgres bool) string {
	if cpu <= 0 || n <= 0 {
		return ""
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	if postgres {
		return fmt.Sprintf("%.2f ms CPU per %s (engine %.2f, database %.2f)", per(cpu), unit, per(own), per(max(cpu-own, 0)))
	}
	return fmt.Sprintf("%.2f ms CPU per %s (engine and SQLite, one process)", per(cpu), unit)
}

// machineCPU returns the busy CPU time of the machine so far, from
// /proc/stat (user, nice, system, irq, softirq, steal), or 0 where there
// is none.
func machineCPU() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// processCPU returns the CPU time this process used so far (user and
// system), or 0 where it cannot be read.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage returns the 1-minute load average, or -1 where it cannot be read.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// quiet is the highest load average at which a figure counts as measured
// on a quiet machine.
const quiet = 0.5

// quietWait is how long a figure waits for the machine to become quiet
// (-quiet-wait; 0 for a quick check that the suites run).
var quietWait = 150 * time.Second

// loadNote says the load average a figure began at, and marks it when the
// machine was not quiet: a busy machine slows the many short reference
// transactions more than the engine, and flatters the ratios.
func loadNote() string {
	// The figure before this one loads the machine too: wait (a while)
	// until the one-minute load average has come down.
	for deadline := time.Now().Add(quietWait); loadAverage() > quiet && time.Now().Before(deadline); {
		time.Sleep(5 * time.Second)
	}
	l := loadAverage()
	switch {
	case l < 0:
		return ""
	case l > quiet:
		return fmt.Sprintf("load %.2f: NOT QUIET, do not compare", l)
	}
	return fmt.Sprintf("load %.2f", l)
}

// startMany starts n instances of key from callers goroutines.
func startMany(ctx context.Context, eng *bpmnlite.Engine, key string, n, callers int) error {
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if _, err := eng.Start(ctx, bpmnlite.StartRequest{Key: key}); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// percentiles returns p50 and p99 of ds.
func percentiles(ds []time.Duration) (time.Duration, time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	slices.Sort(ds)
	return ds[len(ds)*50/100], ds[min(len(ds)-1, len(ds)*99/100)]
}

// stepTimes records, per instance, when each step's delegate began and ended.
type stepTimes struct {
	mu    sync.Mutex
	begin map[string][]time.Time
	end   map[string][]time.Time
}

func newStepTimes() *stepTimes {
	return &stepTimes{begin: map[string][]time.Time{}, end: map[string][]time.Time{}}
}

func (s *stepTimes) delegate() bpmnlite.Delegate {
	return bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
		now := time.Now()
		s.mu.Lock()
		s.begin[ex.ProcessInstanceID()] = append(s.begin[ex.ProcessInstanceID()], now)
		s.end[ex.ProcessInstanceID()] = append(s.end[ex.ProcessInstanceID()], time.Now())
		s.mu.Unlock()
		return nil
	})
}

// pickups returns, for every step after the first, the time from the end
// of the previous step's delegate (its commit follows at once) to the start
// of this one: job committed → job started, plus the commit itself.
func (s *stepTimes) pickups(instance string) []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Duration
	b, e := s.begin[instance], s.end[instance]
	for i := 1; i < len(b); i++ {
		out = append(out, b[i].Sub(e[i-1]))
	}
	return out
}

// measureLatency steps probe instances alone, then under background load of
// about half the throughput, and reports pickup latencies.
func measureLatency(ctx context.Context, o options, url string, load float64) (p50, p99, perStep time.Duration, err error) {
	eng, err := bpmnlite.Open(ctx, latencyConfig(url, bpmnlite.BatchConfig{}))
	if err != nil {
		return 0, 0, 0, err
	}
	defer eng.Close()
	return probeLatency(ctx, eng, load)
}

// latencyConfig is the configuration of the engine whose job executor
// runs the latency probe.
func latencyConfig(url string, batches bpmnlite.BatchConfig) bpmnlite.Config {
	return bpmnlite.Config{
		Database:            bpmnlite.DatabaseConfig{URL: url, MaxConns: 16},
		Logger:              slog.New(slog.DiscardHandler),
		JobExecutorActivate: true,
		JobExecutor:         bpmnlite.JobExecutorConfig{PoolSize: 8, MaxJobsPerAcquisition: 32, Logger: slog.New(slog.DiscardHandler)},
		Batches:             batches,
	}
}

// probeLatency measures the pickup latency of eng's job executor (see
// measureLatency), with load instances a second beside the probe.
func probeLatency(ctx context.Context, eng *bpmnlite.Engine, load float64) (p50, p99, perStep time.Duration, err error) {
	times := newStepTimes()
	eng.RegisterDelegate("probe", times.delegate())
	const steps = 50
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "lat", Resources: []bpmnlite.Resource{
		{Name: "probe.bpmn", Bytes: []byte(chain("probe", steps, "probe"))},
		{Name: "load.bpmn", Bytes: []byte(chain("load", 10, ""))},
	}}); err != nil {
		return 0, 0, 0, err
	}
	stopLoad := make(chan struct{})
	var loadWG sync.WaitGroup
	if load > 0 {
		// Start load instances at a steady rate: each makes 10 jobs.
		loadWG.Add(1)
		go func() {
			defer loadWG.Done()
			tick := time.NewTicker(time.Duration(float64(time.Second) * 10 / load))
			defer tick.Stop()
			for {
				select {
				case <-stopLoad:
					return
				case <-tick.C:
					_, _ = eng.Start(ctx, bpmnlite.StartRequest{Key: "load"})
				}
			}
		}()
		time.Sleep(2 * time.Second)
	}
	var all []time.Duration
	var stepTotal time.Duration
	var stepCount int
	for i := 0; i < 10; i++ {
		pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "probe"})
		if err != nil {
			return 0, 0, 0, err
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			times.mu.Lock()
			n := len(times.begin[pi])
			times.mu.Unlock()
			if n == steps {
				break
			}
			if time.Now().After(deadline) {
				return 0, 0, 0, fmt.Errorf("probe instance stuck at step %d", n)
			}
			time.Sleep(5 * time.Millisecond)
		}
		all = append(all, times.pickups(pi)...)
		times.mu.Lock()
		b := times.begin[pi]
		stepTotal += b[len(b)-1].Sub(b[0])
		stepCount += len(b) - 1
		times.mu.Unlock()
	}
	close(stopLoad)
	loadWG.Wait()
	p50, p99 = percentiles(all)
	return p50, p99, stepTotal / time.Duration(stepCount), nil
}

// measureCrossNode starts instances on engine A (no executor) and measures
// when engine B's executor, woken by NOTIFY, starts their first job. The
// first pickups are not counted: the first uses of each statement on each
// of B's pooled connections (preparing it, and PostgreSQL planning the
// acquisition afresh for its first five runs) took up to 25 ms, and every
// pickup slower than 5 ms in three runs was among the first ten.
func measureCrossNode(ctx context.Context, url string) (time.Duration, time.Duration, error) {
	quiet := slog.New(slog.DiscardHandler)
	a, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: url}, Logger: quiet})
	if err != nil {
		return 0, 0, err
	}
	defer a.Close()
	b, err := bpmnlite.Open(ctx, bpmnlite.Config{
		Database:            bpmnlite.DatabaseConfig{URL: url},
		Logger:              quiet,
		JobExecutorActivate: true,
		JobExecutor:         bpmnlite.JobExecutorConfig{PoolSize: 4, WaitTime: 30 * time.Second, MaxWait: time.Minute, Logger: quiet},
	})
	if err != nil {
		return 0, 0, err
	}
	defer b.Close()
	started := make(chan time.Time, 1)
	b.RegisterDelegate("probe", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
		started <- time.Now()
		return nil
	}))
	if _, err := a.Deploy(ctx, bpmnlite.DeployRequest{Name: "x", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(chain("cross", 1, "probe"))}}}); err != nil {
		return 0, 0, err
	}
	time.Sleep(500 * time.Millisecond)
	const warmUp = 30
	var ds []time.Duration
	for i := 0; i < warmUp+200; i++ {
		if _, err := a.Start(ctx, bpmnlite.StartRequest{Key: "cross"}); err != nil {
			return 0, 0, err
		}
		committed := time.Now()
		select {
		case t := <-started:
			if i >= warmUp {
				ds = append(ds, t.Sub(committed))
			}
		case <-time.After(10 * time.Second):
			return 0, 0, fmt.Errorf("the other node did not pick the job up within 10s")
		}
	}
	p50, p99 := percentiles(ds)
	return p50, p99, nil
}

// measureTimerLateness creates timers due over the next seconds and
// measures how late the executor starts them.
func measureTimerLateness(ctx context.Context, url string) (time.Duration, time.Duration, error) {
	quiet := slog.New(slog.DiscardHandler)
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{
		Database:            bpmnlite.DatabaseConfig{URL: url},
		Logger:              quiet,
		JobExecutorActivate: true,
		JobExecutor:         bpmnlite.JobExecutorConfig{PoolSize: 4, Logger: quiet},
	})
	if err != nil {
		return 0, 0, err
	}
	defer eng.Close()
	var mu sync.Mutex
	var late []time.Duration
	eng.RegisterDelegate("fired", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
		now := time.Now()
		v, _, err := ex.Variable("due")
		if err != nil {
			return err
		}
		mu.Lock()
		late = append(late, now.Sub(v.(time.Time)))
		mu.Unlock()
		return nil
	}))
	const xml = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="bench">
  <process id="timer" isExecutable="true">
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait" />
    <intermediateCatchEvent id="wait"><timerEventDefinition><timeDate>${due}</timeDate></timerEventDefinition></intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="wait" targetRef="fired" />
    <serviceTask id="fired" camunda:class="fired" />
    <sequenceFlow id="f3" sourceRef="fired" targetRef="e" />
    <endEvent id="e" />
  </process>
</definitions>`
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "t", Resources: []bpmnlite.Resource{{Name: "t.bpmn", Bytes: []byte(xml)}}}); err != nil {
		return 0, 0, err
	}
	const n = 200
	base := time.Now().Add(time.Second)
	for i := 0; i < n; i++ {
		due := base.Add(time.Duration(i) * 37 * time.Millisecond).Truncate(time.Microsecond)
		if _, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "timer", Variables: map[string]any{"due": due}}); err != nil {
			return 0, 0, err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		got := len(late)
		mu.Unlock()
		if got == n {
			break
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("only %d of %d timers fired", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p50, p99 := percentiles(late)
	return p50, p99, nil
}

// measureAcquisition fills the job table of a fresh database with total
// due jobs (locked of them held by another node) and times one acquisition
// of 32 by priority, rolled back so every run sees the same table.
func measureAcquisition(ctx context.Context, o options, total, locked int) (time.Duration, error) {
	url, err := freshDatabase(ctx, o.pgURL, "bpmnlite_bench_acq")
	if err != nil {
		return 0, err
	}
	db, err := persistence.Open(ctx, url, persistence.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if err := persistence.FillJobs(ctx, db, total, locked); err != nil {
		return 0, err
	}
	var ds []time.Duration
	for i := 0; i < 300; i++ {
		t, err := db.Begin(ctx, false)
		if err != nil {
			return 0, err
		}
		now := time.Now()
		begin := time.Now()
		jobs, err := persistence.AcquireJobs(ctx, t, persistence.AcquireParams{Now: now, LockOwner: "bench", LockUntil: now.Add(time.Minute), Limit: 32, ByPriority: true})
		ds = append(ds, time.Since(begin))
		_ = t.Rollback(ctx)
		if err != nil {
			return 0, err
		}
		if len(jobs) != 32 {
			return 0, fmt.Errorf("acquired %d jobs, want 32", len(jobs))
		}
	}
	p50, _ := percentiles(ds)
	return p50, nil
}
