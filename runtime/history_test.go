package runtime_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// A user task's due date, follow-up date, priority and form key: constants,
// expressions and durations, and the task queries over them.
func TestUserTaskDatesPriorityAndQueries(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <userTask id="review" camunda:dueDate="${due}" camunda:followUpDate="P2D" camunda:priority="${prio}"
        camunda:formKey="embedded:app:forms/review.html" />
    <sequenceFlow id="f2" sourceRef="review" targetRef="end" />
    <endEvent id="end" />`))
		e.Deploy("fixed", enginetest.Process("fixed", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="sign" />
    <userTask id="sign" camunda:dueDate="2026-03-01T12:00:00Z" camunda:priority="7" camunda:formRef="signForm" />
    <sequenceFlow id="f2" sourceRef="sign" targetRef="end" />
    <endEvent id="end" />`))
		now := e.Clock.Now()
		soon := now.Add(24 * time.Hour)
		urgent := e.Start("p", map[string]any{"due": soon, "prio": 90})
		later := e.Start("p", map[string]any{"due": "P10D", "prio": 20})
		none := e.Start("p", map[string]any{"due": nil, "prio": 50})
		fixed := e.Start("fixed", nil)

		task := e.Tasks(urgent)[0]
		if task.DueDate == nil || !task.DueDate.Equal(soon) || task.Priority != 90 || task.FormKey != "embedded:app:forms/review.html" {
			t.Fatalf("urgent task: due %v priority %d form %q", task.DueDate, task.Priority, task.FormKey)
		}
		if want := now.AddDate(0, 0, 2); task.FollowUpDate == nil || !task.FollowUpDate.Equal(want) {
			t.Fatalf("follow-up %v, want %v", task.FollowUpDate, want)
		}
		if got := e.Tasks(later)[0].DueDate; got == nil || !got.Equal(now.AddDate(0, 0, 10)) {
			t.Fatalf("a duration due date: %v", got)
		}
		if got := e.Tasks(none)[0].DueDate; got != nil {
			t.Fatalf("a nil due date gave %v", got)
		}
		sign := e.Tasks(fixed)[0]
		if sign.DueDate == nil || !sign.DueDate.Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) || sign.Priority != 7 || sign.FormRef != "signForm" || sign.FormRefBinding != "latest" {
			t.Fatalf("constant attributes: due %v priority %d form %q", sign.DueDate, sign.Priority, sign.FormRef)
		}

		ids := func(q bpmnlite.TaskQuery) string {
			t.Helper()
			ts, err := e.Eng.Tasks(e.Ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, task := range ts {
				switch task.ProcessInstanceID {
				case urgent:
					out = append(out, "urgent")
				case later:
					out = append(out, "later")
				case none:
					out = append(out, "none")
				case fixed:
					out = append(out, "fixed")
				}
			}
			return strings.Join(out, ",")
		}
		p := func(n int) *int { return &n }
		at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
		for _, c := range []struct {
			name string
			q    bpmnlite.TaskQuery
			want string
		}{
			{"due before 2 days", bpmnlite.TaskQuery{DueBefore: at(48 * time.Hour)}, "urgent"},
			{"due after 2 days", bpmnlite.TaskQuery{DueAfter: at(48 * time.Hour)}, "later,fixed"},
			{"without due date", bpmnlite.TaskQuery{WithoutDueDate: true}, "none"},
			{"follow-up before 3 days", bpmnlite.TaskQuery{FollowUpBefore: at(72 * time.Hour)}, "urgent,later,none"},
			{"follow-up after 3 days", bpmnlite.TaskQuery{FollowUpAfter: at(72 * time.Hour)}, ""},
			{"priority 50", bpmnlite.TaskQuery{Priority: p(50)}, "none"},
			{"priority 20 to 60", bpmnlite.TaskQuery{MinPriority: p(20), MaxPriority: p(60)}, "later,none"},
			{"priority at most 10", bpmnlite.TaskQuery{MaxPriority: p(10)}, "fixed"},
		} {
			if got := ids(c.q); got != c.want {
				t.Errorf("%s: %q, want %q", c.name, got, c.want)
			}
		}

		// A due date expression of the wrong type fails the start, naming it.
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"due": 42, "prio": 1}})
		if err == nil || !strings.Contains(err.Error(), "dueDate") || !strings.Contains(err.Error(), "review") {
			t.Fatalf("a number as due date: %v", err)
		}
	})
}

// A due date that is neither a date nor a duration is refused at deployment.
func TestUserTaskBadDueDateRefused(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(enginetest.Process("bad", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="u" />
    <userTask id="u" camunda:dueDate="tomorrow" />`))}}})
		if err == nil || !strings.Contains(err.Error(), "dueDate 'tomorrow'") || !strings.Contains(err.Error(), "'u'") {
			t.Fatalf("deploying dueDate=tomorrow: %v", err)
		}
	})
}

const twoTasks = `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="approve" />
    <sequenceFlow id="f3" sourceRef="fork" targetRef="archive" />
    <userTask id="approve" camunda:priority="60" />
    <userTask id="archive" />
    <sequenceFlow id="f4" sourceRef="approve" targetRef="end1" />
    <sequenceFlow id="f5" sourceRef="archive" targetRef="end2" />
    <endEvent id="end1" />
    <endEvent id="end2" />`

// User tasks stay in history: open, completed (with who had them), or
// deleted with their instance.
func TestHistoricTasks(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", twoTasks))
		pi := e.Start("p", nil)
		var approve *bpmnlite.Task
		for _, task := range e.Tasks(pi) {
			if task.TaskDefinitionKey == "approve" {
				approve = task
			}
		}
		if err := e.Eng.ClaimTask(e.Ctx, approve.ID, "kermit"); err != nil {
			t.Fatal(err)
		}
		e.Clock.Add(time.Hour)
		e.Complete(pi, "approve", nil)
		e.Clock.Add(time.Hour)
		if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "no longer needed"); err != nil {
			t.Fatal(err)
		}

		hist := func(q bpmnlite.HistoricTaskQuery) []*bpmnlite.HistoricTask {
			t.Helper()
			q.ProcessInstanceID = pi
			hs, err := e.Eng.HistoricTasks(e.Ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			return hs
		}
		all := hist(bpmnlite.HistoricTaskQuery{})
		if len(all) != 2 {
			t.Fatalf("%d historic tasks, want 2", len(all))
		}
		done := hist(bpmnlite.HistoricTaskQuery{TaskDefinitionKey: "approve"})[0]
		start := enginetest.NewClock().Now()
		if done.ID != approve.ID || done.Assignee != "kermit" || done.Priority != 60 || done.ProcessDefinitionKey != "p" ||
			done.DeleteReason != bpmnlite.TaskCompleted || done.EndTime == nil || !done.EndTime.Equal(start.Add(time.Hour)) ||
			!done.StartTime.Equal(start) || done.ActivityInstanceID == "" {
			t.Fatalf("completed task in history: %+v", done)
		}
		gone := hist(bpmnlite.HistoricTaskQuery{TaskDefinitionKey: "archive"})[0]
		if gone.DeleteReason != bpmnlite.TaskDeleted || gone.EndTime == nil || !gone.EndTime.Equal(start.Add(2*time.Hour)) {
			t.Fatalf("deleted task in history: %+v", gone)
		}
		if n := len(hist(bpmnlite.HistoricTaskQuery{Finished: true})); n != 2 {
			t.Fatalf("%d finished", n)
		}
		if n := len(hist(bpmnlite.HistoricTaskQuery{Unfinished: true})); n != 0 {
			t.Fatalf("%d unfinished", n)
		}
		if n := len(hist(bpmnlite.HistoricTaskQuery{Assignee: "kermit", DeleteReason: bpmnlite.TaskCompleted})); n != 1 {
			t.Fatalf("%d completed by kermit", n)
		}

		// An open task is in history too, and reassigning it shows there.
		pi2 := e.Start("p", nil)
		task := e.Tasks(pi2)[0]
		if err := e.Eng.SetTaskAssignee(e.Ctx, task.ID, "piggy"); err != nil {
			t.Fatal(err)
		}
		open, err := e.Eng.HistoricTasks(e.Ctx, bpmnlite.HistoricTaskQuery{ID: task.ID, Unfinished: true})
		if err != nil || len(open) != 1 || open[0].Assignee != "piggy" {
			t.Fatalf("open task in history: %v %+v", err, open)
		}
	})
}

// Incidents stay in history: open while the job has no retries, resolved
// when it gets retries, deleted with their instance.
func TestHistoricIncidents(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.FailingDelegate()
		e.Deploy("p", enginetest.AsyncService("p", "fail", "R1/PT1M"))
		pi := e.Start("p", nil)
		job := e.OneJob(pi)
		e.FailJob(job.ID)
		first := e.IncidentsOf(job.ID)
		if len(first) != 1 {
			t.Fatal("no incident")
		}
		hist := func(q bpmnlite.HistoricIncidentQuery) []*bpmnlite.HistoricIncident {
			t.Helper()
			q.IncidentQuery.ProcessInstanceID = pi
			hs, err := e.Eng.HistoricIncidents(e.Ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			return hs
		}
		open := hist(bpmnlite.HistoricIncidentQuery{State: bpmnlite.IncidentOpen})
		if len(open) != 1 || open[0].ID != first[0].ID || open[0].Message != "Expected exception" ||
			open[0].ActivityID != "work" || open[0].Configuration != job.ID || open[0].EndTime != nil ||
			open[0].Type != bpmnlite.IncidentFailedJob {
			t.Fatalf("open incident in history: %+v", open)
		}

		e.Clock.Add(time.Minute)
		if err := e.Eng.SetJobRetries(e.Ctx, job.ID, 1); err != nil {
			t.Fatal(err)
		}
		resolved := hist(bpmnlite.HistoricIncidentQuery{State: bpmnlite.IncidentResolved})
		if len(resolved) != 1 || resolved[0].ID != first[0].ID || resolved[0].EndTime == nil || !resolved[0].EndTime.Equal(e.Clock.Now()) {
			t.Fatalf("resolved incident: %+v", resolved)
		}

		e.FailJob(job.ID) // the last retry: a new incident
		e.Clock.Add(time.Minute)
		if err := e.Eng.DeleteProcessInstance(e.Ctx, pi, "gave up"); err != nil {
			t.Fatal(err)
		}
		deleted := hist(bpmnlite.HistoricIncidentQuery{State: bpmnlite.IncidentDeleted})
		if len(deleted) != 1 || deleted[0].ID == first[0].ID || deleted[0].EndTime == nil {
			t.Fatalf("deleted incident: %+v", deleted)
		}
		if all := hist(bpmnlite.HistoricIncidentQuery{}); len(all) != 2 {
			t.Fatalf("%d incidents in history, want 2", len(all))
		}
		if n := len(hist(bpmnlite.HistoricIncidentQuery{State: bpmnlite.IncidentOpen})); n != 0 {
			t.Fatalf("%d still open", n)
		}
	})
}

const ttlParent = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="parent" isExecutable="true" camunda:historyTimeToLive="P5D">
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <callActivity id="call" calledElement="child" />
    <sequenceFlow id="f2" sourceRef="call" targetRef="review" />
    <userTask id="review" />
    <sequenceFlow id="f3" sourceRef="review" targetRef="end" />
    <endEvent id="end" />
  </process>
  <process id="child" isExecutable="true">
    <startEvent id="cstart" />
    <sequenceFlow id="c1" sourceRef="cstart" targetRef="cwork" />
    <serviceTask id="cwork" camunda:asyncBefore="true" camunda:expression="${true}" />
    <sequenceFlow id="c2" sourceRef="cwork" targetRef="cend" />
    <endEvent id="cend" />
  </process>
  <process id="keep" isExecutable="true">
    <startEvent id="kstart" />
    <sequenceFlow id="k1" sourceRef="kstart" targetRef="kend" />
    <endEvent id="kend" />
  </process>
</definitions>`

// camunda:historyTimeToLive: when a root instance ends, its hierarchy's
// history gets a removal time; the cleanup job removes it once due and
// leaves everything else.
func TestHistoryTimeToLive(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("ttl", ttlParent)
		cleanup, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: bpmnlite.HistoryCleanupJobID})
		if err != nil || len(cleanup) != 1 {
			t.Fatalf("deploying a time to live schedules the cleanup job: %v %d", err, len(cleanup))
		}
		defs, _ := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "parent"})
		if ttl := defs[0].HistoryTimeToLive; ttl == nil || *ttl != 5 {
			t.Fatalf("definition's time to live: %v", ttl)
		}

		kept := e.Start("keep", nil)
		pi := e.Start("parent", map[string]any{"order": "A-1"})
		e.Drain(10) // the child's async job
		children, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "child"})
		if len(children) != 1 {
			t.Fatalf("%d child instances", len(children))
		}
		child := children[0].ID
		if children[0].RemovalTime != nil {
			t.Fatal("a child that ended before its root has a removal time already")
		}
		e.Clock.Add(time.Hour)
		e.Complete(pi, "review", nil)
		end := e.Clock.Now()
		for _, id := range []string{pi, child} {
			hs, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: id})
			if len(hs) != 1 || hs[0].RemovalTime == nil || !hs[0].RemovalTime.Equal(end.AddDate(0, 0, 5)) || hs[0].RootProcessInstanceID != pi {
				t.Fatalf("instance %s in history: %+v", id, hs)
			}
		}

		// Not due yet: the job runs and removes nothing.
		e.Clock.Add(4 * 24 * time.Hour)
		e.runJob(bpmnlite.HistoryCleanupJobID)
		if hs, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi}); len(hs) != 1 {
			t.Fatal("history removed before its time")
		}
		job, _ := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: bpmnlite.HistoryCleanupJobID})
		if len(job) != 1 || job[0].DueDate == nil || !job[0].DueDate.Equal(e.Clock.Now().Add(time.Hour)) || job[0].LockOwner != "" {
			t.Fatalf("the cleanup job waits an interval: %+v", job)
		}

		e.Clock.Add(24 * time.Hour)
		e.runJob(bpmnlite.HistoryCleanupJobID)
		for _, id := range []string{pi, child} {
			if hs, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: id}); len(hs) != 0 {
				t.Fatalf("instance %s still in history", id)
			}
			if acts, _ := e.Eng.ActivityHistory(e.Ctx, id); len(acts) != 0 {
				t.Fatalf("%d activity instances of %s left", len(acts), id)
			}
			if log, _ := e.Eng.JobLog(e.Ctx, bpmnlite.JobLogQuery{ProcessInstanceID: id}); len(log) != 0 {
				t.Fatalf("%d job log entries of %s left", len(log), id)
			}
		}
		if ts, _ := e.Eng.HistoricTasks(e.Ctx, bpmnlite.HistoricTaskQuery{ProcessInstanceID: pi}); len(ts) != 0 {
			t.Fatalf("%d historic tasks left", len(ts))
		}
		if _, err := e.Eng.Variables(e.Ctx, pi); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("variables after cleanup: %v, want ErrNotFound", err)
		}
		if hs, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: kept}); len(hs) != 1 || hs[0].RemovalTime != nil {
			t.Fatalf("an instance without a time to live: %+v", hs)
		}
	})
}

// Config.History.TimeToLive applies to definitions without their own; the
// cleanup removes a batch at a time and runs again at once after a full one.
func TestHistoryTimeToLiveDefaultAndBatches(t *testing.T) {
	eachBackend(t, bpmnlite.Config{History: bpmnlite.HistoryConfig{TimeToLive: time.Hour, CleanupBatchSize: 2}}, func(t *testing.T, e *env) {
		if js, _ := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: bpmnlite.HistoryCleanupJobID}); len(js) != 1 {
			t.Fatal("opening with a time to live schedules the cleanup job")
		}
		e.Deploy("p", enginetest.Process("p", `<startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="e" /><endEvent id="e" />`))
		for range 3 {
			e.Start("p", nil)
		}
		e.Clock.Add(time.Hour)
		e.runJob(bpmnlite.HistoryCleanupJobID)
		left, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "p"})
		job, _ := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: bpmnlite.HistoryCleanupJobID})
		if len(left) != 1 || len(job) != 1 || !job[0].DueDate.Equal(e.Clock.Now()) {
			t.Fatalf("after a full batch: %d left, job %+v (want due at once)", len(left), job)
		}
		n, err := e.Eng.CleanUpHistory(e.Ctx)
		if err != nil || n != 1 {
			t.Fatalf("CleanUpHistory: %d, %v; want 1", n, err)
		}
		// Opening again (another node) keeps the one job.
		again, err := bpmnlite.Open(e.Ctx, e.Cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		if js, _ := again.Jobs(e.Ctx, bpmnlite.JobQuery{Type: bpmnlite.JobTypeMessage}); len(js) != 1 {
			t.Fatalf("%d cleanup jobs after a second open", len(js))
		}
	})
}

// Each history level writes its own records and those of the levels below:
// activity (instances, activities, tasks), audit (the default: variables
// after the end), full (incidents, the job log).
func TestHistoryLevels(t *testing.T) {
	for _, level := range []bpmnlite.HistoryLevel{bpmnlite.HistoryNone, bpmnlite.HistoryActivity, 0, bpmnlite.HistoryFull} {
		t.Run("level "+level.String(), func(t *testing.T) {
			eachBackend(t, bpmnlite.Config{History: bpmnlite.HistoryConfig{Level: level}}, func(t *testing.T, e *env) {
				if level == 0 {
					// The harness defaults to full; an engine of the default level:
					cfg := e.Cfg
					cfg.History.Level = 0
					eng, err := bpmnlite.Open(e.Ctx, cfg)
					if err != nil {
						t.Fatal(err)
					}
					defer eng.Close()
					e = &env{&harness.Env{T: t, Eng: eng, Clock: e.Clock, Ctx: e.Ctx, Cfg: cfg}}
				}
				e.FailingDelegate()
				e.Deploy("p", enginetest.AsyncService("p", "fail", "R1/PT1M"))
				e.Deploy("t", enginetest.Process("t", `<startEvent id="s" /><sequenceFlow id="f1" sourceRef="s" targetRef="u" /><userTask id="u" />
    <sequenceFlow id="f2" sourceRef="u" targetRef="e" /><endEvent id="e" />`))
				failed := e.Start("p", map[string]any{"n": 1})
				e.FailJob(e.OneJob(failed).ID)
				done := e.Start("t", map[string]any{"n": 2})
				e.Complete(done, "u", nil)

				instances, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{})
				tasks, _ := e.Eng.HistoricTasks(e.Ctx, bpmnlite.HistoricTaskQuery{})
				vars, _ := e.Eng.Variables(e.Ctx, done)
				incidents, _ := e.Eng.HistoricIncidents(e.Ctx, bpmnlite.HistoricIncidentQuery{})
				log, _ := e.Eng.JobLog(e.Ctx, bpmnlite.JobLogQuery{})
				got := []bool{len(instances) == 2, len(tasks) == 1, vars["n"] != nil, len(incidents) == 1, len(log) > 0}
				rank := map[bpmnlite.HistoryLevel]int{bpmnlite.HistoryNone: 0, bpmnlite.HistoryActivity: 1, 0: 2, bpmnlite.HistoryFull: 3}[level]
				want := []bool{rank >= 1, rank >= 1, rank >= 2, rank >= 3, rank >= 3}
				for i, what := range []string{"instances", "tasks", "variables after the end", "incidents", "job log"} {
					if got[i] != want[i] {
						t.Errorf("%s in history: %v, want %v", what, got[i], want[i])
					}
				}
				// The runtime does not depend on the level.
				if ins, _ := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{ProcessInstanceID: failed}); len(ins) != 1 {
					t.Errorf("%d open incidents, want 1", len(ins))
				}
			})
		})
	}
	if _, err := bpmnlite.Open(t.Context(), bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"}, History: bpmnlite.HistoryConfig{Level: 7}}); err == nil || !strings.Contains(err.Error(), "History.Level 7") {
		t.Errorf("an unknown level: %v", err)
	}
}

// The job executor runs the history cleanup job: with a time to live of
// zero days an ended instance's history goes at the next run.
func TestHistoryCleanupByTheJobExecutor(t *testing.T) {
	eachBackendRealTime(t, bpmnlite.Config{History: bpmnlite.HistoryConfig{CleanupInterval: 20 * time.Millisecond}}, func(t *testing.T, e *env) {
		e.Deploy("zero", `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="zero" isExecutable="true" camunda:historyTimeToLive="0">
    <startEvent id="s" /><sequenceFlow id="f" sourceRef="s" targetRef="e" /><endEvent id="e" />
  </process>
</definitions>`)
		pi := e.Start("zero", nil)
		if hs, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi}); len(hs) != 1 {
			t.Fatal("no history to remove")
		}
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 1})
		harness.WaitFor(t, "the cleanup job to remove the history", 20*time.Second, func() bool {
			hs, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
			return len(hs) == 0
		})
		if js, _ := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: bpmnlite.HistoryCleanupJobID}); len(js) != 1 || js[0].Retries != 3 {
			t.Fatalf("the cleanup job after its runs: %+v", js)
		}
	})
}
