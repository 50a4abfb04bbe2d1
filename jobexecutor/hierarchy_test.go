package jobexecutor_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Exclusive jobs across process hierarchies (Camunda's job executor option
// of that name): a root instance and the instances its call activities
// start, two levels deep here, count as one instance for exclusive jobs.

// deployHierarchy deploys top → mid → leaf: top forks into an exclusive
// async task (priority 10) and a call of mid, which calls leaf, which has
// an exclusive async task (priority 0). Variables pass down.
func deployHierarchy(e *env, delegate string) {
	e.Deploy("leaf", enginetest.Process("leaf", `<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="leafTask"/>
		<serviceTask id="leafTask" camunda:asyncBefore="true" camunda:class="`+delegate+`"/>
		<sequenceFlow id="f2" sourceRef="leafTask" targetRef="leafTask2"/>
		<serviceTask id="leafTask2" camunda:asyncBefore="true" camunda:class="`+delegate+`"/>
		<sequenceFlow id="f3" sourceRef="leafTask2" targetRef="e"/><endEvent id="e"/>`))
	e.Deploy("mid", enginetest.Process("mid", `<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="callLeaf"/>
		<callActivity id="callLeaf" calledElement="leaf"><extensionElements><camunda:in variables="all"/></extensionElements></callActivity>
		<sequenceFlow id="f2" sourceRef="callLeaf" targetRef="e"/><endEvent id="e"/>`))
	e.Deploy("top", enginetest.Process("top", `<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="fork"/>
		<parallelGateway id="fork"/>
		<sequenceFlow id="f2" sourceRef="fork" targetRef="topTask"/><sequenceFlow id="f3" sourceRef="fork" targetRef="callMid"/>
		<serviceTask id="topTask" camunda:asyncBefore="true" camunda:jobPriority="10" camunda:class="`+delegate+`"/>
		<callActivity id="callMid" calledElement="mid"><extensionElements><camunda:in variables="all"/></extensionElements></callActivity>
		<sequenceFlow id="f4" sourceRef="topTask" targetRef="join"/><sequenceFlow id="f5" sourceRef="callMid" targetRef="join"/>
		<parallelGateway id="join"/><sequenceFlow id="f6" sourceRef="join" targetRef="e"/><endEvent id="e"/>`))
}

func TestExclusiveOverHierarchiesAcquisition(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("noop", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		deployHierarchy(e, "noop")
		top := e.Start("top", nil)
		var leafJob *bpmnlite.Job
		all, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range all {
			if j.RootProcessInstanceID != top {
				t.Errorf("job at %s has root %q, want the top instance %s", j.ActivityID, j.RootProcessInstanceID, top)
			}
			if j.ActivityID == "leafTask" {
				leafJob = j
			}
		}
		if len(all) != 2 || leafJob == nil || leafJob.ProcessInstanceID == top {
			t.Fatalf("jobs %+v, want topTask's and leafTask's (in the leaf instance)", all)
		}
		leaf, err := e.Eng.Executions(e.Ctx, bpmnlite.ExecutionQuery{ID: leafJob.ProcessInstanceID})
		if err != nil || len(leaf) != 1 || leaf[0].RootProcessInstanceID != top {
			t.Fatalf("leaf instance %+v (%v), want root %s", leaf, err, top)
		}

		// Another node holds topTask's job.
		ten := int64(10)
		if locked := e.jeLock("other", e.Clock.Now().Add(time.Minute), persistence.AcquireParams{PriorityMin: &ten}); len(locked) != 1 {
			t.Fatalf("locked %d jobs, want topTask's", len(locked))
		}
		// Per instance, the leaf's job is free: it is another instance.
		if got := e.jeAcquirable(persistence.AcquireParams{}); len(got) != 1 || got[0].ID != leafJob.ID {
			t.Fatalf("acquirable per instance: %d jobs, want the leaf's", len(got))
		}
		// Across the hierarchy, it waits for the top's job.
		if got := e.jeAcquirable(persistence.AcquireParams{ExclusiveOverHierarchies: true}); len(got) != 0 {
			t.Fatalf("acquirable across hierarchies: %d jobs, want none while the top's job is locked", len(got))
		}
		// A second hierarchy is not held up.
		top2 := e.Start("top", nil)
		got := e.jeAcquirable(persistence.AcquireParams{ExclusiveOverHierarchies: true})
		if len(got) != 2 {
			t.Fatalf("acquirable across hierarchies: %d jobs, want the second hierarchy's two", len(got))
		}
		for _, j := range got {
			if j.RootProcessInstanceID != top2 {
				t.Errorf("acquired a job of root %s, want only %s's", j.RootProcessInstanceID, top2)
			}
		}
	})
}

// Under the running executor with the option on, no two jobs of one
// hierarchy run at the same time, while hierarchies run side by side.
func TestExclusiveOverHierarchiesExecutor(t *testing.T) {
	eachBackendRealTime(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		type run struct {
			tree       string
			start, end time.Time
		}
		var mu sync.Mutex
		var runs []run
		e.Eng.RegisterDelegate("nap", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			tree, _, err := ex.Variable("tree")
			if err != nil {
				return err
			}
			start := time.Now()
			select {
			case <-time.After(20 * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			}
			mu.Lock()
			runs = append(runs, run{tree.(string), start, time.Now()})
			mu.Unlock()
			return nil
		}))
		deployHierarchy(e, "nap")
		var tops []string
		for _, tree := range []string{"a", "b", "c"} {
			tops = append(tops, e.Start("top", map[string]any{"tree": tree}))
		}
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 4, AcquireExclusiveOverProcessHierarchies: true})
		for _, pi := range tops {
			harness.WaitFor(t, "instance "+pi+" to end", 30*time.Second, func() bool { return e.Ended(pi) })
		}
		mu.Lock()
		defer mu.Unlock()
		if len(runs) < 9 {
			t.Fatalf("%d runs, want 9", len(runs))
		}
		across := false
		for i, a := range runs {
			for _, b := range runs[i+1:] {
				overlap := a.start.Before(b.end) && b.start.Before(a.end)
				switch {
				case overlap && a.tree == b.tree:
					t.Fatalf("two jobs of hierarchy %s overlapped", a.tree)
				case overlap:
					across = true
				}
			}
		}
		for _, pi := range tops {
			if l := e.JobLog(bpmnlite.JobLogQuery{ProcessInstanceID: pi, Event: "failed"}); len(l) != 0 {
				t.Errorf("jobs of %s failed: %s", pi, l[0].Message)
			}
		}
		if e.Eng.Dialect() == "postgres" && !across {
			t.Error("no two hierarchies ran side by side")
		}
	})
}
