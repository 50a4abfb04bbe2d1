package rest_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/rest"
)

const oneTask = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="one" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <userTask id="task"/><sequenceFlow id="f2" sourceRef="task" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

// Camunda's metrics over REST: what the engine counted, once reported,
// summed over a time range or bucketed in intervals, by reporter or not;
// Camunda's public aliases and bounds.
func TestRESTMetrics(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("one", map[string]string{"one.bpmn": oneTask}))
		for range 2 {
			a.ok(http.StatusOK, "POST", "/process-definition/key/one/start", map[string]any{})
		}
		task := field(a.ok(http.StatusOK, "GET", "/task", nil).([]any)[0], "id").(string)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/complete", map[string]any{})
		before := url.QueryEscape(time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000-0700"))
		if err := a.eng.ReportMetrics(t.Context()); err != nil {
			t.Fatal(err)
		}
		sum := func(path string) any { return field(a.ok(http.StatusOK, "GET", path, nil), "result") }
		for path, want := range map[string]float64{
			"/metrics/root-process-instance-start/sum":               2,
			"/metrics/process-instances/sum":                         2,
			"/metrics/activity-instance-start/sum":                   5, // 2 starts, 2 tasks, 1 end event
			"/metrics/flow-node-instances/sum?startDate=" + before:   5,
			"/metrics/activity-instance-end/sum":                     4, // 2 starts, 1 task, 1 end event
			"/metrics/activity-instance-start/sum?endDate=" + before: 0,
			"/metrics/job-successful/sum":                            0,
			"/metrics/no-such-metric/sum":                            0,
		} {
			if got := sum(path); got != want {
				t.Errorf("GET %s: %v, want %v", path, got, want)
			}
		}
		intervals := a.ok(http.StatusOK, "GET", "/metrics?name=activity-instance-start&interval=60", nil).([]any)
		if len(intervals) != 1 || field(intervals[0], "value") != float64(5) || field(intervals[0], "name") != "activity-instance-start" ||
			field(intervals[0], "reporter") == nil || field(intervals[0], "timestamp") == nil {
			t.Errorf("intervals: %v", intervals)
		}
		// A second report adds to the first.
		a.ok(http.StatusOK, "POST", "/process-definition/key/one/start", map[string]any{})
		if err := a.eng.ReportMetrics(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := sum("/metrics/root-process-instance-start/sum"); got != float64(3) {
			t.Errorf("after a second report: %v root instances, want 3", got)
		}
		all := a.ok(http.StatusOK, "GET", "/metrics?aggregateByReporter=true&maxResults=200", nil).([]any)
		names := map[string]float64{}
		for _, m := range all {
			if field(m, "reporter") != nil {
				t.Errorf("aggregated by reporter: %v", m)
			}
			names[field(m, "name").(string)] += field(m, "value").(float64)
		}
		if names["root-process-instance-start"] != 3 || names["activity-instance-start"] != 7 {
			t.Errorf("all metrics: %v", names)
		}
		if page := a.ok(http.StatusOK, "GET", "/metrics?maxResults=1", nil).([]any); len(page) != 1 {
			t.Errorf("maxResults=1: %v", page)
		}
		for _, bad := range []string{"/metrics?maxResults=201", "/metrics?interval=soon", "/metrics?startDate=yesterday", "/metrics/x/sum?endDate=x"} {
			a.ok(http.StatusBadRequest, "GET", bad, nil)
		}
		a.ok(http.StatusNoContent, "DELETE", "/metrics/task-worker?date="+before, nil)
		a.ok(http.StatusBadRequest, "DELETE", "/metrics/task-worker?date=x", nil)
	})
}
