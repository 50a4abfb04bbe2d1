package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/rest"
)

// The decision resources over HTTP: deployment of a DMN file, the
// definition queries and lookups by id, key and tenant, the model,
// evaluation, the requirements definitions, and the history of
// evaluations with their inputs and outputs; unknown ids are 404s, bad
// input 400s, a failing evaluation Camunda's 500.
func TestRESTDecisions(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		dep := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("dishes", map[string]string{
			"dish.dmn": enginetest.DishDMN,
			"order.bpmn": enginetest.Process("order", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="decide" />
    <businessRuleTask id="decide" camunda:decisionRef="dish" camunda:resultVariable="dish" camunda:mapDecisionResult="singleEntry" />
    <sequenceFlow id="f2" sourceRef="decide" targetRef="serve" />
    <userTask id="serve" />`),
		}))
		decs, _ := field(dep, "deployedDecisionDefinitions").(map[string]any)
		drds, _ := field(dep, "deployedDecisionRequirementsDefinitions").(map[string]any)
		if len(decs) != 2 || len(drds) != 1 {
			t.Fatalf("deployment: %v", dep)
		}
		list := a.ok(http.StatusOK, "GET", "/decision-definition?key=dish", nil).([]any)
		if len(list) != 1 || field(list[0], "decisionRequirementsDefinitionKey") != "dishes" || field(list[0], "resource") != "dish.dmn" {
			t.Fatalf("list: %v", list)
		}
		id := field(list[0], "id").(string)
		if n := field(a.ok(http.StatusOK, "GET", "/decision-definition/count?decisionRequirementsDefinitionKey=dishes", nil), "count"); n != float64(2) {
			t.Errorf("count %v", n)
		}
		if got := a.ok(http.StatusOK, "GET", "/decision-definition/"+id, nil); field(got, "key") != "dish" || field(got, "version") != float64(1) {
			t.Errorf("by id: %v", got)
		}
		if got := a.ok(http.StatusOK, "GET", "/decision-definition/key/dish", nil); field(got, "id") != id {
			t.Errorf("by key: %v", got)
		}
		if got := a.ok(http.StatusOK, "GET", "/decision-definition/key/dish/xml", nil); !strings.Contains(fmt.Sprint(field(got, "dmnXml")), "decisionTable") {
			t.Errorf("xml by key: %v", got)
		}
		if got := a.ok(http.StatusOK, "GET", "/decision-definition/"+id+"/xml", nil); field(got, "id") != id || !strings.Contains(fmt.Sprint(field(got, "dmnXml")), `<decision id="dish"`) {
			t.Errorf("xml: %v", got)
		}
		if status, _ := a.call("GET", "/decision-definition/"+id+"/diagram", nil); status != http.StatusNoContent {
			t.Errorf("diagram: %d, want 204 (none deployed)", status)
		}
		a.wantError(http.StatusNotFound, "No matching decision definition with id nope", "GET", "/decision-definition/nope", nil)
		a.wantError(http.StatusNotFound, "No matching decision definition with key: dish and tenant-id: acme", "GET", "/decision-definition/key/dish/tenant-id/acme", nil)
		a.wantError(http.StatusNotFound, "No matching decision definition with key: nope and no tenant-id", "POST", "/decision-definition/key/nope/evaluate", map[string]any{})

		// Evaluation by key and by id.
		res := a.ok(http.StatusOK, "POST", "/decision-definition/key/dish/evaluate", map[string]any{"variables": map[string]any{
			"month": map[string]any{"value": 1, "type": "Integer"}, "guests": map[string]any{"value": 4, "type": "Integer"}}}).([]any)
		if len(res) != 1 || field(res[0], "dish", "value") != "Spareribs" || field(res[0], "dish", "type") != "String" {
			t.Errorf("evaluate: %v", res)
		}
		res = a.ok(http.StatusOK, "POST", "/decision-definition/"+id+"/evaluate", map[string]any{"variables": map[string]any{
			"month": map[string]any{"value": 7, "type": "Integer"}, "guests": map[string]any{"value": 9, "type": "Integer"}}}).([]any)
		if len(res) != 1 || field(res[0], "dish", "value") != "Salad" {
			t.Errorf("evaluate by id: %v", res)
		}
		a.wantError(http.StatusInternalServerError, "Cannot evaluate decision "+id+": ", "POST", "/decision-definition/"+id+"/evaluate", map[string]any{"variables": map[string]any{
			"month": map[string]any{"value": "January", "type": "String"}, "guests": map[string]any{"value": 9, "type": "Integer"}}})
		a.wantError(http.StatusBadRequest, "", "POST", "/decision-definition/"+id+"/evaluate", map[string]any{"variables": map[string]any{
			"month": map[string]any{"value": "x", "type": "Integer"}}})

		// Requirements definitions.
		drdList := a.ok(http.StatusOK, "GET", "/decision-requirements-definition?key=dishes", nil).([]any)
		if len(drdList) != 1 || field(drdList[0], "name") != "Dishes" {
			t.Fatalf("requirements: %v", drdList)
		}
		drdID := field(drdList[0], "id").(string)
		if got := a.ok(http.StatusOK, "GET", "/decision-requirements-definition/key/dishes", nil); field(got, "id") != drdID {
			t.Errorf("requirements by key: %v", got)
		}
		if got := a.ok(http.StatusOK, "GET", "/decision-requirements-definition/"+drdID+"/xml", nil); field(got, "id") != drdID || field(got, "dmnXml") == nil {
			t.Errorf("requirements xml: %v", got)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/decision-requirements-definition/count", nil), "count"); n != float64(1) {
			t.Errorf("requirements count %v", n)
		}
		a.wantError(http.StatusNotFound, "No matching decision requirements definition with id nope", "GET", "/decision-requirements-definition/nope", nil)

		// The business rule task, then the history of all evaluations.
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/order/start", map[string]any{"variables": map[string]any{
			"month": map[string]any{"value": 12, "type": "Integer"}, "guests": map[string]any{"value": 2, "type": "Integer"}}}), "id").(string)
		if v := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables/dish", nil); field(v, "value") != "Spareribs" {
			t.Errorf("result variable: %v", v)
		}
		if n := field(a.ok(http.StatusOK, "GET", "/history/decision-instance/count", nil), "count"); n != float64(6) {
			t.Errorf("%v evaluations in history, want 6 (3 evaluations of dish, each with season)", n)
		}
		hist := a.ok(http.StatusOK, "GET", "/history/decision-instance?processInstanceId="+pi+"&includeInputs=true&includeOutputs=true&rootDecisionInstancesOnly=true", nil).([]any)
		if len(hist) != 1 || field(hist[0], "activityId") != "decide" || field(hist[0], "decisionDefinitionKey") != "dish" {
			t.Fatalf("history of the process: %v", hist)
		}
		ins, _ := field(hist[0], "inputs").([]any)
		outs, _ := field(hist[0], "outputs").([]any)
		if len(ins) != 2 || field(ins[0], "clauseName") != "Season" || field(ins[0], "value") != "Winter" || field(ins[0], "type") != "String" {
			t.Errorf("inputs: %v", ins)
		}
		if len(outs) != 1 || field(outs[0], "ruleId") != "r1" || field(outs[0], "ruleOrder") != float64(1) || field(outs[0], "variableName") != "dish" || field(outs[0], "value") != "Spareribs" {
			t.Errorf("outputs: %v", outs)
		}
		hid := field(hist[0], "id").(string)
		stats := a.ok(http.StatusOK, "GET", "/history/decision-requirements-definition/"+drdID+"/statistics", nil).([]any)
		if len(stats) != 2 || field(stats[0], "decisionDefinitionKey") != "dish" || field(stats[0], "evaluations") != float64(3) || field(stats[1], "evaluations") != float64(3) {
			t.Errorf("statistics: %v", stats)
		}
		stats = a.ok(http.StatusOK, "GET", "/history/decision-requirements-definition/"+drdID+"/statistics?decisionInstanceId="+hid, nil).([]any)
		if len(stats) != 2 || field(stats[0], "evaluations") != float64(1) {
			t.Errorf("statistics of one evaluation: %v", stats)
		}
		a.wantError(http.StatusNotFound, "No matching decision requirements definition with id nope", "GET", "/history/decision-requirements-definition/nope/statistics", nil)
		report := a.ok(http.StatusOK, "GET", "/history/decision-definition/cleanable-decision-instance-report?decisionDefinitionKeyIn=dish", nil).([]any)
		if len(report) != 1 || field(report[0], "finishedDecisionInstanceCount") != float64(3) || field(report[0], "cleanableDecisionInstanceCount") != float64(0) ||
			field(report[0], "historyTimeToLive") != nil {
			t.Errorf("cleanable report: %v", report)
		}
		one := a.ok(http.StatusOK, "GET", "/history/decision-instance/"+hid, nil)
		if _, has := one.(map[string]any)["inputs"]; has || field(one, "processInstanceId") != pi {
			t.Errorf("by id without inputs: %v", one)
		}
		one = a.ok(http.StatusOK, "GET", "/history/decision-instance/"+hid+"?includeOutputs=true", nil)
		if outs, _ := field(one, "outputs").([]any); len(outs) != 1 {
			t.Errorf("by id with outputs: %v", one)
		}
		a.wantError(http.StatusNotFound, "Historic decision instance with id 'nope' does not exist", "GET", "/history/decision-instance/nope", nil)
		a.wantError(http.StatusBadRequest, "userId", "GET", "/history/decision-instance?userId=demo", nil)
		a.wantError(http.StatusBadRequest, "sortBy", "GET", "/decision-definition?sortBy=bogus&sortOrder=asc", nil)

		// The history time to live.
		a.ok(http.StatusNoContent, "PUT", "/decision-definition/"+id+"/history-time-to-live", map[string]any{"historyTimeToLive": 5})
		if got := a.ok(http.StatusOK, "GET", "/decision-definition/"+id, nil); field(got, "historyTimeToLive") != float64(5) {
			t.Errorf("history time to live: %v", got)
		}
		a.wantError(http.StatusBadRequest, "negative", "PUT", "/decision-definition/"+id+"/history-time-to-live", map[string]any{"historyTimeToLive": -1})
	})
}
