package rest_test

import (
	"net/http"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/rest"
)

// Batches over REST: created by POST /process-instance/delete, shown by
// /batch, /batch/statistics and /history/batch in Camunda's shapes,
// suspended, activated, run by the jobs, deleted.
func TestRESTBatches(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("one", map[string]string{"one.bpmn": oneTask}))
		var pis []string
		for range 3 {
			pis = append(pis, field(a.ok(http.StatusOK, "POST", "/process-definition/key/one/start", map[string]any{}), "id").(string))
		}
		b := a.ok(http.StatusOK, "POST", "/process-instance/delete", map[string]any{
			"processInstanceQuery": map[string]any{"processDefinitionKey": "one"}, "deleteReason": "tidy", "skipCustomListeners": true,
		}).(map[string]any)
		id := b["id"].(string)
		want := map[string]any{"type": "instance-deletion", "totalJobs": 3.0, "jobsCreated": 0.0, "batchJobsPerSeed": 100.0,
			"invocationsPerBatchJob": 1.0, "suspended": false, "tenantId": nil, "createUserId": nil, "executionStartTime": nil}
		for k, v := range want {
			if b[k] != v {
				t.Errorf("batch %s = %v, want %v", k, b[k], v)
			}
		}
		for _, k := range []string{"seedJobDefinitionId", "monitorJobDefinitionId", "batchJobDefinitionId", "startTime"} {
			if s, _ := b[k].(string); s == "" {
				t.Errorf("batch %s = %v, want a value", k, b[k])
			}
		}
		if got := a.ok(http.StatusOK, "GET", "/batch/"+id, nil).(map[string]any); got["id"] != id || len(got) != len(b) {
			t.Errorf("GET /batch/{id} = %v, want %v", got, b)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/batch/count?type=instance-deletion", nil), "count"); n != 1.0 {
			t.Errorf("batch count = %v", n)
		}
		stats := a.ok(http.StatusOK, "GET", "/batch/statistics?batchId="+id, nil).([]any)
		if len(stats) != 1 || field(stats[0], "remainingJobs") != 3.0 || field(stats[0], "completedJobs") != 0.0 || field(stats[0], "failedJobs") != 0.0 {
			t.Fatalf("statistics = %v", stats)
		}

		a.ok(http.StatusNoContent, "PUT", "/batch/"+id+"/suspended", map[string]any{"suspended": true})
		if n := field(a.ok(http.StatusOK, "GET", "/batch/statistics/count?suspended=true", nil), "count"); n != 1.0 {
			t.Errorf("suspended batches = %v, want 1", n)
		}
		if n, err := a.eng.ExecuteDueJobs(t.Context(), 10); err != nil || n != 0 {
			t.Fatalf("jobs run of a suspended batch: %d, %v", n, err)
		}
		a.ok(http.StatusNoContent, "PUT", "/batch/"+id+"/suspended", map[string]any{"suspended": false})
		for range 3 { // seed, execution jobs, monitor
			if _, err := a.eng.ExecuteDueJobs(t.Context(), 10); err != nil {
				t.Fatal(err)
			}
		}
		if n := field(a.ok(http.StatusOK, "GET", "/batch/count", nil), "count"); n != 0.0 {
			t.Fatalf("batches after their jobs ran: %v, want 0", n)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/process-instance/count", nil), "count"); n != 0.0 {
			t.Fatalf("instances after the batch: %v, want 0", n)
		}
		hist := a.ok(http.StatusOK, "GET", "/history/process-instance?processInstanceId="+pis[0], nil).([]any)
		if field(hist[0], "deleteReason") != "tidy" {
			t.Errorf("delete reason = %v", field(hist[0], "deleteReason"))
		}
		hb := a.ok(http.StatusOK, "GET", "/history/batch/"+id, nil).(map[string]any)
		if hb["endTime"] == nil || hb["executionStartTime"] == nil || hb["totalJobs"] != 3.0 || hb["removalTime"] != nil {
			t.Errorf("historic batch = %v", hb)
		}
		if rows := a.ok(http.StatusOK, "GET", "/history/batch?completed=true&sortBy=startTime&sortOrder=desc", nil).([]any); len(rows) != 1 {
			t.Errorf("completed historic batches = %v", rows)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/history/batch/count?completed=false", nil), "count"); n != 0.0 {
			t.Errorf("running historic batches = %v", n)
		}
		a.ok(http.StatusNoContent, "DELETE", "/history/batch/"+id, nil)
		a.wantError(http.StatusNotFound, "Historic batch with id '"+id+"' does not exist", "GET", "/history/batch/"+id, nil)
		a.wantError(http.StatusNotFound, "Unable to delete historic batch", "DELETE", "/history/batch/"+id, nil)

		// A failing batch: its job's incident, counted as failed; deleted
		// with cascade.
		b = a.ok(http.StatusOK, "POST", "/job/retries", map[string]any{"jobIds": []string{"missing"}, "retries": 2, "dueDate": nil}).(map[string]any)
		id = b["id"].(string)
		if b["type"] != bpmnlite.BatchSetJobRetries {
			t.Errorf("job retries batch type = %v", b["type"])
		}
		// The seed and the monitor's first look succeed; the execution
		// job fails its three runs.
		if n, err := a.eng.ExecuteDueJobs(t.Context(), 10); err != nil || n != 2 {
			t.Fatalf("due jobs of the failing batch: %d succeeded, %v; want 2", n, err)
		}
		if rows := a.ok(http.StatusOK, "GET", "/batch/statistics?withFailures=true", nil).([]any); len(rows) != 1 || field(rows[0], "failedJobs") != 1.0 {
			t.Fatalf("statistics with failures = %v", rows)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/incident/count?jobDefinitionId="+b["batchJobDefinitionId"].(string), nil), "count"); n != 1.0 {
			t.Errorf("incidents of the batch job = %v, want 1", n)
		}
		a.ok(http.StatusNoContent, "DELETE", "/batch/"+id+"?cascade=true", nil)
		a.wantError(http.StatusNotFound, "Batch with id '"+id+"' does not exist", "GET", "/batch/"+id, nil)
		a.wantError(http.StatusBadRequest, "Unable to delete batch with id", "DELETE", "/batch/"+id, nil)
		a.wantError(http.StatusBadRequest, "Unable to suspend batch with id", "PUT", "/batch/"+id+"/suspended", map[string]any{"suspended": true})
		if n := field(a.ok(http.StatusOK, "GET", "/history/batch/count", nil), "count"); n != 0.0 {
			t.Errorf("historic batches after a cascading delete: %v", n)
		}

		// Refusals.
		a.wantError(http.StatusBadRequest, "processInstanceIds is empty", "POST", "/process-instance/delete", map[string]any{"processInstanceIds": []string{}})
		a.wantError(http.StatusBadRequest, "skipIoMappings", "POST", "/process-instance/delete", map[string]any{"processInstanceIds": []string{"x"}, "skipIoMappings": true})
		a.wantError(http.StatusBadRequest, "deleteReason", "POST", "/history/process-instance/delete", map[string]any{"historicProcessInstanceIds": []string{"x"}, "deleteReason": "r"})
		a.wantError(http.StatusBadRequest, "jobIds is empty", "POST", "/job/retries", map[string]any{"retries": 1, "jobQuery": map[string]any{"processInstanceId": "none"}})
		a.wantError(http.StatusBadRequest, "jobIds is empty", "POST", "/process-instance/job-retries", map[string]any{"retries": 1, "processInstances": []string{"none"}})
		a.wantError(http.StatusBadRequest, "jobIds is empty", "POST", "/process-instance/job-retries-historic-query-based",
			map[string]any{"retries": 1, "historicProcessInstanceQuery": map[string]any{"processDefinitionKey": "none"}})
		a.wantError(http.StatusBadRequest, "historicDecisionInstanceIds is empty", "POST", "/history/decision-instance/delete",
			map[string]any{"historicDecisionInstanceQuery": map[string]any{"decisionDefinitionKey": "none"}})
		a.wantError(http.StatusBadRequest, "deleteReason", "POST", "/history/decision-instance/delete", map[string]any{"historicDecisionInstanceIds": []string{"x"}, "deleteReason": "r"})
		a.wantError(http.StatusBadRequest, "sortBy", "GET", "/batch?sortBy=type&sortOrder=asc", nil)
		a.wantError(http.StatusBadRequest, "suspended", "GET", "/batch?suspended=maybe", nil)

		// Removal times set in a batch.
		b = a.ok(http.StatusOK, "POST", "/history/process-instance/set-removal-time", map[string]any{
			"historicProcessInstanceIds": []string{pis[0]}, "absoluteRemovalTime": "2030-01-02T03:04:05.000+0000"}).(map[string]any)
		if b["type"] != "process-set-removal-time" {
			t.Errorf("removal time batch type = %v", b["type"])
		}
		if _, err := a.eng.ExecuteDueJobs(t.Context(), 10); err != nil {
			t.Fatal(err)
		}
		if r := field(a.ok(http.StatusOK, "GET", "/history/process-instance/"+pis[0], nil), "removalTime"); r != "2030-01-02T03:04:05.000+0000" {
			t.Errorf("removal time after the batch: %v", r)
		}
		a.wantError(http.StatusBadRequest, "exactly one", "POST", "/history/process-instance/set-removal-time",
			map[string]any{"historicProcessInstanceIds": []string{pis[0]}, "clearedRemovalTime": true, "calculatedRemovalTime": true})
		a.wantError(http.StatusBadRequest, "updateInChunks", "POST", "/history/process-instance/set-removal-time",
			map[string]any{"historicProcessInstanceIds": []string{pis[0]}, "clearedRemovalTime": true, "updateInChunks": true})

		// Instances suspended in a batch.
		running := field(a.ok(http.StatusOK, "POST", "/process-definition/key/one/start", map[string]any{}), "id").(string)
		b = a.ok(http.StatusOK, "POST", "/process-instance/suspended-async", map[string]any{"processInstanceIds": []string{running}, "suspended": true}).(map[string]any)
		if b["type"] != "instance-update-suspension-state" {
			t.Errorf("suspension batch type = %v", b["type"])
		}
		if _, err := a.eng.ExecuteDueJobs(t.Context(), 10); err != nil {
			t.Fatal(err)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/process-instance/count?suspended=true", nil), "count"); n != 1.0 {
			t.Errorf("suspended instances after the batch: %v, want 1", n)
		}
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+running, nil)

		// The history of ended instances, in a batch.
		for range 2 {
			pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/one/start", map[string]any{}), "id").(string)
			if err := a.eng.DeleteProcessInstance(t.Context(), pi, "done"); err != nil {
				t.Fatal(err)
			}
		}
		a.ok(http.StatusOK, "POST", "/history/process-instance/delete", map[string]any{"historicProcessInstanceQuery": map[string]any{"processDefinitionKey": "one"}})
		for range 3 {
			if _, err := a.eng.ExecuteDueJobs(t.Context(), 10); err != nil {
				t.Fatal(err)
			}
		}
		if n := field(a.ok(http.StatusOK, "GET", "/history/process-instance/count", nil), "count"); n != 0.0 {
			t.Errorf("historic instances after the batch: %v, want 0", n)
		}
	})
}
