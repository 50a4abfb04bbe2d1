package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
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

// The nodes report every 200 ms, so one that falls silent is presumed gone
// after 600 ms (DeadOwnerAfter's default, 3 × ReportInterval); their locks
// last 30 s, so no lock expires on its own during a run unless the suite
// makes it: a takeover well under the lock time is the dead-owner rule's,
// and it must charge no retry.
const (
	reportInterval = 200 * time.Millisecond
	lockTime       = 30 * time.Second
)

// The bounds a run must meet.
const (
	minInstancesPostgres = 150
	minInstancesSQLite   = 100 // one process on one file starts them
	minAfterOutage       = 10  // starts acknowledged once the database is back
	minHeld              = 5   // jobs the killed node holds when killed
	maxTakeover          = 5 * time.Second
	maxRecovery          = 2 * time.Second // database answering → first job done
	maxStranded          = 5 * time.Second // → the last job the outage stranded done
)

// result is what one backend's run found.
type result struct {
	backend                string
	instances, minInstance int
	held                   int // jobs the killed node held
	lost, duplicated       int
	delegateRuns           int
	verified               int // instances verified, the control's included
	charged                charges
	takeover               time.Duration // kill -9 → the killed node's jobs released
	recovery               time.Duration // database answering → first job done; 0 without a server
	details                []string      // what each fault did
	failures               []string      // the bounds missed
	took                   time.Duration
}

// check records a missed bound unless ok.
func (r *result) check(ok bool, format string, args ...any) {
	if !ok {
		r.failures = append(r.failures, fmt.Sprintf(format, args...))
	}
}

func (r *result) note(format string, args ...any) {
	r.details = append(r.details, fmt.Sprintf(format, args...))
}

func (r result) String() string {
	verdict, recovery := "ok", "n/a (no server)"
	if len(r.failures) > 0 {
		verdict = "FAILED"
	}
	if r.backend == "postgres" {
		recovery = fmt.Sprintf("%s (max %s)", r.recovery.Round(10*time.Millisecond), maxRecovery)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "chaos %s %s: instances=%d (min %d) killed-node-held=%d (min %d) lost=%d duplicated=%d retries-charged=%s takeover-after-kill=%s (max %s, lock time %s) recovery-after-outage=%s delegate-runs=%d (committed %d) took=%s",
		r.backend, verdict, r.instances, r.minInstance, r.held, minHeld, r.lost, r.duplicated, r.charged,
		r.takeover.Round(10*time.Millisecond), maxTakeover, lockTime, recovery,
		r.delegateRuns, r.verified*len(steps), r.took.Round(100*time.Millisecond))
	for _, d := range r.details {
		b.WriteString("\n  " + d)
	}
	for _, f := range r.failures {
		b.WriteString("\n  FAIL: " + f)
	}
	return b.String()
}

func suite(args []string) error {
	fs := flag.NewFlagSet("bpmnchaos", flag.ContinueOnError)
	sqliteOnly := fs.Bool("sqlite-only", false, "skip PostgreSQL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// Bounded, and ended early by SIGINT or SIGTERM: either way the nodes
	// and the private cluster are stopped on the way out.
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(sig, 4*time.Minute)
	defer cancel()
	runs := []func(context.Context) (result, error){postgresRun, sqliteRun}
	if *sqliteOnly {
		runs = runs[1:]
	}
	failed := 0
	for _, run := range runs {
		r, err := run(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", r.backend, err)
		}
		r.check(r.instances >= r.minInstance, "%d instances acknowledged, want at least %d", r.instances, r.minInstance)
		r.check(r.held >= minHeld, "the killed node held %d jobs, want at least %d", r.held, minHeld)
		r.check(r.lost == 0, "%d instances lost", r.lost)
		r.check(r.duplicated == 0, "%d instances with an effect not committed exactly once", r.duplicated)
		fmt.Println(r)
		failed += len(r.failures)
	}
	if failed > 0 {
		return fmt.Errorf("%d bounds missed (FAIL lines above)", failed)
	}
	return nil
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
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: database}, Logger: quiet})
	if err != nil {
		return nil, err
	}
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "chaos", Resources: []bpmnlite.Resource{{Name: "chaos.bpmn", Bytes: []byte(workload)}}}); err != nil {
		eng.Close()
		return nil, err
	}
	return eng, nil
}

// startInstance starts one instance of the workload, its counter at 0.
func startInstance(ctx context.Context, eng *bpmnlite.Engine) (string, error) {
	return eng.Start(ctx, bpmnlite.StartRequest{Key: workloadKey, Variables: map[string]any{"counter": int64(0)}})
}
