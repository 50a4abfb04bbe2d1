package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/rest"
)

// The fixture of the parameter test: two processes, three instances, in
// every state a list can tell apart.
const (
	fixtureReview = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="review" name="Review" isExecutable="true" camunda:versionTag="v1">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <userTask id="check" name="Check the order" camunda:candidateGroups="sales" camunda:priority="70" camunda:dueDate="2030-06-01T00:00:00Z"/>
    <sequenceFlow id="f2" sourceRef="check" targetRef="charge"/>
    <serviceTask id="charge" camunda:asyncBefore="true" camunda:class="boom"/>
    <sequenceFlow id="f3" sourceRef="charge" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`
	fixtureShip = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="ship" name="Ship" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="pack"/>
    <serviceTask id="pack" camunda:type="external" camunda:topic="packing"/>
    <sequenceFlow id="f2" sourceRef="pack" targetRef="label"/>
    <userTask id="label" name="Print the label" camunda:candidateUsers="carl"/>
    <sequenceFlow id="f3" sourceRef="label" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`
	fixtureWait = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <message id="m" name="go"/><signal id="s" name="stop"/>
  <process id="wait" name="Wait" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="gw"/>
    <eventBasedGateway id="gw"/>
    <sequenceFlow id="f2" sourceRef="gw" targetRef="go"/>
    <intermediateCatchEvent id="go"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
    <sequenceFlow id="f3" sourceRef="gw" targetRef="stop"/>
    <intermediateCatchEvent id="stop"><signalEventDefinition signalRef="s"/></intermediateCatchEvent>
    <sequenceFlow id="f4" sourceRef="gw" targetRef="later"/>
    <intermediateCatchEvent id="later"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
    <sequenceFlow id="f5" sourceRef="go" targetRef="end"/><sequenceFlow id="f6" sourceRef="stop" targetRef="end"/>
    <sequenceFlow id="f7" sourceRef="later" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`
)

// fixture is what the parameter test's values refer to, as {name}.
type fixture map[string]string

// seedFixture deploys review (deployment "first") and ship ("second"),
// starts review twice (order-1, order-2) and ship once (order-3):
// order-1's task done by ann, its job failed into an incident; order-2's
// task assigned to bob; order-3 at its external task, locked by worker w1.
func seedFixture(t *testing.T, a *api) fixture {
	a.eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
		return errors.New("card declined")
	}))
	fx := fixture{}
	d1 := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("first", map[string]string{"review.bpmn": fixtureReview}))
	fx["deployment1"] = field(d1, "id").(string)
	time.Sleep(5 * time.Millisecond) // deployment times apart
	fx["between"] = time.Now().UTC().Format("2006-01-02T15:04:05.000-0700")
	time.Sleep(5 * time.Millisecond)
	d2 := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("second", map[string]string{"ship.bpmn": fixtureShip, "dish.dmn": enginetest.DishDMN}))
	fx["deployment2"] = field(d2, "id").(string)
	fx["deployment2Time"] = field(d2, "deploymentTime").(string)
	for k, d := range map[string]any{"review": d1, "ship": d2} {
		for id := range field(d, "deployedProcessDefinitions").(map[string]any) {
			fx["def-"+k] = id
		}
	}
	start := func(key, bk string) string {
		return field(a.ok(http.StatusOK, "POST", "/process-definition/key/"+key+"/start", map[string]any{"businessKey": bk}), "id").(string)
	}
	fx["pi1"], fx["pi2"], fx["pi3"] = start("review", "order-1"), start("review", "order-2"), start("ship", "order-3")
	task := func(pi string) string {
		ts := a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)
		return field(ts[0], "id").(string)
	}
	fx["task1"], fx["task2"], fx["task3"] = task(fx["pi1"]), task(fx["pi2"]), ""
	a.ok(http.StatusNoContent, "POST", "/task/"+fx["task1"]+"/claim", map[string]any{"userId": "ann"})
	a.ok(http.StatusNoContent, "POST", "/task/"+fx["task1"]+"/complete", map[string]any{})
	a.ok(http.StatusNoContent, "POST", "/task/"+fx["task2"]+"/claim", map[string]any{"userId": "bob"})
	jobs := a.ok(http.StatusOK, "GET", "/job?processInstanceId="+fx["pi1"], nil).([]any)
	fx["job1"], fx["jobdef1"] = field(jobs[0], "id").(string), field(jobs[0], "jobDefinitionId").(string)
	for range 3 {
		a.call("POST", "/job/"+fx["job1"]+"/execute", nil)
	}
	incs := a.ok(http.StatusOK, "GET", "/incident", nil).([]any)
	fx["incident1"], fx["incidentMessage1"] = field(incs[0], "id").(string), field(incs[0], "incidentMessage").(string)
	locked := a.ok(http.StatusOK, "POST", "/external-task/fetchAndLock", map[string]any{
		"workerId": "w1", "maxTasks": 1, "topics": []any{map[string]any{"topicName": "packing", "lockDuration": 600000}},
	}).([]any)
	fx["ext3"] = field(locked[0], "id").(string)
	// Variables: each instance's customer and amount (order-2's declared
	// Long), and a local variable of order-2's task, named var<n><name>.
	for pi, vars := range map[string]string{"pi1": `"customer": {"value": "Acme", "type": "String"}, "amount": {"value": 100, "type": "Integer"}`,
		"pi2": `"customer": {"value": "Beta", "type": "String"}, "amount": {"value": 250, "type": "Long"}`,
		"pi3": `"customer": {"value": "ACME", "type": "String"}`} {
		a.ok(http.StatusNoContent, "POST", "/process-instance/"+fx[pi]+"/variables", jsonBody(`{"modifications": {`+vars+`}}`))
	}
	a.ok(http.StatusNoContent, "PUT", "/task/"+fx["task2"]+"/localVariables/note", map[string]any{"value": "rush", "type": "String"})
	// And one removed again, DELETED in history.
	a.ok(http.StatusNoContent, "PUT", "/process-instance/"+fx["pi3"]+"/variables/temp", map[string]any{"value": 1, "type": "Integer"})
	fx["vardeleted"] = field(a.ok(http.StatusOK, "GET", "/variable-instance?variableName=temp", nil).([]any)[0], "id").(string)
	a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+fx["pi3"]+"/variables/temp", nil)
	// order-2's quantity set twice, its remark once (their details).
	for _, vars := range []map[string]any{
		{"quantity": map[string]any{"value": 5, "type": "Integer"}, "remark": map[string]any{"value": "rush", "type": "String"}},
		{"quantity": map[string]any{"value": 7, "type": "Integer"}},
	} {
		a.ok(http.StatusNoContent, "POST", "/process-instance/"+fx["pi2"]+"/variables", map[string]any{"modifications": vars})
	}
	for _, v := range a.ok(http.StatusOK, "GET", "/variable-instance", nil).([]any) {
		owner := "task2"
		if field(v, "taskId") == nil {
			owner = strings.TrimPrefix(map[string]string{fx["pi1"]: "pi1", fx["pi2"]: "pi2", fx["pi3"]: "pi3"}[field(v, "processInstanceId").(string)], "pi")
		}
		fx["var"+owner+field(v, "name").(string)] = field(v, "id").(string)
	}
	seedWaitFixture(t, a, fx)
	// Tenant acme deploys review too: its own version 1, no instances, not
	// startable in the tasklist, another category (targetNamespace).
	d3 := a.ok(http.StatusOK, "POST", "/deployment/create", tenantDeployment("fourth", "acme", map[string]string{
		"review.bpmn": strings.NewReplacer(`camunda:versionTag="v1"`, `camunda:versionTag="v1" camunda:isStartableInTasklist="false"`,
			`targetNamespace="t"`, `targetNamespace="acme"`).Replace(fixtureReview),
		"dish.dmn": strings.NewReplacer(`namespace="test"`, `namespace="acme"`,
			`<decision id="dish" name="Dish">`, `<decision id="dish" name="Dish" camunda:versionTag="v1">`).Replace(enginetest.DishDMN)}))
	fx["deployment4"] = field(d3, "id").(string)
	fx["deployment1Time"] = field(d1, "deploymentTime").(string)
	for id := range field(d3, "deployedProcessDefinitions").(map[string]any) {
		fx["def-review-acme"] = id
	}
	seedDecisionFixture(t, a, fx)
	acmeJobDefs := a.ok(http.StatusOK, "GET", "/job-definition?processDefinitionId="+fx["def-review-acme"], nil).([]any)
	fx["jobdef-acme"] = field(acmeJobDefs[0], "id").(string)
	// Two standalone tasks, made last so that the other lists keep their
	// rows: task4 of tenant acme with an owner, candidates and a follow-up
	// date; task5, its subtask (of acme too), delegated by erin to dave.
	time.Sleep(2 * time.Millisecond) // task2's last update before task4's creation
	fx["task4"], fx["task5"] = "fixture-task-4", "fixture-task-5"
	a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": fx["task4"], "name": "Call the customer",
		"description": "Ask about the delay", "owner": "olga", "priority": 20, "followUp": "2031-01-01T00:00:00.000+0000", "tenantId": "acme"})
	fx["created4"] = field(a.ok(http.StatusOK, "GET", "/task/"+fx["task4"], nil), "created").(string)
	time.Sleep(2 * time.Millisecond) // updates and task5 after task4's creation
	for _, link := range []map[string]any{{"groupId": "support"}, {"groupId": "sales-east"}, {"userId": "carl"}} {
		link["type"] = "candidate"
		a.ok(http.StatusNoContent, "POST", "/task/"+fx["task4"]+"/identity-links", link)
	}
	a.ok(http.StatusNoContent, "POST", "/task/create", map[string]any{"id": fx["task5"], "name": "Find the order",
		"parentTaskId": fx["task4"], "assignee": "erin"})
	a.ok(http.StatusNoContent, "POST", "/task/"+fx["task5"]+"/delegate", map[string]any{"userId": "dave"})
	return fx
}

// seedDecisionFixture names the decisions deployed with ship and by acme
// (dec-<key>, dec-<key>-acme; drd-dishes, drd-dishes-acme) and evaluates
// dish twice outside processes: hdi-dish1 and hdi-season1 (winter),
// hdi-dish2 and hdi-season2 (summer).
func seedDecisionFixture(t *testing.T, a *api, fx fixture) {
	for _, d := range a.ok(http.StatusOK, "GET", "/decision-definition", nil).([]any) {
		name := "dec-" + field(d, "key").(string)
		if field(d, "tenantId") == "acme" {
			name += "-acme"
		}
		fx[name] = field(d, "id").(string)
	}
	for _, d := range a.ok(http.StatusOK, "GET", "/decision-requirements-definition", nil).([]any) {
		name := "drd-dishes"
		if field(d, "tenantId") == "acme" {
			name += "-acme"
		}
		fx[name] = field(d, "id").(string)
	}
	for i, month := range []int{1, 7} {
		time.Sleep(2 * time.Millisecond) // evaluation times apart
		a.ok(http.StatusOK, "POST", "/decision-definition/"+fx["dec-dish"]+"/evaluate", map[string]any{"variables": map[string]any{
			"month": map[string]any{"value": month, "type": "Integer"}, "guests": map[string]any{"value": 2, "type": "Integer"}}})
		for _, h := range a.ok(http.StatusOK, "GET", "/history/decision-instance", nil).([]any) {
			id := field(h, "id").(string)
			if !slices.Contains(slices.Collect(maps.Values(fx)), id) {
				fx[fmt.Sprintf("hdi-%s%d", field(h, "decisionDefinitionKey"), i+1)] = id
			}
		}
	}
}

// seedWaitFixture deploys wait ("third") and starts it (order-7, pi4): at
// its event-based gateway, subscribed to message go and signal stop, its
// timer job (jobtimer) due in an hour; an incident raised by hand on it
// (incident2, of type custom).
func seedWaitFixture(t *testing.T, a *api, fx fixture) {
	time.Sleep(5 * time.Millisecond) // the first jobs and incidents apart
	fx["beforeWait"] = time.Now().UTC().Format("2006-01-02T15:04:05.000-0700")
	fx["halfHour"] = time.Now().Add(30 * time.Minute).UTC().Format("2006-01-02T15:04:05.000-0700")
	fx["message1"] = field(a.ok(http.StatusOK, "GET", "/job/"+fx["job1"], nil), "exceptionMessage").(string)
	time.Sleep(5 * time.Millisecond)
	d := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("third", map[string]string{"wait.bpmn": fixtureWait}))
	fx["deployment3"] = field(d, "id").(string)
	for id := range field(d, "deployedProcessDefinitions").(map[string]any) {
		fx["def-wait"] = id
	}
	fx["pi4"] = field(a.ok(http.StatusOK, "POST", "/process-definition/key/wait/start", map[string]any{"businessKey": "order-7"}), "id").(string)
	timer := a.ok(http.StatusOK, "GET", "/job?processInstanceId="+fx["pi4"], nil).([]any)
	fx["jobtimer"], fx["jobdeftimer"] = field(timer[0], "id").(string), field(timer[0], "jobDefinitionId").(string)
	for _, name := range []string{"go", "stop"} {
		subs := a.ok(http.StatusOK, "GET", "/event-subscription?eventName="+name, nil).([]any)
		fx["sub-"+name] = field(subs[0], "id").(string)
	}
	in := a.ok(http.StatusOK, "POST", "/execution/"+fx["pi4"]+"/create-incident",
		map[string]any{"incidentType": "custom", "configuration": "cfg", "message": "manual check"})
	fx["incident2"] = field(in, "id").(string)
}

// jsonBody is JSON text as a request body.
func jsonBody(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

// paramCase is one documented parameter given a value (and after an &
// the other parameters it needs), and the ids of the rows that must come
// back (by the {name}s of the fixture, in any order).
type paramCase struct {
	value string
	want  string
}

// paramCases: for every GET list bpmnlite serves, a case for every
// documented query parameter it honours. The test fails for an honoured
// parameter without a case, so each one is proven to filter.
var paramCases = map[string]map[string]paramCase{
	"/decision-definition": {
		"decisionDefinitionId":                  {"{dec-dish}", "dec-dish"},
		"decisionDefinitionIdIn":                {"{dec-dish},{dec-season-acme}", "dec-dish dec-season-acme"},
		"name":                                  {"Dish", "dec-dish dec-dish-acme"},
		"nameLike":                              {"Sea%", "dec-season dec-season-acme"},
		"deploymentId":                          {"{deployment2}", "dec-dish dec-season"},
		"deployedAfter":                         {"{between}", "dec-dish dec-season dec-dish-acme dec-season-acme"},
		"deployedAt":                            {"{deployment2Time}", "dec-dish dec-season"},
		"key":                                   {"dish", "dec-dish dec-dish-acme"},
		"keyLike":                               {"sea%", "dec-season dec-season-acme"},
		"category":                              {"acme", "dec-dish-acme dec-season-acme"},
		"categoryLike":                          {"te%", "dec-dish dec-season"},
		"version":                               {"2", ""},
		"latestVersion":                         {"true&key=dish", "dec-dish dec-dish-acme"},
		"resourceName":                          {"dish.dmn", "dec-dish dec-season dec-dish-acme dec-season-acme"},
		"resourceNameLike":                      {"%.bpmn", ""},
		"decisionRequirementsDefinitionId":      {"{drd-dishes-acme}", "dec-dish-acme dec-season-acme"},
		"decisionRequirementsDefinitionKey":     {"dishes&tenantIdIn=acme", "dec-dish-acme dec-season-acme"},
		"withoutDecisionRequirementsDefinition": {"true", ""},
		"tenantIdIn":                            {"acme", "dec-dish-acme dec-season-acme"},
		"withoutTenantId":                       {"true", "dec-dish dec-season"},
		"includeDecisionDefinitionsWithoutTenantId": {"true&tenantIdIn=acme&key=season", "dec-season dec-season-acme"},
		"versionTag":     {"v1", "dec-dish-acme"},
		"versionTagLike": {"v%", "dec-dish-acme"},
	},
	"/decision-requirements-definition": {
		"decisionRequirementsDefinitionId":   {"{drd-dishes}", "drd-dishes"},
		"decisionRequirementsDefinitionIdIn": {"{drd-dishes},{drd-dishes-acme}", "drd-dishes drd-dishes-acme"},
		"name":                               {"Dishes", "drd-dishes drd-dishes-acme"},
		"nameLike":                           {"Nope%", ""},
		"deploymentId":                       {"{deployment4}", "drd-dishes-acme"},
		"key":                                {"dishes", "drd-dishes drd-dishes-acme"},
		"keyLike":                            {"x%", ""},
		"category":                           {"acme", "drd-dishes-acme"},
		"categoryLike":                       {"te%", "drd-dishes"},
		"version":                            {"2", ""},
		"latestVersion":                      {"true&tenantIdIn=acme", "drd-dishes-acme"},
		"resourceName":                       {"other.dmn", ""},
		"resourceNameLike":                   {"%sh.dmn", "drd-dishes drd-dishes-acme"},
		"tenantIdIn":                         {"acme", "drd-dishes-acme"},
		"withoutTenantId":                    {"true", "drd-dishes"},
		"includeDecisionRequirementsDefinitionsWithoutTenantId": {"true&tenantIdIn=acme", "drd-dishes drd-dishes-acme"},
	},
	"/history/decision-definition/cleanable-decision-instance-report": {
		"decisionDefinitionIdIn":  {"{dec-dish},{dec-season-acme}", "dec-dish dec-season-acme"},
		"decisionDefinitionKeyIn": {"season", "dec-season dec-season-acme"},
		"tenantIdIn":              {"acme", "dec-dish-acme dec-season-acme"},
		"withoutTenantId":         {"true", "dec-dish dec-season"},
		"compact":                 {"true", "dec-dish dec-season"},
	},
	"/history/decision-instance": {
		"decisionInstanceId":                {"{hdi-dish1}", "hdi-dish1"},
		"decisionInstanceIdIn":              {"{hdi-dish1},{hdi-season2}", "hdi-dish1 hdi-season2"},
		"decisionDefinitionId":              {"{dec-dish}", "hdi-dish1 hdi-dish2"},
		"decisionDefinitionIdIn":            {"{dec-season},{dec-season-acme}", "hdi-season1 hdi-season2"},
		"decisionDefinitionKey":             {"dish", "hdi-dish1 hdi-dish2"},
		"decisionDefinitionKeyIn":           {"season,nope", "hdi-season1 hdi-season2"},
		"decisionDefinitionName":            {"Season", "hdi-season1 hdi-season2"},
		"decisionDefinitionNameLike":        {"Di%", "hdi-dish1 hdi-dish2"},
		"processDefinitionId":               {"{def-ship}", ""},
		"processDefinitionKey":              {"ship", ""},
		"processInstanceId":                 {"{pi1}", ""},
		"activityIdIn":                      {"decide", ""},
		"activityInstanceIdIn":              {"decide:1", ""},
		"tenantIdIn":                        {"acme", ""},
		"withoutTenantId":                   {"true&decisionDefinitionKey=season", "hdi-season1 hdi-season2"},
		"evaluatedBefore":                   {"{halfHour}&decisionDefinitionKey=dish", "hdi-dish1 hdi-dish2"},
		"evaluatedAfter":                    {"{halfHour}", ""},
		"rootDecisionInstanceId":            {"{hdi-dish2}", "hdi-dish2 hdi-season2"},
		"rootDecisionInstancesOnly":         {"true", "hdi-dish1 hdi-dish2"},
		"decisionRequirementsDefinitionId":  {"{drd-dishes-acme}", ""},
		"decisionRequirementsDefinitionKey": {"dishes&decisionDefinitionKey=season", "hdi-season1 hdi-season2"},
	},
	"/deployment": {
		"id":                                {"{deployment1}", "deployment1"},
		"name":                              {"second", "deployment2"},
		"nameLike":                          {"fir%", "deployment1"},
		"source":                            {"nowhere", ""},
		"withoutSource":                     {"true", "deployment1 deployment2 deployment3 deployment4"},
		"after":                             {"{between}", "deployment2 deployment3 deployment4"},
		"before":                            {"{between}", "deployment1"},
		"tenantIdIn":                        {"acme,other", "deployment4"},
		"withoutTenantId":                   {"true", "deployment1 deployment2 deployment3"},
		"includeDeploymentsWithoutTenantId": {"true&tenantIdIn=acme", "deployment1 deployment2 deployment3 deployment4"},
	},
	"/process-definition": {
		"processDefinitionId":    {"{def-ship}", "def-ship"},
		"processDefinitionIdIn":  {"{def-ship},{def-review}", "def-ship def-review"},
		"key":                    {"review", "def-review def-review-acme"},
		"keysIn":                 {"ship,nope", "def-ship"},
		"keyLike":                {"rev%", "def-review def-review-acme"},
		"name":                   {"Ship", "def-ship"},
		"category":               {"acme", "def-review-acme"},
		"categoryLike":           {"a%", "def-review-acme"},
		"nameLike":               {"Rev%", "def-review def-review-acme"},
		"deploymentId":           {"{deployment2}", "def-ship"},
		"deployedAfter":          {"{between}", "def-ship def-review-acme def-wait"},
		"deployedAt":             {"{deployment1Time}", "def-review"},
		"version":                {"2", ""},
		"latestVersion":          {"true", "def-review def-ship def-review-acme def-wait"},
		"resourceName":           {"ship.bpmn", "def-ship"},
		"resourceNameLike":       {"%view.bpmn", "def-review def-review-acme"},
		"versionTag":             {"v1", "def-review def-review-acme"},
		"versionTagLike":         {"v%", "def-review def-review-acme"},
		"withoutVersionTag":      {"true", "def-ship def-wait"},
		"suspended":              {"true", ""},
		"startableInTasklist":    {"true", "def-review def-ship def-wait"},
		"notStartableInTasklist": {"true", "def-review-acme"},
		"active":                 {"true&key=ship", "def-ship"},
		"incidentId":             {"{incident1}", "def-review"},
		"incidentType":           {"failedJob", "def-review"},
		"incidentMessage":        {"card declined", "def-review"},
		"incidentMessageLike":    {"%declined", "def-review"},
		"tenantIdIn":             {"acme", "def-review-acme"},
		"withoutTenantId":        {"true", "def-review def-ship def-wait"},
		"includeProcessDefinitionsWithoutTenantId": {"true&tenantIdIn=acme", "def-review def-ship def-review-acme def-wait"},
	},
	"/process-instance": {
		"processInstanceIds":        {"{pi2},{pi3}", "pi2 pi3"},
		"processDefinitionKey":      {"ship", "pi3"},
		"processDefinitionId":       {"{def-review}", "pi1 pi2"},
		"businessKey":               {"order-2", "pi2"},
		"businessKeyLike":           {"%-2", "pi2"},
		"processDefinitionKeyIn":    {"ship,other", "pi3"},
		"processDefinitionKeyNotIn": {"ship", "pi1 pi2 pi4"},
		"deploymentId":              {"{deployment2}", "pi3"},
		"superProcessInstance":      {"{pi1}", ""},
		"subProcessInstance":        {"{pi1}", ""},
		"active":                    {"true", "pi1 pi2 pi3 pi4"},
		"suspended":                 {"true", ""},
		"withIncident":              {"true", "pi1 pi4"},
		"incidentId":                {"{incident1}", "pi1"},
		"incidentType":              {"failedJob", "pi1"},
		"incidentMessage":           {"{incidentMessage1}", "pi1"},
		"incidentMessageLike":       {"%declined%", "pi1"},
		"activityIdIn":              {"check,pack", "pi2 pi3"},
		"rootProcessInstances":      {"true", "pi1 pi2 pi3 pi4"},
		"leafProcessInstances":      {"true", "pi1 pi2 pi3 pi4"},
		"rootProcessInstanceId":     {"{pi2}", "pi2"},
		// The fixture's tenant (acme) has no instances.
		"tenantIdIn":                       {"acme", ""},
		"withoutTenantId":                  {"true", "pi1 pi2 pi3 pi4"},
		"processDefinitionWithoutTenantId": {"true", "pi1 pi2 pi3 pi4"},
		// Variable conditions: the instance's own variables, values as
		// strings (or dates), as Camunda's GET form.
		"variables":                {"customer_eq_Acme", "pi1"},
		"variableNamesIgnoreCase":  {"true&variables=CUSTOMER_eq_Acme", "pi1"},
		"variableValuesIgnoreCase": {"true&variables=customer_eq_acme", "pi1 pi3"},
	},
	"/history/process-instance": {
		"processInstanceId":              {"{pi3}", "pi3"},
		"processDefinitionKey":           {"review", "pi1 pi2"},
		"processDefinitionId":            {"{def-ship}", "pi3"},
		"processInstanceBusinessKey":     {"order-1", "pi1"},
		"finished":                       {"true", ""},
		"unfinished":                     {"true", "pi1 pi2 pi3 pi4"},
		"processInstanceIds":             {"{pi1},{pi3}", "pi1 pi3"},
		"processInstanceIdNotIn":         {"{pi1},{pi3}", "pi2 pi4"},
		"processDefinitionKeyIn":         {"ship,nope", "pi3"},
		"processDefinitionKeyNotIn":      {"ship,nope", "pi1 pi2 pi4"},
		"processDefinitionName":          {"Review", "pi1 pi2"},
		"processDefinitionNameLike":      {"Sh%", "pi3"},
		"processInstanceBusinessKeyIn":   {"order-1,order-3", "pi1 pi3"},
		"processInstanceBusinessKeyLike": {"%-2", "pi2"},
		"rootProcessInstances":           {"true", "pi1 pi2 pi3 pi4"},
		"rootProcessInstanceId":          {"{pi2}", "pi2"},
		"superProcessInstanceId":         {"{pi1}", ""},
		"subProcessInstanceId":           {"{pi1}", ""},
		"withIncidents":                  {"true", "pi1 pi4"},
		"withRootIncidents":              {"true", "pi1 pi4"},
		"incidentIdIn":                   {"{incident1},nope", "pi1"},
		"incidentType":                   {"failedJob", "pi1"},
		"incidentStatus":                 {"resolved", ""},
		"incidentMessage":                {"card declined", "pi1"},
		"incidentMessageLike":            {"card%", "pi1"},
		"startedBefore":                  {"2000-01-01T00:00:00.000+0000", ""},
		"startedAfter":                   {"{between}", "pi1 pi2 pi3 pi4"},
		"finishedBefore":                 {"2100-01-01T00:00:00.000+0000", ""},
		"finishedAfter":                  {"2000-01-01T00:00:00.000+0000", ""},
		"executedActivityAfter":          {"{between}", "pi1 pi2 pi3 pi4"},
		"executedActivityBefore":         {"2000-01-01T00:00:00.000+0000", ""},
		"executedJobAfter":               {"{between}", "pi1 pi4"},
		"executedJobBefore":              {"2000-01-01T00:00:00.000+0000", ""},
		"withJobsRetrying":               {"true", ""},
		"activityIdIn":                   {"check,pack", "pi2 pi3"},
		"executedActivityIdIn":           {"check", "pi1"},
		"activeActivityIdIn":             {"check,pack", "pi2 pi3"},
		"active":                         {"true", "pi1 pi2 pi3 pi4"},
		"suspended":                      {"true", ""},
		"completed":                      {"true", ""},
		"externallyTerminated":           {"true", ""},
		"internallyTerminated":           {"true", ""},
		"variables":                      {"customer_like_%et%", "pi2"},
		"variableNamesIgnoreCase":        {"true&variables=Customer_neq_Beta", "pi1 pi3"},
		"variableValuesIgnoreCase":       {"true&variables=customer_eq_acme", "pi1 pi3"},
	},
	"/task": {
		"taskId":               {"{task2}", "task2"},
		"taskIdIn":             {"{task2},{task5}", "task2 task5"},
		"processInstanceId":    {"{pi2}", "task2"},
		"processInstanceIdIn":  {"{pi2},{pi1}", "task2"},
		"taskDefinitionKey":    {"check", "task2"},
		"assignee":             {"bob", "task2"},
		"candidateGroup":       {"sales", ""}, // assigned: not a candidate's any more
		"includeAssignedTasks": {"true&candidateGroup=sales", "task2"},

		"processInstanceBusinessKey":     {"order-2", "task2"},
		"processInstanceBusinessKeyIn":   {"order-1,order-2", "task2"},
		"processInstanceBusinessKeyLike": {"order-%", "task2"},
		"processDefinitionId":            {"{def-review}", "task2"},
		"processDefinitionKey":           {"review", "task2"},
		"processDefinitionKeyIn":         {"ship,review", "task2"},
		"processDefinitionName":          {"Review", "task2"},
		"processDefinitionNameLike":      {"Rev%", "task2"},
		"executionId":                    {"{pi2}", "task2"},
		"activityInstanceIdIn":           {"{act2check},nope", "task2"},
		"assigneeLike":                   {"%o%", "task2"},
		"assigneeIn":                     {"bob,dave", "task2 task5"},
		"assigneeNotIn":                  {"bob", "task5"}, // no assignee: not in the list either, as SQL has it
		"assigned":                       {"true", "task2 task5"},
		"unassigned":                     {"true", "task4"},
		"owner":                          {"olga", "task4"},
		"involvedUser":                   {"carl", "task4"}, // a candidate user
		"delegationState":                {"pending", "task5"},
		"candidateGroups":                {"sales-east,nope", "task4"},
		"candidateGroupLike":             {"sales%", "task4"},
		"withCandidateGroups":            {"true", "task4"},
		"withoutCandidateGroups":         {"true&includeAssignedTasks=true", "task5"},
		"withCandidateUsers":             {"true", "task4"},
		"withoutCandidateUsers":          {"true&includeAssignedTasks=true", "task2 task5"},
		"taskDefinitionKeyIn":            {"check,label", "task2"},
		"taskDefinitionKeyNotIn":         {"label", "task2"},
		"taskDefinitionKeyLike":          {"ch%", "task2"},
		"name":                           {"check the ORDER", "task2"},
		"nameNotEqual":                   {"Check the order", "task4 task5"},
		"nameLike":                       {"find%", "task5"},
		"nameNotLike":                    {"%order%", "task4"},
		"description":                    {"ask about the delay", "task4"},
		"descriptionLike":                {"%DELAY", "task4"},
		"parentTaskId":                   {"{task4}", "task5"},
		"dueDate":                        {"2030-06-01T00:00:00.000+0000", "task2"},
		"followUpDate":                   {"2031-01-01T00:00:00.000+0000", "task4"},
		"followUpBeforeOrNotExistent":    {"2031-01-01T00:00:00.000+0000", "task2 task5"},
		"createdOn":                      {"{created4}", "task4"},
		"createdBefore":                  {"{created4}", "task2"},
		"createdAfter":                   {"{created4}", "task5"},
		"updatedAfter":                   {"{created4}", "task4 task5"},
		"active":                         {"true", "task2 task4 task5"},
		"withCommentAttachmentInfo":      {"true", "task2 task4 task5"}, // selects all, shows more (TestRESTTaskComments)
		"withTaskVariablesInReturn":      {"true", "task2 task4 task5"}, // as well (TestRESTTaskVariablesInReturn)
		"withTaskLocalVariablesInReturn": {"true", "task2 task4 task5"},
		"suspended":                      {"true", ""},
		"tenantIdIn":                     {"acme,nope", "task4 task5"},
		"withoutTenantId":                {"true", "task2"},

		"candidateUser":  {"carl", "task4"},
		"dueBefore":      {"2031-01-01T00:00:00.000+0000", "task2"},
		"dueAfter":       {"2031-01-01T00:00:00.000+0000", ""},
		"followUpBefore": {"2031-01-01T00:00:00.000+0000", ""},
		"followUpAfter":  {"2000-01-01T00:00:00.000+0000", "task4"},
		"withoutDueDate": {"true", "task4 task5"},
		"priority":       {"70", "task2"},
		"minPriority":    {"60", "task2"},
		"maxPriority":    {"60", "task4 task5"},
		// The open process task is order-2's, with the local variable note.
		"taskVariables":            {"note_eq_rush", "task2"},
		"processVariables":         {"customer_gt_Alpha", "task2"},
		"variableNamesIgnoreCase":  {"true&taskVariables=NOTE_eq_rush", "task2"},
		"variableValuesIgnoreCase": {"true&processVariables=customer_eq_BETA", "task2"},
	},
	"/history/task": {
		"taskId":                         {"{task1}", "task1"},
		"processInstanceId":              {"{pi1}", "task1"},
		"processDefinitionKey":           {"review", "task1 task2"},
		"taskDefinitionKey":              {"check", "task1 task2"},
		"taskAssignee":                   {"ann", "task1"},
		"finished":                       {"true", "task1"},
		"unfinished":                     {"true", "task2 task4 task5"},
		"taskDeleteReason":               {"completed", "task1"},
		"processDefinitionId":            {"{def-review}", "task1 task2"},
		"processDefinitionName":          {"Review", "task1 task2"},
		"processFinished":                {"true", ""},
		"processUnfinished":              {"true", "task1 task2"},
		"processInstanceBusinessKey":     {"order-2", "task2"},
		"processInstanceBusinessKeyIn":   {"order-1,order-3", "task1"},
		"processInstanceBusinessKeyLike": {"%-2", "task2"},
		"rootProcessInstanceId":          {"{pi1}", "task1"},
		"executionId":                    {"{pi2}", "task2"},
		"activityInstanceIdIn":           {"{act2check},nope", "task2"},
		"startedAfter":                   {"{between}", "task1 task2 task4 task5"},
		"startedBefore":                  {"2000-01-01T00:00:00.000+0000", ""},
		"finishedAfter":                  {"{between}", "task1"},
		"finishedBefore":                 {"2000-01-01T00:00:00.000+0000", ""},
		"taskAssigneeLike":               {"b%", "task2"},
		"taskDefinitionKeyIn":            {"check,label", "task1 task2"},
		"taskDeleteReasonLike":           {"comp%", "task1"},
		"taskDueDate":                    {"2030-06-01T00:00:00.000+0000", "task1 task2"},
		"taskDueDateAfter":               {"2031-01-01T00:00:00.000+0000", ""},
		"taskDueDateBefore":              {"2031-01-01T00:00:00.000+0000", "task1 task2"},
		"withoutTaskDueDate":             {"true", "task4 task5"},
		"taskFollowUpDate":               {"2030-06-01T00:00:00.000+0000", ""},
		"taskFollowUpDateAfter":          {"2000-01-01T00:00:00.000+0000", "task4"},
		"taskFollowUpDateBefore":         {"2100-01-01T00:00:00.000+0000", "task4"},
		"taskName":                       {"check THE order", "task1 task2"},
		"taskNameLike":                   {"%ORDER", "task1 task2 task5"},
		"taskPriority":                   {"70", "task1 task2"},
		"assigned":                       {"true", "task1 task2 task5"},
		"unassigned":                     {"true", "task4"},
		"taskHadCandidateGroup":          {"sales", "task1 task2"},
		"taskHadCandidateUser":           {"carl", "task4"}, // a candidate since it was created
		"taskInvolvedGroup":              {"sales", "task1 task2"},
		"withCandidateGroups":            {"true", "task1 task2 task4"},
		"withoutCandidateGroups":         {"true", "task5"},
		"taskVariables":                  {"note_like_r%", "task2"},
		"processVariables":               {"customer_lteq_Acme", "task1"},
		"variableNamesIgnoreCase":        {"true&processVariables=Customer_eq_Beta", "task2"},
		"variableValuesIgnoreCase":       {"true&processVariables=customer_eq_ACME", "task1"},
	},
	"/job": {
		"jobId":                      {"{job1}", "job1"},
		"jobIds":                     {"{job1},nope", "job1"},
		"tenantIdIn":                 {"acme", ""},
		"withoutTenantId":            {"true", "job1 jobtimer"},
		"includeJobsWithoutTenantId": {"true&tenantIdIn=acme", "job1 jobtimer"},
		"processInstanceId":          {"{pi1}", "job1"},
		"processDefinitionId":        {"{def-review}", "job1"},
		"processDefinitionKey":       {"ship", ""},
		"activityId":                 {"charge", "job1"},
		"jobDefinitionId":            {"{jobdef1}", "job1"},
		"withException":              {"true", "job1"},
		"withRetriesLeft":            {"true", "jobtimer"},
		"noRetriesLeft":              {"true", "job1"},
		"executable":                 {"true", ""},
		"timers":                     {"true", "jobtimer"},
		"messages":                   {"true", "job1"},

		"processInstanceIds":         {"{pi1},{pi4}", "job1 jobtimer"},
		"executionId":                {"{pi4}", "jobtimer"},
		"dueDates":                   {"gt_{halfHour},lt_2100-01-01T00:00:00.000+0000", "jobtimer"},
		"createTimes":                {"lt_{beforeWait}", "job1"},
		"exceptionMessage":           {"{message1}", "job1"},
		"failedActivityId":           {"charge", "job1"},
		"priorityHigherThanOrEquals": {"5", ""},
		"priorityLowerThanOrEquals":  {"10", "job1 jobtimer"},
		"acquired":                   {"true", ""},
		"active":                     {"true", "job1 jobtimer"},
		"suspended":                  {"true", ""},
	},
	"/job-definition": {
		"jobDefinitionId":           {"{jobdef1}", "jobdef1"},
		"activityIdIn":              {"charge,later", "jobdef-acme jobdef1 jobdeftimer"},
		"processDefinitionId":       {"{def-wait}", "jobdeftimer"},
		"processDefinitionKey":      {"review", "jobdef-acme jobdef1"},
		"jobConfiguration":          {"async-before", "jobdef-acme jobdef1"},
		"active":                    {"true", "jobdef-acme jobdef1 jobdeftimer"},
		"jobType":                   {"timer-intermediate-transition", "jobdeftimer"},
		"suspended":                 {"true", ""},
		"withOverridingJobPriority": {"true", ""},
	},
	"/execution": {
		"processInstanceId":            {"{pi4}", "pi4"},
		"activityId":                   {"pack", "pi3"},
		"businessKey":                  {"order-2", "pi2"},
		"processDefinitionId":          {"{def-ship}", "pi3"},
		"processDefinitionKey":         {"review", "pi1 pi2"},
		"signalEventSubscriptionName":  {"stop", "pi4"},
		"messageEventSubscriptionName": {"go", "pi4"},
		"active":                       {"true", "pi1 pi2 pi3 pi4"},
		"suspended":                    {"true", ""},
		"incidentId":                   {"{incident2}", "pi4"},
		"incidentType":                 {"failedJob", "pi1"},
		"incidentMessage":              {"manual check", "pi4"},
		"incidentMessageLike":          {"manual%", "pi4"},
		"tenantIdIn":                   {"acme", ""},
		// The root executions hold their instances' variables.
		"variables":                {"customer_eq_Acme", "pi1"},
		"processVariables":         {"customer_eq_Beta", "pi2"},
		"variableNamesIgnoreCase":  {"true&variables=CUSTOMER_eq_Acme", "pi1"},
		"variableValuesIgnoreCase": {"true&variables=customer_eq_acme", "pi1 pi3"},
	},
	"/event-subscription": {
		"eventSubscriptionId": {"{sub-go}", "sub-go"},
		"eventName":           {"stop", "sub-stop"},
		"eventType":           {"message", "sub-go"},
		"executionId":         {"{pi4}", "sub-go sub-stop"},
		"processInstanceId":   {"{pi4}", "sub-go sub-stop"},
		"activityId":          {"stop", "sub-stop"},
	},
	"/incident": {
		"incidentId":          {"{incident1}", "incident1"},
		"processInstanceId":   {"{pi2}", ""},
		"processDefinitionId": {"{def-review}", "incident1"},
		"activityId":          {"charge", "incident1"},
		"incidentType":        {"failedJob", "incident1"},
		"configuration":       {"{job1}", "incident1"},
		"jobDefinitionId":     {"nope", ""},

		"incidentMessage":         {"manual check", "incident2"},
		"incidentMessageLike":     {"manual%", "incident2"},
		"processDefinitionKeyIn":  {"review,nope", "incident1"},
		"executionId":             {"{pi4}", "incident2"},
		"incidentTimestampBefore": {"{beforeWait}", "incident1"},
		"incidentTimestampAfter":  {"{beforeWait}", "incident2"},
		"failedActivityId":        {"charge", "incident1"},
		"causeIncidentId":         {"{incident2}", "incident2"},
		"rootCauseIncidentId":     {"{incident1}", "incident1"},
		"jobDefinitionIdIn":       {"{jobdef1},nope", "incident1"},
	},
	"/history/incident": {
		"incidentId":             {"{incident1}", "incident1"},
		"processInstanceId":      {"{pi1}", "incident1"},
		"processDefinitionId":    {"{def-ship}", ""},
		"activityId":             {"charge", "incident1"},
		"incidentType":           {"failedExternalTask", ""},
		"configuration":          {"{job1}", "incident1"},
		"jobDefinitionId":        {"nope", ""},
		"open":                   {"true", "incident1 incident2"},
		"resolved":               {"true", ""},
		"deleted":                {"true", ""},
		"incidentMessage":        {"card declined", "incident1"},
		"incidentMessageLike":    {"card%", "incident1"},
		"processDefinitionKey":   {"review", "incident1"},
		"processDefinitionKeyIn": {"ship,nope", ""},
		"executionId":            {"{pi1}", "incident1"},
		"failedActivityId":       {"charge", "incident1"},
		"causeIncidentId":        {"{incident1}", "incident1"},
		"rootCauseIncidentId":    {"{incident1}", "incident1"},
		"jobDefinitionIdIn":      {"{jobdef1},nope", "incident1"},
		"createTimeAfter":        {"{between}", "incident1 incident2"},
		"createTimeBefore":       {"2000-01-01T00:00:00.000+0000", ""},
		"endTimeAfter":           {"2000-01-01T00:00:00.000+0000", ""},
		"endTimeBefore":          {"2100-01-01T00:00:00.000+0000", ""},
		"historyConfiguration":   {"{jlfailed3}", "incident1"},
	},
	"/history/activity-instance": {
		"activityInstanceId":  {"{act3pack}", "act3pack"},
		"processInstanceId":   {"{pi3}", "act3start act3pack"},
		"processDefinitionId": {"{def-ship}", "act3start act3pack"},
		"executionId":         {"{pi2}", "act2start act2check"},
		"activityId":          {"check", "act1check act2check"},
		"activityName":        {"Check the order", "act1check act2check"},
		"activityType":        {"serviceTask", "act3pack"},
		"canceled":            {"true", ""},
		"finished":            {"true", "act1start act1check act2start act3start act4start"},
		"unfinished":          {"true", "act2check act3pack act4gw"},
		"startedBefore":       {"2000-01-01T00:00:00.000+0000", ""},
		"startedAfter":        {"{between}", "act1start act1check act2start act2check act3start act3pack act4start act4gw"},
		"finishedBefore":      {"2000-01-01T00:00:00.000+0000", ""},
		"finishedAfter":       {"{between}", "act1start act1check act2start act3start act4start"},
		"taskAssignee":        {"bob", "act2check"},
	},
	"/history/job-log": {
		"logId":                         {"{jlfailed2}", "jlfailed2"},
		"jobId":                         {"{job1}", "jlcreated jlfailed1 jlfailed2 jlfailed3"},
		"jobExceptionMessage":           {"card declined", "jlfailed1 jlfailed2 jlfailed3"},
		"jobDefinitionId":               {"{jobdef1}", "jlcreated jlfailed1 jlfailed2 jlfailed3"},
		"jobDefinitionConfiguration":    {"async-before", "jlcreated jlfailed1 jlfailed2 jlfailed3"},
		"jobDefinitionType":             {"timer-transition", ""},
		"activityIdIn":                  {"charge,nope", "jlcreated jlfailed1 jlfailed2 jlfailed3"},
		"failedActivityIdIn":            {"charge,nope", "jlfailed1 jlfailed2 jlfailed3"},
		"executionIdIn":                 {"{pi1},nope", "jlcreated jlfailed1 jlfailed2 jlfailed3"},
		"processInstanceId":             {"{pi1}", "jlcreated jlfailed1 jlfailed2 jlfailed3"},
		"processDefinitionId":           {"{def-ship}", ""},
		"processDefinitionKey":          {"review", "jlcreated jlfailed1 jlfailed2 jlfailed3"},
		"deploymentId":                  {"{deployment2}", ""},
		"jobPriorityLowerThanOrEquals":  {"5", "jlcreated jlfailed1 jlfailed2 jlfailed3 jltimercreated"},
		"jobPriorityHigherThanOrEquals": {"2", ""},
		"creationLog":                   {"true", "jlcreated jltimercreated"},
		"failureLog":                    {"true", "jlfailed1 jlfailed2 jlfailed3"},
		"successLog":                    {"true", ""},
		"deletionLog":                   {"true", ""},
	},
	"/history/external-task-log": {
		"logId":                      {"{etl3created}", "etl3created"},
		"externalTaskId":             {"{ext3}", "etl3created"},
		"topicName":                  {"packing", "etl3created"},
		"workerId":                   {"w1", ""},
		"errorMessage":               {"card declined", ""},
		"activityIdIn":               {"pack,nope", "etl3created"},
		"activityInstanceIdIn":       {"{act3pack}", "etl3created"},
		"executionIdIn":              {"{pi3}", "etl3created"},
		"processInstanceId":          {"{pi1}", ""},
		"processDefinitionId":        {"{def-ship}", "etl3created"},
		"processDefinitionKey":       {"review", ""},
		"priorityLowerThanOrEquals":  {"5", "etl3created"},
		"priorityHigherThanOrEquals": {"2", ""},
		"creationLog":                {"true", "etl3created"},
		"failureLog":                 {"true", ""},
		"successLog":                 {"true", ""},
		"deletionLog":                {"true", ""},
	},
	"/history/detail": {
		"processInstanceId":   {"{pi2}", "det2amount0 det2customer0 det2quantity0 det2quantity1 det2remark0"},
		"processInstanceIdIn": {"{pi1},{pi3}", "det1amount0 det1customer0 det3customer0 det3temp0"},
		"executionId":         {"{pi2}", "det2amount0 det2customer0 det2quantity0 det2quantity1 det2remark0"},
		"taskId":              {"{task2}", ""},
		"activityInstanceId":  {"{act2check}", "det2amount0 det2customer0 det2quantity0 det2quantity1 det2remark0"},
		"variableInstanceId":  {"{var2quantity}", "det2quantity0 det2quantity1"},
		"variableNameLike":    {"QU%", "det2quantity0 det2quantity1"},
		"excludeTaskDetails":  {"true", "det1amount0 det1customer0 det2amount0 det2customer0 det2quantity0 det2quantity1 det2remark0 det3customer0 det3temp0"},
		"initial":             {"true", ""},
		"occurredBefore":      {"2000-01-01T00:00:00.000+0000", ""},
		"occurredAfter":       {"{between}", "det1amount0 det1customer0 det2amount0 det2customer0 det2quantity0 det2quantity1 det2remark0 det3customer0 det3temp0"},
		"variableUpdates":     {"true", "det1amount0 det1customer0 det2amount0 det2customer0 det2quantity0 det2quantity1 det2remark0 det3customer0 det3temp0"},
		"formFields":          {"true", ""},
		"deserializeValues":   {"false", "det1amount0 det1customer0 det2amount0 det2customer0 det2quantity0 det2quantity1 det2remark0 det3customer0 det3temp0"},
	},
	"/history/process-definition/cleanable-process-instance-report": {
		"processDefinitionIdIn":  {"{def-ship},nope", "def-ship"},
		"processDefinitionKeyIn": {"review", "def-review def-review-acme"},
		"compact":                {"true", ""},
	},
	"/variable-instance": {
		"variableName":             {"amount", "var1amount var2amount"},
		"variableNameLike":         {"cust%", "var1customer var2customer var3customer"},
		"processInstanceIdIn":      {"{pi1},{pi3}", "var1customer var1amount var3customer"},
		"executionIdIn":            {"{pi2}", "var2customer var2amount var2quantity var2remark vartask2note"},
		"taskIdIn":                 {"{task2},nope", "vartask2note"},
		"variableScopeIdIn":        {"{pi2}", "var2customer var2amount var2quantity var2remark"},
		"variableValues":           {"customer_eq_Beta", "var2customer"},
		"variableNamesIgnoreCase":  {"true&variableValues=CUSTOMER_eq_Beta", "var2customer"},
		"variableValuesIgnoreCase": {"true&variableValues=customer_eq_acme", "var1customer var3customer"},
		"deserializeValues":        {"false", "var1customer var1amount var2customer var2amount var2quantity var2remark var3customer vartask2note"},
	},
	"/history/variable-instance": {
		"variableName":             {"amount", "var1amount var2amount"},
		"variableNameLike":         {"%o%", "var1customer var1amount var2customer var2amount var3customer vartask2note"},
		"variableNameIn":           {"amount,note", "var1amount var2amount vartask2note"},
		"variableTypeIn":           {"Long,boolean", "var2amount"},
		"processInstanceId":        {"{pi3}", "var3customer"},
		"processInstanceIdIn":      {"{pi1},{pi3}", "var1customer var1amount var3customer"},
		"processDefinitionId":      {"{def-ship}", "var3customer"},
		"processDefinitionKey":     {"review", "var1customer var1amount var2customer var2amount var2quantity var2remark vartask2note"},
		"executionIdIn":            {"{pi3}", "var3customer"},
		"taskIdIn":                 {"{task2}", "vartask2note"},
		"variableValue":            {"Beta&variableName=customer", "var2customer"},
		"variableNamesIgnoreCase":  {"true&variableName=CUSTOMER", "var1customer var2customer var3customer"},
		"variableValuesIgnoreCase": {"true&variableName=customer&variableValue=acme", "var1customer var3customer"},
		"deserializeValues":        {"false", "var1customer var1amount var2customer var2amount var2quantity var2remark var3customer vartask2note"},
		"includeDeleted":           {"true", "var1customer var1amount var2customer var2amount var2quantity var2remark var3customer vartask2note vardeleted"},
	},
	"/external-task": {
		"externalTaskId":      {"{ext3}", "ext3"},
		"tenantIdIn":          {"acme", ""},
		"topicName":           {"packing", "ext3"},
		"workerId":            {"w2", ""},
		"processInstanceId":   {"{pi1}", ""},
		"processDefinitionId": {"{def-ship}", "ext3"},
		"activityId":          {"pack", "ext3"},
		"locked":              {"true", "ext3"},
		"notLocked":           {"true", ""},
		"withRetriesLeft":     {"true", "ext3"},
		"noRetriesLeft":       {"true", ""},
		"suspended":           {"true", ""},
		"active":              {"true", "ext3"},

		"externalTaskIdIn":           {"{ext3},nope", "ext3"},
		"executionId":                {"{pi3}", "ext3"},
		"processInstanceIdIn":        {"{pi1},{pi3}", "ext3"},
		"processDefinitionKey":       {"ship", "ext3"},
		"processDefinitionKeyIn":     {"review,wait", ""},
		"processDefinitionName":      {"Ship", "ext3"},
		"processDefinitionNameLike":  {"Sh%", "ext3"},
		"activityIdIn":               {"pack,x", "ext3"},
		"lockExpirationBefore":       {"{halfHour}", "ext3"},
		"lockExpirationAfter":        {"{halfHour}", ""},
		"priorityHigherThanOrEquals": {"5", ""},
		"priorityLowerThanOrEquals":  {"10", "ext3"},
		"processVariables":           {"customer_eq_ACME", "ext3"},
		"variableNamesIgnoreCase":    {"true&processVariables=CUSTOMER_eq_ACME", "ext3"},
		"variableValuesIgnoreCase":   {"true&processVariables=customer_eq_acme", "ext3"},
	},
}

// isRowList reports whether route r is a list of rows with ids, which the
// tests below cover; /metrics lists intervals (TestRESTMetrics).
func isRowList(r rest.ServedRoute) bool {
	return r.Method == "GET" && r.Documented != nil && r.Documented["maxResults"] && r.Path != "/metrics"
}

// Every query parameter Camunda documents for a list bpmnlite serves
// either filters as Camunda's does (a case above proves which rows come
// back, in the list and in its count) or is refused with a 400 that names
// it; none is silently ignored.
func TestRESTDocumentedParameters(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		fx := seedFixture(t, a)
		ids := idsOfFixture(t, a, fx)
		expand := func(s string) string {
			for k, v := range fx {
				s = strings.ReplaceAll(s, "{"+k+"}", v)
			}
			return s
		}
		lists := 0
		routes := rest.ServedRoutes(rest.New(a.eng, rest.Options{}))
		hasPost := map[string]bool{}
		for _, r := range routes {
			if r.Method == "POST" {
				hasPost[r.Path] = true
			}
		}
		for _, r := range routes {
			if !isRowList(r) || batchLists[r.Path] {
				continue
			}
			lists++
			checkDocumentedParameters(t, a, r, hasPost[r.Path], ids, expand)
		}
		if lists+len(batchLists) < len(paramCases) {
			t.Errorf("%d lists served, %d with cases", lists, len(paramCases))
		}
	})
}

// checkDocumentedParameters checks every parameter Camunda documents for
// list r: a case of paramCases filters as it says, or a 400 names it.
func checkDocumentedParameters(t *testing.T, a *api, r rest.ServedRoute, hasPost bool, ids fixtureIDs, expand func(string) string) {
	t.Helper()
	cases := paramCases[r.Path]
	var documented []string
	for p := range r.Documented {
		documented = append(documented, p)
	}
	sort.Strings(documented)
	for _, p := range documented {
		if slices.Contains([]string{"firstResult", "maxResults", "sortBy", "sortOrder"}, p) {
			continue // TestRESTPagingAndSorting
		}
		if !slices.Contains(r.Accepted, p) {
			status, out := a.call("GET", r.Path+"?"+p+"=x", nil)
			if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(field(out, "message")), p) {
				t.Errorf("GET %s?%s=x (not supported): %d %v, want 400 naming it", r.Path, p, status, out)
			}
			if hasPost {
				status, out := a.call("POST", r.Path, map[string]any{p: "x"})
				if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(field(out, "message")), p) {
					t.Errorf("POST %s {%s} (not supported): %d %v, want 400 naming it", r.Path, p, status, out)
				}
			}
			continue
		}
		c, ok := cases[p]
		if !ok {
			t.Errorf("GET %s: parameter %s is honoured but has no case in paramCases", r.Path, p)
			continue
		}
		value, with, _ := strings.Cut(c.value, "&")
		path := r.Path + "?" + p + "=" + url.QueryEscape(expand(value))
		if with != "" {
			path += "&" + with
		}
		got := ids.of(a.ok(http.StatusOK, "GET", path, nil).([]any))
		want := strings.Fields(c.want)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("GET %s: got %v, want %v", path, got, want)
		}
		count := a.ok(http.StatusOK, "GET", strings.Replace(path, "?", "/count?", 1), nil)
		if n := field(count, "count"); n != float64(len(want)) {
			t.Errorf("GET %s count: %v, want %d", path, n, len(want))
		}
		if !hasPost {
			continue
		}
		body := map[string]any{p: jsonValue(expand(value))}
		for _, kv := range strings.Split(with, "&") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				body[k] = jsonValue(v)
			}
		}
		got = ids.of(a.ok(http.StatusOK, "POST", r.Path, body).([]any))
		if !slices.Equal(got, want) {
			t.Errorf("POST %s %v: got %v, want %v", r.Path, body, got, want)
		}
		if n := field(a.ok(http.StatusOK, "POST", r.Path+"/count", body), "count"); n != float64(len(want)) {
			t.Errorf("POST %s/count %v: %v, want %d", r.Path, body, n, len(want))
		}
	}
	for p := range cases {
		if !slices.Contains(r.Accepted, p) {
			t.Errorf("GET %s: case for %s, which it does not honour", r.Path, p)
		}
	}
}

// jsonValue is a parameter's text as a POST query gives it: booleans and
// numbers as such, comma-separated lists as arrays.
func jsonValue(s string) any {
	if b, err := strconv.ParseBool(s); err == nil {
		return b
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	if strings.Contains(s, ",") {
		return strings.Split(s, ",")
	}
	return s
}

// fixtureIDs names the rows of the fixture by their {name}s.
type fixtureIDs map[string]string

// idsOfFixture names the fixture's rows, and its activity instances as
// act<instance><activity> (added to fx).
func idsOfFixture(t *testing.T, a *api, fx fixture) fixtureIDs {
	ids := fixtureIDs{}
	for k, v := range fx {
		ids[v] = k
	}
	hist := a.ok(http.StatusOK, "GET", "/history/activity-instance", nil).([]any)
	for _, h := range hist {
		pi := ids[field(h, "processInstanceId").(string)]
		name := "act" + strings.TrimPrefix(pi, "pi") + field(h, "activityId").(string)
		ids[field(h, "id").(string)], fx[name] = name, field(h, "id").(string)
	}
	// The job log: jlcreated, jlfailed1, ...; the external task log:
	// etl<instance><event>.
	failed := 0
	for _, l := range a.ok(http.StatusOK, "GET", "/history/job-log", nil).([]any) {
		name := "jlcreated"
		if field(l, "jobId") == fx["jobtimer"] {
			name = "jltimercreated"
		}
		if field(l, "failureLog") == true {
			failed++
			name = "jlfailed" + strconv.Itoa(failed)
		}
		ids[field(l, "id").(string)], fx[name] = name, field(l, "id").(string)
	}
	// Details as det<owner><variable><revision>: the owner the instance's
	// number, or task<n> for a task's local variable.
	for _, d := range a.ok(http.StatusOK, "GET", "/history/detail", nil).([]any) {
		owner := strings.TrimPrefix(ids[field(d, "processInstanceId").(string)], "pi")
		if task, ok := field(d, "taskId").(string); ok {
			owner = ids[task]
		}
		name := fmt.Sprintf("det%s%v%v", owner, field(d, "variableName"), field(d, "revision"))
		ids[field(d, "id").(string)], fx[name] = name, field(d, "id").(string)
	}
	for _, l := range a.ok(http.StatusOK, "GET", "/history/external-task-log", nil).([]any) {
		name := "etl" + strings.TrimPrefix(ids[field(l, "processInstanceId").(string)], "pi") + "created"
		ids[field(l, "id").(string)], fx[name] = name, field(l, "id").(string)
	}
	return ids
}

// of are the fixture names of rows, sorted; an unnamed row by its id.
func (ids fixtureIDs) of(rows []any) []string {
	out := []string{}
	for _, r := range rows {
		id := rowID(r)
		if name, ok := ids[id]; ok {
			id = name
		}
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// sortCases: for every sortBy value a list honours, the member of its rows
// that value orders by; "-" for a value the rows do not show, whose
// descending order must then be its ascending one reversed (the fixture
// gives them distinct values).
var sortCases = map[string]map[string]string{
	"/deployment": {"id": "id", "name": "name", "deploymentTime": "deploymentTime", "tenantId": "tenantId"},
	"/decision-definition": {"category": "category", "decisionRequirementsDefinitionKey": "decisionRequirementsDefinitionKey", "key": "key",
		"id": "id", "name": "name", "version": "version", "deploymentId": "deploymentId", "versionTag": "versionTag", "tenantId": "tenantId", "deployTime": "-"},
	"/decision-requirements-definition": {"id": "id", "key": "key", "name": "name", "version": "version", "deploymentId": "deploymentId",
		"category": "category", "tenantId": "tenantId"},
	"/history/decision-instance": {"evaluationTime": "evaluationTime", "tenantId": "tenantId"},
	"/process-definition":        {"category": "category", "key": "key", "id": "id", "name": "name", "version": "version", "deploymentId": "deploymentId", "versionTag": "versionTag", "deployTime": "-"},
	"/process-instance":          {"instanceId": "id", "definitionId": "definitionId", "businessKey": "businessKey", "definitionKey": "definitionId", "tenantId": "tenantId"},
	"/history/process-instance": {"instanceId": "id", "definitionId": "processDefinitionId", "definitionKey": "processDefinitionKey",
		"businessKey": "businessKey", "startTime": "startTime", "endTime": "endTime", "duration": "durationInMillis",
		"definitionName": "processDefinitionName", "definitionVersion": "processDefinitionVersion"},
	"/task": {"instanceId": "processInstanceId", "dueDate": "due", "executionId": "executionId", "assignee": "assignee",
		"created": "created", "lastUpdated": "lastUpdated", "description": "description", "id": "id", "name": "name",
		"nameCaseInsensitive": "name", "priority": "priority"},
	"/history/task": {"taskId": "id", "activityInstanceId": "activityInstanceId", "processDefinitionId": "processDefinitionId",
		"processInstanceId": "processInstanceId", "executionId": "executionId", "duration": "duration", "endTime": "endTime",
		"startTime": "startTime", "taskName": "name", "assignee": "assignee", "dueDate": "due", "followUpDate": "followUp",
		"deleteReason": "deleteReason", "taskDefinitionKey": "taskDefinitionKey", "priority": "priority"},
	"/job": {"tenantId": "tenantId", "jobId": "id", "executionId": "executionId", "processInstanceId": "processInstanceId", "processDefinitionId": "processDefinitionId",
		"processDefinitionKey": "processDefinitionKey", "jobPriority": "priority", "jobRetries": "retries", "jobDueDate": "dueDate"},
	"/incident": {"incidentId": "id", "incidentMessage": "incidentMessage", "incidentTimestamp": "incidentTimestamp", "incidentType": "incidentType",
		"executionId": "executionId", "activityId": "activityId", "processInstanceId": "processInstanceId", "processDefinitionId": "processDefinitionId",
		"causeIncidentId": "causeIncidentId", "rootCauseIncidentId": "rootCauseIncidentId", "configuration": "configuration"},
	"/history/incident": {"incidentId": "id", "incidentMessage": "incidentMessage", "createTime": "createTime", "endTime": "endTime",
		"incidentType": "incidentType", "executionId": "executionId", "activityId": "activityId", "processInstanceId": "processInstanceId",
		"processDefinitionId": "processDefinitionId", "causeIncidentId": "causeIncidentId", "rootCauseIncidentId": "rootCauseIncidentId",
		"configuration": "configuration", "incidentState": "open", "processDefinitionKey": "processDefinitionId",
		"historyConfiguration": "historyConfiguration"},
	"/history/activity-instance": {"activityInstanceId": "id", "instanceId": "processInstanceId", "executionId": "executionId",
		"activityId": "activityId", "activityName": "activityName", "activityType": "activityType", "startTime": "startTime",
		"endTime": "endTime", "duration": "durationInMillis", "definitionId": "processDefinitionId", "occurrence": "-"},
	"/job-definition": {"jobDefinitionId": "id", "activityId": "activityId", "processDefinitionId": "processDefinitionId",
		"processDefinitionKey": "processDefinitionKey", "jobType": "jobType", "jobConfiguration": "jobConfiguration"},
	"/execution": {"tenantId": "tenantId", "instanceId": "processInstanceId", "definitionId": "processInstanceId>/history/process-instance?processInstanceId={}>processDefinitionId",
		"definitionKey": "processInstanceId>/history/process-instance?processInstanceId={}>processDefinitionKey"},
	"/event-subscription": {"created": "createdDate"},
	"/history/job-log": {"timestamp": "timestamp", "jobId": "jobId", "jobDefinitionId": "jobDefinitionId", "jobDueDate": "jobDueDate",
		"jobRetries": "jobRetries", "jobPriority": "jobPriority", "activityId": "activityId", "executionId": "executionId",
		"processInstanceId": "processInstanceId", "processDefinitionId": "processDefinitionId", "processDefinitionKey": "processDefinitionKey",
		"deploymentId": "deploymentId", "occurrence": "-"},
	"/history/external-task-log": {"timestamp": "timestamp", "externalTaskId": "externalTaskId", "topicName": "topicName", "workerId": "workerId",
		"retries": "retries", "priority": "priority", "activityId": "activityId", "activityInstanceId": "activityInstanceId",
		"executionId": "executionId", "processInstanceId": "processInstanceId", "processDefinitionId": "processDefinitionId",
		"processDefinitionKey": "processDefinitionKey"},
	"/history/process-definition/cleanable-process-instance-report": {"finished": "finishedProcessInstanceCount"},
	"/history/detail": {"processInstanceId": "processInstanceId", "variableName": "variableName", "variableType": "variableType",
		"variableRevision": "revision", "time": "time", "occurrence": "-"},
	"/variable-instance":         {"variableName": "name", "variableType": "type"},
	"/history/variable-instance": {"instanceId": "processInstanceId", "variableName": "name"},
	"/external-task": {"tenantId": "tenantId", "id": "id", "lockExpirationTime": "lockExpirationTime", "processInstanceId": "processInstanceId",
		"processDefinitionId": "processDefinitionId", "processDefinitionKey": "processDefinitionKey", "taskPriority": "priority"},
}

// Every list pages (firstResult, maxResults) and sorts (each sortBy value
// Camunda documents, both orders) in the database, or refuses a sortBy it
// cannot sort by with a 400 naming it; counts ignore paging.
func TestRESTPagingAndSorting(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		seedFixture(t, a)
		hasPost := map[string]bool{}
		for _, r := range rest.ServedRoutes(rest.New(a.eng, rest.Options{})) {
			hasPost[r.Path] = hasPost[r.Path] || r.Method == "POST"
		}
		// Two of everything: a second failed job (and incident), open task
		// and external task.
		start := func(key, bk string) string {
			return field(a.ok(http.StatusOK, "POST", "/process-definition/key/"+key+"/start", map[string]any{"businessKey": bk}), "id").(string)
		}
		pi := start("review", "order-4")
		task := field(a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)[0], "id").(string)
		a.ok(http.StatusNoContent, "POST", "/task/"+task+"/complete", map[string]any{})
		job := field(a.ok(http.StatusOK, "GET", "/job?processInstanceId="+pi, nil).([]any)[0], "id").(string)
		for range 3 {
			a.call("POST", "/job/"+job+"/execute", nil)
		}
		start("review", "order-5")
		start("ship", "order-6")
		for _, r := range rest.ServedRoutes(rest.New(a.eng, rest.Options{})) {
			if isRowList(r) && !batchLists[r.Path] {
				checkPagingAndSorting(t, a, r, hasPost[r.Path])
			}
		}
	})
}

// checkPagingAndSorting checks that list r pages, counts and sorts (by
// each sortBy of Camunda's, or refuses it naming it).
func checkPagingAndSorting(t *testing.T, a *api, r rest.ServedRoute, hasPost bool) {
	t.Helper()
	all := a.ok(http.StatusOK, "GET", r.Path, nil).([]any)
	if len(all) < 2 {
		t.Errorf("GET %s: %d rows in the fixture, want at least 2 to page and sort", r.Path, len(all))
		return
	}
	page := a.ok(http.StatusOK, "GET", r.Path+"?firstResult=1&maxResults=1", nil).([]any)
	if len(page) != 1 || rowID(page[0]) != rowID(all[1]) {
		t.Errorf("GET %s?firstResult=1&maxResults=1: %v, want the second of %v", r.Path, page, all)
	}
	if rest := a.ok(http.StatusOK, "GET", r.Path+"?firstResult=1", nil).([]any); len(rest) != len(all)-1 {
		t.Errorf("GET %s?firstResult=1: %d rows, want %d", r.Path, len(rest), len(all)-1)
	}
	if none := a.ok(http.StatusOK, "GET", r.Path+"?maxResults=0", nil).([]any); len(none) != 0 {
		t.Errorf("GET %s?maxResults=0: %v, want []", r.Path, none)
	}
	if past := a.ok(http.StatusOK, "GET", r.Path+"?firstResult=1000", nil).([]any); len(past) != 0 {
		t.Errorf("GET %s past the end: %v, want []", r.Path, past)
	}
	if n := field(a.ok(http.StatusOK, "GET", r.Path+"/count?firstResult=1&maxResults=1", nil), "count"); n != float64(len(all)) {
		t.Errorf("GET %s/count with a page: %v, want %d", r.Path, n, len(all))
	}
	bads := []string{"?sortOrder=asc", "?sortBy=nope&sortOrder=asc"}
	if len(r.SortBy) > 0 { // Camunda documents no values for some lists' sortBy
		bads = append(bads, "?sortBy="+r.SortBy[0], "?sortBy="+r.SortBy[0]+"&sortOrder=up")
	}
	for _, bad := range bads {
		if status, _ := a.call("GET", r.Path+bad, nil); status != http.StatusBadRequest {
			t.Errorf("GET %s%s: %d, want 400", r.Path, bad, status)
		}
	}
	for _, by := range r.SortBy {
		member, ok := sortCases[r.Path][by]
		status, out := a.call("GET", r.Path+"?sortBy="+by+"&sortOrder=asc", nil)
		switch {
		case status == http.StatusBadRequest && !ok:
			if !strings.Contains(fmt.Sprint(field(out, "message")), by) {
				t.Errorf("GET %s?sortBy=%s: %v, want a message naming it", r.Path, by, out)
			}
			continue
		case status != http.StatusOK || !ok:
			t.Errorf("GET %s?sortBy=%s: %d %v (case in sortCases: %v)", r.Path, by, status, out, ok)
			continue
		}
		desc := a.ok(http.StatusOK, "GET", r.Path+"?sortBy="+by+"&sortOrder=desc", nil).([]any)
		if hasPost {
			sorting := map[string]any{"sorting": []any{map[string]any{"sortBy": by, "sortOrder": "desc"}}}
			posted := a.ok(http.StatusOK, "POST", r.Path+"?maxResults=100", sorting).([]any)
			if !slices.Equal(idsInOrder(posted), idsInOrder(desc)) {
				t.Errorf("POST %s sorting by %s desc: %v, want %v as GET", r.Path, by, idsInOrder(posted), idsInOrder(desc))
			}
		}
		if member == "-" {
			asc := idsInOrder(out.([]any))
			if slices.Reverse(asc); !slices.Equal(asc, idsInOrder(desc)) {
				t.Errorf("GET %s by %s: descending %v is not ascending reversed", r.Path, by, idsInOrder(desc))
			}
			continue
		}
		asc := out.([]any)
		if via, path, ok := strings.Cut(member, ">"); ok {
			// A member the rows do not show, read where another
			// resource shows it: member>path with {}>its member.
			path, member, _ = strings.Cut(path, ">")
			asc, desc = lookUp(a, asc, via, path), lookUp(a, desc, via, path)
		}
		checkSorted(t, r.Path+" by "+by+" asc", asc, member, false)
		checkSorted(t, r.Path+" by "+by+" desc", desc, member, true)
	}
	for by := range sortCases[r.Path] {
		if !slices.Contains(r.SortBy, by) {
			t.Errorf("GET %s: sort case %s, which Camunda does not document", r.Path, by)
		}
	}
}

// lookUp is, for each row, the object GET path gives with {} the row's
// member via (of a list, the first).
func lookUp(a *api, rows []any, via, path string) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = a.ok(http.StatusOK, "GET", strings.Replace(path, "{}", fmt.Sprint(field(r, via)), 1), nil)
		if list, ok := out[i].([]any); ok && len(list) > 0 {
			out[i] = list[0]
		}
	}
	return out
}

func idsInOrder(rows []any) []string {
	var ids []string
	for _, r := range rows {
		ids = append(ids, rowID(r))
	}
	return ids
}

// rowID is a list row's id: a report row without one by its process
// definition's.
func rowID(row any) string {
	if id := field(row, "id"); id != nil {
		return fmt.Sprint(id)
	}
	if id := field(row, "decisionDefinitionId"); id != nil {
		return fmt.Sprint(id)
	}
	return fmt.Sprint(field(row, "processDefinitionId"))
}

// checkSorted fails unless rows are ordered by member: ascending with
// nulls last, or descending with nulls first.
func checkSorted(t *testing.T, what string, rows []any, member string, desc bool) {
	t.Helper()
	for i := 1; i < len(rows); i++ {
		a, b := field(rows[i-1], member), field(rows[i], member)
		if desc {
			a, b = b, a
		}
		if c := compareJSON(a, b); c > 0 {
			t.Errorf("%s: row %d (%v) before row %d (%v)", what, i-1, field(rows[i-1], member), i, field(rows[i], member))
		}
	}
}

// compareJSON orders two JSON values of one member: null after all.
func compareJSON(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	switch x := a.(type) {
	case float64:
		y, _ := b.(float64)
		return cmpOrdered(x, y)
	case bool:
		y, _ := b.(bool)
		return cmpOrdered(fmt.Sprint(x), fmt.Sprint(y))
	default:
		return cmpOrdered(fmt.Sprint(a), fmt.Sprint(b))
	}
}

func cmpOrdered[T int | float64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
