package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// sqliteRun: a single-process application starts instances and is killed
// while it holds jobs; restarted under the same identity it releases its
// previous run's locks at once, charging nothing, and goes on starting.
// Then the control: a node is killed and its locks left to expire on
// their own, which must charge each of its jobs exactly one retry.
func sqliteRun(ctx context.Context) (result, error) {
	begin := time.Now()
	res := result{backend: "sqlite", minInstance: minInstancesSQLite}
	dir, err := os.MkdirTemp("", "bpmnchaos-sqlite")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "chaos.db")
	eng, err := deploy(ctx, db)
	if err != nil {
		return res, err
	}
	defer eng.Close()
	effects, acks, logFile := filepath.Join(dir, "effects.log"), filepath.Join(dir, "acks"), filepath.Join(dir, "nodes.log")
	started := filepath.Join(dir, "started")
	var nodes []*proc
	defer func() {
		for _, p := range nodes {
			p.end()
		}
	}()
	startNode := func(owner string, lock, work time.Duration, extra ...string) (*proc, error) {
		args := append([]string{"-db", db, "-owner", owner, "-lock", lock.String(), "-report", reportInterval.String(),
			"-effects", effects, "-work", work.String()}, extra...)
		p, err := startProc(logFile, args...)
		if err == nil {
			nodes = append(nodes, p)
		}
		return p, err
	}
	startArgs := func(n int) []string {
		return []string{"-start", fmt.Sprint(n), "-acks", acks, "-every", "20ms", "-started", started}
	}
	// Four steps of 20 ms per instance every 20 ms: more work than the one
	// writer keeps up with, so the node holds a backlog of jobs.
	s, err := startNode("node-s", lockTime, 20*time.Millisecond, startArgs(120)...)
	if err != nil {
		return res, err
	}
	progress("sqlite: node-s running, starting instances")
	waitUntil(ctx, 30*time.Second, func() bool { // halfway through the starts, holding jobs
		ids, _ := readLines(acks)
		return len(ids) >= 60 && len(heldBy(ctx, eng, "node-s")) >= minHeld
	})
	s.kill()
	killed := time.Now()
	held := heldBy(ctx, eng, "node-s")
	res.held = len(held)
	ackedAtKill, _ := readLines(acks)
	if _, err := startNode("node-s", lockTime, 20*time.Millisecond, startArgs(60)...); err != nil {
		return res, err
	}
	var what string
	res.takeover, what = res.takenOver(ctx, eng, logFile, ownRestartRule, "node-s", held, killed, 2*maxTakeover)
	res.note("kill -9 node-s holding %d jobs, %d instances acknowledged by then; restarted, it started 60 more and its jobs were %s", res.held, len(ackedAtKill), what)
	progress("sqlite: node-s killed holding %d jobs, restarted; released after %s", res.held, res.takeover.Round(10*time.Millisecond))
	_, ok := waitUntil(ctx, 60*time.Second, func() bool { return fileExists(started) })
	res.check(ok, "the restarted node-s did not finish its starts within 60 s")
	ids, err := readLines(acks)
	if err != nil {
		return res, err
	}
	res.instances = len(ids)
	verify(ctx, eng, ids, effects, &res)
	phase1, err := countCharges(ctx, eng)
	if err != nil {
		return res, err
	}
	res.check(phase1.total() == 0, "retries charged %s by the kill and restart, want 0: a restarted identity releases its own locks", phase1)
	for _, p := range nodes {
		p.end()
	}
	nodes = nil

	// The control: node-t locks jobs of steps slower than its lock time
	// and is killed before any ends (and before its locks expire); node-u
	// does not apply the dead-owner rule, so node-t's locks expire on
	// their own and each job is charged one failed attempt.
	const controlLock = 5 * time.Second
	control, err := startInstances(ctx, eng, 3)
	if err != nil {
		return res, err
	}
	t, err := startNode("node-t", controlLock, 2*controlLock)
	if err != nil {
		return res, err
	}
	_, ok = waitUntil(ctx, controlLock-time.Second, func() bool { return len(heldBy(ctx, eng, "node-t")) >= minHeld })
	t.kill()
	expired := heldBy(ctx, eng, "node-t")
	res.check(ok, "node-t did not lock %d jobs within %s (it held %d)", minHeld, controlLock-time.Second, len(expired))
	if _, err := startNode("node-u", lockTime, 20*time.Millisecond, "-dead-owner", "-1ns"); err != nil {
		return res, err
	}
	verify(ctx, eng, control, effects, &res)
	if res.charged, err = countCharges(ctx, eng); err != nil {
		return res, err
	}
	cause := "expired lock of node-t"
	res.check(res.charged.total() == len(expired) && res.charged[cause] == len(expired),
		"retries charged %s, want exactly %d, one per job whose lock expired on its own (%s)", res.charged, len(expired), cause)
	res.note("control (%d more instances): node-t killed holding %d jobs and its locks left to expire (no dead-owner rule on node-u): each charged one failed attempt", len(control), len(expired))
	res.note("retries charged: by the kill and restart of node-s %s (must be 0), in all %s (must be one per lock left to expire: %d)", phase1, res.charged, len(expired))
	for _, p := range nodes {
		p.end()
	}
	nodes = nil
	if err := bpmnlite.CheckIntegrity(ctx, db); err != nil {
		res.check(false, "integrity check: %v", err)
	}
	res.took = time.Since(begin)
	return res, nil
}

// startInstances starts n instances from the suite's engine.
func startInstances(ctx context.Context, eng *bpmnlite.Engine, n int) ([]string, error) {
	var ids []string
	for range n {
		pi, err := startInstance(ctx, eng)
		if err != nil {
			return nil, fmt.Errorf("starting a control instance: %w", err)
		}
		ids = append(ids, pi)
	}
	return ids, nil
}
