package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/rest"
)

// formRefProcess starts with a Camunda Form reference and waits in a
// user task whose form reference is bound to its deployment, and in a
// user task with a generated form.
var formRefProcess = enginetest.Process("claim", `
    <startEvent id="start" camunda:formRef="claimForm" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="review" />
    <sequenceFlow id="f3" sourceRef="fork" targetRef="assess" />
    <userTask id="review" camunda:formRef="claimForm" camunda:formRefBinding="deployment" />
    <userTask id="assess">
      <extensionElements><camunda:formData>
        <camunda:formField id="score" type="long" defaultValue="1">
          <camunda:validation><camunda:constraint name="required" /><camunda:constraint name="max" config="5" /></camunda:validation>
        </camunda:formField>
        <camunda:formField id="remark" type="string" />
      </camunda:formData></extensionElements>
    </userTask>
    <sequenceFlow id="f4" sourceRef="assess" targetRef="done" />
    <userTask id="done" />`)

const claimFormV1 = `{"id": "claimForm", "components": [{"key": "v1"}]}`
const claimFormV2 = `{"id": "claimForm", "components": [{"key": "v2"}]}`

// The form endpoints of tasks and process definitions over HTTP, as
// Camunda's: the form with its Camunda Form reference, the deployed form
// resolved by binding, form variables, and submissions checked against
// the generated form's constraints (400 naming the field).
func TestRESTForms(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("claims", map[string]string{"claim.bpmn": formRefProcess, "claim.form": claimFormV1}))
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("claim forms", map[string]string{"claim-v2.form": claimFormV2}))
		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/claim/start", map[string]any{}), "id").(string)
		tasks := map[string]string{}
		for _, task := range a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any) {
			tasks[field(task, "taskDefinitionKey").(string)] = field(task, "id").(string)
			if field(task, "taskDefinitionKey") == "review" {
				wantJSON(t, "task's camundaFormRef", field(task, "camundaFormRef"), map[string]any{"key": "claimForm", "binding": "deployment", "version": nil})
			}
		}
		review, assess := tasks["review"], tasks["assess"]

		// Task forms.
		wantJSON(t, "review form", a.ok(http.StatusOK, "GET", "/task/"+review+"/form", nil), map[string]any{
			"key": nil, "camundaFormRef": map[string]any{"key": "claimForm", "binding": "deployment", "version": nil}, "contextPath": nil})
		if status, ct, _, body := a.raw("/task/" + review + "/deployed-form"); status != http.StatusOK || ct != "application/json" || string(body) != claimFormV1 {
			t.Errorf("review deployed form: %d %s %s", status, ct, body)
		}
		wantJSON(t, "assess form", a.ok(http.StatusOK, "GET", "/task/"+assess+"/form", nil), map[string]any{
			"key": "embedded:engine://engine/:engine/task/" + assess + "/rendered-form", "camundaFormRef": nil, "contextPath": nil})
		wantExactError(t, a, http.StatusBadRequest, "InvalidRequestException", "One of the attributes 'formKey' and 'camunda:formRef' must be supplied but none were set.",
			"GET", "/task/"+assess+"/deployed-form", nil)
		if status, ct, _, body := a.raw("/task/" + assess + "/rendered-form"); status != http.StatusOK || ct != "application/xhtml+xml" ||
			!strings.Contains(string(body), `<input class="form-control" name="score" cam-variable-type="Long" cam-variable-name="score" required max="5" type="text" value="1" />`) {
			t.Errorf("rendered form: %d %s\n%s", status, ct, body)
		}
		wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "No matching rendered form for task with the id "+review+" found.",
			"GET", "/task/"+review+"/rendered-form", nil)
		wantJSON(t, "form variables", a.ok(http.StatusOK, "GET", "/task/"+assess+"/form-variables?variableNames=score,remark", nil), map[string]any{
			"score":  map[string]any{"type": "Long", "value": float64(1), "valueInfo": map[string]any{}},
			"remark": map[string]any{"type": "String", "value": nil, "valueInfo": map[string]any{}},
		})
		wantExactError(t, a, http.StatusBadRequest, "RestException", "Cannot submit task form "+assess+": Invalid value submitted for form field 'score': validation of max(5) failed.",
			"POST", "/task/"+assess+"/submit-form", map[string]any{"variables": map[string]any{"score": map[string]any{"value": 9, "type": "Long"}}})
		out := a.ok(http.StatusOK, "POST", "/task/"+assess+"/submit-form", map[string]any{"withVariablesInReturn": true,
			"variables": map[string]any{"remark": map[string]any{"value": "fine"}}})
		wantJSON(t, "submitted score", field(out, "score"), map[string]any{"type": "Long", "value": float64(1), "valueInfo": map[string]any{}})
		fields := a.ok(http.StatusOK, "GET", "/history/detail?formFields=true&taskId="+assess, nil).([]any)
		if len(fields) != 1 || field(fields[0], "type") != "formField" || field(fields[0], "fieldId") != "remark" ||
			field(fields[0], "fieldValue") != "fine" || field(fields[0], "processInstanceId") != pi {
			t.Errorf("historic form fields: %v", fields)
		}
		for _, p := range []string{"form", "deployed-form", "rendered-form"} {
			wantExactError(t, a, http.StatusNotFound, "InvalidRequestException", "Cannot find task with id nope", "GET", "/task/nope/"+p, nil)
		}
		a.wantError(http.StatusNotFound, "Cannot get form variables for task nope", "GET", "/task/nope/form-variables", nil)
		a.wantError(http.StatusNotFound, "Cannot find task with id nope", "POST", "/task/nope/submit-form", map[string]any{})

		// Start forms: by id and by key, the latest form version.
		wantJSON(t, "start form", a.ok(http.StatusOK, "GET", "/process-definition/key/claim/startForm", nil), map[string]any{
			"key": nil, "camundaFormRef": map[string]any{"key": "claimForm", "binding": "latest", "version": nil}, "contextPath": nil})
		if status, ct, _, body := a.raw("/process-definition/key/claim/deployed-start-form"); status != http.StatusOK || ct != "application/json" || string(body) != claimFormV2 {
			t.Errorf("deployed start form: %d %s %s", status, ct, body)
		}
		a.wantError(http.StatusNotFound, "No matching process definition with key: nope", "GET", "/process-definition/key/nope/deployed-start-form", nil)
		a.wantError(http.StatusNotFound, "nope", "GET", "/process-definition/nope/startForm", nil)
	})
}

// wantJSON reports an error when got is not want.
func wantJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !equalJSON(got, want) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}
