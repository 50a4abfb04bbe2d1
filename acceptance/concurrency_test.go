package acceptance_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// accGate lines up two commands inside their transactions: each sets a
// variable whose JSON encoding (done while the command runs, after it read
// the instance and before it writes) waits until both got there. So both
// read the same state, as Camunda's controlled threads do, and the commit
// order decides.
type accGate struct {
	wg   sync.WaitGroup
	both chan struct{}
}

func newAccGate() *accGate {
	g := &accGate{both: make(chan struct{})}
	g.wg.Add(2)
	go func() {
		g.wg.Wait()
		close(g.both)
	}()
	return g
}

// accGateVar is one command's side of the gate.
type accGateVar struct {
	g    *accGate
	once *sync.Once
}

func (g *accGate) side() accGateVar { return accGateVar{g, &sync.Once{}} }

func (v accGateVar) MarshalJSON() ([]byte, error) {
	v.once.Do(v.g.wg.Done)
	select {
	case <-v.g.both:
		return []byte("true"), nil
	case <-time.After(10 * time.Second):
		return nil, errors.New("the other command never reached the gate")
	}
}

// accCompete runs two commands at once. On PostgreSQL they meet at a gate
// after reading the instance: exactly one may commit, the other must fail
// with an optimistic-lock error. SQLite has a single writer, so the two run
// one after the other: both commit, the second seeing the first's work.
// It returns the index of the loser (-1 when both committed).
func (e *env) accCompete(run func(i int, vars map[string]any) error) int {
	e.T.Helper()
	gated := e.Eng.Dialect() == "postgres"
	gate := newAccGate()
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		vars := map[string]any{}
		if gated {
			// One variable name each: the race is on the scope execution.
			vars[[]string{"gateA", "gateB"}[i]] = gate.side()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = run(i, vars)
		}()
	}
	wg.Wait()
	if !gated {
		if errs[0] != nil || errs[1] != nil {
			e.T.Fatalf("serialized commands failed: %v", errs)
		}
		return -1
	}
	loser := -1
	for i, err := range errs {
		if err == nil {
			continue
		}
		if loser >= 0 {
			e.T.Fatalf("both commands failed: %v", errs)
		}
		loser = i
		if !errors.Is(err, bpmnlite.ErrOptimisticLock) || !strings.Contains(err.Error(), "was updated by another transaction concurrently") {
			e.T.Fatalf("loser failed with %v, want an optimistic-lock error", err)
		}
	}
	if loser < 0 {
		e.T.Fatal("both competing commands committed")
	}
	return loser
}

// S28: two signals reach a parallel join in concurrent transactions: the
// first commit wins, the second gets an optimistic-lock error; retried, it
// completes the join.
func TestS28_CompetingJoins(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/concurrency/CompetingJoinTest.testCompetingJoins.bpmn20.xml")
		pi := e.Start("CompetingJoinsProcess", nil)
		w1, w2 := e.Executions(pi, "wait1"), e.Executions(pi, "wait2")
		if len(w1) != 1 || len(w2) != 1 {
			t.Fatalf("executions %s, want one at wait1 and one at wait2", harness.ExecList(e.Executions(pi, "")))
		}
		ids := []string{w1[0].ID, w2[0].ID}
		loser := e.accCompete(func(i int, vars map[string]any) error {
			return e.Eng.Trigger(e.Ctx, ids[i], vars)
		})
		if loser >= 0 {
			if e.Ended(pi) {
				t.Fatal("instance ended with one arrival rolled back")
			}
			if err := e.Eng.Trigger(e.Ctx, ids[loser], nil); err != nil {
				t.Fatalf("retrying the losing signal: %v", err)
			}
		}
		if !e.Ended(pi) || e.State(pi) != "COMPLETED" {
			t.Fatal("instance should have ended after both arrivals")
		}
	})
}

// S28: completing two of three parallel tasks that end their paths, at
// process level and inside a sub-process, conflicts on the scope.
func TestS28_CompetingEnds(t *testing.T) {
	cases := []struct{ file, key string }{
		{"CompetingProcessCompletionTest.testCompetingEnd.bpmn20.xml", "CompetingEndProcess"},
		{"CompetingSubprocessCompletionTest.testCompetingSubprocessEnd.bpmn20.xml", "CompetingSubprocessEndProcess"},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, tc := range cases {
			t.Run(tc.key, func(t *testing.T) {
				e := e.accWith(t)
				e.DeployFiles("camunda/concurrency/" + tc.file)
				pi := e.Start(tc.key, nil)
				ts := e.Tasks(pi)
				if len(ts) != 3 {
					t.Fatalf("%d tasks, want 3", len(ts))
				}
				loser := e.accCompete(func(i int, vars map[string]any) error {
					return e.Eng.CompleteTask(e.Ctx, ts[i].ID, vars)
				})
				want := 1
				if loser >= 0 {
					want = 2
				}
				if n := len(e.Tasks(pi)); n != want {
					t.Fatalf("%d tasks left, want %d", n, want)
				}
				for _, task := range e.Tasks(pi) {
					if err := e.Eng.CompleteTask(e.Ctx, task.ID, nil); err != nil {
						t.Fatal(err)
					}
				}
				if !e.Ended(pi) {
					t.Fatal("instance should have ended")
				}
			})
		}
	})
}

const pgwDir = "camunda/concurrency/"

// S29: an async parallel join without outgoing flow: one job per arriving
// branch; the second ends the instance.
func TestS29_AsyncParallelGateway(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := e.DeployFiles(pgwDir + "_needs-extra/ParallelGatewayTest.testAsyncParallelGateway.bpmn")
		jds, err := e.Eng.JobDefinitions(e.Ctx, d.Definitions[0].ID, "")
		if err != nil || len(jds) != 1 || jds[0].ActivityID != "parallelJoinEnd" {
			t.Fatalf("job definitions %v (%v), want one on parallelJoinEnd", jds, err)
		}
		pi := e.Start("process", nil)
		js := e.Jobs(pi)
		if e.Ended(pi) || len(js) != 2 {
			t.Fatalf("ended %v with %d jobs, want running with 2", e.Ended(pi), len(js))
		}
		for _, j := range js {
			e.ExecJob(j.ID)
		}
		if !e.Ended(pi) {
			t.Fatal("instance should have ended")
		}
	})
}

// S29: an async join after a scope task (with a boundary timer).
func TestS29_AsyncParallelGatewayAfterScopeTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(pgwDir + "ParallelGatewayTest.testAsyncParallelGatewayAfterScopeTask.bpmn20.xml")
		pi := e.Start("process", nil)
		e.Complete(pi, "scopeTask", nil)
		js := e.Jobs(pi)
		if len(js) != 2 {
			t.Fatalf("%d jobs, want 2: %s", len(js), harness.JobList(js))
		}
		for _, j := range js {
			if j.Type != "message" || j.ActivityID != "join" {
				t.Fatalf("jobs %s, want two async jobs at join", harness.JobList(js))
			}
			e.ExecJob(j.ID)
		}
		if !e.Ended(pi) {
			t.Fatal("instance should have ended")
		}
	})
}

// accTaskNames returns the names of pi's open tasks, sorted by the harness
// order (creation).
func (e *env) accTaskNames(pi string) string {
	e.T.Helper()
	var names []string
	for _, t := range e.Tasks(pi) {
		names = append(names, t.Name)
	}
	return strings.Join(names, ",")
}

// S29: plain parallel gateway semantics.
func TestS29_ParallelGateway(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		t.Run("forkJoin", func(t *testing.T) {
			e := e.accWith(t)
			e.DeployFiles(pgwDir + "ParallelGatewayTest.testForkJoin.bpmn20.xml")
			pi := e.Start("forkJoin", nil)
			if got := e.TaskKeys(pi); got != "receivePayment,shipOrder" {
				t.Fatalf("tasks %q", got)
			}
			e.Complete(pi, "receivePayment", nil)
			e.Complete(pi, "shipOrder", nil)
			if got := e.accTaskNames(pi); got != "Archive Order" {
				t.Fatalf("tasks %q, want Archive Order", got)
			}
		})
		t.Run("unbalanced", func(t *testing.T) {
			e := e.accWith(t)
			e.DeployFiles(pgwDir + "ParallelGatewayTest.testUnbalancedForkJoin.bpmn20.xml")
			pi := e.Start("UnbalancedForkJoin", nil)
			if got := e.TaskKeys(pi); got != "task1,task2,task3" {
				t.Fatalf("tasks %q", got)
			}
			e.Complete(pi, "task1", nil)
			if got := e.TaskKeys(pi); got != "task2,task3" {
				t.Fatalf("after task1: tasks %q, want task2,task3 (first join waits)", got)
			}
			e.Complete(pi, "task2", nil)
			if got := e.TaskKeys(pi); got != "task3,task4" {
				t.Fatalf("after task2: tasks %q, want task3,task4", got)
			}
			e.Complete(pi, "task3", nil)
			e.Complete(pi, "task4", nil)
			if !e.Ended(pi) {
				t.Fatal("instance should have ended")
			}
		})
		t.Run("nested", func(t *testing.T) {
			e := e.accWith(t)
			e.DeployFiles(pgwDir + "ParallelGatewayTest.testNestedForkJoin.bpmn20.xml")
			pi := e.Start("nestedForkJoin", nil)
			// The paths are the executions without children: the
			// process instance alone, or its concurrent children.
			step := func(what, wantTasks string, wantPaths int) {
				t.Helper()
				if got := e.TaskKeys(pi); got != wantTasks {
					t.Fatalf("%s: tasks %q, want %q", what, got, wantTasks)
				}
				xs := e.Executions(pi, "")
				parents := map[string]bool{}
				for _, x := range xs {
					parents[x.ParentID] = true
				}
				if got := len(xs) - len(parents) + 1; got != wantPaths {
					t.Fatalf("%s: %d paths %s, want %d", what, got, harness.ExecList(e.Executions(pi, "")), wantPaths)
				}
			}
			step("start", "Task_0", 1)
			e.Complete(pi, "Task_0", nil)
			step("Task 0", "Task_A,Task_B", 2)
			e.Complete(pi, "Task_A", nil)
			step("Task A", "Task_B", 2)
			e.Complete(pi, "Task_B", nil)
			step("Task B", "Task_B1,Task_B2", 3)
			e.Complete(pi, "Task_B1", nil)
			e.Complete(pi, "Task_B2", nil)
			step("B1 and B2", "Task_C", 1)
		})
		for _, tc := range []struct{ file, key string }{
			{"ParallelGatewayTest.testSplitMergeNoWaitstates.bpmn20.xml", "forkJoinNoWaitStates"},
			{"ParallelGatewayTest.testForkFollowedByOnlyEndEvents.bpmn20.xml", "forkFollowedByEndEvents"},
		} {
			t.Run(tc.key, func(t *testing.T) {
				e := e.accWith(t)
				e.DeployFiles(pgwDir + tc.file)
				pi := e.Start(tc.key, nil)
				if !e.Ended(pi) || e.State(pi) != "COMPLETED" {
					t.Fatal("instance should have ended when start returned")
				}
			})
		}
	})
}
