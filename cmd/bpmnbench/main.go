package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/persistence"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bpmnbench:", err)
		os.Exit(1)
	}
}

type options struct {
	pgURL    string // an admin URL; the benchmark creates its own databases
	refDir   string // ../shared/bench
	duration time.Duration
	callers  int
	refRows  int
	riverDir string // bench/river: River's benchmark as a second reference; "" leaves it out
	skipPG   bool
	pgOnly   bool // the scale, pages and batch suites: PostgreSQL only
	tracing  bool // throughput: the engines trace (spans exported nowhere) and the histograms take exemplars
	// throughput: the executors report to the metrics package's collector, as serve's do (always with tracing)
	serveMetrics bool
	groupCommit  bool // throughput on PostgreSQL: JobExecutorConfig.GroupCommit
	suites       string
	workers      []int
	match        *regexp.Regexp // throughput figures to measure, by "scenario backend"
	// memory suite: deployments of a model of modelBytes
	deployments, modelBytes, cacheBytes int
	// scale suite: instances waiting and history rows added to the database
	scaleWaiting, scaleHistory int
	// pages suite: running instances and activity history of the definition
	pageInstances, pageHistory int
	// batch suite: instances the migration batch moves
	batchInstances int
}

type row struct {
	name, backend string
	rate          float64 // per second
	ref           float64 // reference rate, 0 when none
	refName       string
	river         float64 // River's jobs/s in the same run, 0 when not measured
	note          string
}

func run() error {
	var o options
	flag.StringVar(&o.pgURL, "pg", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL admin URL (the benchmark creates databases bpmnlite_bench*)")
	flag.StringVar(&o.refDir, "ref", filepath.Join("..", "shared", "bench"), "directory with the pgbench reference scripts")
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "length of each measurement")
	flag.IntVar(&o.callers, "callers", 8, "concurrent callers for the start benchmark")
	flag.IntVar(&o.refRows, "ref-rows", 1000000, "rows in the pgbench job.sql reference table")
	flag.BoolVar(&o.skipPG, "sqlite-only", false, "skip PostgreSQL")
	flag.BoolVar(&o.pgOnly, "postgres-only", false, "scale, pages and batch suites: skip SQLite")
	flag.StringVar(&o.riverDir, "river", filepath.Join("bench", "river"), "PostgreSQL job figures: River's benchmark module, run as a second reference before each figure (\"\" leaves it out)")
	flag.BoolVar(&o.groupCommit, "group-commit", false, "throughput on PostgreSQL: the job executors commit the jobs queued together in one transaction (JobExecutorConfig.GroupCommit)")
	flag.BoolVar(&o.serveMetrics, "serve-metrics", false, "throughput suites: the job executors report to the Prometheus collector as serve's do (-tracing implies it: compare a -tracing run with a -serve-metrics one)")
	flag.BoolVar(&o.tracing, "tracing", false, "throughput suites: switch tracing on (an OpenTelemetry SDK with a batch processor whose exporter drops the spans, exemplars on a job histogram)")
	flag.StringVar(&o.suites, "suite", "start,jobs", "comma-separated suites: start, jobs, throughput (jobs without latency), external (external tasks), slow (slow delegates side by side), memory (heap and RSS after deployments), lists (REST lists and counts at 1k and 1M rows), scale (costs on a fresh database and on one with 1M waiting instances and 10M history rows), pages (the browser UI's requests at 100k instances and 1M history rows), batch (a migration batch of 10k instances and the pickup latency of other jobs meanwhile)")
	flag.IntVar(&o.deployments, "deployments", 1000, "memory suite: versions deployed")
	flag.IntVar(&o.modelBytes, "model-bytes", 1<<20, "memory suite: size of the model deployed")
	flag.IntVar(&o.cacheBytes, "definition-cache-bytes", 0, "memory suite: the engine's DefinitionCacheBytes (0: the default; negative: no bound)")
	flag.IntVar(&o.scaleWaiting, "scale-waiting", 1_000_000, "scale suite: instances waiting at a user task in the filled database")
	flag.IntVar(&o.scaleHistory, "scale-history", 10_000_000, "scale suite: history rows in the filled database (a tenth process instances, the rest activity instances)")
	flag.DurationVar(&quietWait, "quiet-wait", quietWait, "how long each figure waits for the one-minute load average to fall below 0.5 (0: not at all, for a quick check that a suite runs; such figures are marked NOT QUIET)")
	flag.IntVar(&o.pageInstances, "page-instances", 100_000, "pages suite: running instances of the definition the pages show")
	flag.IntVar(&o.pageHistory, "page-history", 1_000_000, "pages suite: finished activity instances of that definition in history")
	flag.IntVar(&o.batchInstances, "batch-instances", 10_000, "batch suite: instances waiting in version 1 that the migration batch moves to version 2")
	workers := flag.String("workers", "1,4,8,16", "worker counts for the throughput figures")
	match := flag.String("match", "", "measure only the throughput figures whose \"scenario backend\" matches this regular expression")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	for _, w := range strings.Split(*workers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n <= 0 {
			return fmt.Errorf("-workers: %q is not a positive number", w)
		}
		o.workers = append(o.workers, n)
	}
	var err error
	if o.match, err = regexp.Compile(*match); err != nil {
		return fmt.Errorf("-match: %w", err)
	}
	ctx := context.Background()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if strings.Contains(o.suites, "start") {
		rows, err := startSuite(ctx, o)
		if err != nil {
			return err
		}
		printRows(os.Stdout, fmt.Sprintf("Starting instances: %d concurrent callers, %s per figure", o.callers, o.duration), "starts/s", rows)
	}
	if strings.Contains(o.suites, "jobs") || strings.Contains(o.suites, "throughput") {
		if err := jobSuite(ctx, o, os.Stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.suites, "slow") {
		if err := slowSuite(ctx, o, os.Stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.suites, "memory") {
		if err := memorySuite(ctx, o, os.Stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.suites, "lists") {
		if err := listsSuite(ctx, o, os.Stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.suites, "pages") {
		if err := pagesSuite(ctx, o, os.Stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.suites, "batch") {
		if err := batchSuite(ctx, o, os.Stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.suites, "scale") {
		if err := scaleSuite(ctx, o, os.Stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.suites, "external") {
		if err := externalSuite(ctx, o, os.Stdout); err != nil {
			return err
		}
	}
	return nil
}

func startSuite(ctx context.Context, o options) ([]row, error) {
	var rows []row
	if !o.skipPG {
		ref, refCPU, err := pgbenchRef(ctx, o, "start.sql", o.callers)
		if err != nil {
			fmt.Fprintln(os.Stderr, "reference not measured:", err)
		}
		for _, sc := range scenarios {
			url, err := freshDatabase(ctx, o.pgURL, "bpmnlite_bench")
			if err != nil {
				return nil, err
			}
			load := loadNote()
			r, err := measure(ctx, url, sc, o)
			if err != nil {
				return nil, fmt.Errorf("%s on postgres: %w", sc.name, err)
			}
			r.note = joinNotes(load, r.note)
			r.backend = "postgres"
			if sc.withRef {
				r.ref, r.refName = ref, "pgbench start.sql"
				r.note = joinNotes(r.note, refCPU)
			}
			rows = append(rows, r)
		}
	}
	for _, sync := range []string{"NORMAL", "FULL"} {
		for _, sc := range scenarios {
			dir, err := os.MkdirTemp("", "bpmnbench")
			if err != nil {
				return nil, err
			}
			load := loadNote()
			r, err := measureSQLite(ctx, filepath.Join(dir, "bench.db"), sync, sc, o)
			os.RemoveAll(dir)
			if err != nil {
				return nil, fmt.Errorf("%s on sqlite: %w", sc.name, err)
			}
			r.note = joinNotes(load, r.note)
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// jobSuite measures the job executor: throughput, pickup latency, timer
// lateness and acquisition time.
func jobSuite(ctx context.Context, o options, w io.Writer) error {
	var rows []row
	if !o.skipPG {
		// The machine's speed drifts during a run, so pgbench's job.sql runs
		// again right before each figure, on a table filled once.
		var ref *pgbenchJob
		var river *riverRef
		measurePG := func(name string, c throughputCase) error {
			if !o.match.MatchString(name + " postgres") {
				return nil
			}
			if ref == nil {
				var err error
				if ref, err = preparePgbenchJob(ctx, o, 8); err != nil {
					return err
				}
				if river, err = prepareRiver(ctx, o); err != nil {
					return err
				}
			}
			load := loadNote()
			refRate, err := ref.run(ctx)
			if err != nil {
				fmt.Fprintln(os.Stderr, "reference not measured:", err)
			}
			var riverRate float64
			if river != nil {
				if riverRate, err = river.run(ctx); err != nil {
					fmt.Fprintln(os.Stderr, "River not measured:", err)
				}
			}
			rate, note, err := measureThroughput(ctx, o, c)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			note = joinNotes(load, note, ref.cpuNote(), river.cpuNote())
			rows = append(rows, row{name: name, backend: "postgres", rate: rate, ref: refRate, refName: "pgbench job.sql, 8 clients", river: riverRate, note: note})
			return nil
		}
		for _, hist := range []bpmnlite.HistoryLevel{bpmnlite.HistoryAudit, bpmnlite.HistoryFull, bpmnlite.HistoryNone} {
			for _, workers := range o.workers {
				name := fmt.Sprintf("async chain, %d workers, history %s", workers, hist)
				if err := measurePG(name, throughputCase{backend: "postgres", workers: workers, executors: 1, history: hist}); err != nil {
					return err
				}
			}
		}
		if err := measurePG("async chain, 2 executors × 4 workers", throughputCase{backend: "postgres", workers: 4, executors: 2, history: bpmnlite.HistoryAudit}); err != nil {
			return err
		}
	}
	for _, sync := range []string{"NORMAL", "FULL"} {
		var ref float64
		var refCPU string
		// Queue 4 makes groups of at most 8 jobs; the SQLite default is 64.
		for _, queue := range []int{4, 0} {
			name := "async chain, 4 workers, history audit, default queue (64)"
			if queue > 0 {
				name = fmt.Sprintf("async chain, 4 workers, history audit, queue %d", queue)
			}
			if !o.match.MatchString(name + " sqlite " + sync) {
				continue
			}
			if ref == 0 {
				var err error
				cpuBefore, begin := processCPU(), time.Now()
				if ref, err = persistence.SQLiteJobReference(ctx, sync, o.duration); err != nil {
					return err
				}
				if txs := ref * time.Since(begin).Seconds(); txs > 0 {
					refCPU = fmt.Sprintf("reference %.2f ms CPU per transaction", float64((processCPU()-cpuBefore).Microseconds())/1000/txs)
				}
			}
			load := loadNote()
			rate, note, err := measureThroughput(ctx, o, throughputCase{backend: "sqlite " + sync, workers: 4, queue: queue, executors: 1, history: bpmnlite.HistoryAudit})
			if err != nil {
				return err
			}
			note = joinNotes(load, note, refCPU)
			rows = append(rows, row{name: name, backend: "sqlite " + sync, rate: rate, ref: ref, refName: "job transaction, 1 writer", note: note})
		}
	}
	printRows(w, fmt.Sprintf("Job executor throughput, %s per figure", o.duration), "jobs/s", rows)
	if o.skipPG || !strings.Contains(o.suites, "jobs") {
		return nil
	}

	// Latency on a quiet database: the reference's million-row table would
	// keep autovacuum and the checkpointer busy for minutes.
	if err := persistence.DropDatabase(ctx, o.pgURL, "bpmnlite_bench_ref"); err != nil {
		return err
	}
	if err := checkpoint(ctx, o.pgURL); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nLatency (PostgreSQL)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tp50\tp99\tnote")
	url, err := freshDatabase(ctx, o.pgURL, "bpmnlite_bench")
	if err != nil {
		return err
	}
	p50, p99, step, err := measureLatency(ctx, o, url, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(tw, "same-node pickup, one instance stepping alone\t%s\t%s\t%s per async step\n", ms(p50), ms(p99), ms(step))
	var half float64
	for _, r := range rows {
		if r.backend == "postgres" && strings.Contains(r.name, "8 workers, history audit") {
			half = r.rate / 2
		}
	}
	if half > 0 { // the throughput at 8 workers was measured
		if url, err = freshDatabase(ctx, o.pgURL, "bpmnlite_bench"); err != nil {
			return err
		}
		p50, p99, step, err = measureLatency(ctx, o, url, half)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "same-node pickup, under 50%% load (%.0f jobs/s)\t%s\t%s\t%s per async step\n", half, ms(p50), ms(p99), ms(step))
	}
	if url, err = freshDatabase(ctx, o.pgURL, "bpmnlite_bench"); err != nil {
		return err
	}
	if p50, p99, err = measureCrossNode(ctx, url); err != nil {
		return err
	}
	fmt.Fprintf(tw, "cross-node pickup (NOTIFY), WaitTime 30s\t%s\t%s\t\n", ms(p50), ms(p99))
	if url, err = freshDatabase(ctx, o.pgURL, "bpmnlite_bench"); err != nil {
		return err
	}
	if p50, p99, err = measureTimerLateness(ctx, url); err != nil {
		return err
	}
	fmt.Fprintf(tw, "timer lateness (due → started)\t%s\t%s\t200 timers over 7 s\n", ms(p50), ms(p99))
	small, err := measureAcquisition(ctx, o, 1000, 0)
	if err != nil {
		return err
	}
	large, err := measureAcquisition(ctx, o, 1000000, 100000)
	if err != nil {
		return err
	}
	fmt.Fprintf(tw, "acquisition of 32 by priority, 1,000 jobs\t%s\t\t\n", ms(small))
	fmt.Fprintf(tw, "acquisition of 32 by priority, 1,000,000 jobs (100,000 locked)\t%s\t\t%.2f× the 1,000-job time\n", ms(large), float64(large)/float64(small))
	return tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

type scenario struct {
	name    string
	key     string
	xml     string
	withRef bool
}

var scenarios = []scenario{
	{name: "(a) start → user task", key: "startToTask", xml: startToTask, withRef: true},
	{name: "(b) 10 activities → user task", key: "tenSteps", xml: tenSteps()},
}

const startToTask = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="bench">
  <process id="startToTask" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task" />
  </process>
</definitions>`

// tenSteps is start, nine synchronous service tasks (an expression each),
// then the user task: ten activities to the first wait state.
func tenSteps() string {
	var b strings.Builder
	b.WriteString(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="bench">
  <process id="tenSteps" isExecutable="true">
    <startEvent id="s0" />`)
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "\n    <sequenceFlow id=\"f%d\" sourceRef=\"s%d\" targetRef=\"s%d\" />\n    <serviceTask id=\"s%d\" camunda:expression=\"${true}\" />", i, i-1, i, i)
	}
	b.WriteString(`
    <sequenceFlow id="f10" sourceRef="s9" targetRef="task" />
    <userTask id="task" />
  </process>
</definitions>`)
	return b.String()
}

func measure(ctx context.Context, url string, sc scenario, o options) (row, error) {
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: url, MaxConns: o.callers + 2}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return row{}, err
	}
	defer eng.Close()
	return drive(ctx, eng, sc, o)
}

func measureSQLite(ctx context.Context, path, sync string, sc scenario, o options) (row, error) {
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: path, SQLiteSynchronous: sync}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return row{}, err
	}
	defer eng.Close()
	r, err := drive(ctx, eng, sc, o)
	r.backend = "sqlite " + sync
	return r, err
}

// drive deploys the scenario and starts instances from o.callers goroutines
// for o.duration.
func drive(ctx context.Context, eng *bpmnlite.Engine, sc scenario, o options) (row, error) {
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: sc.key, Resources: []bpmnlite.Resource{{Name: sc.key + ".bpmn", Bytes: []byte(sc.xml)}}}); err != nil {
		return row{}, err
	}
	// Warm up connections and caches.
	for i := 0; i < 50; i++ {
		if _, err := eng.Start(ctx, bpmnlite.StartRequest{Key: sc.key}); err != nil {
			return row{}, err
		}
	}
	var n atomic.Int64
	var firstErr error
	var once sync.Once
	deadline := time.Now().Add(o.duration)
	var wg sync.WaitGroup
	begin := time.Now()
	cpuBefore, ownBefore := machineCPU(), processCPU()
	for i := 0; i < o.callers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := eng.Start(ctx, bpmnlite.StartRequest{Key: sc.key, BusinessKey: "bench"}); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)
	cpu, own := machineCPU()-cpuBefore, processCPU()-ownBefore
	if firstErr != nil {
		return row{}, firstErr
	}
	return row{name: sc.name, rate: float64(n.Load()) / elapsed.Seconds(),
		note: cpuNote("start", n.Load(), cpu, own, eng.Dialect() == "postgres")}, nil
}

// freshDatabase drops and creates database name and returns its URL.
func freshDatabase(ctx context.Context, adminURL, name string) (string, error) {
	return persistence.CreateDatabase(ctx, adminURL, name, true)
}

var tpsRe = regexp.MustCompile(`tps = ([0-9.]+)`)

// pgbenchRef measures a reference script of ../shared/bench with clients
// pgbench clients on a fresh database (start.sql).
func pgbenchRef(ctx context.Context, o options, script string, clients int) (rate float64, refCPU string, err error) {
	p, err := preparePgbench(ctx, o, clients)
	if err != nil {
		return 0, "", err
	}
	if err := persistence.CreateSequence(ctx, p.url, "exec_seq", 10000001); err != nil {
		return 0, "", err
	}
	rate, err = p.pgbench(ctx, script)
	return rate, p.cpuNote(), err
}

// pgbenchJob is the job.sql reference on a table filled once, run as often
// as needed: each run leaves the table as it found it (one due job per
// instance).
type pgbenchJob struct{ *pgbenchDB }

func preparePgbenchJob(ctx context.Context, o options, clients int) (*pgbenchJob, error) {
	p, err := preparePgbench(ctx, o, clients)
	if err != nil {
		return nil, err
	}
	if err := p.psql("-v", "n="+strconv.Itoa(o.refRows), "-f", filepath.Join(o.refDir, "fill.sql")); err != nil {
		return nil, err
	}
	if err := persistence.Checkpoint(ctx, o.pgURL); err != nil {
		return nil, err
	}
	p.extra = []string{"-D", "nclients=" + strconv.Itoa(clients), "-D", "ninst=" + strconv.Itoa(o.refRows)}
	return &pgbenchJob{p}, nil
}

func (p *pgbenchJob) run(ctx context.Context) (float64, error) {
	if err := checkpoint(ctx, p.o.pgURL); err != nil {
		return 0, err
	}
	return p.pgbench(ctx, "job.sql")
}

// checkpoint starts a measurement on a clean slate: without it, whether a
// checkpoint (and the full-page writes after it) falls into a measurement
// depends on the WAL written by the ones before, which made figures
// alternate by ±10 %.
func checkpoint(ctx context.Context, adminURL string) error {
	return persistence.Checkpoint(ctx, adminURL)
}

// pgbenchDB is a fresh database with the reference schema.
type pgbenchDB struct {
	o       options
	bin     string // pgbench
	cfg     *pgx.ConnConfig
	url     string
	clients int
	extra   []string // more pgbench arguments
	// lastCPUPerTx is the machine's CPU time per transaction of the last run.
	lastCPUPerTx time.Duration
}

func preparePgbench(ctx context.Context, o options, clients int) (*pgbenchDB, error) {
	bin, err := findPgbench()
	if err != nil {
		return nil, err
	}
	url, err := freshDatabase(ctx, o.pgURL, "bpmnlite_bench_ref")
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	p := &pgbenchDB{o: o, bin: bin, cfg: cfg, url: url, clients: clients}
	return p, p.psql("-f", filepath.Join(o.refDir, "schema.sql"))
}

func (p *pgbenchDB) psql(args ...string) error {
	path := filepath.Join(filepath.Dir(p.bin), "psql")
	cmd := exec.Command(path, append([]string{"-q", "-h", p.cfg.Host, "-p", strconv.Itoa(int(p.cfg.Port)), "-U", p.cfg.User, "-d", p.cfg.Database, "-v", "ON_ERROR_STOP=1"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("psql %v: %v: %s", args, err, out)
	}
	return nil
}

// joinNotes joins the non-empty notes of a figure.
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// cpuNote gives the machine's CPU time per transaction of the last
// pgbench run, the reference's cost beside the engine's per job.
func (p *pgbenchDB) cpuNote() string {
	if p.lastCPUPerTx <= 0 {
		return ""
	}
	return fmt.Sprintf("reference %.2f ms CPU per transaction", float64(p.lastCPUPerTx.Microseconds())/1000)
}

func (p *pgbenchDB) pgbench(ctx context.Context, script string) (float64, error) {
	args := []string{"-h", p.cfg.Host, "-p", strconv.Itoa(int(p.cfg.Port)), "-U", p.cfg.User,
		"-n", "-M", "prepared", "-c", strconv.Itoa(p.clients), "-j", "2", "-T", strconv.Itoa(int(p.o.duration.Seconds())),
		"-f", filepath.Join(p.o.refDir, script)}
	args = append(append(args, p.extra...), p.cfg.Database)
	cpuBefore, begin := machineCPU(), time.Now()
	out, err := exec.CommandContext(ctx, p.bin, args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench: %v: %s", err, out)
	}
	cpu, elapsed := machineCPU()-cpuBefore, time.Since(begin)
	m := tpsRe.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench printed no tps: %s", out)
	}
	tps, err := strconv.ParseFloat(string(m[1]), 64)
	if err == nil && tps > 0 {
		p.lastCPUPerTx = time.Duration(float64(cpu) / (tps * elapsed.Seconds()))
	}
	return tps, err
}

func findPgbench() (string, error) {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	if len(matches) > 0 {
		return matches[len(matches)-1], nil
	}
	return "", errors.New("pgbench not found")
}

func printRows(w io.Writer, title, unit string, rows []row) {
	fmt.Fprintf(w, "%s\n\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "scenario\tbackend\t%s\treference (same run)\tratio\tnote\n", unit)
	for _, r := range rows {
		ref, ratio := "", ""
		if r.ref > 0 {
			ref = fmt.Sprintf("%.0f (%s)", r.ref, r.refName)
			ratio = fmt.Sprintf("%.2f×", r.rate/r.ref)
		}
		if r.river > 0 {
			ref += fmt.Sprintf("; %.0f (River, continuous)", r.river)
			ratio += fmt.Sprintf(" / %.2f× River", r.rate/r.river)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%s\n", r.name, r.backend, r.rate, ref, ratio, r.note)
	}
	tw.Flush()
}
