package runtime_test

import (
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// A signal end event broadcasts its signal, then ends its path: an
// instance waiting for the signal moves on, and the thrower completes.
func TestSignalEndEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("waiter", enginetest.Header+`
  <signal id="sig" name="released" />
  <process id="waiter" isExecutable="true">
    <startEvent id="ws" /><sequenceFlow id="w1" sourceRef="ws" targetRef="wait" />
    <intermediateCatchEvent id="wait"><signalEventDefinition signalRef="sig" /></intermediateCatchEvent>
    <sequenceFlow id="w2" sourceRef="wait" targetRef="after" /><userTask id="after" />
  </process>
</definitions>`)
		e.Deploy("thrower", enginetest.Header+`
  <signal id="sig" name="released" />
  <process id="thrower" isExecutable="true">
    <startEvent id="ts" /><sequenceFlow id="t1" sourceRef="ts" targetRef="release" />
    <endEvent id="release"><signalEventDefinition signalRef="sig" /></endEvent>
  </process>
</definitions>`)
		waiter := e.Start("waiter", nil)
		thrower := e.Start("thrower", nil)
		if got := e.State(thrower); got != bpmnlite.StateCompleted {
			t.Fatalf("thrower state %s, want completed", got)
		}
		if got := e.TaskKeys(waiter); got != "after" {
			t.Fatalf("the waiting instance is at %q, want after (the signal end event's signal moves it on)", got)
		}
	})
}
