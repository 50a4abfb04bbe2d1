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

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"run", "--help"}, {"serve", "-h"}, {"jobs", "--help"}, {"validate", "-h"}} {
		out, err := runCLI(t, args...)
		if err != nil || !strings.Contains(out, "usage") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
}
