package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// Every example runs to its end from the command line on the embedded
// default, printing the path it took.
func TestRunExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "processes", "*.bpmn"))
	if len(files) < 5 {
		t.Fatalf("found %d examples", len(files))
	}
	vars := map[string][]string{ // what the examples' expressions read
		"invoice.bpmn": {"-var", "approver=demo"},
		"order.bpmn":   {"-var", `customer={"name":"Ada","status":"VIP"}`, "-var", "quantity=2"},
	}
	for _, f := range files {
		var out bytes.Buffer
		if err := run(context.Background(), append([]string{"run", f}, vars[filepath.Base(f)]...), &out); err != nil {
			t.Fatalf("run %s: %v\n%s", f, err, out.String())
		}
		if !strings.Contains(out.String(), "path taken:") || !strings.Contains(out.String(), ": COMPLETED") {
			t.Errorf("run %s printed:\n%s", f, out.String())
		}
	}
}

func TestValidateReportsProblems(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.bpmn")
	if err := os.WriteFile(bad, []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="missing"/></process></definitions>`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"validate", bad, filepath.Join("..", "..", "examples", "processes", "order.bpmn")}, &out)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 files") {
		t.Fatalf("validate: %v", err)
	}
	for _, want := range []string{"bad.bpmn:1:", "missing", `process "order" ok`, `calls delegate "checkStock"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out.String())
		}
	}
}

// validate reads DMN files too: their decisions, or their problems at
// their line.
func TestValidateDecisions(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "dish.dmn"), filepath.Join(dir, "bad.dmn")
	if err := os.WriteFile(good, []byte(enginetest.DishDMN), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(enginetest.DishDMN, `hitPolicy="FIRST"`, `hitPolicy="LAST"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"validate", good, bad}, &out)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 files") {
		t.Fatalf("validate: %v", err)
	}
	for _, want := range []string{`decision "dish" ok (decision table, FIRST, 3 rules)`, "bad.dmn:13:5: decisionTable 'dish'", "hitPolicy 'LAST'"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestJobsExplainsWhyNotRunning(t *testing.T) {
	db := filepath.Join(t.TempDir(), "jobs.db")
	eng, err := bpmnlite.Open(context.Background(), bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: db}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	eng.Close()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"jobs", "-db", db}, &out); err != nil || !strings.Contains(out.String(), "none") {
		t.Fatalf("jobs on an empty database: %v\n%s", err, out.String())
	}
}

func TestUnknownCommand(t *testing.T) {
	if err := run(context.Background(), []string{"frobnicate"}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Fatalf("got %v", err)
	}
}

func TestWhyNotRunning(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	later, earlier := now.Add(time.Hour), now.Add(-time.Minute)
	cases := []struct {
		job  bpmnlite.Job
		want string
	}{
		{bpmnlite.Job{Retries: 0, Suspension: 1}, "no retries left"},
		{bpmnlite.Job{Retries: 3, Suspension: 2}, "suspended"},
		{bpmnlite.Job{Retries: 3, Suspension: 1, DueDate: &later}, "not due until 2026-01-01T13:00:00Z (in 1h0m0s)"},
		{bpmnlite.Job{Retries: 3, Suspension: 1, LockOwner: "node-a", LockExpiration: &later}, "locked by node-a"},
		{bpmnlite.Job{Retries: 3, Suspension: 1, LockOwner: "node-a", LockExpiration: &earlier}, "expired"},
		{bpmnlite.Job{Retries: 3, Suspension: 1}, "acquirable now"},
	}
	for _, c := range cases {
		if got := whyNotRunning(&c.job, now); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.job, got, c.want)
		}
	}
}

// check says ok for a sound file and reports a damaged one.
func TestCheck(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "check.db")
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: db}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.DeployFiles(ctx, "ex", filepath.Join("..", "..", "examples", "processes", "order.bpmn")); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	var out bytes.Buffer
	if err := run(ctx, []string{"check", "-db", db}, &out); err != nil || !strings.Contains(out.String(), "check.db: ok") {
		t.Fatalf("check of a sound file: %v\n%s", err, out.String())
	}
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for i := 8192; i < len(data); i++ { // every page after the first two
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(db, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"check", "-db", db}, &out); !errors.Is(err, bpmnlite.ErrCorrupt) {
		t.Fatalf("check of a damaged file: %v, want ErrCorrupt", err)
	}
	if err := run(ctx, []string{"check", "-db", filepath.Join(t.TempDir(), "none.db")}, &out); err == nil {
		t.Fatal("check of a missing file reported no error")
	}
}
