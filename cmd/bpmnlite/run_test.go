package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const timerThenTask = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="waits" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="week"/>
    <intermediateCatchEvent id="week"><timerEventDefinition><timeDuration>P7D</timeDuration></timerEventDefinition></intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="week" targetRef="pay"/>
    <serviceTask id="pay" camunda:class="payInvoice"/>
    <sequenceFlow id="f3" sourceRef="pay" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>`

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, &out)
	return out.String(), err
}

// A timer fires only when nothing else is left, by moving a virtual clock;
// an unknown delegate can be stubbed; flags may follow the file.
func TestRunMovesTheClockToTimers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "waits.bpmn")
	if err := os.WriteFile(file, []byte(timerThenTask), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "run", file, "-stub", "payInvoice", "-var", `customer={"name":"Ada"}`, "-var", "customer.status=VIP")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	for _, want := range []string{"the clock moves by 168h0m0s to the timer job at week", "stub payInvoice at pay", ": COMPLETED",
		"variables: map[customer:map[name:Ada status:VIP]]"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Without the stub the delegate is missing: the job fails and says so.
	out, err = runCLI(t, "run", file)
	if err != nil || !strings.Contains(out, `delegate "payInvoice" is not registered`) || !strings.Contains(out, "incident failedJob at week") {
		t.Errorf("run without the stub: %v\n%s", err, out)
	}
	out, err = runCLI(t, "run", "-stub-all", file)
	if err != nil || !strings.Contains(out, ": COMPLETED") {
		t.Errorf("run -stub-all: %v\n%s", err, out)
	}
}

// The escalation example's four-hour timer does not fire: its user task is
// completed first, as a user would.
func TestRunDoesNotFireTimersEarly(t *testing.T) {
	out, err := runCLI(t, "run", filepath.Join("..", "..", "examples", "processes", "escalation.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "tooLate") || !strings.Contains(out, `completing user task "Answer ticket"`) || !strings.Contains(out, ": COMPLETED") {
		t.Errorf("output:\n%s", out)
	}
}

// Every command answers -h, -help and --help with its usage, flags and an
// example, and succeeds (the flag package's "help requested" is an error).
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, err := runCLI(t, args...)
		if err != nil || !strings.Contains(out, "usage") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	for name := range commands {
		for _, h := range []string{"-h", "-help", "--help"} {
			out, err := runCLI(t, name, h)
			if err != nil || !strings.Contains(out, "usage: bpmnlite "+name) {
				t.Errorf("%s %s: %v\n%s", name, h, err, out)
			}
			if name != "version" && !strings.Contains(out, "example") {
				t.Errorf("%s %s has no example:\n%s", name, h, out)
			}
		}
		// A flag after the command's own (help given late) helps too.
		if out, err := runCLI(t, name, "-db", "x.db", "--help"); err != nil || !strings.Contains(out, "usage: bpmnlite "+name) {
			t.Errorf("%s -db x.db --help: %v\n%s", name, err, out)
		}
	}
	if out, err := runCLI(t, "help", "retry"); err != nil || !strings.Contains(out, "--all-failed") {
		t.Errorf("help retry: %v\n%s", err, out)
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		out, err := runCLI(t, arg)
		if err != nil || !strings.HasPrefix(out, "bpmnlite ") || !strings.Contains(out, "go1.") {
			t.Errorf("%s: %v\n%s", arg, err, out)
		}
	}
}

// What run prints is its own log, in order: the start comes before the
// delegates the start runs, and every line but the report carries the
// clock's time.
func TestRunPrintsInOrder(t *testing.T) {
	out, err := runCLI(t, "run", filepath.Join("..", "..", "examples", "processes", "order.bpmn"),
		"-var", `customer={"name":"Ada","status":"VIP"}`, "-var", "quantity=2")
	if err != nil {
		t.Fatal(err)
	}
	starting, delegate := strings.Index(out, "starting order"), strings.Index(out, "demo delegate checkStock")
	if starting < 0 || delegate < starting {
		t.Fatalf("the start is not printed before its delegates:\n%s", out)
	}
	if first := strings.SplitN(out, "\n", 2)[0]; !strings.Contains(first, "T") || !strings.Contains(first, "starting") {
		t.Errorf("first line %q", first)
	}
}
