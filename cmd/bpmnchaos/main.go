package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

func main() {
	var err error
	if len(os.Args) > 1 && os.Args[1] == "node" {
		err = node(os.Args[2:])
	} else {
		err = suite(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bpmnchaos:", err)
		os.Exit(1)
	}
}

const workloadKey = "chaos"

// steps are the workload's asynchronous service tasks: three parallel
// branches, then one after the join. Each increments the instance's
// counter in its job's transaction.
var steps = []string{"a", "b", "c", "final"}

const workload = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="chaos">
  <process id="chaos" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f0" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="fa" sourceRef="fork" targetRef="a" />
    <sequenceFlow id="fb" sourceRef="fork" targetRef="b" />
    <sequenceFlow id="fc" sourceRef="fork" targetRef="c" />
    <serviceTask id="a" camunda:asyncBefore="true" camunda:exclusive="false" camunda:class="step" />
    <serviceTask id="b" camunda:asyncBefore="true" camunda:exclusive="false" camunda:class="step" />
    <serviceTask id="c" camunda:asyncBefore="true" camunda:exclusive="false" camunda:class="step" />
    <sequenceFlow id="ja" sourceRef="a" targetRef="join" />
    <sequenceFlow id="jb" sourceRef="b" targetRef="join" />
    <sequenceFlow id="jc" sourceRef="c" targetRef="join" />
    <parallelGateway id="join" camunda:asyncBefore="true" />
    <sequenceFlow id="f1" sourceRef="join" targetRef="final" />
    <serviceTask id="final" camunda:asyncBefore="true" camunda:class="step" />
    <sequenceFlow id="f2" sourceRef="final" targetRef="done" />
    <userTask id="done" />
  </process>
</definitions>`

// result is what one backend's run found.
type result struct {
	backend           string
	instances, faults int
	lost, duplicated  int
	delegateRuns      int
	recoveries        []string
	took              time.Duration
	problems          []string
}

func (r result) String() string {
	return fmt.Sprintf("chaos %s: instances=%d faults=%d lost=%d duplicated=%d delegate-runs=%d (committed %d) recovery: %s; took %s",
		r.backend, r.instances, r.faults, r.lost, r.duplicated, r.delegateRuns, r.instances*len(steps),
		strings.Join(r.recoveries, ", "), r.took.Round(100*time.Millisecond))
}

func suite(args []string) error {
	fs := flag.NewFlagSet("bpmnchaos", flag.ContinueOnError)
	sqliteOnly := fs.Bool("sqlite-only", false, "skip PostgreSQL")
	n := fs.Int("instances", 200, "instances per backend")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// Bounded, and ended early by SIGINT or SIGTERM: either way the nodes
	// and the private cluster are stopped on the way out.
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(sig, 4*time.Minute)
	defer cancel()
	var results []result
	if !*sqliteOnly {
		r, err := postgresRun(ctx, *n)
		if err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		results = append(results, r)
	}
	r, err := sqliteRun(ctx, *n/2)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	results = append(results, r)
	failed := false
	for _, r := range results {
		fmt.Println(r)
		for _, p := range r.problems {
			fmt.Println("  " + p)
		}
		for _, rec := range r.recoveries {
			if strings.Contains(rec, "NOT RECOVERED") {
				failed = true
			}
		}
		failed = failed || r.lost > 0 || r.duplicated > 0 || len(r.problems) > 0
	}
	if failed {
		return errors.New("instances lost, effects duplicated or a fault not recovered from")
	}
	return nil
}

// postgresRun: two nodes; one is killed, the other frozen past its locks'
// expiry, then the database stops and starts again, while instances are
// being started.
func postgresRun(ctx context.Context, n int) (result, error) {
	begin := time.Now()
	res := result{backend: "postgres", instances: n}
	c, err := newCluster(ctx)
	if err != nil {
		return res, err
	}
	defer c.remove()
	defer c.stop(context.WithoutCancel(ctx), "immediate")
	url := c.url("chaos")
	const lockTime = 2 * time.Second
	eng, err := deploy(ctx, url)
	if err != nil {
		return res, err
	}
	defer eng.Close()
	dir := c.dir
	effects := filepath.Join(dir, "effects.log")
	nodeArgs := func(owner string) []string {
		return []string{"-db", url, "-owner", owner, "-lock", lockTime.String(), "-effects", effects, "-work", "20ms"}
	}
	logFile := filepath.Join(dir, "nodes.log")
	a, err := startProc(logFile, nodeArgs("node-a")...)
	if err != nil {
		return res, err
	}
	b, err := startProc(logFile, nodeArgs("node-b")...)
	if err != nil {
		a.kill()
		return res, err
	}
	nodes := []*proc{a, b}
	defer func() {
		for _, p := range nodes {
			p.end()
		}
	}()
	// The acknowledged instances: Start returned their id.
	acked := make(chan []string, 1)
	go func() {
		var ids []string
		for i := 0; i < n && ctx.Err() == nil; i++ {
			if pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: workloadKey, Variables: map[string]any{"counter": int64(0)}}); err == nil {
				ids = append(ids, pi)
			}
			time.Sleep(40 * time.Millisecond)
		}
		acked <- ids
	}()

	progress("postgres: cluster on port %d, nodes a and b running, starting %d instances", c.port, n)
	// Fault 1: node A dies. Its jobs come back once their locks expire.
	time.Sleep(2 * time.Second)
	heldByA := lockedBy(ctx, eng, "node-a")
	a.kill()
	res.faults++
	took, ok := waitUntil(ctx, 30*time.Second, func() bool { return lockedBy(ctx, eng, "node-a") == 0 })
	res.recoveries = append(res.recoveries, recovery(fmt.Sprintf("kill -9 node-a, its %d jobs taken over", heldByA), took, ok))
	a2, err := startProc(logFile, nodeArgs("node-a2")...)
	if err != nil {
		return res, err
	}
	nodes = append(nodes, a2)

	progress("postgres: node-a killed; its jobs taken over: %v", ok)
	// Fault 2: node B freezes past its locks' expiry, then resumes: what
	// it had running must not commit over the jobs taken over meanwhile.
	heldByB := lockedBy(ctx, eng, "node-b")
	b.signal(syscall.SIGSTOP)
	res.faults++
	took, ok = waitUntil(ctx, 2*lockTime+time.Second, func() bool { return lockedBy(ctx, eng, "node-b") == 0 })
	time.Sleep(max(0, 2*lockTime+time.Second-took))
	b.signal(syscall.SIGCONT)
	res.recoveries = append(res.recoveries, recovery(fmt.Sprintf("SIGSTOP node-b for %s, its %d jobs taken over", 2*lockTime+time.Second, heldByB), took, ok))
	progress("postgres: node-b resumed")

	// Fault 3: the database stops (fast: open transactions roll back) and
	// starts again 3 s later; the nodes must recover by themselves: an
	// instance started after the restart runs through both steps' jobs.
	if err := c.stop(ctx, "fast"); err != nil {
		return res, err
	}
	res.faults++
	time.Sleep(3 * time.Second)
	if err := c.start(ctx); err != nil {
		return res, err
	}
	took, ok = probe(ctx, eng)
	res.recoveries = append(res.recoveries, recovery("database stopped 3s, an instance started after it done", took, ok))
	progress("postgres: database back; waiting for the starts to end")
	ids := <-acked
	res.instances = len(ids)
	progress("postgres: %d instances acknowledged; verifying", len(ids))
	verify(ctx, eng, ids, effects, &res)
	progress("postgres: verified")
	res.took = time.Since(begin)
	return res, nil
}

// sqliteRun: one node starts instances and is killed mid-run; reopened,
// it completes every acknowledged one, and the file is sound.
func sqliteRun(ctx context.Context, n int) (result, error) {
	begin := time.Now()
	res := result{backend: "sqlite", instances: n}
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
	eng.Close()
	effects, acks, logFile := filepath.Join(dir, "effects.log"), filepath.Join(dir, "acks"), filepath.Join(dir, "nodes.log")
	args := []string{"-db", db, "-owner", "node-s", "-effects", effects, "-work", "20ms"}
	s, err := startProc(logFile, append(args, "-start", fmt.Sprint(n), "-acks", acks, "-every", "20ms")...)
	if err != nil {
		return res, err
	}
	waitUntil(ctx, 20*time.Second, func() bool { // halfway through the starts
		ids, _ := readLines(acks)
		return len(ids) >= n/2
	})
	s.kill()
	killed := time.Now()
	res.faults++
	s2, err := startProc(logFile, args...)
	if err != nil {
		return res, err
	}
	ids, err := readLines(acks)
	if err != nil {
		s2.end()
		return res, err
	}
	res.instances = len(ids)
	if eng, err = bpmnlite.Open(ctx, bpmnlite.Config{Database: db, Logger: quiet}); err != nil {
		s2.end()
		return res, err
	}
	_, ok := waitUntil(ctx, 60*time.Second, func() bool { return doneCount(ctx, eng) >= len(ids) })
	res.recoveries = append(res.recoveries, recovery("kill -9 and reopen, all acknowledged done", time.Since(killed), ok))
	verify(ctx, eng, ids, effects, &res)
	eng.Close()
	s2.end()
	if err := bpmnlite.CheckIntegrity(ctx, db); err != nil {
		res.problems = append(res.problems, "integrity check: "+err.Error())
	}
	res.took = time.Since(begin)
	return res, nil
}

var quiet = slog.New(slog.DiscardHandler)

var began = time.Now()

// progress says on stderr where the suite is, for a run that hangs.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%6.1fs "+format+"\n", append([]any{time.Since(began).Seconds()}, args...)...)
}

// deploy opens an engine without a job executor on database and deploys
// the workload.
func deploy(ctx context.Context, database string) (*bpmnlite.Engine, error) {
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: database, Logger: quiet})
	if err != nil {
		return nil, err
	}
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "chaos", Resources: []bpmnlite.Resource{{Name: "chaos.bpmn", Bytes: []byte(workload)}}}); err != nil {
		eng.Close()
		return nil, err
	}
	return eng, nil
}

// verify checks every acknowledged instance: it reached "done", each step
// completed once in history, and the counter its steps increment in their
// transactions is exactly one per step.
func verify(ctx context.Context, eng *bpmnlite.Engine, ids []string, effects string, res *result) {
	_, _ = waitUntil(ctx, 90*time.Second, func() bool { return doneCount(ctx, eng) >= len(ids) })
	for _, pi := range ids {
		tasks, err := eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi, TaskDefinitionKey: "done"})
		if err != nil || len(tasks) != 1 {
			res.lost++
			continue
		}
		counter, _, err := eng.Variable(ctx, pi, "counter")
		hist, herr := eng.ActivityHistory(ctx, pi)
		completed := map[string]int{}
		for _, h := range hist {
			if h.EndTime != nil && !h.Canceled {
				completed[h.ActivityID]++
			}
		}
		dup := err != nil || herr != nil || counter != int64(len(steps))
		for _, s := range steps {
			dup = dup || completed[s] != 1
		}
		if dup {
			res.duplicated++
			res.problems = append(res.problems, fmt.Sprintf("instance %s: counter %v, completed %v", pi, counter, completed))
		}
	}
	runs, _ := readLines(effects)
	res.delegateRuns = len(runs)
}

// probe starts an instance (retrying while the database does not answer)
// and reports how long until it reached "done".
func probe(ctx context.Context, eng *bpmnlite.Engine) (time.Duration, bool) {
	begin := time.Now()
	var pi string
	if _, ok := waitUntil(ctx, 30*time.Second, func() bool {
		var err error
		pi, err = eng.Start(ctx, bpmnlite.StartRequest{Key: workloadKey, Variables: map[string]any{"counter": int64(0)}})
		return err == nil
	}); !ok {
		return time.Since(begin), false
	}
	_, ok := waitUntil(ctx, 30*time.Second, func() bool {
		tasks, err := eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi, TaskDefinitionKey: "done"})
		return err == nil && len(tasks) == 1
	})
	return time.Since(begin), ok
}

// recovery describes how long a fault took to recover from; one that did
// not within its bound (30 s, or 60 s for the SQLite reopen) fails the run.
func recovery(what string, took time.Duration, ok bool) string {
	if !ok {
		return what + " NOT RECOVERED after " + took.Round(time.Second).String()
	}
	return fmt.Sprintf("%s %s", what, took.Round(10*time.Millisecond))
}

// waitUntil polls cond until it holds or d passes; it reports how long it
// took and whether it held.
func waitUntil(ctx context.Context, d time.Duration, cond func() bool) (time.Duration, bool) {
	start := time.Now()
	for time.Since(start) < d && ctx.Err() == nil {
		if cond() {
			return time.Since(start), true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start), false
}

// lockedBy counts the jobs whose lock owner is owner (held or expired).
func lockedBy(ctx context.Context, eng *bpmnlite.Engine, owner string) int {
	jobs, err := eng.Jobs(ctx, bpmnlite.JobQuery{})
	if err != nil {
		return -1
	}
	n := 0
	for _, j := range jobs {
		if j.LockOwner == owner {
			n++
		}
	}
	return n
}

// doneCount counts the instances waiting at "done"; -1 when the database
// does not answer.
func doneCount(ctx context.Context, eng *bpmnlite.Engine) int {
	tasks, err := eng.Tasks(ctx, bpmnlite.TaskQuery{TaskDefinitionKey: "done"})
	if err != nil {
		return -1
	}
	return len(tasks)
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

func timeAfter(seconds int) <-chan time.Time { return time.After(time.Duration(seconds) * time.Second) }
