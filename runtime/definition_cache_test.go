package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/harness"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// cachedOrder is a file with a process key whose instances pass through everything that
// looks its definition up again: an asynchronous service task, a call
// activity, a subprocess with a message boundary event, a user task with a
// timer boundary event; and the process it calls.
func cachedOrder(key string) string {
	return enginetest.Header + `
  <message id="m" name="cancel-` + key + `" />
  <process id="` + key + `" isExecutable="true">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="charge" />
    <serviceTask id="charge" camunda:asyncBefore="true" camunda:class="charge" />
    <sequenceFlow id="f2" sourceRef="charge" targetRef="call" />
    <callActivity id="call" calledElement="` + key + `_child" />
    <sequenceFlow id="f3" sourceRef="call" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="subStart" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="approve" />
      <userTask id="approve" />
      <sequenceFlow id="s2" sourceRef="approve" targetRef="subEnd" />
      <endEvent id="subEnd" />
      <boundaryEvent id="late" attachedToRef="approve"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
      <sequenceFlow id="s3" sourceRef="late" targetRef="subEnd2" />
      <endEvent id="subEnd2" />
    </subProcess>
    <boundaryEvent id="cancel" attachedToRef="sub"><messageEventDefinition messageRef="m" /></boundaryEvent>
    <sequenceFlow id="f4" sourceRef="sub" targetRef="end" />
    <sequenceFlow id="f5" sourceRef="cancel" targetRef="end" />
    <endEvent id="end" />
  </process>
  <process id="` + key + `_child" isExecutable="true">
    <startEvent id="cs" /><sequenceFlow id="c1" sourceRef="cs" targetRef="ce" /><endEvent id="ce" />
  </process>
</definitions>`
}

// Definitions evicted from the cache, or never kept in it, are parsed again
// when needed: instances started before run on through jobs, call
// activities, messages, timers and tasks, alone and side by side, and the
// cache stays within its bound.
func TestDefinitionCacheBounded(t *testing.T) {
	for _, bound := range []int{-1, 1, 40 << 10} { // unbounded; none fits; about five of the sixteen fit
		t.Run(fmt.Sprint(bound), func(t *testing.T) {
			harness.EachBackend(t, bpmnlite.Config{Limits: bpmnlite.LimitsConfig{DefinitionCacheBytes: bound}}, func(t *testing.T, e *harness.Env) {
				e.Eng.RegisterDelegate("charge", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
				keys := []string{"a", "b", "c", "d"}
				for _, k := range keys {
					xml := cachedOrder(k)
					e.Deploy(k, xml)
					e.Deploy(k, xml+" ") // a second version of each
				}
				if s := e.Eng.Stats(); bound > 0 && s.DefinitionCacheBytes > int64(bound) {
					t.Fatalf("after deploying: %d bytes cached, bound %d", s.DefinitionCacheBytes, bound)
				}
				var pis []string
				for _, k := range keys {
					pis = append(pis, e.Start(k, nil), e.Start(k, nil))
				}
				var wg sync.WaitGroup
				var mu sync.Mutex
				var side []string
				errs := make(chan error, 100)
				for range 3 { // concurrent readers of the same definitions
					wg.Go(func() {
						for _, k := range keys {
							pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: k})
							if err != nil {
								errs <- err
							}
							mu.Lock()
							side = append(side, pi)
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Errorf("concurrent start: %v", err)
				}
				for _, pi := range pis { // the asynchronous continuations, not the timers yet
					for _, j := range e.Jobs(pi) {
						if j.ActivityID == "charge" {
							if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err != nil {
								t.Fatalf("job: %v", err)
							}
						}
					}
				}
				for i, pi := range pis {
					k := keys[i/2]
					if got := e.TaskKeys(pi); got != "approve" {
						t.Fatalf("instance of %s waits at %q, want approve", k, got)
					}
					if i%2 == 0 {
						e.Complete(pi, "approve", nil)
					} else if _, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "cancel-" + k, ProcessInstanceID: pi}); err != nil {
						t.Fatalf("correlate: %v", err)
					}
				}
				e.Clock.Add(2 * time.Hour)
				for e.Drain(100) > 0 { // the instances started side by side, to their timers
				}
				for i, pi := range pis {
					if st := e.State(pi); st != "COMPLETED" {
						t.Errorf("instance %d of %s: %s, want COMPLETED (at %s)", i, keys[i/2], st, e.TaskKeys(pi))
					}
				}
				for _, pi := range side {
					if st := e.State(pi); st != "COMPLETED" {
						t.Errorf("instance started side by side: %s, want COMPLETED (at %s)", st, e.TaskKeys(pi))
					}
				}
				s := e.Eng.Stats()
				if bound > 0 && s.DefinitionCacheBytes > int64(bound) || bound == 1 && s.DefinitionsCached != 0 || bound > 1 && s.DefinitionsCached == 0 {
					t.Errorf("cache holds %d definitions, %d bytes, bound %d", s.DefinitionsCached, s.DefinitionCacheBytes, bound)
				}
			})
		})
	}
}
