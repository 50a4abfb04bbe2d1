package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
)

// bpmnlite modify: instructions in the order of their flags, the tree
// after them printed, a refusal naming the instruction.
func TestCLIModify(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg bpmnlite.Config) {
		file := filepath.Join(t.TempDir(), "cli.bpmn")
		if err := os.WriteFile(file, []byte(cliProcess), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := runCLI(t, "deploy", file); err != nil {
			t.Fatal(err)
		}
		out, err := runCLI(t, "start", "cli")
		if err != nil {
			t.Fatal(err)
		}
		pi := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
		if out, err := runCLI(t, "modify", "-start-before", "nope", pi); err == nil || !strings.Contains(err.Error(), `instruction 0 (startBeforeActivity): activity "nope" does not exist`) {
			t.Errorf("modify -start-before nope: %v\n%s", err, out)
		}
		out, err = runCLI(t, "modify", "--cancel", "review", "--start-before", "wait", "--var", "reason=late", pi)
		if err != nil || !strings.Contains(out, "wait") || strings.Contains(out, "review") {
			t.Fatalf("modify: %v\n%s", err, out)
		}
		eng, err := bpmnlite.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		if v, _, err := eng.Variable(context.Background(), pi, "reason"); err != nil || v != "late" {
			t.Errorf("variable reason: %v %v", v, err)
		}
		if out, err := runCLI(t, "modify", "-cancel", "wait", pi); err != nil || !strings.Contains(out, "true") {
			t.Errorf("modify -cancel wait: %v\n%s", err, out)
		}
		if out, _ := runCLI(t, "modify", "-h"); !strings.Contains(out, "usage: bpmnlite modify") {
			t.Errorf("modify -h:\n%s", out)
		}
	})
}
