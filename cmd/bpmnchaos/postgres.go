package main

import (
	"context"
	"path/filepath"
	"syscall"
	"time"
)

// The outage and the freeze each last 3 s: well past DeadOwnerAfter, well
// under the lock time.
const (
	outage = 3 * time.Second
	freeze = 3 * time.Second
)

// postgresRun: two nodes, while instances are being started: one is killed
// while it holds jobs, the other frozen, then the database stops and starts
// again while the starts go on.
func postgresRun(ctx context.Context) (result, error) {
	begin := time.Now()
	res := result{backend: "postgres", minInstance: minInstancesPostgres}
	c, err := newCluster(ctx)
	if err != nil {
		return res, err
	}
	defer c.remove()
	defer c.stop(context.WithoutCancel(ctx), "immediate")
	url := c.url("chaos")
	eng, err := deploy(ctx, url)
	if err != nil {
		return res, err
	}
	defer eng.Close()
	effects, logFile := filepath.Join(c.dir, "effects.log"), filepath.Join(c.dir, "nodes.log")
	var nodes []*proc
	defer func() {
		for _, p := range nodes {
			p.end()
		}
	}()
	startNode := func(owner string, work time.Duration) (*proc, error) {
		p, err := startProc(logFile, "-db", url, "-owner", owner, "-lock", lockTime.String(), "-report", reportInterval.String(),
			"-effects", effects, "-work", work.String())
		if err == nil {
			nodes = append(nodes, p)
		}
		return p, err
	}
	// node-a runs slow steps, so that it keeps its workers and queue (8
	// jobs) full: it holds several jobs when killed by construction. It is
	// killed once it holds two more than the minimum, in case one commits
	// in between.
	a, err := startNode("node-a", time.Second)
	if err != nil {
		return res, err
	}
	b, err := startNode("node-b", 20*time.Millisecond)
	if err != nil {
		return res, err
	}
	starts := startStarts(ctx, eng, 25*time.Millisecond)
	defer starts.stop()
	progress("postgres: cluster on port %d, nodes a and b running, starting instances", c.port)

	// Fault 1: node-a dies holding jobs; the dead-owner rule must hand them
	// to node-b long before their locks expire, charging nothing.
	waitUntil(ctx, 15*time.Second, func() bool { return len(heldBy(ctx, eng, "node-a")) >= minHeld+2 })
	a.kill()
	killed := time.Now()
	held := heldBy(ctx, eng, "node-a") // after the kill: no longer changing
	res.held = len(held)
	var what string
	res.takeover, what = res.takenOver(ctx, eng, logFile, deadOwnerRule, "node-a", held, killed, 2*maxTakeover)
	acked, _, _ := starts.counts(killed)
	res.note("kill -9 node-a holding %d jobs, %d instances acknowledged by then: its jobs %s", res.held, acked, what)
	progress("postgres: node-a killed holding %d jobs; released after %s", res.held, res.takeover.Round(10*time.Millisecond))
	if _, err := startNode("node-a2", 20*time.Millisecond); err != nil {
		return res, err
	}
	res.check(reported(ctx, eng, "node-a2"), "node-a2 never reported")

	// Fault 2: node-b freezes past DeadOwnerAfter: node-a2 takes its locks
	// over, and once it resumes fencing keeps what it ran from committing.
	waitUntil(ctx, 5*time.Second, func() bool { return len(heldBy(ctx, eng, "node-b")) > 0 })
	b.signal(syscall.SIGSTOP)
	frozen := time.Now()
	heldB := heldBy(ctx, eng, "node-b")
	res.check(len(heldB) > 0, "node-b held no job when frozen")
	_, what = res.takenOver(ctx, eng, logFile, deadOwnerRule, "node-b", heldB, frozen, freeze)
	time.Sleep(max(0, freeze-time.Since(frozen)))
	b.signal(syscall.SIGCONT)
	res.note("SIGSTOP node-b holding %d jobs for %s: its jobs %s", len(heldB), freeze, what)
	progress("postgres: node-b frozen and resumed")

	// Fault 3: the database stops (fast: open transactions roll back) while
	// the starts go on, and starts again; the nodes must resume at once,
	// release what the outage stranded, and charge nothing.
	if err := c.stop(ctx, "fast"); err != nil {
		return res, err
	}
	stopped := time.Now()
	_, _, failedBefore := starts.counts(stopped)
	time.Sleep(outage)
	if err := c.start(ctx); err != nil {
		return res, err
	}
	back, err := c.readyAt()
	if err != nil {
		// Later than the server answered, by up to pg_ctl's poll: recovery
		// is measured the shorter, so say so.
		back = time.Now()
		res.note("the server's ready time could not be read (%v): recovery measured from pg_ctl's return", err)
	}
	_, _, failedAtBack := starts.counts(back)
	first, ok := firstDoneAfter(ctx, eng, back, 10*time.Second)
	res.recovery = max(0, first.Sub(back))
	if !ok {
		res.recovery = time.Since(back)
	}
	res.check(ok, "no job done within %s of the database answering", res.recovery.Round(time.Second))
	res.check(res.recovery <= maxRecovery, "first job done %s after the database answered, want within %s", res.recovery.Round(10*time.Millisecond), maxRecovery)
	// The starts go on for 3 s with the database back, and on a slow
	// machine longer, up to 15 s, until 200 are acknowledged.
	time.Sleep(max(0, 3*time.Second-time.Since(back)))
	waitUntil(ctx, max(0, 15*time.Second-time.Since(back)), func() bool { n, _, _ := starts.counts(back); return n >= 200 })
	ids := starts.stop()
	res.instances = len(ids)
	_, afterOutage, _ := starts.counts(back)
	res.check(afterOutage >= minAfterOutage, "%d starts acknowledged after the database came back, want at least %d", afterOutage, minAfterOutage)
	progress("postgres: %d instances acknowledged; verifying", len(ids))

	verify(ctx, eng, ids, effects, &res)
	n, last, err := stranded(ctx, eng, stopped, back)
	if err != nil {
		return res, err
	}
	tookStranded := max(0, last.Sub(back))
	res.check(n > 0, "no job was locked by a node when the database stopped")
	res.check(tookStranded <= maxStranded, "the %d jobs the outage stranded done %s after the database answered, want within %s", n, tookStranded.Round(10*time.Millisecond), maxStranded)
	res.note("database stopped for %s while starts went on (%d failed meanwhile, %d acknowledged after it answered): first job done %s after it answered; the %d jobs it stranded (locked before it) done after %s",
		back.Sub(stopped).Round(100*time.Millisecond), failedAtBack-failedBefore, afterOutage, res.recovery.Round(10*time.Millisecond), n, tookStranded.Round(10*time.Millisecond))
	if res.charged, err = countCharges(ctx, eng); err != nil {
		return res, err
	}
	// Every fault here is an outage shorter than the lock time or a node
	// taken over by the dead-owner rule: the design charges none.
	res.check(res.charged.total() == 0, "retries charged %s, want 0: no lock expired on its own", res.charged)
	res.note("retries charged: %s (none may be: the outage was shorter than the lock time, and both nodes were taken over by the dead-owner rule)", res.charged)
	progress("postgres: verified")
	res.took = time.Since(begin)
	return res, nil
}
