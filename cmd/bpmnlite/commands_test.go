package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

const cliProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <message id="m" name="paid"/>
  <process id="cli" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="review"/>
    <userTask id="review" name="Review" camunda:candidateGroups="clerks"/>
    <sequenceFlow id="f2" sourceRef="review" targetRef="wait"/>
    <intermediateCatchEvent id="wait"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
    <sequenceFlow id="f3" sourceRef="wait" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>`

// eachBackend runs f on a migrated SQLite file and, when configured, on a
// PostgreSQL schema of its own, as serve or run would leave them; the
// commands find the database through BPMNLITE_DB and BPMNLITE_SCHEMA, and
// cfg opens it beside them.
func eachBackend(t *testing.T, f func(t *testing.T, cfg bpmnlite.Config)) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			cfg := bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: b.URL, Schema: b.Options.Schema}, Logger: slog.New(slog.DiscardHandler)}
			eng, err := bpmnlite.Open(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			eng.Close()
			t.Setenv("BPMNLITE_DB", b.URL)
			t.Setenv("BPMNLITE_SCHEMA", b.Options.Schema)
			f(t, cfg)
		})
	}
}

// The commands on an existing database, tables and --json.
func TestCLICommands(t *testing.T) {
	eachBackend(t, testCLICommands)
}

func testCLICommands(t *testing.T, _ bpmnlite.Config) {
	file := filepath.Join(t.TempDir(), "cli.bpmn")
	if err := os.WriteFile(file, []byte(cliProcess), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun := func(args ...string) string {
		t.Helper()
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return out
	}
	if out := mustRun("deploy", file); !strings.Contains(out, "cli") || !strings.Contains(out, "VERSION") {
		t.Errorf("deploy:\n%s", out)
	}
	var started map[string]string
	if err := json.Unmarshal([]byte(mustRun("start", "cli", "--json", "-business-key", "B-1", "-var", "amount=5")), &started); err != nil || started["id"] == "" {
		t.Fatalf("start --json: %v %v", started, err)
	}
	pi := started["id"]
	out := mustRun("tasks", "-group", "clerks")
	if !strings.Contains(out, "review") || !strings.Contains(out, pi) {
		t.Fatalf("tasks:\n%s", out)
	}
	var tasks []bpmnlite.Task
	if err := json.Unmarshal([]byte(mustRun("tasks", "--json", "-instance", pi)), &tasks); err != nil || len(tasks) != 1 {
		t.Fatalf("tasks --json: %v %v", tasks, err)
	}
	mustRun("complete", tasks[0].ID, "-var", "ok=true")
	if out := mustRun("correlate", "paid", "-business-key", "B-1"); !strings.Contains(out, pi) {
		t.Errorf("correlate:\n%s", out)
	}
	if out := mustRun("instances", "-key", "cli", "-state", "completed"); !strings.Contains(out, pi) || !strings.Contains(out, "COMPLETED") {
		t.Errorf("instances:\n%s", out)
	}
	if out := mustRun("incidents"); !strings.Contains(out, "none") {
		t.Errorf("incidents:\n%s", out)
	}
	if _, err := runCLI(t, "tasks", "-db", filepath.Join(t.TempDir(), "missing.db")); err == nil {
		t.Error("tasks on a missing database succeeded")
	}
}

const explainProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="explain" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="fork"/><parallelGateway id="fork"/>
    <sequenceFlow id="f1" sourceRef="fork" targetRef="first"/><sequenceFlow id="f2" sourceRef="fork" targetRef="second"/>
    <serviceTask id="first" camunda:asyncBefore="true" camunda:class="block"/>
    <serviceTask id="second" camunda:asyncBefore="true" camunda:class="block"/>
    <sequenceFlow id="f3" sourceRef="first" targetRef="e1"/><endEvent id="e1"/>
    <sequenceFlow id="f4" sourceRef="second" targetRef="e2"/><endEvent id="e2"/>
  </process>
  <process id="later" isExecutable="true">
    <startEvent id="ls"/><sequenceFlow id="lf1" sourceRef="ls" targetRef="t"/>
    <intermediateCatchEvent id="t"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
    <sequenceFlow id="lf2" sourceRef="t" targetRef="le"/><endEvent id="le"/>
  </process>
  <process id="fails" isExecutable="true">
    <startEvent id="fs"/><sequenceFlow id="ff1" sourceRef="fs" targetRef="boom"/>
    <serviceTask id="boom" camunda:asyncBefore="true" camunda:class="boom"/>
    <sequenceFlow id="ff2" sourceRef="boom" targetRef="fe"/><endEvent id="fe"/>
  </process>
</definitions>`

// blocks reports whether explain's output has condition blocking.
func blocks(out, condition string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == condition && f[1] == "BLOCKS" {
			return true
		}
	}
	return false
}

// jobs explain names the condition that blocks a job, one test per cause:
// not due, locked (running), no retries (with the incident), suspended,
// an exclusive job of the same instance in progress; and acquirable.
func TestJobsExplain(t *testing.T) {
	eachBackend(t, testJobsExplain)
}

func testJobsExplain(t *testing.T, cfg bpmnlite.Config) {
	ctx := context.Background()
	eng, err := bpmnlite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	release := make(chan struct{})
	running := make(chan struct{}, 2)
	eng.RegisterDelegate("block", bpmnlite.DelegateFunc(func(ctx context.Context, _ *bpmnlite.Execution) error {
		running <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}))
	eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return errors.New("card declined") }))
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "x", Resources: []bpmnlite.Resource{{Name: "x.bpmn", Bytes: []byte(explainProcess)}}}); err != nil {
		t.Fatal(err)
	}
	jobOf := func(pi, activity string) string {
		t.Helper()
		js, err := eng.Jobs(ctx, bpmnlite.JobQuery{ProcessInstanceID: pi, ActivityID: activity})
		if err != nil || len(js) != 1 {
			t.Fatalf("job at %s: %v %v", activity, js, err)
		}
		return js[0].ID
	}
	explainOf := func(job string) string {
		t.Helper()
		out, err := runCLI(t, "jobs", "explain", job)
		if err != nil {
			t.Fatalf("explain: %v\n%s", err, out)
		}
		return out
	}
	start := func(key string) string {
		id, err := eng.Start(ctx, bpmnlite.StartRequest{Key: key})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}

	later := start("later")
	if out := explainOf(jobOf(later, "t")); !blocks(out, "due") || !strings.Contains(out, "not due until") {
		t.Errorf("timer:\n%s", out)
	}
	fails := start("fails")
	failing := jobOf(fails, "boom")
	for range 3 {
		_ = eng.ExecuteJob(ctx, failing)
	}
	if out := explainOf(failing); !blocks(out, "retries") || !strings.Contains(out, "card declined") {
		t.Errorf("failed job:\n%s", out)
	}
	suspended := start("fails")
	if err := eng.SuspendProcessInstance(ctx, suspended); err != nil {
		t.Fatal(err)
	}
	if out := explainOf(jobOf(suspended, "boom")); !blocks(out, "suspension") || !strings.Contains(out, "process instance "+suspended) {
		t.Errorf("suspended:\n%s", out)
	}
	ready := start("fails")
	readyJob := jobOf(ready, "boom")
	if out := explainOf(readyJob); !blocks(out, "executors") || !strings.Contains(out, "no job executor has reported") {
		t.Errorf("no executor:\n%s", out)
	}
	// Executors that do not take the job: deployment-aware without its
	// deployment, or serving other priorities. Each reports at its start.
	newExecutor := func(cfg bpmnlite.JobExecutorConfig) interface{ Stop(context.Context) error } {
		t.Helper()
		cfg.Logger, cfg.ReportInterval, cfg.WaitTime = slog.New(slog.DiscardHandler), 50*time.Millisecond, 10*time.Millisecond
		x, err := bpmnlite.NewJobExecutor(cfg, eng)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Start(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		return x
	}
	for _, d := range eng.RegisteredDeployments() {
		eng.UnregisterDeployment(d)
	}
	aware := newExecutor(bpmnlite.JobExecutorConfig{PoolSize: 1, DeploymentAware: true})
	if out := explainOf(readyJob); !blocks(out, "executors") || !strings.Contains(out, "has not registered deployment") {
		t.Errorf("deployment-aware executor:\n%s", out)
	}
	aware.Stop(ctx)
	ten := int64(10)
	urgent := newExecutor(bpmnlite.JobExecutorConfig{PoolSize: 1, PriorityMin: &ten})
	if out := explainOf(readyJob); !blocks(out, "executors") || !strings.Contains(out, "serves priorities 10..+∞, the job has 0") {
		t.Errorf("executor of other priorities:\n%s", out)
	}
	urgent.Stop(ctx)
	if err := eng.SuspendProcessInstance(ctx, ready); err != nil { // out of the next executor's way
		t.Fatal(err)
	}

	// A running exclusive job: it is locked, and its sibling waits for it.
	pi := start("explain")
	first, second := jobOf(pi, "first"), jobOf(pi, "second")
	// One worker: the first exclusive job of the pair blocks in its
	// delegate while the second waits behind it.
	x := newExecutor(bpmnlite.JobExecutorConfig{PoolSize: 1, QueueSize: 1, MaxJobsPerAcquisition: 1})
	defer x.Stop(context.Background())
	select {
	case <-running:
	case <-time.After(20 * time.Second):
		t.Fatal("no job started")
	}
	js, _ := eng.Jobs(ctx, bpmnlite.JobQuery{ProcessInstanceID: pi, Locked: true})
	if len(js) != 1 {
		t.Fatalf("locked jobs %v", js)
	}
	runningJob, waitingJob := first, second
	if js[0].ID == second {
		runningJob, waitingJob = second, first
	}
	if out := explainOf(runningJob); !blocks(out, "lock") || !strings.Contains(out, "extends the lock") || blocks(out, "executors") || !strings.Contains(out, "served by") {
		t.Errorf("running job:\n%s", out)
	}

	if out := explainOf(waitingJob); !blocks(out, "exclusive") || !strings.Contains(out, runningJob) {
		t.Errorf("waiting exclusive job:\n%s", out)
	}
	close(release)
}

// retry gives failed jobs retries again: one by id, or every job without
// retries; their incidents are resolved.
func TestCLIRetry(t *testing.T) {
	eachBackend(t, testCLIRetry)
}

func testCLIRetry(t *testing.T, cfg bpmnlite.Config) {
	eng, err := bpmnlite.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
		return errors.New("card declined")
	}))
	if _, err := eng.Deploy(t.Context(), bpmnlite.DeployRequest{Name: "fails", Resources: []bpmnlite.Resource{{Name: "f.bpmn", Bytes: []byte(explainProcess)}}}); err != nil {
		t.Fatal(err)
	}
	var jobs []string
	for range 2 {
		pi, err := eng.Start(t.Context(), bpmnlite.StartRequest{Key: "fails"})
		if err != nil {
			t.Fatal(err)
		}
		js, _ := eng.Jobs(t.Context(), bpmnlite.JobQuery{ProcessInstanceID: pi})
		for range 3 {
			_ = eng.ExecuteJob(t.Context(), js[0].ID)
		}
		jobs = append(jobs, js[0].ID)
	}
	eng.Close()

	run := func(args ...string) string {
		t.Helper()
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return out
	}
	if out := run("incidents"); strings.Count(out, "card declined") != 2 {
		t.Fatalf("incidents before retry:\n%s", out)
	}
	if out := run("retry", jobs[0], "-retries", "2"); !strings.Contains(out, jobs[0]) {
		t.Errorf("retry ID:\n%s", out)
	}
	if out := run("incidents"); strings.Count(out, "card declined") != 1 || strings.Contains(out, jobs[0]) {
		t.Fatalf("incidents after retrying one:\n%s", out)
	}
	if out := run("retry", "--all-failed"); !strings.Contains(out, jobs[1]) || strings.Contains(out, jobs[0]) {
		t.Errorf("retry --all-failed:\n%s", out)
	}
	if out := run("incidents"); !strings.Contains(out, "none") {
		t.Fatalf("incidents after retry --all-failed:\n%s", out)
	}
	var left []bpmnlite.Job
	if err := json.Unmarshal([]byte(run("jobs", "--json")), &left); err != nil || len(left) != 2 {
		t.Fatalf("jobs --json: %v %v", left, err)
	}
	for _, j := range left {
		if want := map[string]int{jobs[0]: 2, jobs[1]: 1}[j.ID]; j.Retries != want {
			t.Errorf("job %s has %d retries, want %d", j.ID, j.Retries, want)
		}
	}
	if _, err := runCLI(t, "retry"); err == nil {
		t.Error("retry without a job id succeeded")
	}
}
