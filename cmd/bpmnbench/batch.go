package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// The batch suite (issue 25): o.batchInstances instances wait at the user
// task of version 1; version 2 is deployed and a migration batch
// (MigrateAsync) moves them, run by the engine's job executor. While it
// runs, the pickup latency of ordinary jobs on the same node (the same
// executor, whose MaxBatchJobs workers take batch jobs and the others only
// ordinary ones) is measured by measureLatency's probe: a batch must not
// starve them (target p99 ≤ 10 ms). The probe runs on the batch's engine:
// a second engine on the same database, without the probe's delegate,
// could take a probe job and fail it (on SQLite, where its executor
// acquires in every group's transaction, it did: the probe instance got
// an incident and waited for ever).

func batchSuite(ctx context.Context, o options, w io.Writer) error {
	fmt.Fprintf(w, "Batch: a migration batch of %d instances, pickup latency of ordinary jobs while it runs\n\n", o.batchInstances)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "backend\tinstances\tbatch took\titems/s\tpickup p50\tpickup p99\tprogress seen (elapsed: items done)\tnote")
	err := onEachBackend(ctx, o, "batch", func(backend, url string) error {
		return measureBatch(ctx, o, backend, url, tw)
	})
	if err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	return tw.Flush()
}

// progressSample is what BatchStatistics showed at a moment of the batch.
type progressSample struct {
	at   time.Duration
	done int
}

func measureBatch(ctx context.Context, o options, backend, url string, tw io.Writer) error {
	eng, err := bpmnlite.Open(ctx, latencyConfig(url, bpmnlite.BatchConfig{PollInterval: time.Second}))
	if err != nil {
		return err
	}
	defer eng.Close()
	source, target, err := batchVersions(ctx, o, eng)
	if err != nil {
		return err
	}
	plan, err := eng.GenerateMigrationPlan(ctx, source, target, false)
	if err != nil {
		return err
	}
	note := loadNote()
	begin := time.Now()
	b, err := eng.MigrateAsync(ctx, bpmnlite.MigrationRequest{Plan: *plan, Query: &bpmnlite.InstanceQuery{ProcessDefinitionID: source}})
	if err != nil {
		return err
	}
	// Progress through BatchStatistics, read as an operator would, until
	// every execution job is done (the monitor's end of the batch follows).
	done := make(chan error, 1)
	var samples []progressSample
	var took time.Duration
	go func() {
		defer close(done)
		for {
			st, err := eng.BatchStatistics(ctx, bpmnlite.BatchQuery{ID: b.ID})
			if err != nil {
				done <- err
				return
			}
			if len(st) == 0 { // ended already
				took = time.Since(begin)
				return
			}
			items := min(st[0].CompletedJobs*st[0].InvocationsPerBatchJob, o.batchInstances)
			samples = append(samples, progressSample{time.Since(begin), items})
			if st[0].FailedJobs > 0 {
				done <- fmt.Errorf("the batch has %d failed jobs", st[0].FailedJobs)
				return
			}
			if st[0].RemainingJobs == 0 {
				took = time.Since(begin)
				return
			}
			if time.Since(begin) > time.Hour {
				done <- fmt.Errorf("the batch still runs after an hour: %d of %d items done", items, o.batchInstances)
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
	}()
	p50, p99, _, err := probeLatency(ctx, eng, 0)
	if err != nil {
		return err
	}
	probeEnd := time.Since(begin)
	if err := <-done; err != nil {
		return err
	}
	migrated, err := eng.Count(ctx, bpmnlite.InstanceQuery{ProcessDefinitionID: target})
	if err != nil {
		return err
	}
	if migrated != o.batchInstances {
		return fmt.Errorf("%d of %d instances in version 2 after the batch", migrated, o.batchInstances)
	}
	if probeEnd > took {
		note = joinNotes(note, fmt.Sprintf("the probe ran %s, the batch ended before it", probeEnd.Round(time.Millisecond)))
	}
	fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%s\t%s\t%s\t%s\n", backend, o.batchInstances, took.Round(time.Millisecond),
		float64(o.batchInstances)/took.Seconds(), ms(p50), ms(p99), progressLine(samples, 6), note)
	return nil
}

// batchVersions starts o.batchInstances instances of version 1 of the
// waiting model and deploys version 2: the two definitions' ids.
func batchVersions(ctx context.Context, o options, eng *bpmnlite.Engine) (string, string, error) {
	var ids []string
	for i, model := range []string{waitingModel, waitingModel + "\n<!-- version 2 -->"} {
		d, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "waiting", Resources: []bpmnlite.Resource{{Name: "waiting.bpmn", Bytes: []byte(model)}}})
		if err != nil {
			return "", "", err
		}
		defs, err := eng.ProcessDefinitions(ctx, bpmnlite.DefinitionQuery{DeploymentID: d.ID})
		if err != nil || len(defs) != 1 {
			return "", "", fmt.Errorf("definitions of version %d: %v, %v", i+1, defs, err)
		}
		ids = append(ids, defs[0].ID)
		if i == 0 {
			if err := startMany(ctx, eng, "waiting", o.batchInstances, 8); err != nil {
				return "", "", err
			}
		}
	}
	return ids[0], ids[1], nil
}

// progressLine shows up to n of the samples, evenly spread.
func progressLine(samples []progressSample, n int) string {
	var parts []string
	for i := range min(n, len(samples)) {
		s := samples[i*(len(samples)-1)/max(1, min(n, len(samples))-1)]
		parts = append(parts, fmt.Sprintf("%.1fs: %d", s.at.Seconds(), s.done))
	}
	return strings.Join(parts, ", ")
}
