package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

// External tasks through the Go API, after Camunda's ExternalTaskServiceTest
// (S37, S39) and beyond: fetch and lock, lock expiry and redelivery, stale
// completions, failures with retries and incidents, BPMN errors, variables
// and headers, priorities, concurrent fetches.

const etDir = "camunda/external-tasks/"

func (e *env) externalTasks(q bpmnlite.ExternalTaskQuery) []*bpmnlite.ExternalTask {
	e.T.Helper()
	ts, err := e.Eng.ExternalTasks(e.Ctx, q)
	if err != nil {
		e.T.Fatalf("external tasks: %v", err)
	}
	return ts
}

func TestExternalTaskFetchAndLock(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(etDir + "oneExternalTaskProcess.bpmn20.xml")
		pi := e.Start("oneExternalTaskProcess", nil)
		got := e.Fetch("aWorkerId", 5, harness.Topic("externalTaskTopic", 10*time.Second))
		if len(got) != 1 {
			t.Fatalf("fetched %d, want 1", len(got))
		}
		task := got[0]
		at := e.ExecAt(pi, "externalTask")
		if task.ProcessInstanceID != pi || task.ActivityID != "externalTask" || task.ProcessDefinitionKey != "oneExternalTaskProcess" ||
			task.Topic != "externalTaskTopic" || task.WorkerID != "aWorkerId" || task.ProcessDefinitionID == "" ||
			task.ExecutionID != at.ID || task.ActivityInstanceID != at.ActivityInstanceID || task.Retries != nil {
			t.Errorf("fetched task %+v", task.ExternalTask)
		}
		if want := e.Clock.Now().Add(10 * time.Second); task.LockExpiration == nil || !task.LockExpiration.Equal(want) {
			t.Errorf("lock expires %v, want %v", task.LockExpiration, want)
		}
		if n := len(e.Fetch("aWorkerId", 5, harness.Topic("externalTaskTopic", 10*time.Second))); n != 0 {
			t.Fatalf("fetched %d while locked, want 0", n)
		}
		wantEq(t, "locked", len(e.externalTasks(bpmnlite.ExternalTaskQuery{Locked: true})), 1)
		e.Clock.Add(20 * time.Second)
		wantEq(t, "locked after expiry", len(e.externalTasks(bpmnlite.ExternalTaskQuery{Locked: true})), 0)
		again := e.Fetch("anotherWorkerId", 5, harness.Topic("externalTaskTopic", 10*time.Second))
		if len(again) != 1 || again[0].ID != task.ID {
			t.Fatalf("fetched %d after the lock expired, want the same task", len(again))
		}
		// The first worker lost it: its completion is stale.
		err := e.Eng.CompleteExternalTask(e.Ctx, task.ID, "aWorkerId", nil, nil)
		if !errors.Is(err, bpmnlite.ErrWrongWorker) ||
			!strings.Contains(err.Error(), "cannot be completed by worker 'aWorkerId'. It is locked by worker 'anotherWorkerId'.") {
			t.Fatalf("stale complete: %v", err)
		}
		if err := e.Eng.CompleteExternalTask(e.Ctx, task.ID, "anotherWorkerId", map[string]any{"done": true}, nil); err != nil {
			t.Fatal(err)
		}
		if !e.Ended(pi) || len(e.externalTasks(bpmnlite.ExternalTaskQuery{})) != 0 {
			t.Error("instance should have ended with its task")
		}
		if !errors.Is(e.Eng.CompleteExternalTask(e.Ctx, task.ID, "anotherWorkerId", nil, nil), bpmnlite.ErrNotFound) {
			t.Error("completing twice should find no task")
		}

		// A lock that expired with nobody taking over still completes.
		pi = e.Start("oneExternalTaskProcess", nil)
		task = e.Fetch("aWorkerId", 1, harness.Topic("externalTaskTopic", time.Second))[0]
		e.Clock.Add(time.Minute)
		if err := e.Eng.CompleteExternalTask(e.Ctx, task.ID, "aWorkerId", nil, nil); err != nil {
			t.Fatalf("complete after expiry, not taken over: %v", err)
		}
		if !e.Ended(pi) {
			t.Error("instance should have ended")
		}
	})
}

func TestExternalTaskTopicsAndSuspension(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(etDir+"ExternalTaskServiceTest.testFetchTopicSelection.bpmn20.xml", etDir+"parallelExternalTaskProcess.bpmn20.xml")
		e.Start("twoTopicsProcess", nil)
		got := e.Fetch("w", 5, harness.Topic("topic1", time.Minute))
		if len(got) != 1 || got[0].Topic != "topic1" {
			t.Fatalf("fetched %d of topic1", len(got))
		}
		e.Eng.UnlockExternalTask(e.Ctx, got[0].ID)
		e.DeployFiles(etDir + "ExternalTaskServiceTest.testFetchMultipleTopics.bpmn20.xml")
		e.Start("parallelExternalTaskProcess", nil)
		now := e.Clock.Now()
		got = e.Fetch("w", 10, harness.Topic("topic1", 10*time.Second), harness.Topic("topic2", 20*time.Second))
		if len(got) != 4 {
			t.Fatalf("fetched %d of topics 1 and 2, want 4 (two per instance)", len(got))
		}
		for _, l := range got {
			want := now.Add(10 * time.Second)
			if l.Topic == "topic2" {
				want = now.Add(20 * time.Second)
			}
			if !l.LockExpiration.Equal(want) {
				t.Errorf("%s locked until %v, want %v", l.Topic, l.LockExpiration, want)
			}
		}

		// A suspended instance's tasks are not fetched.
		e.DeployFiles(etDir + "oneExternalTaskProcess.bpmn20.xml")
		one := e.Start("oneExternalTaskProcess", nil)
		if err := e.Eng.SuspendProcessInstance(e.Ctx, one); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "fetched while suspended", len(e.Fetch("w", 5, harness.Topic("externalTaskTopic", time.Minute))), 0)
		wantEq(t, "suspended tasks", len(e.externalTasks(bpmnlite.ExternalTaskQuery{Suspended: true})), 1)
		if err := e.Eng.ActivateProcessInstance(e.Ctx, one); err != nil {
			t.Fatal(err)
		}
		task := e.Fetch("w", 5, harness.Topic("externalTaskTopic", time.Minute))
		wantEq(t, "fetched after activation", len(task), 1)
		if err := e.Eng.SuspendProcessInstance(e.Ctx, one); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.CompleteExternalTask(e.Ctx, task[0].ID, "w", nil, nil); !errors.Is(err, bpmnlite.ErrSuspended) {
			t.Errorf("complete while suspended: %v, want ErrSuspended", err)
		}
	})
}

// Camunda's testExternalTaskExecutionTreeCompaction: the task's path moves
// onto the process instance when the other branch ends, and completing the
// task ends the instance.
func TestExternalTaskCompaction(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(etDir + "ExternalTaskServiceTest.testExternalTaskExecutionTreeCompaction.bpmn20.xml")
		pi := e.Start("concurrentExternalTaskProcess", nil)
		task := e.Fetch("w", 1, harness.Topic("externalTaskTopic", time.Minute))[0]
		if task.ExecutionID == pi {
			t.Fatal("the task's path should be concurrent")
		}
		e.Complete(pi, "userTask", nil)
		if ts := e.externalTasks(bpmnlite.ExternalTaskQuery{}); len(ts) != 1 || ts[0].ExecutionID != pi || ts[0].WorkerID != "w" {
			t.Fatalf("external task after compaction %+v, want it on the process instance, still locked", ts)
		}
		if err := e.Eng.CompleteExternalTask(e.Ctx, task.ID, "w", nil, nil); err != nil {
			t.Fatal(err)
		}
		if !e.Ended(pi) || e.TaskKeys(pi) != "" {
			t.Error("instance should have ended")
		}
	})
}

// S39: a failure with retries keeps the task locked for the retry timeout;
// at 0 retries it gets one incident and is never fetched; setting retries
// resolves it; a failed task still completes; BPMN errors are caught.
func TestExternalTaskFailureRetriesAndIncidents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(etDir + "_needs-extra/twoExternalTaskProcess.bpmn20.xml")
		pi := e.Start("twoExternalTaskProcess", nil)
		task := e.Fetch("w", 1, harness.Topic("externalTaskTopic", time.Minute))[0]
		e.Clock.Add(3 * time.Second)
		if err := e.Eng.HandleExternalTaskFailure(e.Ctx, task.ID, "other", bpmnlite.ExternalTaskFailure{Retries: 1}); !errors.Is(err, bpmnlite.ErrWrongWorker) {
			t.Errorf("failure by another worker: %v, want ErrWrongWorker", err)
		}
		if err := e.Eng.HandleExternalTaskFailure(e.Ctx, task.ID, "w", bpmnlite.ExternalTaskFailure{
			ErrorMessage: "error message", ErrorDetails: "details", Retries: 5, RetryTimeout: 3 * time.Second}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "fetched during the retry timeout", len(e.Fetch("w", 1, harness.Topic("externalTaskTopic", time.Minute))), 0)
		wantEq(t, "incidents", len(e.IncidentsOf(task.ID)), 0)
		e.Clock.Add(4 * time.Second)
		again := e.Fetch("w", 1, harness.Topic("externalTaskTopic", time.Minute))
		if len(again) != 1 || again[0].ErrorMessage != "error message" || again[0].ErrorDetails != "details" || again[0].Retries == nil || *again[0].Retries != 5 {
			t.Fatalf("fetched after the timeout: %+v", again)
		}

		failedAt := e.Clock.Now()
		if err := e.Eng.HandleExternalTaskFailure(e.Ctx, task.ID, "w", bpmnlite.ExternalTaskFailure{ErrorMessage: "error message"}); err != nil {
			t.Fatal(err)
		}
		e.Clock.Add(time.Hour)
		wantEq(t, "fetched at 0 retries", len(e.Fetch("w", 1, harness.Topic("externalTaskTopic", time.Minute))), 0)
		incs := e.IncidentsOf(task.ID)
		if len(incs) != 1 {
			t.Fatalf("incidents %d, want 1", len(incs))
		}
		in := incs[0]
		if in.Type != bpmnlite.IncidentFailedExternalTask || in.Message != "error message" || in.ActivityID != "externalTask" ||
			in.ExecutionID != task.ExecutionID || in.CauseIncidentID != in.ID || in.RootCauseIncidentID != in.ID ||
			!in.Timestamp.Equal(failedAt) || in.JobDefinitionID != "" || in.ProcessInstanceID != pi {
			t.Errorf("incident %+v", in)
		}
		wantEq(t, "no retries left", len(e.externalTasks(bpmnlite.ExternalTaskQuery{NoRetriesLeft: true})), 1)
		if err := e.Eng.SetExternalTaskRetries(e.Ctx, task.ID, 5); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "incidents after set retries", len(e.IncidentsOf(task.ID)), 0)
		if err := e.Eng.SetExternalTaskRetries(e.Ctx, task.ID, 0); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "incidents at 0 retries", len(e.IncidentsOf(task.ID)), 1)
		// A failed task with its incident still completes.
		if err := e.Eng.CompleteExternalTask(e.Ctx, task.ID, "w", nil, nil); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks", e.TaskKeys(pi), "afterExternalTask")
		wantEq(t, "incidents after complete", len(e.IncidentsOf(task.ID)), 0)

		// A BPMN error is caught by the boundary event, with its variables.
		pi = e.Start("twoExternalTaskProcess", nil)
		task = e.Fetch("w", 1, harness.Topic("externalTaskTopic", time.Minute))[0]
		if err := e.Eng.HandleExternalTaskBpmnError(e.Ctx, task.ID, "w", "ERROR-OCCURED", "it broke", map[string]any{"reason": "broke"}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks after the BPMN error", e.TaskKeys(pi), "afterBpmnError")
		wantEq(t, "variable", e.Var(pi, "reason"), "broke")
		if h := e.HistoryAt(pi, "externalTask"); len(h) != 1 || !h[0].Canceled {
			t.Errorf("history of externalTask %+v, want canceled", h)
		}

		// Deleting an instance with a failed task removes task and incident.
		pi = e.Start("twoExternalTaskProcess", nil)
		task = e.Fetch("w", 1, harness.Topic("externalTaskTopic", time.Minute))[0]
		if err := e.Eng.HandleExternalTaskFailure(e.Ctx, task.ID, "w", bpmnlite.ExternalTaskFailure{ErrorMessage: "x"}); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "cleanup"); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks left", len(e.externalTasks(bpmnlite.ExternalTaskQuery{ProcessInstanceID: pi})), 0)
		wantEq(t, "incidents left", len(e.IncidentsOf(task.ID)), 0)
	})
}

// Lock, extend, unlock; variables, local variables and headers; priority.
func TestExternalTaskLocksVariablesPriority(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<serviceTask id="work" camunda:type="external" camunda:topic="${topicName}" camunda:taskPriority="${prio}">
			  <extensionElements><camunda:properties><camunda:property name="region" value="eu"/><camunda:property name="tier" value="gold"/></camunda:properties></extensionElements>
			</serviceTask><userTask id="after"/>`, enginetest.Chain("start", "work", "after"))))
		low := e.Start("p", map[string]any{"topicName": "t", "prio": 1, "a": "x", "b": 2})
		high := e.Start("p", map[string]any{"topicName": "t", "prio": 9, "a": "y", "b": 3})

		// Explicit lock; another worker cannot take it while it holds.
		lowTask := e.externalTasks(bpmnlite.ExternalTaskQuery{ProcessInstanceID: low})[0]
		if err := e.Eng.LockExternalTask(e.Ctx, lowTask.ID, "aWorkerId", 10*time.Second); err != nil {
			t.Fatal(err)
		}
		err := e.Eng.LockExternalTask(e.Ctx, lowTask.ID, "aSecondWorkerId", 10*time.Second)
		if want := fmt.Sprintf("External Task %s cannot be locked by worker 'aSecondWorkerId'. It is locked by worker 'aWorkerId'.", lowTask.ID); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("second lock: %v, want %q", err, want)
		}
		if lt := e.externalTasks(bpmnlite.ExternalTaskQuery{ID: lowTask.ID})[0]; !lt.LockExpiration.Equal(e.Clock.Now().Add(10 * time.Second)) {
			t.Errorf("lock expires %v", lt.LockExpiration)
		}
		if err := e.Eng.ExtendExternalTaskLock(e.Ctx, lowTask.ID, "aSecondWorkerId", time.Minute); !errors.Is(err, bpmnlite.ErrWrongWorker) {
			t.Errorf("extend by another worker: %v", err)
		}
		if err := e.Eng.ExtendExternalTaskLock(e.Ctx, lowTask.ID, "aWorkerId", time.Minute); err != nil {
			t.Fatal(err)
		}
		e.Clock.Add(30 * time.Second)
		wantEq(t, "locked after extension", len(e.externalTasks(bpmnlite.ExternalTaskQuery{Locked: true, WorkerID: "aWorkerId"})), 1)
		if err := e.Eng.UnlockExternalTask(e.Ctx, lowTask.ID); err != nil {
			t.Fatal(err)
		}
		e.Clock.Add(2 * time.Minute)
		if err := e.Eng.ExtendExternalTaskLock(e.Ctx, lowTask.ID, "aWorkerId", time.Minute); !errors.Is(err, bpmnlite.ErrWrongWorker) {
			t.Errorf("extend after unlock: %v", err)
		}

		// By priority: high first; variables asked for by name, and headers.
		got, err := e.Eng.FetchAndLock(e.Ctx, bpmnlite.FetchRequest{WorkerID: "w", MaxTasks: 1, UsePriority: true,
			Topics: []bpmnlite.FetchTopic{{Topic: "t", LockDuration: time.Minute, Variables: []string{"a", "missing"}}}})
		if err != nil || len(got) != 1 {
			t.Fatalf("fetch: %v, %d tasks", err, len(got))
		}
		if got[0].ProcessInstanceID != high || got[0].Priority != 9 {
			t.Errorf("fetched %s priority %d, want the high one", got[0].ProcessInstanceID, got[0].Priority)
		}
		wantEq(t, "variables", got[0].Variables, map[string]any{"a": "y"})
		wantEq(t, "headers", got[0].Headers, map[string]string{"region": "eu", "tier": "gold"})
		// Priority changed through the API; no variables at all; complete
		// with a local variable.
		if err := e.Eng.SetExternalTaskPriority(e.Ctx, lowTask.ID, 50); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "priority", e.externalTasks(bpmnlite.ExternalTaskQuery{ID: lowTask.ID})[0].Priority, int64(50))
		got = e.Fetch("w", 5, bpmnlite.FetchTopic{Topic: "t", LockDuration: time.Minute, Variables: []string{}})
		if len(got) != 1 || len(got[0].Variables) != 0 {
			t.Fatalf("fetched %+v, want the low one without variables", got)
		}
		if err := e.Eng.CompleteExternalTask(e.Ctx, got[0].ID, "w", map[string]any{"result": 42}, map[string]any{"mine": true}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "variables after complete", e.VarsOf(low)["result"], int64(42))
		wantEq(t, "tasks", e.TaskKeys(low), "after")

		// All variables; only local ones.
		pi := e.Start("p", map[string]any{"topicName": "t2", "prio": 0, "v": 1})
		x := e.externalTasks(bpmnlite.ExternalTaskQuery{ProcessInstanceID: pi})[0]
		got = e.Fetch("w", 1, harness.Topic("t2", time.Minute))
		wantEq(t, "all variables", got[0].Variables, map[string]any{"topicName": "t2", "prio": int64(0), "v": int64(1)})
		if err := e.Eng.UnlockExternalTask(e.Ctx, x.ID); err != nil {
			t.Fatal(err)
		}
		got = e.Fetch("w", 1, bpmnlite.FetchTopic{Topic: "t2", LockDuration: time.Minute, LocalVariables: true})
		// The task runs on the process instance: its locals are the instance's.
		wantEq(t, "execution", x.ExecutionID, pi)
		wantEq(t, "local variables", len(got[0].Variables), 3)
		// Two concurrent paths, each with a local variable.
		pi, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"topicName": "t3", "prio": 0},
			Instructions: []bpmnlite.StartInstruction{{ActivityID: "work", Variables: map[string]any{"mine": 1}}, {ActivityID: "work", Variables: map[string]any{"mine": 2}}}})
		if err != nil {
			t.Fatal(err)
		}
		got = e.Fetch("w", 5, bpmnlite.FetchTopic{Topic: "t3", LockDuration: time.Minute, LocalVariables: true})
		if len(got) != 2 || len(got[0].Variables) != 1 || len(got[1].Variables) != 1 || got[0].Variables["mine"] == got[1].Variables["mine"] {
			t.Errorf("local variables of two paths: %v", got)
		}
		if _, err := e.Eng.FetchAndLock(e.Ctx, bpmnlite.FetchRequest{MaxTasks: 1, Topics: []bpmnlite.FetchTopic{harness.Topic("t", time.Minute)}}); err == nil {
			t.Error("a fetch without worker id should fail")
		}
	})
}

// Workers fetching at once never get the same task; every task is handed
// out exactly once.
func TestExternalTaskConcurrentFetch(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(etDir + "oneExternalTaskProcess.bpmn20.xml")
		const tasks, workers = 40, 8
		for range tasks {
			e.Start("oneExternalTaskProcess", nil)
		}
		var mu sync.Mutex
		var ids []string
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					got, err := e.Eng.FetchAndLock(e.Ctx, bpmnlite.FetchRequest{WorkerID: fmt.Sprint("w", w), MaxTasks: 3,
						Topics: []bpmnlite.FetchTopic{harness.Topic("externalTaskTopic", time.Minute)}})
					if err != nil {
						t.Errorf("worker %d: %v", w, err)
						return
					}
					if len(got) == 0 {
						return
					}
					for _, l := range got {
						if err := e.Eng.CompleteExternalTask(e.Ctx, l.ID, fmt.Sprint("w", w), nil, nil); err != nil {
							t.Errorf("worker %d complete: %v", w, err)
						}
						mu.Lock()
						ids = append(ids, l.ID)
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		sort.Strings(ids)
		for i := 1; i < len(ids); i++ {
			if ids[i] == ids[i-1] {
				t.Fatalf("task %s handed out twice", ids[i])
			}
		}
		wantEq(t, "tasks handed out", len(ids), tasks)
		wantEq(t, "tasks left", len(e.externalTasks(bpmnlite.ExternalTaskQuery{})), 0)
	})
}

// longPoll starts a fetch that waits up to timeout; its result arrives on
// the returned channel with the time it took.
func longPoll(t *testing.T, eng *bpmnlite.Engine, worker, topicName string, timeout time.Duration) <-chan polled {
	out := make(chan polled, 1)
	go func() {
		start := time.Now()
		got, err := eng.FetchAndLock(t.Context(), bpmnlite.FetchRequest{WorkerID: worker, MaxTasks: 1,
			AsyncResponseTimeout: timeout, Topics: []bpmnlite.FetchTopic{harness.Topic(topicName, time.Minute)}})
		out <- polled{got, err, time.Since(start)}
	}()
	return out
}

type polled struct {
	tasks []*bpmnlite.LockedExternalTask
	err   error
	took  time.Duration
}

// waitPolled returns the poll's result, failing when it did not come back
// well before its timeout (it was not woken) or brought no task.
func waitPolled(t *testing.T, what string, ch <-chan polled, timeout time.Duration) polled {
	t.Helper()
	select {
	case p := <-ch:
		if p.err != nil || len(p.tasks) != 1 || p.took > timeout/2 {
			t.Fatalf("%s: %d tasks, error %v after %v; want one task well before the %v timeout", what, len(p.tasks), p.err, p.took, timeout)
		}
		return p
	case <-time.After(timeout + 5*time.Second):
		t.Fatalf("%s: the poll did not return", what)
	}
	return polled{}
}

// Long polling: a waiting fetch gets a task created, unlocked, released by
// its retry timeout or by its lock's expiry, without waiting for its own
// timeout; with nothing to get it returns empty at its timeout.
func TestExternalTaskLongPolling(t *testing.T) {
	eachBackendRealTime(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(etDir + "oneExternalTaskProcess.bpmn20.xml")
		const timeout = 20 * time.Second

		// Nothing comes: empty at the timeout.
		p := <-longPoll(t, e.Eng, "w", "externalTaskTopic", 300*time.Millisecond)
		if p.err != nil || len(p.tasks) != 0 || p.took < 300*time.Millisecond {
			t.Fatalf("idle poll: %d tasks, %v, after %v; want none at the 300ms timeout", len(p.tasks), p.err, p.took)
		}

		// Created while waiting.
		ch := longPoll(t, e.Eng, "w", "externalTaskTopic", timeout)
		time.Sleep(50 * time.Millisecond)
		pi := e.Start("oneExternalTaskProcess", nil)
		task := waitPolled(t, "created", ch, timeout).tasks[0]
		if task.ProcessInstanceID != pi {
			t.Fatalf("got a task of %s, want %s", task.ProcessInstanceID, pi)
		}

		// Unlocked while waiting.
		ch = longPoll(t, e.Eng, "w2", "externalTaskTopic", timeout)
		time.Sleep(50 * time.Millisecond)
		if err := e.Eng.UnlockExternalTask(e.Ctx, task.ID); err != nil {
			t.Fatal(err)
		}
		waitPolled(t, "unlocked", ch, timeout)

		// Failed with a retry timeout: fetchable when it passes.
		ch = longPoll(t, e.Eng, "w3", "externalTaskTopic", timeout)
		time.Sleep(50 * time.Millisecond)
		if err := e.Eng.HandleExternalTaskFailure(e.Ctx, task.ID, "w2", bpmnlite.ExternalTaskFailure{ErrorMessage: "x", Retries: 2, RetryTimeout: 300 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		if p := waitPolled(t, "retry timeout", ch, timeout); p.took < 300*time.Millisecond {
			t.Errorf("fetched after %v, before the 300ms retry timeout", p.took)
		}

		// Its lock expires while another worker waits.
		if err := e.Eng.LockExternalTask(e.Ctx, task.ID, "w3", 300*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if p := waitPolled(t, "lock expiry", longPoll(t, e.Eng, "w4", "externalTaskTopic", timeout), timeout); p.took < 250*time.Millisecond {
			t.Errorf("fetched after %v, before the lock expired", p.took)
		}

		// Two waiting workers, one task: one gets it, the other waits on.
		a := longPoll(t, e.Eng, "a", "externalTaskTopic", 2*time.Second)
		b := longPoll(t, e.Eng, "b", "externalTaskTopic", 2*time.Second)
		time.Sleep(50 * time.Millisecond)
		e.Start("oneExternalTaskProcess", nil)
		pa, pb := <-a, <-b
		if pa.err != nil || pb.err != nil || len(pa.tasks)+len(pb.tasks) != 1 {
			t.Errorf("two waiting workers got %d and %d tasks (%v, %v), want one in all", len(pa.tasks), len(pb.tasks), pa.err, pb.err)
		}
	})
}

// Closing the engine answers the fetches waiting on it.
func TestExternalTaskLongPollAnsweredOnClose(t *testing.T) {
	eachBackendRealTime(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		ch := longPoll(t, e.Eng, "w", "nothing", time.Minute)
		time.Sleep(100 * time.Millisecond)
		if err := e.Eng.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case p := <-ch:
			if len(p.tasks) != 0 || p.took > 10*time.Second {
				t.Errorf("poll answered with %d tasks after %v", len(p.tasks), p.took)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the waiting fetch was not answered on close")
		}
	})
}

// A task created on one node wakes a fetch waiting on another (NOTIFY).
func TestExternalTaskLongPollAcrossNodes(t *testing.T) {
	b := testdb.Postgres(t)
	creator, poller := harness.OpenNode(t, b, bpmnlite.Config{}), harness.OpenNode(t, b, bpmnlite.Config{})
	if _, err := creator.DeployFiles(t.Context(), "et", harness.Corpus(t, etDir+"oneExternalTaskProcess.bpmn20.xml")); err != nil {
		t.Fatal(err)
	}
	const timeout = 20 * time.Second
	for i := range 3 {
		ch := longPoll(t, poller, "w", "externalTaskTopic", timeout)
		time.Sleep(200 * time.Millisecond) // the listener is up
		if _, err := creator.Start(t.Context(), bpmnlite.StartRequest{Key: "oneExternalTaskProcess"}); err != nil {
			t.Fatal(err)
		}
		waitPolled(t, fmt.Sprint("task ", i, " from the other node"), ch, timeout)
	}
}

// Message throw and end events send their message as Camunda has them do:
// by a delegate or an external task named on the messageEventDefinition;
// without one they pass like none events.
func TestMessageThrowAndEndEvents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var sent []string
		e.Eng.RegisterDelegate("send", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			sent = append(sent, ex.ActivityID())
			return nil
		}))
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/>
			<intermediateThrowEvent id="notify"><messageEventDefinition camunda:class="send"/></intermediateThrowEvent>
			<intermediateThrowEvent id="plain"><messageEventDefinition/></intermediateThrowEvent>
			<intermediateThrowEvent id="publish"><messageEventDefinition camunda:type="external" camunda:topic="publish"/></intermediateThrowEvent>
			<endEvent id="done"><messageEventDefinition camunda:type="external" camunda:topic="confirm"/></endEvent>`,
			enginetest.Chain("start", "notify", "plain", "publish", "done"))))
		pi := e.Start("p", nil)
		wantEq(t, "delegates", strings.Join(sent, ","), "notify")
		got := e.Fetch("w", 5, harness.Topic("publish", time.Minute), harness.Topic("confirm", time.Minute))
		if len(got) != 1 || got[0].ActivityID != "publish" {
			t.Fatalf("fetched %+v, want the publish task", got)
		}
		if err := e.Eng.CompleteExternalTask(e.Ctx, got[0].ID, "w", nil, nil); err != nil {
			t.Fatal(err)
		}
		got = e.Fetch("w", 5, harness.Topic("publish", time.Minute), harness.Topic("confirm", time.Minute))
		if len(got) != 1 || got[0].ActivityID != "done" {
			t.Fatalf("fetched %+v, want the end event's task", got)
		}
		if e.Ended(pi) {
			t.Fatal("the instance ended before its message end event's task completed")
		}
		if err := e.Eng.CompleteExternalTask(e.Ctx, got[0].ID, "w", nil, nil); err != nil {
			t.Fatal(err)
		}
		if !e.Ended(pi) {
			t.Error("the instance should have ended")
		}
		wantEq(t, "path", e.Path(pi), "start,notify,plain,publish,done")
	})
}
