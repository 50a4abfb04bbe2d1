package rest_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/rest"
)

// The batch lists have a fixture of their own: batches in the shared
// fixture would add their jobs and job definitions to every job list's
// cases.
var batchLists = map[string]bool{"/batch": true, "/batch/statistics": true, "/history/batch": true}

func init() {
	running := map[string]paramCase{
		"batchId":         {"{batchA}", "batchA"},
		"type":            {"set-job-retries", "batchB"},
		"tenantIdIn":      {"acme", ""},
		"withoutTenantId": {"true", "batchA batchB"},
		"suspended":       {"true", "batchA"},
		"createdBy":       {"kermit", ""},
		"startedBefore":   {"{betweenAB}", "batchA"},
		"startedAfter":    {"{betweenAB}", "batchB"},
		"withFailures":    {"true", "batchB"},
		"withoutFailures": {"true", "batchA"},
	}
	paramCases["/batch"], paramCases["/batch/statistics"] = running, running
	paramCases["/history/batch"] = map[string]paramCase{
		"batchId":         {"{batchA}", "batchA"},
		"type":            {"instance-deletion", "batchA batchC"},
		"completed":       {"true", "batchC"},
		"tenantIdIn":      {"acme", ""},
		"withoutTenantId": {"true", "batchA batchB batchC"},
	}
	sortCases["/batch"] = map[string]string{"batchId": "id", "tenantId": "tenantId"}
	sortCases["/batch/statistics"] = sortCases["/batch"]
	sortCases["/history/batch"] = map[string]string{"batchId": "id", "startTime": "startTime", "endTime": "endTime", "tenantId": "tenantId"}
}

// seedBatchFixture makes three batches: batchA (an instance deletion,
// suspended), batchB (job retries for a missing job: its execution job
// failed into an incident), both running, and batchC (an instance
// deletion), ended; betweenAB is a time after A's start and before B's.
func seedBatchFixture(t *testing.T, a *api) fixture {
	fx := fixture{}
	create := func(name, path string, body map[string]any) {
		fx[name] = field(a.ok(http.StatusOK, "POST", path, body), "id").(string)
	}
	create("batchA", "/process-instance/delete", map[string]any{"processInstanceIds": []string{"a1", "a2"}})
	a.ok(http.StatusNoContent, "PUT", "/batch/"+fx["batchA"]+"/suspended", map[string]any{"suspended": true})
	time.Sleep(5 * time.Millisecond)
	fx["betweenAB"] = time.Now().UTC().Format("2006-01-02T15:04:05.000-0700")
	time.Sleep(5 * time.Millisecond)
	create("batchC", "/process-instance/delete", map[string]any{"processInstanceIds": []string{"c1"}})
	if _, err := a.eng.ExecuteDueJobs(t.Context(), 10); err != nil { // C's seed, execution job and monitor
		t.Fatal(err)
	}
	create("batchB", "/job/retries", map[string]any{"jobIds": []string{"missing"}, "retries": 1})
	if _, err := a.eng.ExecuteDueJobs(t.Context(), 10); err != nil { // B's seed and monitor, its execution job's three failures
		t.Fatal(err)
	}
	running := field(a.ok(http.StatusOK, "GET", "/batch/count", nil), "count")
	failed := a.ok(http.StatusOK, "GET", "/batch/statistics?batchId="+fx["batchB"], nil).([]any)
	if running != 2.0 || len(failed) != 1 || field(failed[0], "failedJobs") != 1.0 {
		t.Fatalf("batch fixture: %v running, B's statistics %v; want A and B running, B failed", running, failed)
	}
	return fx
}

// The batch lists filter by every parameter Camunda documents, page and
// sort, as the other lists (TestRESTDocumentedParameters,
// TestRESTPagingAndSorting).
func TestRESTBatchLists(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedBatchFixture(t, a)
		ids := fixtureIDs{}
		for k, v := range fx {
			ids[v] = k
		}
		expand := func(s string) string {
			for k, v := range fx {
				if s == "{"+k+"}" {
					return v
				}
			}
			return s
		}
		var lists []string
		for _, r := range rest.ServedRoutes(rest.New(a.eng, rest.Options{})) {
			if isRowList(r) && batchLists[r.Path] {
				lists = append(lists, r.Path)
				checkDocumentedParameters(t, a, r, false, ids, expand)
				checkPagingAndSorting(t, a, r, false)
			}
		}
		slices.Sort(lists)
		if !slices.Equal(lists, []string{"/batch", "/batch/statistics", "/history/batch"}) {
			t.Errorf("batch lists served: %v", lists)
		}
	})
}
