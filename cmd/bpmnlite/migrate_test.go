package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
)

func migrateModel(tasks ...string) string {
	body, prev := `<startEvent id="s"/>`, "s"
	for _, t := range tasks {
		body += `<userTask id="` + t + `"/><sequenceFlow id="to-` + t + `" sourceRef="` + prev + `" targetRef="` + t + `"/>`
		prev = t
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="mig" isExecutable="true">` + body + `<endEvent id="e"/><sequenceFlow id="to-e" sourceRef="` + prev + `" targetRef="e"/></process>
</definitions>`
}

// bpmnlite migrate: --dry-run prints the plan and migrates nothing; a run
// migrates every instance; a plan that leaves an activity unmapped names
// it, and migrates no instance.
func TestCLIMigrate(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ bpmnlite.Config) {
		file := filepath.Join(t.TempDir(), "mig.bpmn")
		deploy := func(tasks ...string) {
			t.Helper()
			if err := os.WriteFile(file, []byte(migrateModel(tasks...)), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := runCLI(t, "deploy", file); err != nil {
				t.Fatalf("deploy: %v\n%s", err, out)
			}
		}
		taskDefinitions := func() string {
			t.Helper()
			out, err := runCLI(t, "tasks", "--json")
			var tasks []bpmnlite.Task
			if err != nil || json.Unmarshal([]byte(out), &tasks) != nil {
				t.Fatalf("tasks: %v\n%s", err, out)
			}
			var defs []string
			for _, tk := range tasks {
				defs = append(defs, strings.SplitN(tk.ProcessDefinitionID, ":", 3)[1]+"/"+tk.TaskDefinitionKey)
			}
			return strings.Join(defs, " ")
		}
		deploy("review")
		for range 2 {
			if out, err := runCLI(t, "start", "mig"); err != nil {
				t.Fatalf("start: %v\n%s", err, out)
			}
		}
		deploy("review", "extra")
		out, err := runCLI(t, "migrate", "--from", "mig:1", "--to", "mig:2", "--dry-run")
		if err != nil || !strings.Contains(out, "review  review") || !strings.Contains(out, "dry run: 2 of 2 instances can be migrated; nothing was") {
			t.Fatalf("dry run: %v\n%s", err, out)
		}
		if got := taskDefinitions(); got != "1/review 1/review" {
			t.Errorf("after the dry run: %s", got)
		}
		if out, err := runCLI(t, "migrate", "--from", "mig:1", "--to", "mig:2"); err != nil || !strings.Contains(out, "migrated 2 instances") {
			t.Fatalf("migrate: %v\n%s", err, out)
		}
		if got := taskDefinitions(); got != "2/review 2/review" {
			t.Errorf("after migrating: %s", got)
		}
		deploy("check", "extra")
		out, err = runCLI(t, "migrate", "--from", "mig:2", "--to", "mig:3")
		if err == nil || !strings.Contains(err.Error(), "2 of 2 instances cannot be migrated: none was") ||
			!strings.Contains(out, "activity review (instance ") || !strings.Contains(out, "There is no migration instruction for this instance's activity") {
			t.Fatalf("refused migration: %v\n%s", err, out)
		}
		if got := taskDefinitions(); got != "2/review 2/review" {
			t.Errorf("after a refused migration: %s", got)
		}
		if out, err := runCLI(t, "migrate", "-h"); err != nil || !strings.Contains(out, "--dry-run") {
			t.Errorf("migrate -h: %v\n%s", err, out)
		}
		if _, err := runCLI(t, "migrate", "--from", "mig", "--to", "mig:2"); err == nil || !strings.Contains(err.Error(), "KEY:VERSION") {
			t.Errorf("--from without a version: %v", err)
		}
	})
}
