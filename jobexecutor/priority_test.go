package jobexecutor_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// Job priorities from expressions and from the management API.

// S13: priorities from expressions. ${priority} and
// ${execution.getVariable('priority')} read the instance's variable, ${15}
// and #{16} are constants. A missing variable, a result that is not a
// number, a fraction or a number outside int64 fail the command that
// creates the job, with a message naming the expression and the problem.
func TestExecutorPriorityExpressions(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(harness.PrioDir + "_needs-extra/jobPrioExpressionProcess.bpmn20.xml")
		startBefore := func(activity string, vars map[string]any) (string, error) {
			return e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "jobPrioExpressionProcess", StartBefore: activity, Variables: vars})
		}
		cases := []struct {
			activity string
			vars     map[string]any
			want     int64
		}{
			{"task1", map[string]any{"priority": 22}, 22},
			{"task2", nil, 15},
			{"task3", map[string]any{"priority": 25}, 25},
			{"task4", nil, 16},
			{"task1", map[string]any{"priority": int64(math.MaxInt32) + 1}, math.MaxInt32 + 1},
			{"task1", map[string]any{"priority": -7}, -7},
			{"task1", map[string]any{"priority": 4.0}, 4}, // a whole float is a number
		}
		for _, tc := range cases {
			pi, err := startBefore(tc.activity, tc.vars)
			if err != nil {
				t.Fatalf("start before %s with %v: %v", tc.activity, tc.vars, err)
			}
			if j := e.OneJob(pi); j.Priority != tc.want {
				t.Errorf("job at %s with %v: priority %d, want %d", tc.activity, tc.vars, j.Priority, tc.want)
			}
		}
		// The job after task1 evaluates the expression again, on the
		// variable's value then.
		pi, err := startBefore("task1", map[string]any{"priority": 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"priority": 33}); err != nil {
			t.Fatal(err)
		}
		e.ExecJob(e.OneJob(pi).ID)
		if j := e.OneJob(pi); j.HandlerType != "async-after" || j.Priority != 33 {
			t.Errorf("after-job of task1: %s priority %d, want async-after with 33", j.HandlerType, j.Priority)
		}

		bad := []struct {
			name  string
			vars  map[string]any
			texts []string
		}{
			{"missing variable", nil, []string{"${priority}", "priority"}},
			{"not a number", map[string]any{"priority": "aNonNumericalVariableValue"}, []string{"${priority}", "want an integer"}},
			{"null", map[string]any{"priority": nil}, []string{"${priority}", "want an integer"}},
			{"fraction", map[string]any{"priority": 4.2}, []string{"${priority}", "4.2", "not a whole number"}},
			{"beyond int64", map[string]any{"priority": 1e19}, []string{"${priority}", "out of the int64 range"}},
		}
		for _, tc := range bad {
			before := len(e.AllJobs())
			_, err := startBefore("task1", tc.vars)
			if err == nil {
				t.Errorf("%s: start succeeded, want a priority error", tc.name)
				continue
			}
			for _, text := range append(tc.texts, "task1", "jobPriority") {
				if !strings.Contains(err.Error(), text) {
					t.Errorf("%s: error %q does not contain %q", tc.name, err, text)
				}
			}
			if after := len(e.AllJobs()); after != before {
				t.Errorf("%s: the failed start left %d jobs behind", tc.name, after-before)
			}
		}
	})
}

// S14: an overriding priority on a job definition applies to its new jobs,
// over what the BPMN says; cascade applies it to its existing jobs too; a
// redeployed process starts without it; clearing it gives new jobs the BPMN
// priority (or 0) again.
func TestExecutorOverridingJobPriority(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(harness.PrioDir+"asyncTaskProcess.bpmn20.xml", harness.PrioDir+"_needs-extra/jobPrioProcess.bpmn20.xml")
		jobDef := func(key, activity, config string) *bpmnlite.JobDefinition {
			t.Helper()
			defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: key, LatestOnly: true})
			if err != nil || len(defs) != 1 {
				t.Fatalf("definition %s: %v", key, err)
			}
			jds, err := e.Eng.JobDefinitions(e.Ctx, defs[0].ID, activity)
			if err != nil {
				t.Fatal(err)
			}
			for _, jd := range jds {
				if jd.JobConfiguration == config {
					return jd
				}
			}
			t.Fatalf("no %s job definition at %s of %s", config, activity, key)
			return nil
		}
		priority := func(pi string) int64 { t.Helper(); return e.OneJob(pi).Priority }
		override := func(jd *bpmnlite.JobDefinition) *int64 {
			t.Helper()
			jds, err := e.Eng.JobDefinitions(e.Ctx, jd.ProcessDefinitionID, jd.ActivityID)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range jds {
				if x.ID == jd.ID {
					return x.OverridingPriority
				}
			}
			t.Fatalf("job definition %s is gone", jd.ID)
			return nil
		}

		// asyncTaskProcess: no priority in the BPMN.
		jd := jobDef("asyncTaskProcess", "task", "async-before")
		if jd.OverridingPriority != nil {
			t.Fatalf("new job definition has overriding priority %d, want none", *jd.OverridingPriority)
		}
		first := e.Start("asyncTaskProcess", nil)
		if err := e.Eng.SetOverridingJobPriority(e.Ctx, jd.ID, 42, false); err != nil {
			t.Fatal(err)
		}
		if p := override(jd); p == nil || *p != 42 {
			t.Fatalf("overriding priority %v, want 42", p)
		}
		second := e.Start("asyncTaskProcess", nil)
		if priority(first) != 0 || priority(second) != 42 {
			t.Fatalf("without cascade: existing job %d, new job %d; want 0 and 42", priority(first), priority(second))
		}
		if err := e.Eng.SetOverridingJobPriority(e.Ctx, jd.ID, 52, true); err != nil {
			t.Fatal(err)
		}
		third := e.Start("asyncTaskProcess", nil)
		if priority(first) != 52 || priority(second) != 52 || priority(third) != 52 {
			t.Fatalf("with cascade: %d %d %d, want 52 for all", priority(first), priority(second), priority(third))
		}
		for range 2 { // clearing twice is harmless
			if err := e.Eng.ClearOverridingJobPriority(e.Ctx, jd.ID); err != nil {
				t.Fatal(err)
			}
		}
		if p := override(jd); p != nil {
			t.Fatalf("cleared overriding priority is %d, want none", *p)
		}
		if p := priority(e.Start("asyncTaskProcess", nil)); p != 0 || priority(first) != 52 {
			t.Fatalf("after clearing: new job %d, existing %d; want 0 and 52 kept", p, priority(first))
		}

		// jobPrioProcess: four job definitions, task2 says 5.
		defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "jobPrioProcess"})
		if err != nil || len(defs) != 1 {
			t.Fatalf("definitions: %v", err)
		}
		all, err := e.Eng.JobDefinitions(e.Ctx, defs[0].ID, "")
		if err != nil || len(all) != 4 {
			t.Fatalf("%d job definitions (%v), want 4", len(all), err)
		}
		for _, jd := range all {
			if jd.OverridingPriority != nil {
				t.Errorf("job definition %s/%s has an overriding priority", jd.ActivityID, jd.JobConfiguration)
			}
		}
		if task2, err := e.Eng.JobDefinitions(e.Ctx, defs[0].ID, "task2"); err != nil || len(task2) != 2 {
			t.Fatalf("%d job definitions at task2 (%v), want before and after", len(task2), err)
		}
		jd = jobDef("jobPrioProcess", "task2", "async-before")
		old := e.StartBefore("jobPrioProcess", "task2")
		if err := e.Eng.SetOverridingJobPriority(e.Ctx, jd.ID, 62, false); err != nil {
			t.Fatal(err)
		}
		if p := priority(e.StartBefore("jobPrioProcess", "task2")); p != 62 || priority(old) != 5 {
			t.Fatalf("override 62: new job %d, existing %d; want 62 and 5", p, priority(old))
		}
		if err := e.Eng.SetOverridingJobPriority(e.Ctx, jd.ID, 72, true); err != nil {
			t.Fatal(err)
		}
		if p := priority(e.StartBefore("jobPrioProcess", "task2")); p != 72 || priority(old) != 72 {
			t.Fatalf("override 72 with cascade: new job %d, existing %d; want 72 for both", p, priority(old))
		}
		// The override belongs to the definition: another definition's
		// task2 jobs are left alone, and a redeployment starts afresh.
		e.RedeployFiles(harness.PrioDir + "_needs-extra/jobPrioProcess.bpmn20.xml")
		if p := priority(e.StartBefore("jobPrioProcess", "task2")); p != 5 || priority(old) != 72 {
			t.Fatalf("after redeploying: new job %d, old %d; want 5 and 72", p, priority(old))
		}
		if err := e.Eng.ClearOverridingJobPriority(e.Ctx, jd.ID); err != nil {
			t.Fatal(err)
		}
		pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{DefinitionID: defs[0].ID, StartBefore: "task2"})
		if err != nil {
			t.Fatal(err)
		}
		if p := priority(pi); p != 5 {
			t.Fatalf("after clearing: new job %d, want the BPMN's 5", p)
		}

		// Extreme values are stored as given.
		for _, v := range []int64{math.MaxInt64, math.MinInt64 + 1} {
			if err := e.Eng.SetOverridingJobPriority(e.Ctx, jd.ID, v, true); err != nil {
				t.Fatal(err)
			}
			if p := override(jd); p == nil || *p != v || priority(old) != v {
				t.Fatalf("override %d: stored %v, job %d", v, p, priority(old))
			}
		}

		// Errors.
		err = e.Eng.SetOverridingJobPriority(e.Ctx, "someNonExistingJobDefinitionId", 42, false)
		if !errors.Is(err, bpmnlite.ErrNotFound) || !strings.Contains(err.Error(), "job definition with id 'someNonExistingJobDefinitionId' does not exist") {
			t.Errorf("unknown job definition: %v", err)
		}
		if err := e.Eng.ClearOverridingJobPriority(e.Ctx, "someNonExistingJobDefinitionId"); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("clearing an unknown job definition: %v", err)
		}
		if err := e.Eng.SetOverridingJobPriority(e.Ctx, "", 42, false); err == nil || !strings.Contains(err.Error(), "jobDefinitionId is null") {
			t.Errorf("empty job definition id: %v", err)
		}
	})
}

// S14: setting one job's priority, extreme values included; an unknown or
// empty job id is an error saying so.
func TestExecutorSetJobPriority(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(harness.PrioDir + "asyncTaskProcess.bpmn20.xml")
		pi := e.Start("asyncTaskProcess", nil)
		other := e.Start("asyncTaskProcess", nil)
		j := e.OneJob(pi)
		for _, v := range []int64{42, math.MaxInt64, math.MinInt64 + 1} {
			if err := e.Eng.SetJobPriority(e.Ctx, j.ID, v); err != nil {
				t.Fatal(err)
			}
			if p := e.OneJob(pi).Priority; p != v {
				t.Fatalf("priority %d, want %d", p, v)
			}
		}
		if p := e.OneJob(other).Priority; p != 0 {
			t.Fatalf("the other job's priority changed to %d", p)
		}
		err := e.Eng.SetJobPriority(e.Ctx, "nonExistingJob", 42)
		if !errors.Is(err, bpmnlite.ErrNotFound) || !strings.Contains(err.Error(), "No job found with id 'nonExistingJob'") {
			t.Errorf("unknown job: %v", err)
		}
		if err := e.Eng.SetJobPriority(e.Ctx, "", 42); err == nil || !strings.Contains(err.Error(), "Job id must not be null") {
			t.Errorf("empty job id: %v", err)
		}
	})
}
