package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/rest"
)

// migrationVersions deploys n versions of migrationModel and returns
// their definitions' ids, from version 1.
func (a *api) migrationVersions(n int) []string {
	a.t.Helper()
	var ids []string
	for i := range n {
		d, err := a.eng.Deploy(a.t.Context(), bpmnlite.DeployRequest{Name: fmt.Sprint("v", i), Resources: []bpmnlite.Resource{{Name: "mig.bpmn", Bytes: []byte(migrationModel("userTask"))}}})
		if err != nil {
			a.t.Fatal(err)
		}
		defs, err := a.eng.ProcessDefinitions(a.t.Context(), bpmnlite.DefinitionQuery{DeploymentID: d.ID})
		if err != nil || len(defs) != 1 {
			a.t.Fatal(defs, err)
		}
		ids = append(ids, defs[0].ID)
	}
	return ids
}

// The asynchronous migration, modification and restart: Camunda's
// payloads answered with the batch (BatchDto), refused with 400 naming
// what is wrong; the batches' jobs do the work.
func TestRESTChangesAsync(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		defs := a.migrationVersions(2)
		src, tgt := defs[0], defs[1]
		var pis []string
		for range 3 {
			pi, err := a.eng.Start(t.Context(), bpmnlite.StartRequest{DefinitionID: src})
			if err != nil {
				t.Fatal(err)
			}
			pis = append(pis, pi)
		}
		runJobs := func() {
			t.Helper()
			for range 3 { // seed, execution jobs, monitor
				if _, err := a.eng.ExecuteDueJobs(t.Context(), 100); err != nil {
					t.Fatal(err)
				}
			}
			if n := field(a.ok(http.StatusOK, "GET", "/batch/count", nil), "count"); n != 0.0 {
				t.Fatalf("batches after their jobs ran: %v, want 0", n)
			}
		}
		wantBatch := func(b any, typ string, jobs int) {
			t.Helper()
			if field(b, "type") != typ || field(b, "totalJobs") != float64(jobs) || field(b, "batchJobDefinitionId") == nil {
				t.Fatalf("batch %v, want a %s of %d jobs", b, typ, jobs)
			}
		}
		tasksIn := func(def string) int {
			t.Helper()
			return len(a.ok(http.StatusOK, "GET", "/task?processDefinitionId="+def, nil).([]any))
		}

		// Migration.
		plan := a.ok(http.StatusOK, "POST", "/migration/generate", map[string]any{"sourceProcessDefinitionId": src, "targetProcessDefinitionId": tgt})
		bad := map[string]any{"sourceProcessDefinitionId": src, "targetProcessDefinitionId": tgt, "instructions": []any{
			map[string]any{"sourceActivityIds": []string{"userTask"}, "targetActivityIds": []string{"missing"}}}}
		status, out := a.call("POST", "/migration/executeAsync", map[string]any{"migrationPlan": bad, "processInstanceIds": pis})
		if status != http.StatusBadRequest || field(out, "type") != "MigrationPlanValidationException" ||
			len(field(out, "validationReport", "instructionReports").([]any)) != 1 {
			t.Errorf("executeAsync of an invalid plan: %d %v", status, out)
		}
		a.wantError(http.StatusBadRequest, "Migration plan cannot be null", "POST", "/migration/executeAsync", map[string]any{"processInstanceIds": pis})
		a.wantError(http.StatusBadRequest, "processInstanceIds", "POST", "/migration/executeAsync", map[string]any{"migrationPlan": plan, "processInstanceIds": "one"})
		a.wantError(http.StatusBadRequest, "process instance ids is empty", "POST", "/migration/executeAsync", map[string]any{"migrationPlan": plan})
		if n := field(a.ok(http.StatusOK, "GET", "/batch/count", nil), "count"); n != 0.0 {
			t.Fatalf("batches after refused requests: %v, want 0", n)
		}
		wantBatch(a.ok(http.StatusOK, "POST", "/migration/executeAsync", map[string]any{"migrationPlan": plan,
			"processInstanceQuery": map[string]any{"processDefinitionId": src}}), "instance-migration", 3)
		runJobs()
		if n := tasksIn(tgt); n != 3 {
			t.Fatalf("tasks in the target after the migration batch: %d, want 3", n)
		}

		// Modification of several instances.
		start := []any{map[string]any{"type": "startBeforeActivity", "activityId": "userTask"}}
		a.wantError(http.StatusBadRequest, "processDefinitionId is required", "POST", "/modification/executeAsync", map[string]any{"processInstanceIds": pis, "instructions": start})
		a.wantError(http.StatusBadRequest, "instructions[0]", "POST", "/modification/executeAsync", map[string]any{"processDefinitionId": tgt, "processInstanceIds": pis,
			"instructions": []any{map[string]any{"type": "jump", "activityId": "userTask"}}})
		a.wantError(http.StatusBadRequest, `process definition "nope"`, "POST", "/modification/executeAsync", map[string]any{"processDefinitionId": "nope", "processInstanceIds": pis, "instructions": start})
		wantBatch(a.ok(http.StatusOK, "POST", "/modification/executeAsync", map[string]any{"processDefinitionId": tgt, "processInstanceIds": pis[:2], "instructions": start}),
			"instance-modification", 2)
		runJobs()
		if n := tasksIn(tgt); n != 5 {
			t.Fatalf("tasks after the modification batch: %d, want 5", n)
		}

		// Modification of one instance, with variables.
		withVar := []any{map[string]any{"type": "startBeforeActivity", "activityId": "userTask", "variables": map[string]any{"n": map[string]any{"type": "Short", "value": 7}}}}
		a.wantError(http.StatusBadRequest, `process instance "nope"`, "POST", "/process-instance/nope/modification-async", map[string]any{"instructions": withVar})
		a.wantError(http.StatusBadRequest, "instructions", "POST", "/process-instance/"+pis[2]+"/modification-async", map[string]any{"instructions": []any{}})
		wantBatch(a.ok(http.StatusOK, "POST", "/process-instance/"+pis[2]+"/modification-async", map[string]any{"instructions": withVar}), "instance-modification", 1)
		runJobs()
		if v := a.ok(http.StatusOK, "GET", "/process-instance/"+pis[2]+"/variables/n", nil); field(v, "type") != "Short" || field(v, "value") != 7.0 {
			t.Errorf("variable set by the batch: %v, want Short 7 (its declared type kept)", v)
		}

		// Restart.
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+pis[0], nil)
		restart := "/process-definition/" + tgt + "/restart-async"
		a.wantError(http.StatusBadRequest, "instructions", "POST", restart, map[string]any{"processInstanceIds": pis[:1]})
		a.wantError(http.StatusBadRequest, "instruction 0 (cancelAllForActivity)", "POST", restart, map[string]any{"processInstanceIds": pis[:1], "instructions": []any{map[string]any{"type": "cancel", "activityId": "userTask"}}})
		if status, _ := a.call("POST", "/process-definition/nope/restart-async", map[string]any{"processInstanceIds": pis[:1], "instructions": start}); status != http.StatusNotFound {
			t.Errorf("restart-async of an unknown definition: %d, want 404", status)
		}
		wantBatch(a.ok(http.StatusOK, "POST", restart, map[string]any{"processInstanceIds": pis[:1], "instructions": start}), "instance-restart", 1)
		runJobs()
		if n := field(a.ok(http.StatusOK, "GET", "/process-instance/count?processDefinitionId="+tgt, nil), "count"); n != 3.0 {
			t.Fatalf("instances after the restart batch: %v, want 3", n)
		}
	})
}
