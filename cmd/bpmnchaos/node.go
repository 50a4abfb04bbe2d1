package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// node runs one engine process with a job executor until SIGTERM: the unit
// the suite kills, stops and cuts off. With -start it also starts
// instances, writing each acknowledged instance id to -acks once Start
// returned it, and creates -started when done.
func node(args []string) error {
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	db := fs.String("db", "", "database")
	owner := fs.String("owner", "", "lock owner")
	lockTime := fs.Duration("lock", 2*time.Second, "job lock time")
	effects := fs.String("effects", "", "file the delegate appends one line per run to")
	start := fs.Int("start", 0, "instances to start")
	rate := fs.Duration("every", 50*time.Millisecond, "time between starts")
	acks := fs.String("acks", "", "file of acknowledged instance ids")
	work := fs.Duration("work", 0, "time each step's delegate takes")
	report := fs.Duration("report", 200*time.Millisecond, "job executor report interval")
	deadOwner := fs.Duration("dead-owner", 0, "DeadOwnerAfter (0: 3 × report interval; negative: never)")
	started := fs.String("started", "", "file created once the -start instances were started")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("node", *owner)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{
		Database:            bpmnlite.DatabaseConfig{URL: *db, MaxConns: 12},
		History:             bpmnlite.HistoryConfig{Level: bpmnlite.HistoryFull},
		Logger:              log,
		JobExecutorActivate: true,
		JobExecutor: bpmnlite.JobExecutorConfig{
			LockOwner: *owner, LockTime: *lockTime, PoolSize: 4,
			WaitTime: 100 * time.Millisecond, MaxWait: 500 * time.Millisecond,
			ReportInterval: *report, DeadOwnerAfter: *deadOwner,
		},
	})
	if err != nil {
		return err
	}
	defer eng.Close()
	effectLog, err := os.OpenFile(*effects, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer effectLog.Close()
	var mu sync.Mutex
	eng.RegisterDelegate("step", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
		// Not transactional: a run whose result does not commit is logged
		// too, which is what at-least-once delivery means.
		mu.Lock()
		fmt.Fprintf(effectLog, "%s %s %s\n", ex.ProcessInstanceID(), ex.ActivityID(), *owner)
		mu.Unlock()
		time.Sleep(*work)
		n, _, err := ex.Variable("counter")
		if err != nil {
			return err
		}
		count, _ := n.(int64)
		return ex.SetVariable("counter", count+1)
	}))
	if *start > 0 {
		f, err := os.OpenFile(*acks, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		for i := 0; i < *start && ctx.Err() == nil; i++ {
			pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: workloadKey, Variables: map[string]any{"counter": int64(0)}})
			if err != nil {
				log.Warn("start failed", "error", err)
			} else {
				fmt.Fprintln(w, pi)
				w.Flush() // acknowledged: written before the next start
			}
			time.Sleep(*rate)
		}
		f.Close()
		if *started != "" {
			if err := os.WriteFile(*started, nil, 0o644); err != nil {
				return err
			}
		}
	}
	<-ctx.Done()
	return nil
}
