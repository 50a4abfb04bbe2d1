package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// The scale suite (issue 27): the same measures on a fresh database and
// again once it holds o.scaleWaiting instances waiting at a user task and
// o.scaleHistory history rows (a tenth of them finished process instances,
// the rest their activity instances), then history cleanup removing all
// those instances' history while one instance steps through async jobs.
// Costs should stay flat as data grows: state lives in the database and the
// engine's caches are bounded.

// scaleMeasures are what each phase gives, in the order printed.
type scaleMeasures struct {
	jobsPerSecond      float64
	pickup50, pickup99 time.Duration
	start50, start99   time.Duration
	heap, rss          uint64
	note               string
}

const waitingModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="bench">
  <process id="waiting" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <userTask id="work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

func scaleSuite(ctx context.Context, o options, w io.Writer) error {
	fmt.Fprintf(w, "Scale: a fresh database, then %d waiting instances and %d history rows (%s per throughput figure)\n\n", o.scaleWaiting, o.scaleHistory, o.duration)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tbackend\tfresh\tfilled\tfilled/fresh\tnote")
	err := onEachBackend(ctx, o, "scale", func(backend, url string) error {
		return measureScale(ctx, o, backend, url, tw)
	})
	if err != nil {
		return fmt.Errorf("scale: %w", err)
	}
	return tw.Flush()
}

// onEachBackend runs measure on each backend, on a fresh database of
// suite (see suiteDatabase) removed afterwards.
func onEachBackend(ctx context.Context, o options, suite string, measure func(backend, url string) error) error {
	backends := []string{"sqlite NORMAL"}
	switch {
	case o.pgOnly:
		backends = []string{"postgres"}
	case !o.skipPG:
		backends = append([]string{"postgres"}, backends...)
	}
	for _, backend := range backends {
		url, cleanup, err := suiteDatabase(ctx, o, backend, suite)
		if err != nil {
			return err
		}
		err = measure(backend, url)
		cleanup()
		if err != nil {
			return fmt.Errorf("on %s: %w", backend, err)
		}
	}
	return nil
}

// suiteDatabase makes a suite's database, named after it, on backend:
// its URL and what removes it afterwards.
func suiteDatabase(ctx context.Context, o options, backend, suite string) (string, func(), error) {
	if backend == "postgres" {
		url, err := freshDatabase(ctx, o.pgURL, "bpmnlite_bench_"+suite)
		return url, func() {}, err
	}
	dir, err := os.MkdirTemp("", "bpmnbench")
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(dir, suite+".db"), func() { os.RemoveAll(dir) }, nil
}

func measureScale(ctx context.Context, o options, backend, url string, tw io.Writer) error {
	fresh, err := scalePhase(ctx, o, backend, url)
	if err != nil {
		return err
	}
	fillStart := time.Now()
	if err := fillScale(ctx, o, backend, url); err != nil {
		return err
	}
	filled, err := scalePhase(ctx, o, backend, url)
	if err != nil {
		return err
	}
	filled.note = joinNotes(fmt.Sprintf("filled in %s", time.Since(fillStart).Round(time.Second)), filled.note)
	ratio := func(a, b float64) string { return fmt.Sprintf("%.2f×", b/a) }
	rows := []struct {
		name         string
		fresh, large string
		ratio, note  string
	}{
		{"job throughput (jobs/s)", fmt.Sprintf("%.0f", fresh.jobsPerSecond), fmt.Sprintf("%.0f", filled.jobsPerSecond), ratio(fresh.jobsPerSecond, filled.jobsPerSecond), filled.note},
		{"pickup p50, one instance alone", ms(fresh.pickup50), ms(filled.pickup50), ratio(float64(fresh.pickup50), float64(filled.pickup50)), ""},
		{"pickup p99, one instance alone", ms(fresh.pickup99), ms(filled.pickup99), ratio(float64(fresh.pickup99), float64(filled.pickup99)), ""},
		{"start latency p50", ms(fresh.start50), ms(filled.start50), ratio(float64(fresh.start50), float64(filled.start50)), ""},
		{"start latency p99", ms(fresh.start99), ms(filled.start99), ratio(float64(fresh.start99), float64(filled.start99)), ""},
		{"heap in use after GC (MiB)", mib(fresh.heap), mib(filled.heap), ratio(float64(fresh.heap), float64(filled.heap)), "engine open, after the starts"},
		{"RSS (MiB)", mib(fresh.rss), mib(filled.rss), ratio(float64(fresh.rss), float64(filled.rss)), ""},
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.name, backend, r.fresh, r.large, r.ratio, r.note)
	}
	p50, p99, took, removed, left, err := measureCleanup(ctx, o, url)
	if err != nil {
		return err
	}
	fmt.Fprintf(tw, "pickup p50 / p99 during history cleanup\t%s\t\t%s / %s\t\tcleanup removed %d instances' history in %s (%.0f instances/s); %d were left when the probe ended\n",
		backend, ms(p50), ms(p99), removed, took.Round(time.Second), float64(removed)/took.Seconds(), left)
	return nil
}

func mib(b uint64) string { return fmt.Sprintf("%d", b>>20) }

// scalePhase measures pickup latency, start latency and job throughput on
// url as it is, then suspends what the throughput figure left running so
// that the next phase's executors find none of it.
func scalePhase(ctx context.Context, o options, backend, url string) (scaleMeasures, error) {
	var m scaleMeasures
	m.note = loadNote()
	var err error
	if m.pickup50, m.pickup99, _, err = measureLatency(ctx, o, url, 0); err != nil {
		return m, err
	}
	if m.start50, m.start99, m.heap, err = measureStartLatency(ctx, url, 2000); err != nil {
		return m, err
	}
	m.rss = procStatusBytes("VmRSS")
	workers := 8
	if backend != "postgres" {
		workers = 4
	}
	rate, note, err := measureThroughput(ctx, o, throughputCase{backend: backend, workers: workers, executors: 1, history: bpmnlite.HistoryAudit, url: url})
	if err != nil {
		return m, err
	}
	m.jobsPerSecond, m.note = rate, joinNotes(m.note, note)
	return m, suspendLeftovers(ctx, url, "chain")
}

// suspendLeftovers suspends the instances of key's versions (and so their
// jobs): the throughput figure stops its workers with jobs still due.
func suspendLeftovers(ctx context.Context, url, key string) error {
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: url}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer eng.Close()
	defs, err := eng.ProcessDefinitions(ctx, bpmnlite.DefinitionQuery{Key: key})
	if err != nil {
		return err
	}
	var ids []string
	for _, d := range defs {
		ids = append(ids, d.ID)
	}
	return eng.SuspendProcessDefinitions(ctx, ids, true, true)
}

// measureStartLatency starts n instances of a process that waits at a user
// task, one after another, and returns the median and 99th percentile, and
// the heap in use after them, with the engine still open.
func measureStartLatency(ctx context.Context, url string, n int) (p50, p99 time.Duration, heap uint64, err error) {
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: url}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return 0, 0, 0, err
	}
	defer eng.Close()
	if err := deployWaiting(ctx, eng); err != nil {
		return 0, 0, 0, err
	}
	ds := make([]time.Duration, 0, n)
	for i := range n + 20 {
		begin := time.Now()
		if _, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "waiting"}); err != nil {
			return 0, 0, 0, err
		}
		if i >= 20 { // the first starts prepare statements and fill caches
			ds = append(ds, time.Since(begin))
		}
	}
	slices.Sort(ds)
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ds[len(ds)/2], ds[len(ds)*99/100], ms.HeapInuse, nil
}

// openWithWaiting opens an engine on url with n more instances of the
// waiting model started (through the engine, so that their rows are what
// the engine writes).
func openWithWaiting(ctx context.Context, url string, n int) (*bpmnlite.Engine, error) {
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: url, MaxConns: 12}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	if err := deployWaiting(ctx, eng); err == nil {
		err = startMany(ctx, eng, "waiting", n, 8)
	}
	if err != nil {
		eng.Close()
		return nil, err
	}
	return eng, nil
}

// deployWaiting deploys the waiting model unless it is deployed already.
func deployWaiting(ctx context.Context, eng *bpmnlite.Engine) error {
	_, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "waiting", SkipUnchanged: true,
		Resources: []bpmnlite.Resource{{Name: "waiting.bpmn", Bytes: []byte(waitingModel)}}})
	return err
}

// fillScale adds the waiting instances (started through the engine, so
// that their rows are what the engine writes) and the history rows
// (written by SQL: ten million through the engine would take hours).
func fillScale(ctx context.Context, o options, backend, url string) error {
	eng, err := openWithWaiting(ctx, url, o.scaleWaiting)
	if err != nil {
		return err
	}
	defer eng.Close()
	db, err := persistence.Open(ctx, url, persistence.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := seedHistory(ctx, db, o.scaleHistory/10, 9); err != nil {
		return err
	}
	if backend == "postgres" {
		return checkpoint(ctx, o.pgURL)
	}
	return nil
}

// seedHistory writes instances finished process instances to history,
// each with perInstance activity instances, all past their removal time.
func seedHistory(ctx context.Context, db persistence.DB, instances, perInstance int) error {
	return seed(ctx, db, []string{"hist_process_instance", "hist_activity_instance"}, func(tx persistence.Tx, s seedSQL) error {
		if _, err := tx.Exec(ctx, s.insert("hist_process_instance", "id, rev, process_definition_id, process_definition_key, business_key, start_time, end_time, state, removal_time",
			"'hpi-' || "+s.text("x")+", 1, 'old:1:x', 'old', 'order-' || "+s.text("x")+", "+s.at("x")+", "+s.at("x")+", 'COMPLETED', "+s.at("x")), 1, instances); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, s.insert("hist_activity_instance", "id, rev, process_instance_id, process_definition_id, activity_id, activity_type, start_time, end_time, canceled",
			"'hai-' || "+s.text("x")+", 1, 'hpi-' || "+s.text(fmt.Sprintf("(x - 1) / %d + 1", perInstance))+", 'old:1:x', 'step', 'serviceTask', "+s.at("x")+", "+s.at("x")+", false"), 1, instances*perInstance)
		return err
	})
}

// measureCleanup schedules history cleanup and measures pickup latency
// while it runs (the cleanup job runs on the same executor as the probe's
// jobs), then waits for it to remove every expired instance.
func measureCleanup(ctx context.Context, o options, url string) (p50, p99, took time.Duration, removed, leftAtProbeEnd int, err error) {
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: url}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return 0, 0, 0, 0, 0, err
	}
	defer eng.Close()
	expired := func() (int, error) {
		return eng.Count(ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "old"})
	}
	before, err := expired()
	if err != nil {
		return 0, 0, 0, 0, 0, err
	}
	begin := time.Now()
	if err := eng.ScheduleHistoryCleanup(ctx, true); err != nil {
		return 0, 0, 0, 0, 0, err
	}
	if p50, p99, _, err = measureLatency(ctx, o, url, 0); err != nil {
		return 0, 0, 0, 0, 0, err
	}
	left, err := expired()
	if err != nil {
		return 0, 0, 0, 0, 0, err
	}
	leftAtProbeEnd = left
	if left == before {
		return 0, 0, 0, 0, 0, fmt.Errorf("history cleanup removed nothing while the probe ran")
	}
	// The probe is done: let an executor finish the cleanup.
	x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{Logger: slog.New(slog.DiscardHandler)}, eng)
	if err != nil {
		return 0, 0, 0, 0, 0, err
	}
	if err := x.Start(ctx); err != nil {
		return 0, 0, 0, 0, 0, err
	}
	defer x.Stop(context.Background())
	for left > 0 {
		time.Sleep(time.Second)
		if left, err = expired(); err != nil {
			return 0, 0, 0, 0, 0, err
		}
		if time.Since(begin) > time.Hour {
			return 0, 0, 0, 0, 0, fmt.Errorf("history cleanup still has %d instances after an hour", left)
		}
	}
	return p50, p99, time.Since(begin), before, leftAtProbeEnd, nil
}
