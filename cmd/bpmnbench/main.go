// Command bpmnbench measures bpmnlite and prints a table. Each figure on
// PostgreSQL is reported beside a reference measured in the same run with
// pgbench (the bare transactions of ../shared/bench), because absolute
// numbers on shared machines drift.
//
//	go run ./cmd/bpmnbench -pg postgres://postgres@127.0.0.1:5432/postgres -duration 20s
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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bpmnlite/bpmnlite"
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
	skipPG   bool
}

type row struct {
	name, backend string
	rate          float64 // per second
	ref           float64 // reference rate, 0 when none
	refName       string
	note          string
}

func run() error {
	var o options
	flag.StringVar(&o.pgURL, "pg", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL admin URL (the benchmark creates databases bpmnlite_bench and bpmnlite_bench_ref)")
	flag.StringVar(&o.refDir, "ref", filepath.Join("..", "shared", "bench"), "directory with the pgbench reference scripts")
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "length of each measurement")
	flag.IntVar(&o.callers, "callers", 8, "concurrent callers")
	flag.BoolVar(&o.skipPG, "sqlite-only", false, "skip PostgreSQL")
	flag.Parse()
	ctx := context.Background()
	var rows []row

	if !o.skipPG {
		ref, err := pgbenchStart(ctx, o)
		if err != nil {
			fmt.Fprintln(os.Stderr, "reference not measured:", err)
		}
		for _, sc := range scenarios {
			url, err := freshDatabase(ctx, o.pgURL, "bpmnlite_bench")
			if err != nil {
				return err
			}
			r, err := measure(ctx, url, sc, o)
			if err != nil {
				return fmt.Errorf("%s on postgres: %w", sc.name, err)
			}
			r.backend = "postgres"
			if sc.withRef {
				r.ref, r.refName = ref, "pgbench start.sql"
			}
			rows = append(rows, r)
		}
	}
	for _, sync := range []string{"NORMAL", "FULL"} {
		for _, sc := range scenarios {
			dir, err := os.MkdirTemp("", "bpmnbench")
			if err != nil {
				return err
			}
			o2 := o
			r, err := measureSQLite(ctx, filepath.Join(dir, "bench.db"), sync, sc, o2)
			os.RemoveAll(dir)
			if err != nil {
				return fmt.Errorf("%s on sqlite: %w", sc.name, err)
			}
			rows = append(rows, r)
		}
	}
	print(os.Stdout, o, rows)
	return nil
}

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
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: url, MaxConns: o.callers + 2, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return row{}, err
	}
	defer eng.Close()
	return drive(ctx, eng, sc, o)
}

func measureSQLite(ctx context.Context, path, sync string, sc scenario, o options) (row, error) {
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: path, SQLiteSynchronous: sync, Logger: slog.New(slog.DiscardHandler)})
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
	if firstErr != nil {
		return row{}, firstErr
	}
	return row{name: sc.name, rate: float64(n.Load()) / elapsed.Seconds()}, nil
}

// freshDatabase drops and creates database name and returns its URL.
func freshDatabase(ctx context.Context, adminURL, name string) (string, error) {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	cfg, err := pgx.ParseConfig(adminURL)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name), nil
}

var tpsRe = regexp.MustCompile(`tps = ([0-9.]+)`)

// pgbenchStart measures the reference start transaction (start.sql: insert
// an execution and its first job) with o.callers clients.
func pgbenchStart(ctx context.Context, o options) (float64, error) {
	pgbench, err := findPgbench()
	if err != nil {
		return 0, err
	}
	url, err := freshDatabase(ctx, o.pgURL, "bpmnlite_bench_ref")
	if err != nil {
		return 0, err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, err
	}
	schema, err := os.ReadFile(filepath.Join(o.refDir, "schema.sql"))
	if err != nil {
		conn.Close(ctx)
		return 0, err
	}
	if _, err := conn.Exec(ctx, string(schema)); err != nil {
		conn.Close(ctx)
		return 0, err
	}
	if _, err := conn.Exec(ctx, "CREATE SEQUENCE exec_seq START 10000001"); err != nil {
		conn.Close(ctx)
		return 0, err
	}
	conn.Close(ctx)
	cfg, _ := pgx.ParseConfig(url)
	cmd := exec.CommandContext(ctx, pgbench, "-h", cfg.Host, "-p", strconv.Itoa(int(cfg.Port)), "-U", cfg.User,
		"-n", "-M", "prepared", "-c", strconv.Itoa(o.callers), "-j", "2", "-T", strconv.Itoa(int(o.duration.Seconds())),
		"-f", filepath.Join(o.refDir, "start.sql"), cfg.Database)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench: %v: %s", err, out)
	}
	m := tpsRe.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench printed no tps: %s", out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
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

func print(w io.Writer, o options, rows []row) {
	fmt.Fprintf(w, "bpmnlite start benchmark: %d concurrent callers, %s per figure\n\n", o.callers, o.duration)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tbackend\tstarts/s\treference\tratio")
	for _, r := range rows {
		ref, ratio := "", ""
		if r.ref > 0 {
			ref = fmt.Sprintf("%.0f (%s)", r.ref, r.refName)
			ratio = fmt.Sprintf("%.2f×", r.rate/r.ref)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\n", r.name, r.backend, r.rate, ref, ratio)
	}
	tw.Flush()
}
