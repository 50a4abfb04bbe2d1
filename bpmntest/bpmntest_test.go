package bpmntest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/bpmntest"
)

// fatal stands in for a test so that the kit's failures can be read: its
// Fatalf records the message and ends the goroutine, as testing's does.
type fatal struct {
	testing.TB
	msg string
}

func (f *fatal) Helper() {}

func (f *fatal) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failure runs fn as a test of its own and returns its failure message.
func failure(t *testing.T, fn func(tb testing.TB)) string {
	f := &fatal{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f.msg
}

func TestAssertionMessagesShowTheInstance(t *testing.T) {
	msg := failure(t, func(tb testing.TB) {
		e := bpmntest.New(tb)
		e.Deploy(example("order"))
		e.Stub("checkStock", map[string]any{"stock": 5})
		e.Start("order", map[string]any{"customer": map[string]any{"status": "VIP"}, "quantity": 2}).AssertWaitingAt("backorder")
	})
	for _, want := range []string{"want the instance waiting at backorder only", "ACTIVE", "waiting at: ship", "path: received → checkStock → inStock → prepare → ship"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message lacks %q:\n%s", want, msg)
		}
	}
	msg = failure(t, func(tb testing.TB) {
		e := bpmntest.New(tb)
		e.Deploy(example("retry"))
		e.FailTimes("chargeCard", 5, nil, nil)
		e.Start("payment", nil).AssertEnded()
	})
	for _, want := range []string{"want the instance completed", "job message at charge: priority 0, retries 2", `last failure "chargeCard: failure planned by the test"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message lacks %q:\n%s", want, msg)
		}
	}
}

// A loop of asynchronous steps that never waits fails clearly instead of
// running for ever.
func TestRunJobsStopsALoop(t *testing.T) {
	loop := filepath.Join(t.TempDir(), "loop.bpmn")
	if err := os.WriteFile(loop, []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="loop" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="again"/>
    <serviceTask id="again" camunda:asyncBefore="true" camunda:expression="${true}"/>
    <sequenceFlow id="f2" sourceRef="again" targetRef="again"/>
  </process>
</definitions>`), 0o600); err != nil {
		t.Fatal(err)
	}
	msg := failure(t, func(tb testing.TB) {
		e := bpmntest.New(tb)
		e.Deploy(loop)
		e.Start("loop", nil)
	})
	if !strings.Contains(msg, "1000 jobs ran and more are due") || !strings.Contains(msg, "job message at again") {
		t.Errorf("failure message:\n%s", msg)
	}
}

// Outside a test, a failed assertion panics with the instance's state, and
// Close runs the cleanups (the engine closes).
func TestScriptFailurePanics(t *testing.T) {
	s := new(bpmntest.Script)
	e := bpmntest.New(s)
	e.Deploy("../examples/processes/escalation.bpmn")
	pi := e.Start("escalation", nil)
	func() {
		defer func() {
			msg := fmt.Sprint(recover())
			if !strings.Contains(msg, "waiting at: answer") {
				t.Errorf("panic %q does not show where the instance waits", msg)
			}
		}()
		pi.AssertEnded("done")
		t.Error("a failed assertion did not panic")
	}()
	s.Close()
	if _, err := e.Tasks(t.Context(), bpmnlite.TaskQuery{}); err == nil {
		t.Error("the engine is still open after Close")
	}
}

// An execution a child runs in (the path at a subprocess, an input/output-
// mapped task or a multi-instance body, the body's scope) is at no
// activity, as Camunda's execution query shows it: the instance waits where
// its innermost executions are, the one that reached the join among them.
func TestWaitingAtInsideScopes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scopes.bpmn")
	flow := func(from, to string) string {
		return `<sequenceFlow id="` + from + `-` + to + `" sourceRef="` + from + `" targetRef="` + to + `"/>`
	}
	xml := `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="scopes" isExecutable="true">
    <startEvent id="start"/><parallelGateway id="fork"/>
    <subProcess id="sub"><startEvent id="subStart"/><userTask id="subTask"/><endEvent id="subEnd"/>` +
		flow("subStart", "subTask") + flow("subTask", "subEnd") + `</subProcess>
    <userTask id="mapped"><extensionElements><camunda:inputOutput><camunda:inputParameter name="x">1</camunda:inputParameter></camunda:inputOutput></extensionElements></userTask>
    <userTask id="each"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></userTask>
    <parallelGateway id="join"/><endEvent id="end"/>` +
		flow("start", "fork") + flow("fork", "sub") + flow("fork", "mapped") + flow("fork", "each") + flow("fork", "join") +
		flow("sub", "join") + flow("mapped", "join") + flow("each", "join") + flow("join", "end") + `
  </process>
</definitions>`
	if err := os.WriteFile(path, []byte(xml), 0o600); err != nil {
		t.Fatal(err)
	}
	e := bpmntest.New(t)
	e.Deploy(path)
	pi := e.Start("scopes", nil).AssertWaitingAt("each", "each", "join", "mapped", "subTask")
	pi.CompleteTask("subTask", nil).CompleteTask("mapped", nil).AssertWaitingAt("each", "each", "join", "join", "join")
}
