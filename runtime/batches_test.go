package runtime_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// The batch tests follow Camunda's BatchStatisticsQueryTest,
// DeleteProcessInstancesBatchTest and BatchModificationHistoryTest: the
// jobs of a batch run one by one by hand, and its progress is read in
// between.

var waitModel = enginetest.Process("wait", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task" />
    <sequenceFlow id="f2" sourceRef="task" targetRef="end" />
    <endEvent id="end" />`)

// batchJobs are the jobs of one of a batch's job definitions.
func (e *env) batchJobs(defID string) []*bpmnlite.Job {
	e.T.Helper()
	jobs, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{JobDefinitionID: defID})
	if err != nil {
		e.T.Fatal(err)
	}
	return jobs
}

// runOnly runs the one job of a batch's job definition.
func (e *env) runOnly(what, defID string) error {
	e.T.Helper()
	jobs := e.batchJobs(defID)
	if len(jobs) != 1 {
		e.T.Fatalf("%s: %d jobs, want 1", what, len(jobs))
	}
	return e.Eng.ExecuteJob(e.Ctx, jobs[0].ID)
}

// stats is the batch's statistics.
func (e *env) stats(id string) *bpmnlite.BatchStatistics {
	e.T.Helper()
	st, err := e.Eng.BatchStatistics(e.Ctx, bpmnlite.BatchQuery{ID: id})
	if err != nil || len(st) != 1 {
		e.T.Fatalf("batch statistics of %s: %d rows, %v", id, len(st), err)
	}
	return st[0]
}

func (e *env) wantProgress(id string, remaining, completed, failed int) {
	e.T.Helper()
	st := e.stats(id)
	if st.RemainingJobs != remaining || st.CompletedJobs != completed || st.FailedJobs != failed {
		e.T.Fatalf("statistics: remaining %d, completed %d, failed %d; want %d, %d, %d",
			st.RemainingJobs, st.CompletedJobs, st.FailedJobs, remaining, completed, failed)
	}
}

// A batch of 7 deletions, 2 per job and 2 jobs per seed run: the seed job
// creates the execution jobs in two runs, then the monitor job; the
// statistics count each step; the monitor ends the batch once the
// execution jobs are done and its history records the end.
func TestBatchDeleteProcessInstances(t *testing.T) {
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{InvocationsPerBatchJob: 2, JobsPerSeed: 2}}
	eachBackend(t, cfg, func(t *testing.T, e *env) {
		e.Deploy("wait", waitModel)
		pis := e.StartN("wait", 7)
		b, err := e.Eng.DeleteProcessInstancesAsync(e.Ctx, bpmnlite.DeleteProcessInstancesRequest{IDs: pis, Reason: "cleanup"})
		if err != nil {
			t.Fatal(err)
		}
		if b.Type != bpmnlite.BatchInstanceDeletion || b.TotalJobs != 4 || b.JobsCreated != 0 || b.BatchJobsPerSeed != 2 || b.InvocationsPerBatchJob != 2 {
			t.Fatalf("batch = %+v", b)
		}
		e.wantProgress(b.ID, 4, 0, 0)
		if bs, err := e.Eng.Batches(e.Ctx, bpmnlite.BatchQuery{}); err != nil || len(bs) != 1 || bs[0].Configuration != "" || bs[0].ID != b.ID {
			t.Fatalf("batches listed: %+v, %v; want the batch, without its items", bs, err)
		}
		if err := e.runOnly("first seed", b.SeedJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		if got := e.stats(b.ID); got.JobsCreated != 2 || len(e.batchJobs(b.BatchJobDefinitionID)) != 2 {
			t.Fatalf("after one seed run: %d jobs created, %d execution jobs; want 2, 2", got.JobsCreated, len(e.batchJobs(b.BatchJobDefinitionID)))
		}
		e.wantProgress(b.ID, 4, 0, 0)
		if err := e.Eng.ExecuteJob(e.Ctx, e.batchJobs(b.BatchJobDefinitionID)[0].ID); err != nil {
			t.Fatal(err)
		}
		e.wantProgress(b.ID, 3, 1, 0)
		if err := e.runOnly("second seed", b.SeedJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		if n := len(e.batchJobs(b.SeedJobDefinitionID)); n != 0 {
			t.Fatalf("%d seed jobs after every item got its job, want 0", n)
		}
		// The monitor finds jobs left and looks again after the poll time.
		if err := e.runOnly("monitor", b.MonitorJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		if mon := e.batchJobs(b.MonitorJobDefinitionID); len(mon) != 1 || mon[0].DueDate == nil || !mon[0].DueDate.Equal(e.Clock.Now().Add(bpmnlite.DefaultBatchPollInterval)) {
			t.Fatalf("monitor after a look with jobs left: %+v", mon)
		}
		for _, j := range e.batchJobs(b.BatchJobDefinitionID) {
			if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err != nil {
				t.Fatal(err)
			}
		}
		e.wantProgress(b.ID, 0, 4, 0)
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.InstanceQuery{}); n != 0 {
			t.Fatalf("%d instances left, want 0", n)
		}
		for _, pi := range pis {
			hs, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
			if len(hs) != 1 || hs[0].DeleteReason != "cleanup" || hs[0].State != bpmnlite.StateExternallyTerminated {
				t.Fatalf("history of %s: %+v", pi, hs)
			}
		}
		if err := e.runOnly("monitor", b.MonitorJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{}); n != 0 {
			t.Fatalf("%d batches after the monitor found it done, want 0", n)
		}
		if jds, _ := e.Eng.Count(e.Ctx, bpmnlite.JobDefinitionQuery{}); jds != 0 {
			t.Fatalf("%d job definitions left, want 0 (the batch's are removed with it)", jds)
		}
		hb, err := e.Eng.HistoricBatches(e.Ctx, bpmnlite.HistoricBatchQuery{ID: b.ID})
		if err != nil || len(hb) != 1 || hb[0].EndTime == nil || hb[0].ExecutionStartTime == nil || hb[0].TotalJobs != 4 {
			t.Fatalf("historic batch: %+v, %v", hb, err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.HistoricBatchQuery{Completed: ptr(true)}); n != 1 {
			t.Fatalf("completed historic batches: %d, want 1", n)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// acquirable is how many jobs a job executor's acquisition would lock
// now (it locks them in a transaction it rolls back).
func (e *env) acquirable() int {
	e.T.Helper()
	tx, err := harness.Store(e.Eng).Begin(e.Ctx, false)
	if err != nil {
		e.T.Fatal(err)
	}
	defer func() { _ = tx.Rollback(e.Ctx) }()
	now := e.Clock.Now()
	jobs, err := persistence.AcquireJobs(e.Ctx, tx, persistence.AcquireParams{Now: now, LockOwner: "probe", LockUntil: now.Add(time.Minute), Limit: 100})
	if err != nil {
		e.T.Fatal(err)
	}
	return len(jobs)
}

// An execution job that fails is retried and then has an incident on
// the batch job, which the statistics count as failed; deleting the
// batch with cascade removes its jobs, incident and history.
func TestBatchFailingJobGetsIncident(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		b, err := e.Eng.SetJobRetriesAsync(e.Ctx, bpmnlite.JobRetriesRequest{IDs: []string{"no-such-job"}, Retries: 5})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.runOnly("seed", b.SeedJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		for i := range 3 { // the default retries
			if err := e.runOnly("execution", b.BatchJobDefinitionID); err == nil {
				t.Fatalf("run %d of the job of a missing job succeeded", i+1)
			}
		}
		job := e.batchJobs(b.BatchJobDefinitionID)[0]
		if job.Retries != 0 {
			t.Fatalf("retries after %d failures: %d", 3, job.Retries)
		}
		ins, err := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{JobDefinitionID: b.BatchJobDefinitionID})
		if err != nil || len(ins) != 1 || ins[0].Configuration != job.ID {
			t.Fatalf("incidents of the batch job: %+v, %v", ins, err)
		}
		e.wantProgress(b.ID, 1, 0, 1)
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{WithFailures: true}); n != 1 {
			t.Fatalf("batches with failures: %d, want 1", n)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{WithoutFailures: true}); n != 0 {
			t.Fatalf("batches without failures: %d, want 0", n)
		}
		if err := e.Eng.DeleteBatch(e.Ctx, b.ID, true); err != nil {
			t.Fatal(err)
		}
		for what, q := range map[string]any{"jobs": bpmnlite.JobQuery{}, "incidents": bpmnlite.IncidentQuery{},
			"historic incidents": bpmnlite.HistoricIncidentQuery{}, "historic batches": bpmnlite.HistoricBatchQuery{},
			"job log": bpmnlite.JobLogQuery{JobDefinitionID: b.BatchJobDefinitionID}, "batches": bpmnlite.BatchQuery{}} {
			if n, err := e.Eng.Count(e.Ctx, q); err != nil || n != 0 {
				t.Errorf("%s after a cascading delete: %d, %v; want 0", what, n, err)
			}
		}
	})
}

// Suspending a batch suspends its jobs: the due jobs do not run until it
// is activated. Deleting it without cascade keeps its history, ended.
func TestBatchSuspendActivateDelete(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", waitModel)
		pis := e.StartN("wait", 3)
		b, err := e.Eng.DeleteProcessInstancesAsync(e.Ctx, bpmnlite.DeleteProcessInstancesRequest{Query: &bpmnlite.InstanceQuery{ProcessDefinitionKey: "wait"}})
		if err != nil {
			t.Fatal(err)
		}
		if b.TotalJobs != len(pis) {
			t.Fatalf("total jobs %d, want %d (one instance a job)", b.TotalJobs, len(pis))
		}
		if err := e.runOnly("seed", b.SeedJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.SuspendBatch(e.Ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{Suspended: ptr(true)}); n != 1 {
			t.Fatalf("suspended batches: %d, want 1", n)
		}
		if n := e.acquirable(); n != 0 {
			t.Fatalf("jobs acquired while the batch is suspended: %d, want 0", n)
		}
		if n, err := e.Eng.ExecuteDueJobs(e.Ctx, 100); err != nil || n != 0 {
			t.Fatalf("due jobs run while the batch is suspended: %d, %v", n, err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.JobQuery{Suspended: true}); n != len(pis)+1 {
			t.Fatalf("suspended jobs: %d, want %d (execution jobs and the monitor)", n, len(pis)+1)
		}
		if err := e.Eng.ActivateBatch(e.Ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{Suspended: ptr(false)}); n != 1 {
			t.Fatalf("active batches: %d, want 1", n)
		}
		if n := e.acquirable(); n != len(pis)+1 {
			t.Fatalf("jobs acquired once the batch is active again: %d, want %d", n, len(pis)+1)
		}
		if err := e.Eng.ExecuteJob(e.Ctx, e.batchJobs(b.BatchJobDefinitionID)[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.DeleteBatch(e.Ctx, b.ID, false); err != nil {
			t.Fatal(err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.InstanceQuery{}); n != len(pis)-1 {
			t.Fatalf("instances after one job and the delete: %d, want %d", n, len(pis)-1)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.JobQuery{}); n != 0 {
			t.Fatalf("jobs after the batch's delete: %d, want 0", n)
		}
		hb, _ := e.Eng.HistoricBatches(e.Ctx, bpmnlite.HistoricBatchQuery{})
		if len(hb) != 1 || hb[0].EndTime == nil {
			t.Fatalf("history after a delete without cascade: %+v", hb)
		}
		if err := e.Eng.DeleteHistoricBatch(e.Ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.HistoricBatchQuery{}); n != 0 {
			t.Fatalf("historic batches after its delete: %d", n)
		}
		if err := e.Eng.DeleteBatch(e.Ctx, b.ID, false); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("delete of a deleted batch: %v, want ErrNotFound", err)
		}
		if _, err := e.Eng.DeleteProcessInstancesAsync(e.Ctx, bpmnlite.DeleteProcessInstancesRequest{Query: &bpmnlite.InstanceQuery{ProcessDefinitionKey: "none"}}); !errors.Is(err, bpmnlite.ErrNoBatchItems) {
			t.Fatalf("a batch of nothing: %v, want ErrNoBatchItems", err)
		}
	})
}

// Job and external task retries, and the history of ended instances, in
// batches.
func TestBatchRetriesAndHistoricDeletion(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("fail", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return errors.New("boom") }))
		e.Deploy("failing", enginetest.AsyncService("failing", "fail", "R1/PT1M"))
		pi := e.Start("failing", nil)
		if _, err := e.Eng.ExecuteAvailableJobs(e.Ctx, 10); err != nil {
			t.Fatal(err)
		}
		due := e.Clock.Now().Add(time.Hour)
		b, err := e.Eng.SetJobRetriesAsync(e.Ctx, bpmnlite.JobRetriesRequest{Query: &bpmnlite.JobQuery{NoRetriesLeft: true}, ProcessInstanceIDs: []string{pi}, Retries: 4, SetDueDate: true, DueDate: &due})
		if err != nil {
			t.Fatal(err)
		}
		if b.TotalJobs != 1 {
			t.Fatalf("the job selected twice makes %d jobs, want 1", b.TotalJobs)
		}
		runBatch(t, e, b)
		jobs, _ := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessInstanceID: pi})
		if len(jobs) != 1 || jobs[0].Retries != 4 || jobs[0].DueDate == nil || !jobs[0].DueDate.Equal(due) {
			t.Fatalf("job after the retries batch: %+v", jobs)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.IncidentQuery{ProcessInstanceID: pi}); n != 0 {
			t.Fatalf("incidents after retries were set: %d, want 0", n)
		}

		e.Deploy("ext", enginetest.Process("ext", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <serviceTask id="work" camunda:type="external" camunda:topic="t" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="end" />
    <endEvent id="end" />`))
		ext := e.StartN("ext", 2)
		b, err = e.Eng.SetExternalTaskRetriesAsync(e.Ctx, bpmnlite.ExternalTaskRetriesRequest{ProcessInstanceIDs: ext, Retries: 0})
		if err != nil || b.TotalJobs != 2 {
			t.Fatalf("external task retries batch: %+v, %v", b, err)
		}
		runBatch(t, e, b)
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.IncidentQuery{Type: "failedExternalTask"}); n != 2 {
			t.Fatalf("external task incidents: %d, want 2", n)
		}

		e.Deploy("wait", waitModel)
		done := e.StartN("wait", 2)
		for _, p := range done {
			e.Complete(p, "task", nil)
		}
		b, err = e.Eng.DeleteHistoricProcessInstancesAsync(e.Ctx, bpmnlite.DeleteHistoricProcessInstancesRequest{Query: &bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "wait"}})
		if err != nil {
			t.Fatal(err)
		}
		runBatch(t, e, b)
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "wait"}); n != 0 {
			t.Fatalf("historic instances after the deletion batch: %d, want 0", n)
		}
	})
}

// runBatch runs a batch's jobs until it ended.
func runBatch(t *testing.T, e *env, b *bpmnlite.Batch) {
	t.Helper()
	for range 20 {
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{ID: b.ID}); n == 0 {
			return
		}
		for _, def := range []string{b.SeedJobDefinitionID, b.BatchJobDefinitionID, b.MonitorJobDefinitionID} {
			for _, j := range e.batchJobs(def) {
				if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err != nil {
					t.Fatalf("batch job %s: %v", j.HandlerType, err)
				}
			}
		}
	}
	t.Fatalf("batch %s did not end", b.ID)
}

// Two engines, each with its job executor, on one PostgreSQL database run
// one batch: every execution job runs once, every instance is deleted
// once (a second deletion would fail its job: FailIfNotExists).
func TestBatchTwoNodes(t *testing.T) {
	b := testdb.Postgres(t)
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{JobsPerSeed: 10, PollInterval: 20 * time.Millisecond}}
	engA, engB := harness.OpenNode(t, b, cfg), harness.OpenNode(t, b, cfg)
	if _, err := engA.Deploy(t.Context(), bpmnlite.DeployRequest{Name: "wait", Resources: []bpmnlite.Resource{{Name: "wait.bpmn", Bytes: []byte(waitModel)}}}); err != nil {
		t.Fatal(err)
	}
	const n = 60
	var pis []string
	for range n {
		pi, err := engA.Start(t.Context(), bpmnlite.StartRequest{Key: "wait"})
		if err != nil {
			t.Fatal(err)
		}
		pis = append(pis, pi)
	}
	batch, err := engA.DeleteProcessInstancesAsync(t.Context(), bpmnlite.DeleteProcessInstancesRequest{IDs: pis, FailIfNotExists: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range []*bpmnlite.Engine{engA, engB} {
		x, err := bpmnlite.NewJobExecutor(bpmnlite.JobExecutorConfig{WaitTime: 5 * time.Millisecond, MaxWait: 50 * time.Millisecond}, eng)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = x.Stop(ctx)
		})
	}
	harness.WaitFor(t, "the batch to end", time.Minute, func() bool {
		c, err := engA.Count(t.Context(), bpmnlite.BatchQuery{})
		return err == nil && c == 0
	})
	if c, _ := engA.Count(t.Context(), bpmnlite.InstanceQuery{}); c != 0 {
		t.Fatalf("%d instances left", c)
	}
	ok, _ := engA.Count(t.Context(), bpmnlite.JobLogQuery{JobDefinitionID: batch.BatchJobDefinitionID, Event: "succeeded"})
	failed, _ := engA.Count(t.Context(), bpmnlite.JobLogQuery{JobDefinitionID: batch.BatchJobDefinitionID, Event: "failed"})
	if ok != n || failed != 0 {
		t.Fatalf("execution jobs: %d succeeded, %d failed; want %d, 0", ok, failed, n)
	}
	ended, _ := engA.Count(t.Context(), bpmnlite.HistoricProcessInstanceQuery{Finished: true})
	if ended != n {
		t.Fatalf("ended instances in history: %d, want %d", ended, n)
	}
}

// On each backend, a job executor runs a batch to its end by itself: the
// seed job in several runs, the execution jobs, the monitor's looks.
func TestBatchRunsOnTheJobExecutor(t *testing.T) {
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{InvocationsPerBatchJob: 3, JobsPerSeed: 4, PollInterval: 20 * time.Millisecond}}
	harness.EachBackendRealTime(t, cfg, func(t *testing.T, he *harness.Env) {
		e := &env{he}
		e.Deploy("wait", waitModel)
		pis := e.StartN("wait", 40)
		b, err := e.Eng.DeleteProcessInstancesAsync(e.Ctx, bpmnlite.DeleteProcessInstancesRequest{IDs: pis, FailIfNotExists: true})
		if err != nil {
			t.Fatal(err)
		}
		e.StartExecutor(bpmnlite.JobExecutorConfig{})
		harness.WaitFor(t, "the batch to end", time.Minute, func() bool {
			n, err := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{})
			return err == nil && n == 0
		})
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.InstanceQuery{}); n != 0 {
			t.Fatalf("%d instances left", n)
		}
		seeds, _ := e.Eng.Count(e.Ctx, bpmnlite.JobLogQuery{JobDefinitionID: b.SeedJobDefinitionID, Event: "succeeded"})
		runs, _ := e.Eng.Count(e.Ctx, bpmnlite.JobLogQuery{JobDefinitionID: b.BatchJobDefinitionID, Event: "succeeded"})
		if seeds != 4 || runs != 14 {
			t.Fatalf("seed runs %d, execution jobs %d; want 4 (14 jobs, 4 a run), 14 (40 items, 3 a job)", seeds, runs)
		}
		hb, _ := e.Eng.HistoricBatches(e.Ctx, bpmnlite.HistoricBatchQuery{ID: b.ID})
		if len(hb) != 1 || hb[0].EndTime == nil {
			t.Fatalf("history of the batch: %+v", hb)
		}
	})
}

// Process instances suspended and activated again in batches.
func TestBatchSuspendProcessInstances(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", waitModel)
		pis := e.StartN("wait", 3)
		for _, suspend := range []bool{true, false} {
			b, err := e.Eng.SuspendProcessInstancesAsync(e.Ctx, bpmnlite.InstancesSuspensionRequest{IDs: pis[:1], Query: &bpmnlite.InstanceQuery{ProcessDefinitionKey: "wait"}, Suspend: suspend})
			if err != nil || b.Type != bpmnlite.BatchUpdateSuspensionState || b.TotalJobs != 3 {
				t.Fatalf("suspension batch: %+v, %v", b, err)
			}
			runBatch(t, e, b)
			if n, _ := e.Eng.Count(e.Ctx, bpmnlite.InstanceQuery{Suspended: suspend, Active: !suspend}); n != 3 {
				t.Fatalf("instances suspended=%v after the batch: %d, want 3", suspend, n)
			}
		}
	})
}

// The history of decision evaluations deleted in a batch, with its inputs
// and outputs.
func TestBatchDeleteHistoricDecisionInstances(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		if _, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "dish", Resources: []bpmnlite.Resource{{Name: "dish.dmn", Bytes: []byte(enginetest.DishDMN)}}}); err != nil {
			t.Fatal(err)
		}
		for _, month := range []int{1, 7} {
			if _, err := e.Eng.EvaluateDecisionByKey(e.Ctx, "dish", map[string]any{"month": month, "guests": 2}); err != nil {
				t.Fatal(err)
			}
		}
		all, err := e.Eng.HistoricDecisionInstances(e.Ctx, bpmnlite.HistoricDecisionInstanceQuery{})
		if err != nil || len(all) != 4 { // dish and the season it requires, twice
			t.Fatalf("decision history: %d rows, %v; want 4", len(all), err)
		}
		b, err := e.Eng.DeleteHistoricDecisionInstancesAsync(e.Ctx, bpmnlite.DeleteHistoricDecisionInstancesRequest{
			Query: &bpmnlite.HistoricDecisionInstanceQuery{DecisionDefinitionKey: "dish"}})
		if err != nil || b.TotalJobs != 2 {
			t.Fatalf("decision history batch: %+v, %v", b, err)
		}
		runBatch(t, e, b)
		left, _ := e.Eng.HistoricDecisionInstances(e.Ctx, bpmnlite.HistoricDecisionInstanceQuery{})
		if len(left) != 2 || left[0].DecisionDefinitionKey != "season" || left[1].DecisionDefinitionKey != "season" {
			t.Fatalf("decision history after the batch: %+v, want the two season evaluations", left)
		}
		if in, _ := e.Eng.HistoricDecisionInputs(e.Ctx, []string{all[0].ID, all[1].ID, all[2].ID, all[3].ID}); len(in) != 2 {
			t.Fatalf("inputs left: %d, want the season's two", len(in))
		}
	})
}

// Removal times set in batches: absolute, cleared, calculated from the
// end and the history time to live, and over a call hierarchy; the
// history cleanup then removes what is due.
func TestBatchSetRemovalTime(t *testing.T) {
	cfg := bpmnlite.Config{History: bpmnlite.HistoryConfig{Level: bpmnlite.HistoryFull, TimeToLive: 48 * time.Hour}}
	eachBackend(t, cfg, func(t *testing.T, e *env) {
		e.Deploy("wait", waitModel)
		e.Deploy("caller", enginetest.Process("caller", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <callActivity id="call" calledElement="wait" />
    <sequenceFlow id="f2" sourceRef="call" targetRef="end" />
    <endEvent id="end" />`))
		running, ended := e.Start("wait", nil), e.Start("wait", nil)
		e.Complete(ended, "task", nil)
		endedAt := e.Clock.Now()
		caller := e.Start("caller", nil)
		called, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{SuperProcessInstanceID: caller})
		if err != nil || len(called) != 1 {
			t.Fatalf("called instance: %v, %v", called, err)
		}
		removal := func(pi string) *time.Time {
			hs, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
			if err != nil || len(hs) != 1 {
				t.Fatalf("history of %s: %v, %v", pi, hs, err)
			}
			return hs[0].RemovalTime
		}
		set := func(req bpmnlite.RemovalTimeRequest) {
			t.Helper()
			b, err := e.Eng.SetRemovalTimeAsync(e.Ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			runBatch(t, e, b)
		}
		at := e.Clock.Now().Add(time.Hour)
		set(bpmnlite.RemovalTimeRequest{IDs: []string{running, ended}, Absolute: &at})
		for _, pi := range []string{running, ended} {
			if r := removal(pi); r == nil || !r.Equal(at) {
				t.Fatalf("absolute removal time of %s: %v, want %v", pi, r, at)
			}
		}
		set(bpmnlite.RemovalTimeRequest{IDs: []string{running}, Cleared: true})
		if r := removal(running); r != nil {
			t.Fatalf("cleared removal time: %v", r)
		}
		set(bpmnlite.RemovalTimeRequest{Query: &bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "wait"}, Calculated: true})
		if r := removal(ended); r == nil || !r.Equal(endedAt.Add(48*time.Hour)) {
			t.Fatalf("calculated removal time of the ended instance: %v, want its end + 48h", r)
		}
		if r := removal(running); r != nil {
			t.Fatalf("calculated removal time of a running instance: %v, want none", r)
		}
		past := e.Clock.Now().Add(-time.Minute)
		set(bpmnlite.RemovalTimeRequest{IDs: []string{called[0].ID}, Absolute: &past, Hierarchical: true})
		if r := removal(caller); r == nil || !r.Equal(past) {
			t.Fatalf("the caller's removal time, set by its called instance's hierarchy: %v", r)
		}
		if n, err := e.Eng.CleanUpHistory(e.Ctx); err != nil || n != 2 {
			t.Fatalf("history cleanup removed %d, %v; want the hierarchy's 2 instances", n, err)
		}
		if _, err := e.Eng.SetRemovalTimeAsync(e.Ctx, bpmnlite.RemovalTimeRequest{IDs: []string{ended}, Cleared: true, Calculated: true}); !errors.Is(err, bpmnlite.ErrInvalidBatchRequest) {
			t.Fatalf("two removal times: %v, want ErrInvalidBatchRequest", err)
		}
	})
}

// The asynchronous migration, modification and restart (Camunda's
// BatchMigrationTest, BatchModificationJobHandler, RestartProcessInstanceAsyncTest):
// batches whose execution jobs change one instance each.

// twoStepProcess waits at task, then at other; its next version renames other,
// which a generated plan then does not map.
func twoStepProcess(second string) string {
	return enginetest.Process("change", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task" />
    <sequenceFlow id="f2" sourceRef="task" targetRef="`+second+`" />
    <userTask id="`+second+`" />
    <sequenceFlow id="f3" sourceRef="`+second+`" targetRef="end" />
    <endEvent id="end" />`)
}

// definitionIDs are the ids of key's definitions, by version from 1.
func (e *env) definitionIDs(key string) []string {
	e.T.Helper()
	defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: key})
	if err != nil {
		e.T.Fatal(err)
	}
	slices.SortFunc(defs, func(a, b *bpmnlite.ProcessDefinition) int { return a.Version - b.Version })
	var ids []string
	for _, d := range defs {
		ids = append(ids, d.ID)
	}
	return ids
}

// A migration batch of 50 instances, one a job: the seed job hands out 20
// jobs a run, the statistics count the jobs done; every instance that is
// at the mapped task moves to version 2 with its task's id, the one
// waiting at the unmapped activity fails its job three times and has an
// incident on the batch job that names why.
func TestBatchMigration(t *testing.T) {
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{JobsPerSeed: 20}}
	eachBackend(t, cfg, func(t *testing.T, e *env) {
		e.Deploy("v1", twoStepProcess("other"))
		pis := e.StartN("change", 50)
		bad := pis[49] // the last job's item
		e.Complete(bad, "task", nil)
		taskIDs := map[string]string{}
		for _, pi := range pis {
			taskIDs[pi] = e.Tasks(pi)[0].ID
		}
		e.Deploy("v2", twoStepProcess("renamed"))
		v := e.definitionIDs("change")
		plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, v[0], v[1], false)
		if err != nil {
			t.Fatal(err)
		}

		// An invalid plan is refused with its report, and no batch made.
		wrong := *plan
		wrong.Instructions = append(slices.Clone(plan.Instructions), bpmnlite.MigrationInstruction{SourceActivityIDs: []string{"other"}, TargetActivityIDs: []string{"nowhere"}})
		_, err = e.Eng.MigrateAsync(e.Ctx, bpmnlite.MigrationRequest{Plan: wrong, ProcessInstanceIDs: pis})
		var pe *bpmnlite.MigrationPlanError
		if !errors.As(err, &pe) || len(pe.Report.InstructionReports) != 1 {
			t.Fatalf("invalid plan: %v, want a *MigrationPlanError with one instruction report", err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{}); n != 0 {
			t.Fatalf("%d batches after an invalid plan, want 0", n)
		}

		migratedAt := time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC)
		plan.Variables = map[string]any{"migratedAt": migratedAt}
		b, err := e.Eng.MigrateAsync(e.Ctx, bpmnlite.MigrationRequest{Plan: *plan, ProcessInstanceIDs: pis})
		if err != nil {
			t.Fatal(err)
		}
		if b.Type != bpmnlite.BatchMigration || b.TotalJobs != 50 {
			t.Fatalf("batch = %+v", b)
		}
		e.wantProgress(b.ID, 50, 0, 0)
		if err := e.runOnly("first seed", b.SeedJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		for _, j := range e.batchJobs(b.BatchJobDefinitionID) {
			if err := e.Eng.ExecuteJob(e.Ctx, j.ID); err != nil {
				t.Fatal(err)
			}
		}
		e.wantProgress(b.ID, 30, 20, 0)
		for range 2 {
			if err := e.runOnly("seed", b.SeedJobDefinitionID); err != nil {
				t.Fatal(err)
			}
		}
		for range 3 { // the default retries
			for _, j := range e.batchJobs(b.BatchJobDefinitionID) {
				if j.Retries == 0 {
					continue
				}
				err := e.Eng.ExecuteJob(e.Ctx, j.ID)
				if isBad := strings.Contains(j.HandlerConfig, bad); isBad != (err != nil) {
					t.Fatalf("job of %s: %v", j.HandlerConfig, err)
				}
			}
		}
		e.wantProgress(b.ID, 1, 49, 1)
		ins, err := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{JobDefinitionID: b.BatchJobDefinitionID})
		if err != nil || len(ins) != 1 || !strings.Contains(ins[0].Message, "Cannot migrate process instance '"+bad+"'") {
			t.Fatalf("incidents of the batch job: %+v, %v", ins, err)
		}
		for _, pi := range pis {
			tasks := e.Tasks(pi)
			want := v[1]
			if pi == bad {
				want = v[0]
			}
			if len(tasks) != 1 || tasks[0].ProcessDefinitionID != want || (pi != bad && tasks[0].ID != taskIDs[pi]) {
				t.Fatalf("task of %s after the batch: %+v; want task %s in %s", pi, tasks, taskIDs[pi], want)
			}
			if got, ok := e.Var(pi, "migratedAt").(time.Time); pi != bad && (!ok || !got.Equal(migratedAt)) {
				t.Fatalf("plan variable of %s: %#v, want the time %s", pi, e.Var(pi, "migratedAt"), migratedAt)
			}
		}
	})
}

// A migration batch on the job executor, read while it runs: the
// completed jobs never go back, and every instance ends in version 2.
func TestBatchMigrationOnTheJobExecutor(t *testing.T) {
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{JobsPerSeed: 10, PollInterval: 20 * time.Millisecond}}
	harness.EachBackendRealTime(t, cfg, func(t *testing.T, he *harness.Env) {
		e := &env{he}
		e.Deploy("v1", twoStepProcess("other"))
		pis := e.StartN("change", 50)
		e.Deploy("v2", twoStepProcess("other")+"<!-- v2 -->")
		v := e.definitionIDs("change")
		plan, err := e.Eng.GenerateMigrationPlan(e.Ctx, v[0], v[1], false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.Eng.MigrateAsync(e.Ctx, bpmnlite.MigrationRequest{Plan: *plan, Query: &bpmnlite.InstanceQuery{ProcessDefinitionID: v[0]}})
		if err != nil {
			t.Fatal(err)
		}
		e.StartExecutor(bpmnlite.JobExecutorConfig{})
		last := 0
		harness.WaitFor(t, "the batch to end", time.Minute, func() bool {
			st, err := e.Eng.BatchStatistics(e.Ctx, bpmnlite.BatchQuery{ID: b.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(st) == 0 {
				return true
			}
			if st[0].CompletedJobs < last || st[0].FailedJobs != 0 {
				t.Fatalf("statistics went from %d completed to %+v", last, st[0])
			}
			last = st[0].CompletedJobs
			return false
		})
		for _, pi := range pis {
			if tasks := e.Tasks(pi); len(tasks) != 1 || tasks[0].ProcessDefinitionID != v[1] {
				t.Fatalf("task of %s after the batch: %+v", pi, tasks)
			}
		}
	})
}

// A modification batch on the job executor: every instance leaves task for
// other; one instance's modification in a batch of its own carries its
// variables.
func TestBatchModification(t *testing.T) {
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{InvocationsPerBatchJob: 2, PollInterval: 20 * time.Millisecond}}
	harness.EachBackendRealTime(t, cfg, func(t *testing.T, he *harness.Env) {
		e := &env{he}
		e.Deploy("v1", twoStepProcess("other"))
		pis := e.StartN("change", 5)
		def := e.definitionIDs("change")[0]
		move := bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{
			{Type: bpmnlite.CancelAllForActivity, ActivityID: "task"},
			{Type: bpmnlite.StartBeforeActivity, ActivityID: "other"},
		}}
		if _, err := e.Eng.ModifyProcessInstancesAsync(e.Ctx, def, pis, bpmnlite.ModificationRequest{}); !errors.Is(err, bpmnlite.ErrInvalidInstruction) {
			t.Fatalf("a batch without instructions: %v, want ErrInvalidInstruction", err)
		}
		if _, err := e.Eng.ModifyProcessInstancesAsync(e.Ctx, "no-such-definition", pis, move); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("a batch of an unknown definition: %v, want ErrNotFound", err)
		}
		b, err := e.Eng.ModifyProcessInstancesAsync(e.Ctx, def, pis[:4], move)
		if err != nil || b.Type != bpmnlite.BatchModification || b.TotalJobs != 2 {
			t.Fatalf("batch %+v, %v", b, err)
		}
		one := bpmnlite.ModificationRequest{Instructions: []bpmnlite.ModificationInstruction{
			{Type: bpmnlite.StartBeforeActivity, ActivityID: "other", Variables: map[string]any{"n": 7, "at": time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}},
		}}
		if _, err := e.Eng.ModifyProcessInstanceAsync(e.Ctx, "no-such-instance", one); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("a batch of an unknown instance: %v, want ErrNotFound", err)
		}
		if _, err := e.Eng.ModifyProcessInstanceAsync(e.Ctx, pis[4], one); err != nil {
			t.Fatal(err)
		}
		e.StartExecutor(bpmnlite.JobExecutorConfig{})
		harness.WaitFor(t, "the batches to end", time.Minute, func() bool {
			n, err := e.Eng.Count(e.Ctx, bpmnlite.BatchQuery{})
			return err == nil && n == 0
		})
		for _, pi := range pis[:4] {
			if got := e.TaskKeys(pi); got != "other" {
				t.Errorf("tasks of %s: %s, want other", pi, got)
			}
		}
		if got := e.TaskKeys(pis[4]); got != "other,task" {
			t.Errorf("tasks of %s: %s, want other,task", pis[4], got)
		}
		ref := e.Start("change", map[string]any{"n": 7, "at": time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)})
		for _, name := range []string{"n", "at"} {
			wantEq(t, "variable "+name+" set by the batch", e.Var(pis[4], name), e.Var(ref, name))
		}
	})
}

// A restart batch starts each ended instance anew, with its variables and
// the batch's; an instance still running fails its job.
func TestBatchRestart(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", waitModel)
		pis := e.StartN("wait", 3)
		for _, pi := range pis {
			if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "to restart"); err != nil {
				t.Fatal(err)
			}
		}
		def := e.definitionIDs("wait")[0]
		at := []bpmnlite.ModificationInstruction{{Type: bpmnlite.StartBeforeActivity, ActivityID: "task"}}
		if _, err := e.Eng.RestartProcessInstancesAsync(e.Ctx, def, bpmnlite.RestartRequest{ProcessInstanceIDs: pis}); !errors.Is(err, bpmnlite.ErrInvalidInstruction) {
			t.Fatalf("a restart without instructions: %v, want ErrInvalidInstruction", err)
		}
		b, err := e.Eng.RestartProcessInstancesAsync(e.Ctx, def, bpmnlite.RestartRequest{ProcessInstanceIDs: pis, Instructions: at, Variables: map[string]any{"n": 7}})
		if err != nil || b.Type != bpmnlite.BatchRestart || b.TotalJobs != 3 {
			t.Fatalf("batch %+v, %v", b, err)
		}
		runBatch(t, e, b)
		running, err := e.Eng.Instances(e.Ctx, bpmnlite.InstanceQuery{})
		if err != nil || len(running) != 3 {
			t.Fatalf("running after the restart: %d, %v; want 3", len(running), err)
		}
		ref := e.Start("wait", map[string]any{"n": 7})
		for _, r := range running {
			if got := e.TaskKeys(r.ID); got != "task" {
				t.Errorf("tasks of restarted %s: %s", r.ID, got)
			}
			wantEq(t, "variable n", e.Var(r.ID, "n"), e.Var(ref, "n"))
		}

		// A running instance cannot be restarted: its job fails.
		b, err = e.Eng.RestartProcessInstancesAsync(e.Ctx, def, bpmnlite.RestartRequest{ProcessInstanceIDs: []string{ref}, Instructions: at})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.runOnly("seed", b.SeedJobDefinitionID); err != nil {
			t.Fatal(err)
		}
		if err := e.runOnly("restart", b.BatchJobDefinitionID); !errors.Is(err, bpmnlite.ErrCannotRestart) {
			t.Fatalf("restart of a running instance: %v, want ErrCannotRestart", err)
		}
	})
}

// Batches.JobPriority (Camunda's batchJobPriority) is the priority of a
// batch's seed, execution and monitor jobs.
func TestBatchJobPriority(t *testing.T) {
	cfg := bpmnlite.Config{Batches: bpmnlite.BatchConfig{JobsPerSeed: 1, JobPriority: -5}}
	eachBackend(t, cfg, func(t *testing.T, e *env) {
		e.Deploy("wait", waitModel)
		pis := e.StartN("wait", 2)
		b, err := e.Eng.DeleteProcessInstancesAsync(e.Ctx, bpmnlite.DeleteProcessInstancesRequest{IDs: pis})
		if err != nil {
			t.Fatal(err)
		}
		wantPriority := func(what, defID string) {
			t.Helper()
			jobs := e.batchJobs(defID)
			if len(jobs) == 0 {
				t.Fatalf("%s: no job", what)
			}
			for _, j := range jobs {
				if j.Priority != -5 {
					t.Fatalf("%s job priority %d, want Batches.JobPriority -5", what, j.Priority)
				}
			}
		}
		wantPriority("seed", b.SeedJobDefinitionID)
		for range 2 {
			if err := e.runOnly("seed", b.SeedJobDefinitionID); err != nil {
				t.Fatal(err)
			}
		}
		wantPriority("execution", b.BatchJobDefinitionID)
		wantPriority("monitor", b.MonitorJobDefinitionID)
	})
}
