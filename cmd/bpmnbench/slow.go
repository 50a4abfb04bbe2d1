package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// slowJobs and slowDelegate: the jobs of the slow-delegate figure, each
// calling a delegate that waits as a remote call would.
const (
	slowJobs     = 16
	slowDelegate = 100 * time.Millisecond
	slowRounds   = 5
)

// slowSuite measures how long slowJobs jobs whose delegate sleeps take with
// 8 workers: side by side they take about two sleeps (1.6 s one after
// another). Exclusive jobs of one instance still run one after another.
func slowSuite(ctx context.Context, o options, w io.Writer) error {
	fmt.Fprintf(w, "\nSlow delegates: %d jobs whose delegate sleeps %s, 8 workers (%s one after another); %d rounds on one engine\n\n",
		slowJobs, slowDelegate, slowJobs*slowDelegate, slowRounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "jobs\tbackend\tfirst round\tmedian\tslowest\tnote")
	backends := []string{"sqlite NORMAL", "sqlite FULL"}
	if !o.skipPG {
		backends = append(backends, "postgres")
	}
	for _, backend := range backends {
		for _, exclusive := range []bool{false, true} {
			load := loadNote()
			rounds, err := measureSlow(ctx, o, backend, exclusive)
			if err != nil {
				return fmt.Errorf("slow delegates on %s: %w", backend, err)
			}
			kind := fmt.Sprintf("%d instances, one job each", slowJobs)
			if exclusive {
				kind = fmt.Sprintf("one instance, %d exclusive jobs", slowJobs)
			}
			sorted := slices.Sorted(slices.Values(rounds))
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", kind, backend, secs(rounds[0]), secs(sorted[len(sorted)/2]), secs(sorted[len(sorted)-1]), load)
		}
	}
	return tw.Flush()
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// slowProcess: with exclusive, one instance forks into n exclusive
// asynchronous calls; else one non-exclusive asynchronous call.
func slowProcess(exclusive bool) string {
	var b strings.Builder
	b.WriteString(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="bench">
  <process id="slow" isExecutable="true">
    <startEvent id="start" />`)
	calls := 1
	if exclusive {
		calls = slowJobs
		b.WriteString("\n    <sequenceFlow id=\"in\" sourceRef=\"start\" targetRef=\"fork\" />\n    <parallelGateway id=\"fork\" />")
	} else {
		b.WriteString("\n    <sequenceFlow id=\"in\" sourceRef=\"start\" targetRef=\"call0\" />")
	}
	for i := range calls {
		if exclusive {
			fmt.Fprintf(&b, "\n    <sequenceFlow id=\"to%d\" sourceRef=\"fork\" targetRef=\"call%d\" />", i, i)
		}
		fmt.Fprintf(&b, "\n    <serviceTask id=\"call%d\" camunda:asyncBefore=\"true\" camunda:exclusive=\"%t\" camunda:class=\"remote\" />", i, exclusive)
		fmt.Fprintf(&b, "\n    <sequenceFlow id=\"out%d\" sourceRef=\"call%d\" targetRef=\"end%d\" />\n    <endEvent id=\"end%d\" />", i, i, i, i)
	}
	b.WriteString("\n  </process>\n</definitions>")
	return b.String()
}

// measureSlow runs slowRounds rounds on one engine and returns how long
// each took from the start of its instances to the last job's end.
func measureSlow(ctx context.Context, o options, backend string, exclusive bool) ([]time.Duration, error) {
	cfg := bpmnlite.Config{Logger: slog.New(slog.DiscardHandler)}
	if backend == "postgres" {
		url, err := freshDatabase(ctx, o.pgURL, "bpmnlite_bench")
		if err != nil {
			return nil, err
		}
		cfg.Database.URL = url
	} else {
		dir, err := os.MkdirTemp("", "bpmnbench")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		cfg.Database.URL = filepath.Join(dir, "slow.db")
		cfg.Database.SQLiteSynchronous = strings.TrimPrefix(backend, "sqlite ")
	}
	eng, err := bpmnlite.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	eng.RegisterDelegate("remote", bpmnlite.DelegateFunc(func(ctx context.Context, _ *bpmnlite.Execution) error {
		select {
		case <-time.After(slowDelegate):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}))
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "slow", Resources: []bpmnlite.Resource{{Name: "slow.bpmn", Bytes: []byte(slowProcess(exclusive))}}}); err != nil {
		return nil, err
	}
	count := &counter{}
	x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{PoolSize: 8, Metrics: count, Logger: slog.New(slog.DiscardHandler)}, eng)
	if err != nil {
		return nil, err
	}
	if err := x.Start(ctx); err != nil {
		return nil, err
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = x.Stop(stopCtx)
	}()
	instances := slowJobs
	if exclusive {
		instances = 1
	}
	var rounds []time.Duration
	for range slowRounds {
		want := count.executed.Load() + slowJobs
		begin := time.Now()
		if err := startMany(ctx, eng, "slow", instances, 8); err != nil {
			return nil, err
		}
		for count.executed.Load() < want {
			if time.Since(begin) > time.Minute {
				return nil, fmt.Errorf("%d of %d jobs done after a minute (%d failed)", count.executed.Load()-want+slowJobs, slowJobs, count.failed.Load())
			}
			time.Sleep(time.Millisecond)
		}
		rounds = append(rounds, time.Since(begin))
	}
	return rounds, nil
}
