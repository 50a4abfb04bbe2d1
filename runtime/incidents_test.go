package runtime_test

import (
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
)

// A job failing in a called process raises its incident there and one in
// each calling instance, caused by the one below and rooted in the job's;
// giving the job retries resolves the whole chain; deleting the instance
// removes its incidents.
func TestRecursiveIncidentsThroughCallActivities(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.RegisterCorpusDelegates()
		e.DeployFiles("camunda/incidents/IncidentTest.testShouldCreateRecursiveIncidents.bpmn",
			"camunda/incidents/IncidentTest.testShouldCreateOneIncident.bpmn")
		caller := e.Start("callFailingProcess", nil)
		called, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: "failingProcess"})
		if err != nil || len(called) != 1 {
			t.Fatalf("called instances %v, %v", called, err)
		}
		job := e.Jobs(called[0].ID)[0]
		for i := 0; i < 3; i++ {
			if err := e.Eng.ExecuteJob(e.Ctx, job.ID); err == nil {
				t.Fatal("the job should fail")
			}
		}
		all, err := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{})
		if err != nil || len(all) != 2 {
			t.Fatalf("incidents %+v, %v; want 2", all, err)
		}
		var root, recursive *bpmnlite.Incident
		for _, in := range all {
			if in.ProcessInstanceID == called[0].ID {
				root = in
			} else {
				recursive = in
			}
		}
		if root == nil || recursive == nil {
			t.Fatalf("incidents %+v: want one in each instance", all)
		}
		if root.Configuration != job.ID || root.CauseIncidentID != root.ID || root.RootCauseIncidentID != root.ID || !strings.Contains(root.Message, "Expected exception") {
			t.Errorf("root incident %+v", root)
		}
		if recursive.ProcessInstanceID != caller || recursive.CauseIncidentID != root.ID || recursive.RootCauseIncidentID != root.ID || recursive.ActivityID == "" {
			t.Errorf("recursive incident %+v", recursive)
		}
		if err := e.Eng.SetJobRetries(e.Ctx, job.ID, 1); err != nil {
			t.Fatal(err)
		}
		if all, _ := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{}); len(all) != 0 {
			t.Fatalf("after setting retries %d incidents remain", len(all))
		}
		if err := e.Eng.ExecuteJob(e.Ctx, job.ID); err == nil {
			t.Fatal("the job should fail again")
		}
		if all, _ := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{}); len(all) != 2 {
			t.Fatalf("after the last retry failed: %d incidents, want 2", len(all))
		}
		if err := e.Eng.DeleteProcessInstance(e.Ctx, caller, "cleanup"); err != nil {
			t.Fatal(err)
		}
		if all, _ := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{}); len(all) != 0 {
			t.Fatalf("after deleting the instances %d incidents remain", len(all))
		}
	})
}
