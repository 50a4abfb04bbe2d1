package acceptance_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// Camunda behaviour that users and Camunda's own tests rely on: incidents,
// retries and timer cycles.

// A job that runs two activities in its transaction and fails in the
// second: job and incident carry the failed activity apart from the job's,
// and the incident's message is the delegate's own.
func TestIncidentMessageAndFailedActivity(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.FailingDelegate()
		e.Deploy("p", enginetest.Process("p", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="first" />
    <serviceTask id="first" camunda:asyncBefore="true" camunda:expression="${true}">
      <extensionElements><camunda:failedJobRetryTimeCycle>R1/PT1M</camunda:failedJobRetryTimeCycle></extensionElements>
    </serviceTask>
    <sequenceFlow id="f2" sourceRef="first" targetRef="second" />
    <serviceTask id="second" camunda:class="fail" />
    <sequenceFlow id="f3" sourceRef="second" targetRef="end" />
    <endEvent id="end" />`))
		pi := e.Start("p", nil)
		job := e.OneJob(pi)
		e.FailJob(job.ID)
		job = e.OneJob(pi)
		if job.Retries != 0 || job.ActivityID != "first" || job.FailedActivityID != "second" || job.ExceptionMessage != "Expected exception" {
			t.Fatalf("job after failing: retries %d, activity %q, failed activity %q, message %q", job.Retries, job.ActivityID, job.FailedActivityID, job.ExceptionMessage)
		}
		ins := e.IncidentsOf(job.ID)
		if len(ins) != 1 {
			t.Fatalf("%d incidents, want 1", len(ins))
		}
		if in := ins[0]; in.Message != "Expected exception" || in.ActivityID != "first" || in.FailedActivityID != "second" {
			t.Fatalf("incident message %q, activity %q, failed activity %q; want the delegate's message, first, second", in.Message, in.ActivityID, in.FailedActivityID)
		}
	})
}

// An engine-side failure (an unregistered delegate) is reported without the
// element prefix too, with the element in its own field.
func TestIncidentMessageOfEngineFailure(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.AsyncService("p", "no.such.Class", "R1/PT1M"))
		pi := e.Start("p", nil)
		job := e.OneJob(pi)
		e.FailJob(job.ID)
		job = e.OneJob(pi)
		want := `delegate "no.such.Class" is not registered (camunda:class)`
		if job.ExceptionMessage != want || job.FailedActivityID != "work" {
			t.Fatalf("message %q, failed activity %q; want %q at work", job.ExceptionMessage, job.FailedActivityID, want)
		}
	})
}

// A boundary timer job whose flow fails: the incident names the boundary
// event as its activity.
func TestBoundaryTimerIncidentNamesTheEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.FailingDelegate()
		e.Deploy("p", enginetest.Process("p", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <userTask id="review" />
    <boundaryEvent id="late" attachedToRef="review">
      <extensionElements><camunda:failedJobRetryTimeCycle>R1/PT1M</camunda:failedJobRetryTimeCycle></extensionElements>
      <timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>
    </boundaryEvent>
    <sequenceFlow id="f2" sourceRef="late" targetRef="escalate" />
    <serviceTask id="escalate" camunda:class="fail" />
    <sequenceFlow id="f3" sourceRef="escalate" targetRef="end" />
    <endEvent id="end" />`))
		pi := e.Start("p", nil)
		job := e.OneJob(pi)
		e.Clock.Add(time.Hour + time.Second)
		e.FailJob(job.ID)
		ins := e.IncidentsOf(job.ID)
		if len(ins) != 1 || ins[0].ActivityID != "late" || ins[0].FailedActivityID != "escalate" || ins[0].Message != "Expected exception" {
			t.Fatalf("incidents %+v, want one at late, failed at escalate", ins)
		}
	})
}

// However a job fails again, it has one open incident: run by hand at 0
// retries, or after its retries were set through its job definition (which
// keeps the incident, as in Camunda). Setting the job's own retries
// resolves it; the next failure opens a new one.
func TestOneIncidentPerFailingJob(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.FailingDelegate()
		e.Deploy("p", enginetest.AsyncService("p", "fail", "R1/PT1M"))
		pi := e.Start("p", nil)
		job := e.OneJob(pi)
		e.FailJob(job.ID)
		first := e.IncidentsOf(job.ID)
		if len(first) != 1 {
			t.Fatalf("%d incidents after the last retry, want 1", len(first))
		}
		e.FailJob(job.ID) // by hand at 0 retries
		if ins := e.IncidentsOf(job.ID); len(ins) != 1 || ins[0].ID != first[0].ID {
			t.Fatalf("after failing again by hand: incidents %+v, want only %s", ins, first[0].ID)
		}
		if err := e.Eng.SetJobRetriesByDefinition(e.Ctx, job.JobDefinitionID, 1); err != nil {
			t.Fatal(err)
		}
		if j := e.OneJob(pi); j.Retries != 1 {
			t.Fatalf("retries %d after setting them by definition, want 1", j.Retries)
		}
		if ins := e.IncidentsOf(job.ID); len(ins) != 1 || ins[0].ID != first[0].ID {
			t.Fatalf("setting retries by definition changed the incidents: %+v", ins)
		}
		e.FailJob(job.ID)
		if ins := e.IncidentsOf(job.ID); len(ins) != 1 || ins[0].ID != first[0].ID {
			t.Fatalf("after failing again: incidents %+v, want only %s", ins, first[0].ID)
		}
		if err := e.Eng.SetJobRetries(e.Ctx, job.ID, 1); err != nil {
			t.Fatal(err)
		}
		if ins := e.IncidentsOf(job.ID); len(ins) != 0 {
			t.Fatalf("setting the job's retries left %d incidents", len(ins))
		}
		e.FailJob(job.ID)
		if ins := e.IncidentsOf(job.ID); len(ins) != 1 || ins[0].ID == first[0].ID {
			t.Fatalf("after failing once more: incidents %+v, want one new", ins)
		}
	})
}

// Setting retries by job definition touches failed jobs only.
func TestSetRetriesByDefinitionOnlyFailedJobs(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.FailingDelegate()
		e.Deploy("p", enginetest.AsyncService("p", "fail", "R2/PT1M"))
		healthy, failed := e.Start("p", nil), e.Start("p", nil)
		fj := e.OneJob(failed)
		e.FailJob(fj.ID)
		e.Clock.Add(2 * time.Minute)
		e.FailJob(fj.ID)
		if err := e.Eng.SetJobRetriesByDefinition(e.Ctx, fj.JobDefinitionID, 7); err != nil {
			t.Fatal(err)
		}
		if h, f := e.OneJob(healthy).Retries, e.OneJob(failed).Retries; h != 2 || f != 7 {
			t.Fatalf("retries: healthy job %d, failed job %d; want 2 and 7", h, f)
		}
	})
}

// R0 gives a job that runs once: it fails once and then has its incident,
// with the exception message and stack stored.
func TestRetryCycleR0(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.FailingDelegate()
		e.Deploy("p", enginetest.AsyncService("p", "fail", "R0/PT5M"))
		pi := e.Start("p", nil)
		job := e.OneJob(pi)
		if job.Retries != 1 {
			t.Fatalf("new job has %d retries, want 1 (one run)", job.Retries)
		}
		if n := e.Drain(10); n != 0 {
			t.Fatalf("%d jobs ran well, want 0", n)
		}
		job = e.OneJob(pi)
		if job.Retries != 0 || job.ExceptionMessage != "Expected exception" || job.ExceptionStack == "" {
			t.Fatalf("job retries %d, message %q, stack %q", job.Retries, job.ExceptionMessage, job.ExceptionStack)
		}
		if ins := e.IncidentsOf(job.ID); len(ins) != 1 {
			t.Fatalf("%d incidents, want 1", len(ins))
		}
	})
}

// Deleting a job deletes its incident.
func TestDeleteJobRemovesIncident(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.FailingDelegate()
		e.Deploy("p", enginetest.AsyncService("p", "fail", "R1/PT1M"))
		pi := e.Start("p", nil)
		job := e.OneJob(pi)
		e.FailJob(job.ID)
		if len(e.IncidentsOf(job.ID)) != 1 {
			t.Fatal("no incident")
		}
		if err := e.Eng.DeleteJob(e.Ctx, job.ID); err != nil {
			t.Fatal(err)
		}
		if js := e.Jobs(pi); len(js) != 0 {
			t.Fatalf("%d jobs after DeleteJob", len(js))
		}
		if ins := e.IncidentsOf(job.ID); len(ins) != 0 {
			t.Fatalf("%d incidents after DeleteJob", len(ins))
		}
		if err := e.Eng.DeleteJob(e.Ctx, job.ID); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("deleting it again: %v, want ErrNotFound", err)
		}
	})
}

// A retry cycle given as an expression is evaluated at each failure on the
// job's execution: it sets the retries at the first failure, and a changed
// variable changes the next interval.
func TestRetryCycleExpression(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.FailingDelegate()
		e.Deploy("p", enginetest.AsyncService("p", "fail", "${retryCycle}"))
		pi := e.Start("p", map[string]any{"retryCycle": "R5/PT5M"})
		job := e.OneJob(pi)
		e.FailJob(job.ID)
		job = e.OneJob(pi)
		if want := e.Clock.Now().Add(5 * time.Minute); job.Retries != 4 || job.DueDate == nil || !job.DueDate.Equal(want) {
			t.Fatalf("after the first failure: retries %d, due %v; want 4, %v", job.Retries, job.DueDate, want)
		}
		if err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"retryCycle": "R5/PT10M"}); err != nil {
			t.Fatal(err)
		}
		e.Clock.Add(5 * time.Minute)
		e.FailJob(job.ID)
		job = e.OneJob(pi)
		if want := e.Clock.Now().Add(10 * time.Minute); job.Retries != 3 || job.DueDate == nil || !job.DueDate.Equal(want) {
			t.Fatalf("after the second failure: retries %d, due %v; want 3, %v", job.Retries, job.DueDate, want)
		}
	})
}

// A cycle timer whose run fails keeps its schedule: the next run's job is
// created at the first failure, and the failing one only retries its own
// run. For a timer start event and a non-interrupting boundary timer.
func TestFailingCycleTimerKeepsSchedule(t *testing.T) {
	startTimer := enginetest.Process("p", `
    <startEvent id="start">
      <timerEventDefinition><timeCycle>R3/PT1H</timeCycle></timerEventDefinition>
    </startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <serviceTask id="work" camunda:class="fail" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="end" />
    <endEvent id="end" />`)
	boundary := enginetest.Process("p", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <userTask id="review" />
    <boundaryEvent id="remind" attachedToRef="review" cancelActivity="false">
      <timerEventDefinition><timeCycle>R3/PT1H</timeCycle></timerEventDefinition>
    </boundaryEvent>
    <sequenceFlow id="f2" sourceRef="remind" targetRef="work" />
    <serviceTask id="work" camunda:class="fail" />
    <sequenceFlow id="f3" sourceRef="work" targetRef="end" />
    <endEvent id="end" />
    <sequenceFlow id="f4" sourceRef="review" targetRef="done" />
    <endEvent id="done" />`)
	for _, tc := range []struct{ name, xml string }{{"timer start", startTimer}, {"non-interrupting boundary", boundary}} {
		t.Run(tc.name, func(t *testing.T) {
			eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
				e.FailingDelegate()
				d := e.Deploy("p", tc.xml)
				if tc.name != "timer start" {
					e.Start("p", nil)
				}
				scope := bpmnlite.JobQuery{ProcessDefinitionID: d.Definitions[0].ID}
				js, err := e.Eng.Jobs(e.Ctx, scope)
				if err != nil || len(js) != 1 {
					t.Fatalf("jobs %v, %v; want the timer", js, err)
				}
				timer := js[0]
				e.Clock.Add(time.Hour)
				e.FailJob(timer.ID)
				e.FailJob(timer.ID) // a second failure creates no other run
				js, err = e.Eng.Jobs(e.Ctx, scope)
				if err != nil || len(js) != 2 {
					t.Fatalf("jobs %s, %v; want the failed run and the next one", harness.JobList(js), err)
				}
				var next *bpmnlite.Job
				for _, j := range js {
					if j.ID != timer.ID {
						next = j
					}
				}
				if want := timer.DueDate.Add(time.Hour); next.DueDate == nil || !next.DueDate.Equal(want) || next.ExceptionMessage != "" || next.Repeat == "" {
					t.Fatalf("next run due %v, message %q, repeat %q; want due %v", next.DueDate, next.ExceptionMessage, next.Repeat, want)
				}
			})
		})
	}
}

// A cycle timer stores its cycle as Camunda does: as written, with the time
// the timer was created as start date ("R2/<created>/PT1H"), on every job of
// the cycle; the fire times are those of the cycle counted from the
// creation (Camunda's StartTimerEventTest and the repeat asserted in
// BoundaryTimerNonInterruptingEventTest.testUpdateTimerRepeat).
func TestCycleTimerStoresItsCreationTime(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		runs := 0
		e.Eng.RegisterDelegate("count", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			runs++
			return nil
		}))
		created := e.Clock.Now()
		d := e.Deploy("p", enginetest.Process("p", `
    <startEvent id="start">
      <timerEventDefinition><timeCycle>R2/PT1H</timeCycle></timerEventDefinition>
    </startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <serviceTask id="work" camunda:class="count" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="end" />
    <endEvent id="end" />`))
		scope := bpmnlite.JobQuery{ProcessDefinitionID: d.Definitions[0].ID}
		want := "R2/" + created.UTC().Format("2006-01-02T15:04:05") + "/PT1H"
		for i, due := range []time.Time{created.Add(time.Hour), created.Add(2 * time.Hour)} {
			js, err := e.Eng.Jobs(e.Ctx, scope)
			if err != nil || len(js) != 1 {
				t.Fatalf("run %d: jobs %v, %v; want one timer", i+1, js, err)
			}
			if js[0].Repeat != want || js[0].DueDate == nil || !js[0].DueDate.Equal(due) {
				t.Fatalf("run %d: repeat %q due %v; want %q due %v", i+1, js[0].Repeat, js[0].DueDate, want, due)
			}
			e.Clock.Set(due)
			if _, err := e.Eng.ExecuteDueJobs(e.Ctx, 10); err != nil {
				t.Fatal(err)
			}
		}
		if js, _ := e.Eng.Jobs(e.Ctx, scope); runs != 2 || len(js) != 0 {
			t.Fatalf("%d runs, %d jobs left; want two runs and no job", runs, len(js))
		}
	})
}

// SetJobRepeat stores the cycle it is given, as Camunda's timer entity does
// (BoundaryTimerNonInterruptingEventTest.testUpdateTimerRepeat): the job
// keeps its due date, the next job is due one new interval after the run
// and stores the same notation. A cycle with a start date ends after its
// runs.
func TestSetJobRepeat(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		created := e.Clock.Now()
		e.Deploy("timerRepeat", enginetest.Process("timerRepeat", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="wait" />
    <userTask id="wait" name="User Waiting" />
    <sequenceFlow id="f2" sourceRef="wait" targetRef="end" />
    <endEvent id="end" />
    <boundaryEvent id="timer" attachedToRef="wait" cancelActivity="false">
      <timerEventDefinition><timeCycle>R5/PT1H</timeCycle></timerEventDefinition>
    </boundaryEvent>
    <sequenceFlow id="f3" sourceRef="timer" targetRef="fired" />
    <userTask id="fired" name="Timer Fired" />`))
		pi := e.Start("timerRepeat", nil)
		js := e.Jobs(pi)
		if len(js) != 1 {
			t.Fatalf("%d jobs, want the timer", len(js))
		}
		if want := "R5/" + created.UTC().Format("2006-01-02T15:04:05") + "/PT1H"; js[0].Repeat != want {
			t.Fatalf("repeat %q, want %q", js[0].Repeat, want)
		}
		if err := e.Eng.SetJobRepeat(e.Ctx, js[0].ID, "R3/PT1X"); err == nil {
			t.Fatal("a malformed cycle was accepted")
		}
		if err := e.Eng.SetJobRepeat(e.Ctx, js[0].ID, "R3/PT3H"); err != nil {
			t.Fatal(err)
		}
		if js := e.Jobs(pi); js[0].Repeat != "R3/PT3H" || !js[0].DueDate.Equal(created.Add(time.Hour)) {
			t.Fatalf("after SetJobRepeat: repeat %q due %v; want R3/PT3H due an hour after the start", js[0].Repeat, js[0].DueDate)
		}
		e.Clock.Set(created.Add(time.Hour))
		if _, err := e.Eng.ExecuteDueJobs(e.Ctx, 10); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "fired,wait" {
			t.Fatalf("tasks %s, want the waiting task and the fired one", got)
		}
		js = e.Jobs(pi)
		if len(js) != 1 || js[0].Repeat != "R3/PT3H" || !js[0].DueDate.Equal(created.Add(4*time.Hour)) {
			t.Fatalf("second timer %s, want repeat R3/PT3H due 3 h after the first run", harness.JobList(js))
		}
		// With a start date the count ends the cycle: 4 h + k·1 h for k ≤ 1.
		anchored := "R1/" + created.Add(4*time.Hour).UTC().Format("2006-01-02T15:04:05") + "/PT1H"
		if err := e.Eng.SetJobRepeat(e.Ctx, js[0].ID, anchored); err != nil {
			t.Fatal(err)
		}
		for i := 4; i <= 6; i++ {
			e.Clock.Set(created.Add(time.Duration(i) * time.Hour))
			if _, err := e.Eng.ExecuteDueJobs(e.Ctx, 10); err != nil {
				t.Fatal(err)
			}
		}
		if js := e.Jobs(pi); len(js) != 0 {
			t.Fatalf("jobs %s left after the anchored cycle's runs", harness.JobList(js))
		}
		if n := strings.Count(e.TaskKeys(pi), "fired"); n != 3 {
			t.Fatalf("tasks %s: %d fired, want 3 (one of R3/PT3H, two of the anchored cycle)", e.TaskKeys(pi), n)
		}
	})
}

// A priority expression naming an unknown variable: the command fails by
// default; with PriorityFallback the job gets FallbackPriority. Other
// expression failures still fail.
func TestJobPriorityFallback(t *testing.T) {
	xml := enginetest.Process("p", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <serviceTask id="work" camunda:asyncBefore="true" camunda:expression="${true}" camunda:jobPriority="${priority}" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="end" />
    <endEvent id="end" />`)
	t.Run("off", func(t *testing.T) {
		eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
			e.Deploy("p", xml)
			_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p"})
			var ae *bpmnlite.ActivityError
			if !errors.As(err, &ae) || ae.ActivityID != "work" {
				t.Fatalf("start without the variable: %v, want an ActivityError at work", err)
			}
		})
	})
	t.Run("on", func(t *testing.T) {
		eachBackend(t, bpmnlite.Config{Jobs: bpmnlite.JobsConfig{PriorityFallback: true, FallbackPriority: 7}}, func(t *testing.T, e *env) {
			e.Deploy("p", xml)
			if j := e.OneJob(e.Start("p", nil)); j.Priority != 7 {
				t.Fatalf("priority %d, want the fallback 7", j.Priority)
			}
			if j := e.OneJob(e.Start("p", map[string]any{"priority": 3})); j.Priority != 3 {
				t.Fatalf("priority %d, want 3 from the variable", j.Priority)
			}
			if _, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"priority": "high"}}); err == nil {
				t.Fatal("a priority that is not an integer was accepted")
			}
			// A function bean that is not registered falls back too.
			e.Deploy("fn", strings.Replace(strings.Replace(xml, "${priority}", "${priority()}", 1), `id="p"`, `id="fn"`, 1))
			if j := e.OneJob(e.Start("fn", nil)); j.Priority != 7 {
				t.Fatalf("priority %d from an unknown function, want the fallback 7", j.Priority)
			}
		})
	})
}

// Process instance modification: start before several activities in one
// call, each path with its own local variables, which a job priority
// expression on that activity sees; an activity inside an embedded
// subprocess gets its scope, and the instance completes through it.
func TestStartBeforeSeveralActivities(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="a" />
    <sequenceFlow id="f3" sourceRef="fork" targetRef="sub" />
    <serviceTask id="a" camunda:asyncBefore="true" camunda:expression="${true}" camunda:jobPriority="${prio}" />
    <sequenceFlow id="f4" sourceRef="a" targetRef="join" />
    <subProcess id="sub">
      <startEvent id="subStart" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="b" />
      <serviceTask id="b" camunda:asyncBefore="true" camunda:expression="${true}" camunda:jobPriority="${prio}" />
      <sequenceFlow id="s2" sourceRef="b" targetRef="review" />
      <userTask id="review" />
      <sequenceFlow id="s3" sourceRef="review" targetRef="subEnd" />
      <endEvent id="subEnd" />
    </subProcess>
    <sequenceFlow id="f5" sourceRef="sub" targetRef="join" />
    <parallelGateway id="join" />
    <sequenceFlow id="f6" sourceRef="join" targetRef="end" />
    <endEvent id="end" />`))
		pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Instructions: []bpmnlite.StartInstruction{
			{ActivityID: "a", Variables: map[string]any{"prio": 10}},
			{ActivityID: "b", Variables: map[string]any{"prio": 5}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		prios := map[string]int64{}
		for _, j := range e.Jobs(pi) {
			prios[j.ActivityID] = j.Priority
			vars, err := e.Eng.Variables(e.Ctx, j.ExecutionID)
			if err != nil {
				t.Fatal(err)
			}
			if want := prios[j.ActivityID]; vars["prio"] != want && vars["prio"] != int(want) {
				t.Errorf("execution of %s sees prio %v, want %d", j.ActivityID, vars["prio"], want)
			}
		}
		if prios["a"] != 10 || prios["b"] != 5 || len(prios) != 2 {
			t.Fatalf("job priorities %v, want a=10 b=5", prios)
		}
		if root, err := e.Eng.Variables(e.Ctx, pi); err != nil || root["prio"] != nil {
			t.Fatalf("instance variables %v (%v): the paths' variables must stay local", root, err)
		}
		if e.Drain(10) != 2 {
			t.Fatal("the two jobs did not run")
		}
		e.Complete(pi, "review", nil)
		if got := e.State(pi); got != bpmnlite.StateCompleted {
			t.Fatalf("instance state %s, want completed through the subprocess and the join", got)
		}
		if _, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Instructions: []bpmnlite.StartInstruction{{ActivityID: "nope"}}}); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("start before an unknown activity: %v, want ErrNotFound", err)
		}
	})
}

// ISO 8601 periods with large fields, read by rickb777/period, give exact
// due dates through the engine: timers and retry intervals alike.
func TestLargeISOPeriods(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, tc := range []struct {
			value string
			add   func(time.Time) time.Time
		}{
			{"PT5000S", func(t time.Time) time.Time { return t.Add(5000 * time.Second) }},
			{"PT8760H", func(t time.Time) time.Time { return t.Add(8760 * time.Hour) }},
			{"P1Y2M3DT4H5M6.5S", func(t time.Time) time.Time {
				return t.AddDate(1, 2, 3).Add(4*time.Hour + 5*time.Minute + 6500*time.Millisecond)
			}},
		} {
			key := "timer" + strings.NewReplacer(".", "_").Replace(tc.value)
			e.Deploy(key, enginetest.Defs(enginetest.Executable(key, `<startEvent id="start"/>
				<intermediateCatchEvent id="wait"><timerEventDefinition><timeDuration>`+tc.value+`</timeDuration></timerEventDefinition></intermediateCatchEvent>
				<endEvent id="end"/>`, enginetest.Chain("start", "wait", "end"))))
			pi := e.Start(key, nil)
			if j := e.OneJob(pi); j.DueDate == nil || !j.DueDate.Equal(tc.add(e.Clock.Now())) {
				t.Errorf("%s: timer due %v, want %v", tc.value, j.DueDate, tc.add(e.Clock.Now()))
			}
		}
		e.FailingDelegate()
		e.Deploy("retry", enginetest.AsyncService("retry", "fail", "R2/PT5000S"))
		pi := e.Start("retry", nil)
		job := e.OneJob(pi)
		e.FailJob(job.ID)
		if job = e.OneJob(pi); job.DueDate == nil || !job.DueDate.Equal(e.Clock.Now().Add(5000*time.Second)) {
			t.Errorf("retry due %v, want now + 5000 s", job.DueDate)
		}
	})
}

// Every job failure is logged at WARN with the job, its activity, instance
// and retries left, on every path the job executor runs jobs (SQLite's
// groups included).
func TestJobFailuresLogged(t *testing.T) {
	var logs enginetest.LogBuffer
	eachBackendRealTime(t, bpmnlite.Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))}, func(t *testing.T, e *env) {
		mark := len(logs.String()) // the backends share the sink
		e.FailingDelegate()
		e.Deploy("p", enginetest.AsyncService("p", "fail", ""))
		pi := e.Start("p", nil)
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 2})
		// The failure is logged once stored, just after the commit that
		// makes the incident visible.
		harness.WaitFor(t, "the job's incident and its log line", 30*time.Second, func() bool {
			in, _ := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{ProcessInstanceID: pi})
			return len(in) == 1 && strings.Contains(logs.String()[mark:], "retriesLeft=0")
		})
		out := logs.String()[mark:]
		for _, left := range []string{"retriesLeft=2", "retriesLeft=1", "retriesLeft=0"} {
			if !strings.Contains(out, "level=WARN msg=\"job failed\"") || !strings.Contains(out, "instance="+pi) || !strings.Contains(out, left) ||
				!strings.Contains(out, "activity=") {
				t.Fatalf("log lacks a failure with %s for %s:\n%s", left, pi, out)
			}
		}
	})
}
