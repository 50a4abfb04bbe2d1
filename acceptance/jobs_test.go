package acceptance_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// accPriorities returns "activity/handler=priority" for pi's jobs, sorted.
func (e *env) accPriorities(pi string) string {
	e.T.Helper()
	var s []string
	for _, j := range e.Jobs(pi) {
		s = append(s, fmt.Sprintf("%s/%s=%d", j.ActivityID, j.HandlerType, j.Priority))
	}
	slices.Sort(s)
	return strings.Join(s, " ")
}

// S10: without any priority, asyncBefore, asyncAfter and timer jobs get 0.
func TestS10_DefaultPriority(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(harness.PrioDir+"_needs-extra/oneTaskProcess.bpmn20.xml", harness.PrioDir+"oneTimerProcess.bpmn20.xml")
		pi := e.Start("oneTaskProcess", nil)
		if got := e.accPriorities(pi); got != "task1/async-before=0" {
			t.Fatalf("before job: %s", got)
		}
		e.ExecJob(e.OneJob(pi).ID)
		if got := e.accPriorities(pi); got != "task1/async-after=0" {
			t.Fatalf("after job: %s", got)
		}
		pi = e.Start("oneTimerProcess", nil)
		if got := e.accPriorities(pi); got != "timer1/timer-intermediate-transition=0" {
			t.Fatalf("timer job: %s", got)
		}
	})
}

// S10: jobPrioProcess has process priority 10 and task2 priority 5, for the
// jobs before and after each task.
func TestS10_ProcessAndActivityPriority(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(harness.PrioDir + "_needs-extra/jobPrioProcess.bpmn20.xml")
		// A normal start reaches every job in turn (SCENARIOS "Adapt").
		pi := e.Start("jobPrioProcess", nil)
		for _, want := range []string{"task1/async-before=10", "task1/async-after=10", "task2/async-before=5", "task2/async-after=5"} {
			if got := e.accPriorities(pi); got != want {
				t.Fatalf("jobs %s, want %s", got, want)
			}
			e.ExecJob(e.OneJob(pi).ID)
		}
		if !e.Ended(pi) {
			t.Fatal("instance should have ended")
		}
		// Starting directly before each task gives the same jobs.
		if got := e.accPriorities(e.StartBefore("jobPrioProcess", "task1")); got != "task1/async-before=10" {
			t.Errorf("start before task1: %s", got)
		}
		if got := e.accPriorities(e.StartBefore("jobPrioProcess", "task2")); got != "task2/async-before=5" {
			t.Errorf("start before task2: %s", got)
		}
	})
}

// S10: intermediate timers take the process's 8, or the activity's 4.
func TestS10_TimerPriority(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(harness.PrioDir + "intermediateTimerJobPrioProcess.bpmn20.xml")
		pi := e.Start("intermediateTimerJobPrioProcess", nil)
		if got := e.accPriorities(pi); got != "timer1/timer-intermediate-transition=8" {
			t.Fatalf("timer1: %s", got)
		}
		e.Clock.Add(61 * time.Second)
		if n, err := e.Eng.ExecuteDueJobs(e.Ctx, 10); err != nil || n != 1 {
			t.Fatalf("run due jobs: %d, %v; want 1 run", n, err)
		}
		if got := e.accPriorities(pi); got != "timer2/timer-intermediate-transition=4" {
			t.Fatalf("timer2: %s", got)
		}
		if got := e.accPriorities(e.StartBefore("intermediateTimerJobPrioProcess", "timer2")); got != "timer2/timer-intermediate-transition=4" {
			t.Errorf("start before timer2: %s", got)
		}
	})
}

// S10: a sub-process's priority is not passed down to its activities.
func TestS10_SubProcessPriorityIsNotDefaultForContainedActivities(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(harness.PrioDir + "_needs-extra/subProcessJobPrioProcess.bpmn20.xml")
		pi := e.Start("subProcessJobPrioProcess", nil)
		if got := e.accPriorities(pi); got != "task1/async-before=10" {
			t.Fatalf("jobs %s, want task1/async-before=10", got)
		}
	})
}

// S10: async inner instances of a multi-instance take the activity's priority.
func TestS10_MultiInstanceInnerActivityPriority(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(harness.PrioDir + "_needs-extra/miInnerAsyncProcess.bpmn20.xml")
		pi := e.Start("miBodyAsyncPriorityProcess", nil)
		want := "task1/async-before=5 task1/async-before=5 task1/async-before=5"
		if got := e.accPriorities(pi); got != want {
			t.Fatalf("jobs %s, want %s", got, want)
		}
	})
}

// S11: timer start jobs take the process's priority (8) or the start
// event's (1515); a boundary timer its own (20) over the process's 8.
func TestS11_TimerStartAndBoundaryPriority(t *testing.T) {
	cases := []struct {
		file string
		want int64
	}{
		{"JobPrioritizationBpmnConstantValueTest.testTimerStartEventPriorityOnProcessDefinition.bpmn20.xml", 8},
		{"JobPrioritizationBpmnConstantValueTest.testTimerStartEventPriorityOnActivity.bpmn20.xml", 1515},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, tc := range cases {
			t.Run(fmt.Sprint(tc.want), func(t *testing.T) {
				e := e.accWith(t)
				d := e.DeployFiles(harness.PrioDir + tc.file)
				js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessDefinitionID: d.Definitions[0].ID})
				if err != nil || len(js) != 1 || js[0].HandlerType != "timer-start-event" || js[0].Priority != tc.want {
					t.Fatalf("jobs %s (%v), want one timer start job with priority %d", harness.JobList(js), err, tc.want)
				}
			})
		}
		t.Run("boundary", func(t *testing.T) {
			e := e.accWith(t)
			e.DeployFiles(harness.PrioDir + "boundaryTimerJobPrioProcess.bpmn20.xml")
			pi := e.Start("boundaryTimerJobPrioProcess", nil)
			if got := e.accPriorities(pi); got != "timerBoundaryEvent/timer-transition=20" {
				t.Fatalf("jobs %s, want timerBoundaryEvent/timer-transition=20", got)
			}
		})
	})
}

// S11: the next job of an R2/PT5M start cycle keeps the start event's 9999.
func TestS11_PriorityInTimerCycleEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/timers/StartTimerEventTest.testPriorityInTimerCycleEvent.bpmn20.xml")
		first := e.AllJobs()
		if len(first) != 1 || first[0].Priority != 9999 {
			t.Fatalf("jobs %s, want one with priority 9999", harness.JobList(first))
		}
		e.Clock.Add(5*time.Minute + 5*time.Second)
		if n, err := e.Eng.ExecuteDueJobs(e.Ctx, 10); err != nil || n != 1 {
			t.Fatalf("run due jobs: %d, %v; want 1 run", n, err)
		}
		next := e.AllJobs()
		if len(next) != 1 || next[0].ID == first[0].ID || next[0].Priority != 9999 {
			t.Fatalf("after the first run: jobs %s, want a new one with priority 9999", harness.JobList(next))
		}
		if n := len(e.Instances("startTimerEventExampleCycle")); n != 1 {
			t.Errorf("%d instances, want 1", n)
		}
	})
}

// S12: a malformed priority is a deployment error naming the element; a
// priority on an activity that creates no job is allowed.
func TestS12_MalformedPriority(t *testing.T) {
	cases := []struct{ file, element, text string }{
		{harness.PrioDir + "_needs-extra/invalidPrioProcess.bpmn20.xml", "task2", "value 'thisIsNotANumber' for attribute 'jobPriority' is not a valid number"},
		{"camunda/external-tasks/externalTaskInvalidPriority.bpmn20.xml", "externalTaskWithPrio", "value 'NOTaNumber' for attribute 'taskPriority' is not a valid number"},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, tc := range cases {
			_, err := e.Eng.DeployFiles(e.Ctx, "s12", harness.Corpus(t, tc.file))
			var pe *bpmnlite.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: deploy gave %v, want a ParseError", tc.file, err)
			}
			if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.text)) {
				t.Errorf("%s: error %q does not contain %q", tc.file, err, tc.text)
			}
			if !slices.ContainsFunc(pe.Problems, func(p bpmnlite.Problem) bool { return p.ElementID == tc.element }) {
				t.Errorf("%s: no problem names %s: %v", tc.file, tc.element, pe.Problems)
			}
		}
		e.DeployFiles(harness.PrioDir + "_needs-extra/JobPrioritizationBpmnTest.testParsePriorityOnNonAsyncActivity.bpmn20.xml")
		pi := e.Start("jobPrioProcess", nil)
		if !e.Ended(pi) || len(e.Jobs(pi)) != 0 {
			t.Fatal("the process without async activities should run through")
		}
	})
}

// accJobDefs returns "activity: configuration" of the job definitions of a
// process definition, sorted.
func (e *env) accJobDefs(def *bpmnlite.ProcessDefinition) []string {
	e.T.Helper()
	jds, err := e.Eng.JobDefinitions(e.Ctx, def.ID, "")
	if err != nil {
		e.T.Fatal(err)
	}
	var out []string
	for _, jd := range jds {
		if jd.ProcessDefinitionKey != def.Key {
			e.T.Errorf("job definition %s has key %s, want %s", jd.ID, jd.ProcessDefinitionKey, def.Key)
		}
		out = append(out, jd.ActivityID+": "+jd.JobConfiguration)
	}
	slices.Sort(out)
	return out
}

// S20: one job definition per job-producing declaration, created at
// deployment, with Camunda's activity ids and configurations.
func TestS20_JobDefinitionsAtDeployment(t *testing.T) {
	const dir = "camunda/job-executor/JobDefinitionDeploymentTest."
	cases := []struct {
		name string
		want []string
	}{
		{"testTimerStartEvent", []string{"theStart: DATE: 2036-11-14T11:12:22"}},
		{"testTimerBoundaryEvent", []string{"theBoundaryEvent: DATE: 2036-11-14T11:12:22"}},
		{"testMultipleTimerBoundaryEvents", []string{"theBoundaryEvent1: DATE: 2036-11-14T11:12:22", "theBoundaryEvent2: DURATION: PT5M"}},
		{"testTimerIntermediateEvent", []string{"timer: DURATION: PT5M"}},
		{"testAsyncContinuation", []string{"theService: async-before"}},
		{"testAsyncContinuationOfMultiInstance", []string{"theService#multiInstanceBody: async-after"}},
		{"testAsyncContinuationOfActivityWrappedInMultiInstance", []string{"theService: async-after"}},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := e.accWith(t)
				d := e.DeployFiles(dir + tc.name + ".bpmn20.xml")
				def := d.Definitions[0]
				if got := e.accJobDefs(def); def.Key != "testProcess" || !slices.Equal(got, tc.want) {
					t.Fatalf("job definitions of %s: %q, want %q", def.Key, got, tc.want)
				}
				if tc.name == "testTimerStartEvent" {
					jds, err := e.Eng.JobDefinitions(e.Ctx, def.ID, "")
					if err != nil {
						t.Fatal(err)
					}
					js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessDefinitionID: def.ID})
					if err != nil || len(js) != 1 || js[0].JobDefinitionID != jds[0].ID {
						t.Fatalf("timer start jobs %s (%v), want one linked to job definition %s", harness.JobList(js), err, jds[0].ID)
					}
				}
			})
		}
		t.Run("testMultipleProcessDeployment", func(t *testing.T) {
			e := e.accWith(t)
			d := e.DeployFiles(dir+"testAsyncContinuation.bpmn20.xml", dir+"testMultipleProcessesWithinDeployment.bpmn20.xml")
			got := map[string][]string{}
			for _, def := range d.Definitions {
				got[def.Key] = e.accJobDefs(def)
			}
			if len(d.Definitions) != 2 || len(got["testProcess"]) != 1 ||
				!slices.Equal(got["anotherTestProcess"], []string{"theStart: DURATION: PT5M", "timer: DURATION: PT5M"}) {
				t.Fatalf("job definitions %q, want 1 for testProcess and the start and catch timers of anotherTestProcess", got)
			}
		})
	})
}

// S21: async jobs are exclusive unless camunda:exclusive="false" (service
// tasks, start and end events); running them leaves no job.
func TestS21_ExclusiveFlag(t *testing.T) {
	const dir = "camunda/exclusive/"
	cases := []struct {
		file      string
		exclusive bool
		jobs      int // jobs run in total
	}{
		{"ExclusiveTaskTest.testExclusiveService.bpmn20.xml", true, 1},
		{"ExclusiveTaskTest.testNonExclusiveService.bpmn20.xml", false, 1},
		{"ExclusiveStartEventTest.testExclusiveStartEvent.bpmn", true, 1},
		{"ExclusiveStartEventTest.testNonExclusiveStartEvent.bpmn", false, 1},
		{"ExclusiveEndEventTest.testExclusiveEndEvent.bpmn", true, 1},
		{"ExclusiveEndEventTest.testNonExclusiveEndEvent.bpmn", false, 2},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, tc := range cases {
			t.Run(tc.file, func(t *testing.T) {
				e := e.accWith(t)
				e.DeployFiles(dir + tc.file)
				pi := e.Start("exclusive", nil)
				j := e.OneJob(pi)
				if j.Exclusive != tc.exclusive {
					t.Fatalf("job exclusive = %v, want %v", j.Exclusive, tc.exclusive)
				}
				if n := e.Drain(10); n != tc.jobs {
					t.Errorf("ran %d jobs, want %d", n, tc.jobs)
				}
				if len(e.Jobs(pi)) != 0 || !e.Ended(pi) {
					t.Fatal("jobs left or instance still running")
				}
			})
		}
	})
}

// S21: concurrent exclusive jobs joining at nested parallel gateways, and
// sequences of async services, all complete.
func TestS21_ExclusiveJobsComplete(t *testing.T) {
	cases := []struct {
		file, key      string
		jobsAfterStart int
	}{
		{"ExclusiveTaskTest.testExclusiveServiceConcurrent.bpmn20.xml", "exclusive", 3},
		{"ExclusiveTaskTest.testExclusiveSequence2.bpmn20.xml", "testProcess", 1},
		{"ExclusiveTaskTest.testExclusiveSequence3.bpmn20.xml", "testProcess", 1},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, tc := range cases {
			t.Run(tc.file, func(t *testing.T) {
				e := e.accWith(t)
				e.DeployFiles("camunda/exclusive/" + tc.file)
				pi := e.Start(tc.key, nil)
				js := e.Jobs(pi)
				if len(js) != tc.jobsAfterStart {
					t.Fatalf("%d jobs after start, want %d", len(js), tc.jobsAfterStart)
				}
				for _, j := range js {
					if !j.Exclusive {
						t.Errorf("job at %s is not exclusive", j.ActivityID)
					}
				}
				e.Drain(20)
				if len(e.Jobs(pi)) != 0 || !e.Ended(pi) || e.State(pi) != "COMPLETED" {
					t.Fatalf("%d jobs left, ended %v", len(e.Jobs(pi)), e.Ended(pi))
				}
			})
		}
	})
}

// S21: three exclusive PT5M timers after a fork join without a lost update.
func TestS21_ExclusiveTimers(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles("camunda/exclusive/ExclusiveTimerEventTest.testCatchingTimerEvent.bpmn20.xml")
		pi := e.Start("exclusiveTimers", nil)
		if n := len(e.Jobs(pi)); n != 3 {
			t.Fatalf("%d timer jobs, want 3", n)
		}
		e.Clock.Add(50*time.Minute + 5*time.Second)
		if n, err := e.Eng.ExecuteDueJobs(e.Ctx, 10); err != nil || n != 3 {
			t.Fatalf("ran %d jobs (%v), want 3", n, err)
		}
		if len(e.Jobs(pi)) != 0 || !e.Ended(pi) {
			t.Fatalf("%d jobs left, ended %v", len(e.Jobs(pi)), e.Ended(pi))
		}
	})
}

// accFailRetries runs job again and again: the same job stays, with an
// exception message and retries from-1 down to 0, and its execution stays
// at activity (skipped when activity is "": timer start jobs have none).
// At 0, of the jobs scope selects, one has an exception and none retries.
func (e *env) accFailRetries(jobID, activity string, from int, scope bpmnlite.JobQuery) {
	e.T.Helper()
	for want := from - 1; want >= 0; want-- {
		if err := e.Eng.ExecuteJob(e.Ctx, jobID); err == nil {
			e.T.Fatalf("job %s succeeded, want a failure", jobID)
		}
		js, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ID: jobID})
		if err != nil || len(js) != 1 {
			e.T.Fatalf("job %s gone after a failure (%v)", jobID, err)
		}
		j := js[0]
		if j.Retries != want || j.ExceptionMessage == "" {
			e.T.Fatalf("after a failure: retries %d, message %q; want %d and a message", j.Retries, j.ExceptionMessage, want)
		}
		if activity != "" {
			xs, err := e.Eng.Executions(e.Ctx, bpmnlite.ExecutionQuery{ID: j.ExecutionID})
			if err != nil || len(xs) != 1 || xs[0].ActivityID != activity {
				e.T.Fatalf("job's execution %v (%v), want it at %s", xs, err, activity)
			}
		}
	}
	all, err := e.Eng.Jobs(e.Ctx, scope)
	if err != nil {
		e.T.Fatal(err)
	}
	// As Camunda's test: retries left are counted for the failed job only;
	// a cycle timer's next run is another job, with retries and no
	// exception.
	withException, withRetries, noRetries := 0, 0, 0
	for _, j := range all {
		if j.ExceptionMessage != "" {
			withException++
		}
		if j.Retries > 0 && j.ID == jobID {
			withRetries++
		}
		if j.Retries == 0 {
			noRetries++
		}
	}
	if withException != 1 || withRetries != 0 || noRetries != 1 {
		e.T.Fatalf("%d jobs with an exception, %d with no retries left, the failed one with retries left: %d; want 1, 1 and 0", withException, noRetries, withRetries)
	}
}

// S23: a retry cycle R5/PT5M on each kind of job: 5 → 4 → 3 → 2 → 1 → 0,
// the execution staying at the failing activity. The failing classes do not
// exist: the job fails when it runs.
func TestS23_FoxJobRetryCycle(t *testing.T) {
	cases := []struct{ file, key, activity string }{
		{"camunda/retries/FoxJobRetryCmdTest.testFailedServiceTask.bpmn20.xml", "failedServiceTask", "failingServiceTask"},
		{"camunda/retries/FoxJobRetryCmdTest.testFailedSubProcess.bpmn20.xml", "failedSubProcess", "failingSubProcess"},
		{"camunda/retries/FoxJobRetryCmdTest.testFailedCallActivity.bpmn20.xml", "failedCallActivity", "failingCallActivity"},
		{"camunda/retries/FoxJobRetryCmdTest.testFailedBoundaryTimerEvent.bpmn20.xml", "failedBoundaryTimerEvent", "userTask"},
		{"camunda/retries/FoxJobRetryCmdTest.testFailedIntermediateCatchingTimerEvent.bpmn20.xml", "failedIntermediateCatchingTimerEvent", "failingTimerEvent"},
		{"camunda/retries/_needs-extra/FoxJobRetryCmdTest.testFailedUserTask.bpmn20.xml", "failedUserTask", "failingUserTask"},
		{"camunda/retries/_needs-extra/FoxJobRetryCmdTest.testFailingMultiInstanceBody.bpmn20.xml", "failingMultiInstance", "task#multiInstanceBody"},
		{"camunda/retries/_needs-extra/FoxJobRetryCmdTest.testFailingMultiInstanceInnerActivity.bpmn20.xml", "failingMultiInstance", "task"},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.RegisterCorpusDelegates()
		for _, tc := range cases {
			t.Run(tc.key+"/"+tc.activity, func(t *testing.T) {
				e := e.accWith(t)
				e.DeployFiles(tc.file)
				pi := e.Start(tc.key, nil)
				j := e.OneJob(pi)
				if j.Retries != 5 {
					t.Fatalf("new job has %d retries, want 5 from the cycle", j.Retries)
				}
				e.accFailRetries(j.ID, tc.activity, 5, bpmnlite.JobQuery{ProcessInstanceID: pi})
			})
		}
	})
}

// S23: without a cycle, an always failing job starts at 3 retries and is
// drained down to 0.
func TestS23_DefaultRetryStrategy(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.RegisterCorpusDelegates()
		e.DeployFiles("camunda/job-executor/delegateThrowsException.bpmn20.xml")
		pi := e.Start("testProcess", nil)
		if j := e.OneJob(pi); j.Retries != 3 {
			t.Fatalf("new job has %d retries, want 3", j.Retries)
		}
		if n := e.Drain(10); n != 0 {
			t.Fatalf("%d jobs succeeded, want 0", n)
		}
		if j := e.OneJob(pi); j.Retries != 0 || j.ExceptionMessage == "" || !strings.Contains(j.ExceptionMessage, "Expected Exception") {
			t.Fatalf("job left with %d retries and message %q, want 0 and Expected Exception", j.Retries, j.ExceptionMessage)
		}
	})
}

// S24: the retry cycle of a timer start event sets its job's retries (5); a
// broken cycle value falls back to the default 3.
func TestS24_TimerStartRetryCycle(t *testing.T) {
	cases := []struct {
		file    string
		retries int
	}{
		{"FoxJobRetryCmdTest.testFailedStartTimerEvent.bpmn20.xml", 5},
		{"FoxJobRetryCmdTest.testBrokenFoxJobRetryValue.bpmn20.xml", 3},
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, tc := range cases {
			t.Run(tc.file, func(t *testing.T) {
				e := e.accWith(t)
				d := e.DeployFiles("camunda/retries/" + tc.file)
				scope := bpmnlite.JobQuery{ProcessDefinitionID: d.Definitions[0].ID}
				js, err := e.Eng.Jobs(e.Ctx, scope)
				if err != nil || len(js) != 1 || js[0].HandlerType != "timer-start-event" || js[0].Retries != tc.retries {
					t.Fatalf("jobs %s (%v), want one timer start job with %d retries", harness.JobList(js), err, tc.retries)
				}
				e.accFailRetries(js[0].ID, "", tc.retries, scope)
			})
		}
	})
}
