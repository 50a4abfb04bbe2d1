package rest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/rest"
)

// tenantDeployment is a deployment's multipart body for tenant.
func tenantDeployment(name, tenant string, files map[string]string) multipartBody {
	return deploymentForm(map[string]string{"deployment-name": name, "tenant-id": tenant}, files)
}

// deploymentForm is a deployment's multipart body with form fields.
func deploymentForm(fields, files map[string]string) multipartBody {
	buf := &bytes.Buffer{}
	w := multipart.NewWriter(buf)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	for fname, content := range files {
		fw, _ := w.CreateFormFile(fname, fname)
		_, _ = fw.Write([]byte(content))
	}
	_ = w.Close()
	return multipartBody{buf, w.FormDataContentType()}
}

// raw GETs path and returns the status, content type, content
// disposition and body as they came.
func (a *api) raw(path string) (status int, contentType, disposition string, body []byte) {
	a.t.Helper()
	resp, err := http.Get(a.url + path)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ = io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), body
}

// wantError calls and expects status and a message containing msg.
func (a *api) wantError(status int, msg, method, path string, body any) {
	a.t.Helper()
	got, out := a.call(method, path, body)
	if got != status || !strings.Contains(fmt.Sprint(field(out, "message")), msg) {
		a.t.Errorf("%s %s: %d %v, want %d with %q", method, path, got, out, status, msg)
	}
}

const orderProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="order" name="Order" isExecutable="true">
    <documentation>Orders to approve</documentation>
    <startEvent id="start" camunda:formKey="camunda-forms:deployment:start.form"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="approve"/>
    <userTask id="approve"/>
    <sequenceFlow id="f2" sourceRef="approve" targetRef="charge"/>
    <serviceTask id="charge" camunda:asyncBefore="true" camunda:class="boom"/>
    <sequenceFlow id="f3" sourceRef="charge" targetRef="pack"/>
    <serviceTask id="pack" camunda:type="external" camunda:topic="pack"/>
    <sequenceFlow id="f4" sourceRef="pack" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// callerProcess calls order (latest, twice), order at version 1 (by
// version) and processes it cannot resolve statically.
const callerProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="caller" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="first"/>
    <callActivity id="first" calledElement="order"/><sequenceFlow id="f2" sourceRef="first" targetRef="sub"/>
    <subProcess id="sub">
      <startEvent id="s2"/><sequenceFlow id="f3" sourceRef="s2" targetRef="again"/>
      <callActivity id="again" calledElement="order"/><sequenceFlow id="f4" sourceRef="again" targetRef="dynamic"/>
      <callActivity id="dynamic" calledElement="${which}"/><sequenceFlow id="f5" sourceRef="dynamic" targetRef="e2"/>
      <endEvent id="e2"/>
    </subProcess>
    <sequenceFlow id="f6" sourceRef="sub" targetRef="missing"/>
    <callActivity id="missing" calledElement="nowhere"/><sequenceFlow id="f7" sourceRef="missing" targetRef="v1"/>
    <callActivity id="v1" calledElement="order" camunda:calledElementBinding="version" camunda:calledElementVersion="1"/>
    <sequenceFlow id="f8" sourceRef="v1" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// fieldsProcess has a generated start form.
const fieldsProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="fields" isExecutable="true">
    <startEvent id="start">
      <extensionElements><camunda:formData>
        <camunda:formField id="amount" type="long" defaultValue="5"/>
        <camunda:formField id="approved" type="boolean" defaultValue="true"/>
        <camunda:formField id="note" type="string"/>
        <camunda:formField id="due" type="date" defaultValue="31/12/2030"/>
        <camunda:formField id="checked" type="string"><camunda:validation><camunda:constraint name="required"/></camunda:validation></camunda:formField>
      </camunda:formData></extensionElements>
    </startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

const startForm = `{"id": "startForm", "components": []}`

// The deployment resource: files of any kind kept and served, get,
// redeploy, delete, and their 404s and 400s.
func TestRESTDeploymentGroup(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		d := a.ok(http.StatusOK, "POST", "/deployment/create", tenantDeployment("shop", "acme", map[string]string{
			"order.bpmn": orderProcess, "start.form": startForm, "rules.dmn": enginetest.DishDMN, "help.html": "<p>help</p>", "order.png": "PNG",
		}))
		id := field(d, "id").(string)
		if field(d, "tenantId") != "acme" {
			t.Errorf("deployment: tenantId %v, want acme", field(d, "tenantId"))
		}
		defs := field(d, "deployedProcessDefinitions").(map[string]any)
		if len(defs) != 1 {
			t.Fatalf("deployed definitions: %v", defs)
		}
		for _, def := range defs {
			if field(def, "tenantId") != "acme" || field(def, "key") != "order" {
				t.Errorf("definition %v: want order of tenant acme", def)
			}
		}
		if got := a.ok(http.StatusOK, "GET", "/deployment/"+id, nil); field(got, "tenantId") != "acme" || field(got, "name") != "shop" {
			t.Errorf("GET /deployment/{id}: %v", got)
		}
		a.wantError(http.StatusNotFound, "Deployment with id 'nope' does not exist", "GET", "/deployment/nope", nil)

		// Only a form: stored, no definitions.
		formOnly := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("forms", map[string]string{"other.form": startForm}))
		if field(formOnly, "deployedProcessDefinitions") != nil {
			t.Errorf("form-only deployment: %v, want deployedProcessDefinitions null", formOnly)
		}

		resources := a.ok(http.StatusOK, "GET", "/deployment/"+id+"/resources", nil).([]any)
		byName := map[string]string{}
		for _, r := range resources {
			if field(r, "deploymentId") != id {
				t.Errorf("resource %v: deploymentId, want %s", r, id)
			}
			byName[field(r, "name").(string)] = field(r, "id").(string)
		}
		if len(byName) != 5 {
			t.Fatalf("resources: %v, want 5", resources)
		}
		one := a.ok(http.StatusOK, "GET", "/deployment/"+id+"/resources/"+byName["help.html"], nil)
		if field(one, "name") != "help.html" {
			t.Errorf("GET resource: %v", one)
		}
		for name, want := range map[string]string{"order.bpmn": "application/xml", "help.html": "text/html", "start.form": "application/octet-stream",
			"order.png": "image/png", "rules.dmn": "application/xml"} {
			status, ct, cd, body := a.raw("/deployment/" + id + "/resources/" + byName[name] + "/data")
			if status != http.StatusOK || ct != want || !strings.Contains(cd, `filename=`+name) {
				t.Errorf("%s data: %d %q %q, want 200 %s as an attachment", name, status, ct, cd, want)
			}
			if name == "start.form" && string(body) != startForm {
				t.Errorf("start.form data: %q", body)
			}
		}
		a.wantError(http.StatusNotFound, "Deployment resource with resource id 'nope' for deployment id '"+id+"' does not exist.", "GET", "/deployment/"+id+"/resources/nope", nil)
		a.wantError(http.StatusNotFound, "Deployment resource with resource id 'nope'", "GET", "/deployment/"+id+"/resources/nope/data", nil)
		a.wantError(http.StatusNotFound, "Deployment resources for deployment id 'nope' do not exist.", "GET", "/deployment/nope/resources", nil)

		if reg := a.ok(http.StatusOK, "GET", "/deployment/registered", nil).([]any); len(reg) != 0 {
			t.Errorf("registered deployments: %v, want none", reg)
		}

		// Redeploy: the same files, name and tenant, a new version.
		again := a.ok(http.StatusOK, "POST", "/deployment/"+id+"/redeploy", map[string]any{"resourceNames": []string{"order.bpmn"}, "source": "redo"})
		if field(again, "name") != "shop" || field(again, "tenantId") != "acme" || field(again, "source") != "redo" {
			t.Errorf("redeploy: %v", again)
		}
		for _, def := range field(again, "deployedProcessDefinitions").(map[string]any) {
			if field(def, "version") != float64(2) || field(def, "tenantId") != "acme" {
				t.Errorf("redeployed definition %v: want version 2 of acme", def)
			}
		}
		again2 := a.ok(http.StatusOK, "POST", "/deployment/"+id+"/redeploy", nil)
		if n := len(a.ok(http.StatusOK, "GET", "/deployment/"+field(again2, "id").(string)+"/resources", nil).([]any)); n != 5 {
			t.Errorf("redeploy of all: %d resources, want 5", n)
		}
		a.wantError(http.StatusNotFound, "does not contain the following resources: [nope.bpmn]", "POST", "/deployment/"+id+"/redeploy", map[string]any{"resourceNames": []string{"nope.bpmn"}})
		a.wantError(http.StatusNotFound, "Deployment with id 'nope' does not exist", "POST", "/deployment/nope/redeploy", nil)

		// Delete: a running instance needs cascade; skip flags refused.
		a.ok(http.StatusOK, "POST", "/process-definition/key/order/tenant-id/acme/start", nil)
		latest := field(again2, "id").(string)
		a.wantError(http.StatusBadRequest, "skipCustomListeners", "DELETE", "/deployment/"+latest+"?cascade=true&skipCustomListeners=true", nil)
		a.wantError(http.StatusInternalServerError, "can't be deleted, because there are 1 dependent process instances", "DELETE", "/deployment/"+latest, nil)
		a.ok(http.StatusNoContent, "DELETE", "/deployment/"+latest+"?cascade=true&skipIoMappings=false", nil)
		a.wantError(http.StatusNotFound, "Deployment with id '"+latest+"' do not exist", "DELETE", "/deployment/"+latest, nil)

		a.wantError(http.StatusBadRequest, "deployment-activation-time", "POST", "/deployment/create",
			deploymentForm(map[string]string{"deployment-activation-time": "2030-01-01T00:00:00.000+0000"}, map[string]string{"order.bpmn": orderProcess}))

		// Duplicate filtering compares with the deployments of the same
		// name and tenant.
		files := map[string]string{"order.bpmn": orderProcess, "start.form": startForm}
		dup := func(tenant string) any {
			return a.ok(http.StatusOK, "POST", "/deployment/create", deploymentForm(map[string]string{
				"deployment-name": "dup", "tenant-id": tenant, "deploy-changed-only": "true"}, files))
		}
		first, same, other := dup("acme"), dup("acme"), dup("beta")
		if field(same, "id") != field(first, "id") || field(same, "deployedProcessDefinitions") != nil {
			t.Errorf("unchanged deployment of acme: %v, want %v again with nothing deployed", same, field(first, "id"))
		}
		if field(other, "id") == field(first, "id") || field(other, "tenantId") != "beta" || field(other, "deployedProcessDefinitions") == nil {
			t.Errorf("the same files for beta: %v, want a new deployment", other)
		}
		// deploy-changed-only deploys the changed files only; a file left
		// out is no change.
		files["start.form"] = `{"id": "startForm", "components": [{}]}`
		changed := dup("acme")
		if field(changed, "deployedProcessDefinitions") != nil {
			t.Errorf("only the form changed: %v, want no definitions deployed", changed)
		}
		if rs := a.ok(http.StatusOK, "GET", "/deployment/"+field(changed, "id").(string)+"/resources", nil).([]any); len(rs) != 1 || field(rs[0], "name") != "start.form" {
			t.Errorf("resources deployed with deploy-changed-only: %v, want start.form alone", rs)
		}
		delete(files, "start.form")
		if again := dup("acme"); field(again, "id") != field(first, "id") {
			t.Errorf("order.bpmn alone, unchanged: %v, want the deployment of its latest version %v", again, field(first, "id"))
		}
	})
}

// A key deployed without a tenant and by two tenants: found per tenant,
// started per tenant, the tenant carried to instances, tasks, jobs and
// external tasks and shown.
func TestRESTTenants(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		a.ok(http.StatusOK, "POST", "/deployment/create", tenantDeployment("a", "acme", map[string]string{"order.bpmn": orderProcess}))
		// Only tenants have it: by key alone (no tenant) it is not found.
		a.wantError(http.StatusNotFound, "No matching process definition with key: order and no tenant-id", "GET", "/process-definition/key/order", nil)
		a.wantError(http.StatusNotFound, "No matching process definition with key: order and no tenant-id", "POST", "/process-definition/key/order/start", map[string]any{})
		a.ok(http.StatusOK, "POST", "/deployment/create", tenantDeployment("b", "beta", map[string]string{"order.bpmn": orderProcess}))
		a.ok(http.StatusOK, "POST", "/deployment/create", tenantDeployment("b", "beta", map[string]string{"order.bpmn": orderProcess}))
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("none", map[string]string{"order.bpmn": orderProcess}))

		for tenant, version := range map[string]float64{"acme": 1, "beta": 2} {
			def := a.ok(http.StatusOK, "GET", "/process-definition/key/order/tenant-id/"+tenant, nil)
			if field(def, "tenantId") != tenant || field(def, "version") != version {
				t.Errorf("order of %s: %v, want version %v", tenant, def, version)
			}
		}
		if def := a.ok(http.StatusOK, "GET", "/process-definition/key/order", nil); field(def, "tenantId") != nil || field(def, "version") != float64(1) {
			t.Errorf("order of no tenant: %v", def)
		}
		a.wantError(http.StatusNotFound, "No matching process definition with key: order and tenant-id: zeta", "GET", "/process-definition/key/order/tenant-id/zeta", nil)
		a.wantError(http.StatusNotFound, "No matching process definition with key: order and tenant-id: zeta", "GET", "/process-definition/key/order/tenant-id/zeta/xml", nil)

		pi := field(a.ok(http.StatusOK, "POST", "/process-definition/key/order/tenant-id/beta/start", map[string]any{"businessKey": "b-1"}), "id").(string)
		if got := a.ok(http.StatusOK, "GET", "/process-instance/"+pi, nil); field(got, "tenantId") != "beta" {
			t.Errorf("instance: %v, want tenantId beta", got)
		}
		if got := a.ok(http.StatusOK, "GET", "/history/process-instance?processInstanceId="+pi, nil).([]any); field(got[0], "tenantId") != "beta" {
			t.Errorf("historic instance: %v, want tenantId beta", got)
		}
		task := a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)[0]
		if field(task, "tenantId") != "beta" {
			t.Errorf("task: %v, want tenantId beta", task)
		}
		if got := a.ok(http.StatusOK, "GET", "/history/task?processInstanceId="+pi, nil).([]any); field(got[0], "tenantId") != "beta" {
			t.Errorf("historic task: %v, want tenantId beta", got)
		}
		a.ok(http.StatusNoContent, "POST", "/task/"+field(task, "id").(string)+"/complete", map[string]any{})
		job := a.ok(http.StatusOK, "GET", "/job?processInstanceId="+pi, nil).([]any)[0]
		if field(job, "tenantId") != "beta" {
			t.Errorf("job: %v, want tenantId beta", job)
		}
		a.ok(http.StatusNoContent, "POST", "/job/"+field(job, "id").(string)+"/execute", nil)
		ext := a.ok(http.StatusOK, "GET", "/external-task?processInstanceId="+pi, nil).([]any)
		if len(ext) != 1 || field(ext[0], "tenantId") != "beta" {
			t.Errorf("external task: %v, want tenantId beta", ext)
		}
		// Without a tenant: the instance of the definition of no tenant.
		plain := field(a.ok(http.StatusOK, "POST", "/process-definition/key/order/start", nil), "id").(string)
		if got := a.ok(http.StatusOK, "GET", "/process-instance/"+plain, nil); field(got, "tenantId") != nil {
			t.Errorf("instance of no tenant: %v", got)
		}

		// A call activity calls the process of its caller's tenant.
		a.ok(http.StatusOK, "POST", "/deployment/create", tenantDeployment("calls", "acme", map[string]string{"caller.bpmn": callerProcess}))
		caller := field(a.ok(http.StatusOK, "POST", "/process-definition/key/caller/tenant-id/acme/start", nil), "id").(string)
		acmeOrder := field(a.ok(http.StatusOK, "GET", "/process-definition/key/order/tenant-id/acme", nil), "id")
		tasks := a.ok(http.StatusOK, "GET", "/task?taskDefinitionKey=approve", nil).([]any)
		found := false
		for _, task := range tasks {
			found = found || field(task, "processDefinitionId") == acmeOrder && field(task, "tenantId") == "acme"
		}
		if !found {
			t.Errorf("the caller %s of acme called no order of acme: tasks %v", caller, tasks)
		}

		// The Go API by key alone: several tenants have it.
		var ambiguous *bpmnlite.AmbiguousKeyError
		if _, err := a.eng.Start(t.Context(), bpmnlite.StartRequest{Key: "order"}); !errors.As(err, &ambiguous) ||
			!strings.Contains(err.Error(), "Cannot resolve a unique process definition for key 'order' because it exists for multiple tenants.") {
			t.Errorf("start by key of several tenants: %v, want ENGINE-03070", err)
		}
		if _, err := a.eng.Start(t.Context(), bpmnlite.StartRequest{Key: "order", TenantID: "acme"}); err != nil {
			t.Errorf("start by key and tenant: %v", err)
		}

		// Deleting by key and tenant deletes that tenant's versions only.
		a.ok(http.StatusNoContent, "DELETE", "/process-definition/key/order/tenant-id/beta?cascade=true", nil)
		if n := field(a.ok(http.StatusOK, "GET", "/process-definition/count?key=order", nil), "count"); n != float64(2) {
			t.Errorf("after deleting beta's: %v definitions of order, want 2", n)
		}
		a.wantError(http.StatusNotFound, "No process definition found with key 'order'", "DELETE", "/process-definition/key/order/tenant-id/beta", nil)
		// By key alone: every tenant's, as Camunda.
		a.ok(http.StatusNoContent, "DELETE", "/process-definition/key/order?cascade=true", nil)
		if n := field(a.ok(http.StatusOK, "GET", "/process-definition/count?key=order", nil), "count"); n != float64(0) {
			t.Errorf("after deleting by key: %v definitions of order, want 0", n)
		}
	})
}

// The process definition resource on one definition: get, xml, diagram,
// statistics, forms, start, suspension, history time to live, delete.
func TestRESTProcessDefinitionGroup(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.eng.RegisterDelegate("boom", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error {
			return errors.New("card declined")
		}))
		d := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("shop", map[string]string{"order.bpmn": orderProcess, "start.form": startForm}))
		var id string
		for k := range field(d, "deployedProcessDefinitions").(map[string]any) {
			id = k
		}
		if got := a.ok(http.StatusOK, "GET", "/process-definition/"+id, nil); field(got, "key") != "order" || field(got, "historyTimeToLive") != nil ||
			field(got, "description") != "Orders to approve" || field(got, "category") != "t" {
			t.Errorf("GET by id: %v", got)
		}
		a.wantError(http.StatusNotFound, "No matching definition with id nope", "GET", "/process-definition/nope", nil)
		a.wantError(http.StatusNotFound, "No matching definition with id nope", "GET", "/process-definition/nope/xml", nil)
		a.wantError(http.StatusNotFound, "no resource", "GET", "/process-definition/"+id+"/nothing-here", nil)
		for _, path := range []string{"/process-definition/" + id + "/xml", "/process-definition/key/order/xml"} {
			xml := a.ok(http.StatusOK, "GET", path, nil)
			if field(xml, "id") != id || field(xml, "bpmn20Xml") != orderProcess {
				t.Errorf("GET %s: %v", path, xml)
			}
		}
		if status, _, _, _ := a.raw("/process-definition/" + id + "/diagram"); status != http.StatusNoContent {
			t.Errorf("diagram without an image: %d, want 204", status)
		}

		// Forms: the start event's formKey and the deployed form.
		if f := a.ok(http.StatusOK, "GET", "/process-definition/key/order/startForm", nil); field(f, "key") != "camunda-forms:deployment:start.form" {
			t.Errorf("startForm: %v", f)
		}
		if status, ct, _, body := a.raw("/process-definition/" + id + "/deployed-start-form"); status != http.StatusOK || ct != "application/json" || string(body) != startForm {
			t.Errorf("deployed-start-form: %d %q %q", status, ct, body)
		}

		// Start: variables back, start instructions, refused members.
		started := a.ok(http.StatusOK, "POST", "/process-definition/"+id+"/start", map[string]any{"businessKey": "o-1",
			"variables": map[string]any{"amount": map[string]any{"value": 5, "type": "Integer"}}, "withVariablesInReturn": true})
		if field(started, "businessKey") != "o-1" || field(started, "variables", "amount", "value") != float64(5) {
			t.Errorf("start: %v", started)
		}
		pi := field(started, "id").(string)
		skipped := field(a.ok(http.StatusOK, "POST", "/process-definition/key/order/start", map[string]any{"startInstructions": []any{
			map[string]any{"type": "startBeforeActivity", "activityId": "pack", "variables": map[string]any{"p": map[string]any{"value": "x", "local": true}}},
		}}), "id").(string)
		if ext := a.ok(http.StatusOK, "GET", "/external-task?processInstanceId="+skipped, nil).([]any); len(ext) != 1 {
			t.Errorf("started before pack: external tasks %v", ext)
		}
		for member, body := range map[string]map[string]any{
			"startAfterActivity":  {"startInstructions": []any{map[string]any{"type": "startAfterActivity", "activityId": "approve"}}},
			"caseInstanceId":      {"caseInstanceId": "c"},
			"skipCustomListeners": {"skipCustomListeners": true},
			"skipIoMappings":      {"skipIoMappings": true},
		} {
			a.wantError(http.StatusBadRequest, member, "POST", "/process-definition/"+id+"/start", body)
		}
		submitted := a.ok(http.StatusOK, "POST", "/process-definition/"+id+"/submit-form", map[string]any{"businessKey": "o-2",
			"variables": map[string]any{"amount": map[string]any{"value": 7, "type": "Integer"}}})
		if field(submitted, "businessKey") != "o-2" {
			t.Errorf("submit-form: %v", submitted)
		}

		// Statistics: one instance's job fails into an incident.
		task := a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)[0]
		a.ok(http.StatusNoContent, "POST", "/task/"+field(task, "id").(string)+"/complete", map[string]any{})
		job := field(a.ok(http.StatusOK, "GET", "/job?processInstanceId="+pi, nil).([]any)[0], "id").(string)
		for range 3 {
			a.call("POST", "/job/"+job+"/execute", nil)
		}
		stats := a.ok(http.StatusOK, "GET", "/process-definition/statistics?failedJobs=true&incidents=true", nil).([]any)
		if len(stats) != 1 || field(stats[0], "@class") != "org.camunda.bpm.engine.rest.dto.repository.ProcessDefinitionStatisticsResultDto" ||
			field(stats[0], "instances") != float64(3) || field(stats[0], "failedJobs") != float64(1) ||
			fmt.Sprint(field(stats[0], "incidents")) != "[map[incidentCount:1 incidentType:failedJob]]" || field(stats[0], "definition", "id") != id {
			t.Errorf("definition statistics: %v", stats)
		}
		if plain := a.ok(http.StatusOK, "GET", "/process-definition/statistics", nil).([]any); field(plain[0], "failedJobs") != float64(0) ||
			len(field(plain[0], "incidents").([]any)) != 0 {
			t.Errorf("statistics without failed jobs and incidents: %v", plain)
		}
		if other := a.ok(http.StatusOK, "GET", "/process-definition/statistics?incidentsForType=other", nil).([]any); len(field(other[0], "incidents").([]any)) != 0 {
			t.Errorf("statistics of incidents of another type: %v", other)
		}
		a.wantError(http.StatusBadRequest, "Only one of the query parameter incidents or incidentsForType can be set.", "GET", "/process-definition/statistics?incidents=true&incidentsForType=failedJob", nil)
		a.wantError(http.StatusBadRequest, "Only one of the query parameter incidents or rootIncidents can be set.", "GET", "/process-definition/statistics?incidents=true&rootIncidents=true", nil)
		if root := a.ok(http.StatusOK, "GET", "/process-definition/statistics?rootIncidents=true", nil).([]any); fmt.Sprint(field(root[0], "incidents")) != "[map[incidentCount:1 incidentType:failedJob]]" {
			t.Errorf("statistics of root incidents: %v", root)
		}
		acts := a.ok(http.StatusOK, "GET", "/process-definition/"+id+"/statistics?failedJobs=true&incidentsForType=failedJob", nil).([]any)
		byActivity := map[string]string{}
		for _, s := range acts {
			byActivity[field(s, "id").(string)] = fmt.Sprint(field(s, "instances"), " ", field(s, "failedJobs"), " ", field(s, "incidents"))
		}
		if fmt.Sprint(byActivity) != "map[approve:1 0 [] charge:1 1 [map[incidentCount:1 incidentType:failedJob]] pack:1 0 []]" {
			t.Errorf("activity statistics: %v", byActivity)
		}
		a.wantError(http.StatusBadRequest, "failedJobs", "GET", "/process-definition/statistics?failedJobs=maybe", nil)
		a.wantError(http.StatusNotFound, "No matching definition with id nope", "GET", "/process-definition/nope/statistics", nil)

		// Suspension: by id, and by key for every version.
		a.ok(http.StatusNoContent, "PUT", "/process-definition/"+id+"/suspended", map[string]any{"suspended": true, "includeProcessInstances": true})
		if got := a.ok(http.StatusOK, "GET", "/process-definition/"+id, nil); field(got, "suspended") != true {
			t.Errorf("suspended definition: %v", got)
		}
		if got := a.ok(http.StatusOK, "GET", "/task?processInstanceId="+field(submitted, "id").(string), nil).([]any); field(got[0], "suspended") != true {
			t.Errorf("task of a definition suspended with its instances: %v", got)
		}
		a.wantError(http.StatusInternalServerError, "Cannot instantiate process definition "+id+":", "POST", "/process-definition/"+id+"/start", nil)
		a.wantError(http.StatusBadRequest, "executionDate", "PUT", "/process-definition/"+id+"/suspended", map[string]any{"suspended": false, "executionDate": "2030-01-01T00:00:00.000+0000"})
		a.wantError(http.StatusBadRequest, "Only processDefinitionKey can be set", "PUT", "/process-definition/suspended", map[string]any{"processDefinitionId": id, "suspended": false})
		a.ok(http.StatusNoContent, "PUT", "/process-definition/suspended", map[string]any{"processDefinitionKey": "nope", "suspended": true})
		a.wantError(http.StatusBadRequest, "processDefinitionKey", "PUT", "/process-definition/suspended", map[string]any{"suspended": true})
		a.ok(http.StatusNoContent, "PUT", "/process-definition/suspended", map[string]any{"processDefinitionKey": "order", "suspended": false})
		if got := a.ok(http.StatusOK, "GET", "/process-definition/"+id, nil); field(got, "suspended") != false {
			t.Errorf("activated by key: %v", got)
		}

		// History time to live.
		a.ok(http.StatusNoContent, "PUT", "/process-definition/"+id+"/history-time-to-live", map[string]any{"historyTimeToLive": 5})
		if got := a.ok(http.StatusOK, "GET", "/process-definition/"+id, nil); field(got, "historyTimeToLive") != float64(5) {
			t.Errorf("history time to live: %v", got)
		}
		a.wantError(http.StatusBadRequest, "historyTimeToLive", "PUT", "/process-definition/"+id+"/history-time-to-live", map[string]any{"historyTimeToLive": -1})
		a.wantError(http.StatusNotFound, "No matching definition with id nope", "PUT", "/process-definition/nope/history-time-to-live", map[string]any{"historyTimeToLive": 1})

		// A diagram deployed beside the model.
		d2 := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("drawn", map[string]string{"order.bpmn": orderProcess, "order.png": "PNG"}))
		var id2 string
		for k := range field(d2, "deployedProcessDefinitions").(map[string]any) {
			id2 = k
		}
		if status, ct, cd, body := a.raw("/process-definition/key/order/diagram"); status != http.StatusOK || ct != "image/png" || string(body) != "PNG" ||
			!strings.Contains(cd, "filename=order.png") {
			t.Errorf("diagram: %d %q %q %q", status, ct, cd, body)
		}
		if got := a.ok(http.StatusOK, "GET", "/process-definition/"+id2, nil); field(got, "diagram") != "order.png" {
			t.Errorf("definition with a diagram: %v", got)
		}
		a.wantError(http.StatusNotFound, "The form with the resource name 'start.form' cannot be found in deployment with id "+field(d2, "id").(string), "GET", "/process-definition/"+id2+"/deployed-start-form", nil)

		// Start forms that are not deployed ones.
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("plain", map[string]string{
			"charge.bpmn": oneExternalTask, "app.bpmn": strings.NewReplacer(`id="order"`, `id="app"`, "camunda-forms:deployment:start.form", "embedded:app:forms/start.html").Replace(orderProcess)}))
		a.wantError(http.StatusBadRequest, "One of the attributes 'formKey' and 'camunda:formRef' must be supplied but none were set.", "GET", "/process-definition/key/charge/deployed-start-form", nil)
		if f := a.ok(http.StatusOK, "GET", "/process-definition/key/charge/startForm", nil); field(f, "key") != nil || field(f, "camundaFormRef") != nil {
			t.Errorf("startForm of a start event without a form: %v", f)
		}
		a.wantError(http.StatusBadRequest, "The form key 'embedded:app:forms/start.html' does not reference a deployed form.", "GET", "/process-definition/key/app/deployed-start-form", nil)

		// The definitions a caller's call activities call statically.
		c := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("caller", map[string]string{"caller.bpmn": callerProcess}))
		var caller string
		for k := range field(c, "deployedProcessDefinitions").(map[string]any) {
			caller = k
		}
		called := a.ok(http.StatusOK, "GET", "/process-definition/"+caller+"/static-called-process-definitions", nil).([]any)
		if len(called) != 2 || field(called[0], "id") != id2 || fmt.Sprint(field(called[0], "calledFromActivityIds")) != "[first again]" ||
			field(called[0], "callingProcessDefinitionId") != caller || field(called[0], "key") != "order" ||
			field(called[1], "id") != id || fmt.Sprint(field(called[1], "calledFromActivityIds")) != "[v1]" {
			t.Errorf("static called definitions: %v, want order %s from first and again, %s from v1", called, id2, id)
		}
		a.wantError(http.StatusNotFound, "No matching definition with id nope", "GET", "/process-definition/nope/static-called-process-definitions", nil)

		// Generated forms: their fields' default values, typed as the form
		// shows them (a date as a string in its pattern, as Camunda's).
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("generated", map[string]string{"fields.bpmn": fieldsProcess}))
		vars := a.ok(http.StatusOK, "GET", "/process-definition/key/fields/form-variables", nil)
		want := map[string]string{"amount": "Long 5", "approved": "Boolean true", "note": "String <nil>", "due": "String 31/12/2030", "checked": "String <nil>"}
		for name, tv := range want {
			if got := fmt.Sprint(field(vars, name, "type"), " ", field(vars, name, "value")); got != tv {
				t.Errorf("form variable %s: %s, want %s", name, got, tv)
			}
		}
		if only := a.ok(http.StatusOK, "GET", "/process-definition/key/fields/form-variables?variableNames=amount,nope", nil).(map[string]any); len(only) != 1 || only["amount"] == nil {
			t.Errorf("form variables by name: %v", only)
		}
		if empty := a.ok(http.StatusOK, "GET", "/process-definition/key/charge/form-variables", nil).(map[string]any); len(empty) != 0 {
			t.Errorf("form variables without a form: %v", empty)
		}
		if status, ct, _, body := a.raw("/process-definition/key/fields/rendered-form"); status != http.StatusOK || ct != "application/xhtml+xml" ||
			!strings.Contains(string(body), `<input class="form-control" name="amount" cam-variable-type="Long" cam-variable-name="amount" type="text" value="5" />`) {
			t.Errorf("rendered start form: %d %s\n%s", status, ct, body)
		}
		a.wantError(http.StatusNotFound, "No matching rendered start form for process definition with the id", "GET", "/process-definition/key/charge/rendered-form", nil)
		a.wantError(http.StatusBadRequest, "Invalid value submitted for form field 'checked': validation of required failed.", "POST", "/process-definition/key/fields/submit-form", map[string]any{})

		// Delete: running instances need cascade.
		a.wantError(http.StatusInternalServerError, "Process definition with id: "+id+" can't be deleted, because there are 3 dependent process instances.", "DELETE", "/process-definition/"+id, nil)
		a.wantError(http.StatusBadRequest, "skipIoMappings", "DELETE", "/process-definition/"+id+"?skipIoMappings=true", nil)
		a.ok(http.StatusNoContent, "DELETE", "/process-definition/"+id+"?cascade=true", nil)
		a.wantError(http.StatusNotFound, "No process definition found with id '"+id+"'", "DELETE", "/process-definition/"+id, nil)
		if got := a.ok(http.StatusOK, "GET", "/history/process-instance?processInstanceId="+pi, nil).([]any); field(got[0], "state") != "EXTERNALLY_TERMINATED" {
			t.Errorf("instance of a deleted definition: %v", got)
		}
		a.ok(http.StatusNoContent, "DELETE", "/process-definition/key/order", nil)
		a.wantError(http.StatusNotFound, "No matching process definition with key: order and no tenant-id", "GET", "/process-definition/key/order", nil)
		if n := len(a.ok(http.StatusOK, "GET", "/deployment/"+field(d2, "id").(string)+"/resources", nil).([]any)); n != 2 {
			t.Errorf("resources after the definitions were deleted: %d, want 2 (the deployment stays)", n)
		}
	})
}

// Restarting ended instances from history: at the activities asked for,
// with their last variables and business key; running ones, others'
// and unknown ones refused.
func TestRESTRestart(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("charge", map[string]string{"charge.bpmn": oneExternalTask}))
		a.ok(http.StatusOK, "POST", "/deployment/create", deployment("other", map[string]string{"order.bpmn": orderProcess}))
		def := field(a.ok(http.StatusOK, "GET", "/process-definition/key/charge", nil), "id").(string)
		start := func() string {
			return field(a.ok(http.StatusOK, "POST", "/process-definition/"+def+"/start", map[string]any{"businessKey": "bk",
				"variables": map[string]any{"amount": map[string]any{"value": 3, "type": "Integer"}}}), "id").(string)
		}
		ended, running := start(), start()
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+ended, nil)
		other := field(a.ok(http.StatusOK, "POST", "/process-definition/key/order/start", nil), "id").(string)
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+other, nil)

		at := func(activity string) []any {
			return []any{map[string]any{"type": "startBeforeActivity", "activityId": activity}}
		}
		restart := "/process-definition/" + def + "/restart"
		a.ok(http.StatusNoContent, "POST", restart, map[string]any{"processInstanceIds": []string{ended}, "instructions": at("after")})
		tasks := a.ok(http.StatusOK, "GET", "/task?taskDefinitionKey=after", nil).([]any)
		if len(tasks) != 1 {
			t.Fatalf("restarted at after: tasks %v", tasks)
		}
		pi := field(tasks[0], "processInstanceId").(string)
		if got := a.ok(http.StatusOK, "GET", "/history/process-instance/"+pi, nil); field(got, "restartedProcessInstanceId") != ended {
			t.Errorf("restarted instance's history: %v, want restartedProcessInstanceId %s", got, ended)
		}
		if got := a.ok(http.StatusOK, "GET", "/process-instance/"+pi, nil); field(got, "businessKey") != "bk" {
			t.Errorf("restarted instance: %v, want business key bk", got)
		}
		if v := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables", nil); field(v, "amount", "value") != float64(3) {
			t.Errorf("restarted instance's variables: %v", v)
		}
		a.ok(http.StatusNoContent, "POST", restart, map[string]any{"processInstanceIds": []string{ended}, "instructions": at("after"), "withoutBusinessKey": true})
		if n := field(a.ok(http.StatusOK, "GET", "/process-instance/count?businessKey=bk", nil), "count"); n != float64(2) {
			t.Errorf("instances with business key bk after a restart without it: %v, want 2 (running, first restart)", n)
		}

		a.wantError(http.StatusInternalServerError, "Historic process instance '"+running+"' cannot be restarted. It is not completed or terminated.", "POST", restart,
			map[string]any{"processInstanceIds": []string{running}, "instructions": at("after")})
		a.wantError(http.StatusInternalServerError, "Its process definition", "POST", restart, map[string]any{"processInstanceIds": []string{other}, "instructions": at("after")})
		a.wantError(http.StatusBadRequest, "Historic process instance cannot be found", "POST", restart, map[string]any{"processInstanceIds": []string{"nope"}, "instructions": at("after")})
		a.wantError(http.StatusBadRequest, "Restart instructions cannot be empty", "POST", restart, map[string]any{"processInstanceIds": []string{ended}})
		a.wantError(http.StatusBadRequest, "Process instance ids cannot be empty", "POST", restart, map[string]any{"instructions": at("after")})
		a.wantError(http.StatusBadRequest, "Process instance ids cannot be empty", "POST", restart,
			map[string]any{"historicProcessInstanceQuery": map[string]any{"processInstanceId": "nope"}, "instructions": at("after")})
		a.wantError(http.StatusBadRequest, "a restart starts activities or transitions only", "POST", restart,
			map[string]any{"processInstanceIds": []string{ended}, "instructions": []any{map[string]any{"type": "cancel", "activityId": "after"}}})
		a.wantError(http.StatusBadRequest, `activity "nope" does not exist`, "POST", restart,
			map[string]any{"processInstanceIds": []string{ended}, "instructions": at("nope")})

		// The initial set of variables or the last; by a historic query;
		// after an activity or on a transition.
		changed := start()
		a.ok(http.StatusNoContent, "POST", "/process-instance/"+changed+"/variables", map[string]any{"modifications": map[string]any{
			"amount": map[string]any{"value": 7, "type": "Integer"}}})
		a.ok(http.StatusNoContent, "DELETE", "/process-instance/"+changed, nil)
		amountAt := func(body map[string]any) any {
			t.Helper()
			before := map[any]bool{}
			for _, p := range a.ok(http.StatusOK, "GET", "/process-instance?processDefinitionId="+def, nil).([]any) {
				before[field(p, "id")] = true
			}
			a.ok(http.StatusNoContent, "POST", restart, body)
			for _, p := range a.ok(http.StatusOK, "GET", "/process-instance?processDefinitionId="+def, nil).([]any) {
				if id := field(p, "id"); !before[id] {
					if n := len(a.ok(http.StatusOK, "GET", "/task?taskDefinitionKey=after&processInstanceId="+id.(string), nil).([]any)); n != 1 {
						t.Errorf("restarted instance %v: %d tasks at after, want 1", id, n)
					}
					return field(a.ok(http.StatusOK, "GET", "/process-instance/"+id.(string)+"/variables/amount", nil), "value")
				}
			}
			t.Fatalf("no new instance after POST %s %v", restart, body)
			return nil
		}
		if v := amountAt(map[string]any{"processInstanceIds": []string{changed}, "initialVariables": true,
			"instructions": []any{map[string]any{"type": "startAfterActivity", "activityId": "work"}}}); v != float64(3) {
			t.Errorf("restart with the initial variables: amount %v, want 3", v)
		}
		if v := amountAt(map[string]any{"historicProcessInstanceQuery": map[string]any{"processInstanceId": changed}, "skipCustomListeners": true, "skipIoMappings": true,
			"instructions": []any{map[string]any{"type": "startTransition", "transitionId": "f2"}}}); v != float64(7) {
			t.Errorf("restart with the last variables: amount %v, want 7", v)
		}
		a.wantError(http.StatusNotFound, "No matching definition with id nope", "POST", "/process-definition/nope/restart", map[string]any{"processInstanceIds": []string{ended}, "instructions": at("after")})
		// All or none: one bad instance restarts none.
		before := field(a.ok(http.StatusOK, "GET", "/process-instance/count", nil), "count")
		a.wantError(http.StatusInternalServerError, "cannot be restarted", "POST", restart, map[string]any{"processInstanceIds": []string{ended, running}, "instructions": at("after")})
		if after := field(a.ok(http.StatusOK, "GET", "/process-instance/count", nil), "count"); after != before {
			t.Errorf("instances after a failed restart: %v, want %v", after, before)
		}
	})
}

// A deployment keeps its files' names as the client gave them, directories
// included, as Camunda does.
func TestRESTDeploymentResourcePaths(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		d := a.ok(http.StatusOK, "POST", "/deployment/create", deployment("paths", map[string]string{
			"processes/one.bpmn": oneTask, "forms/start.form": `{"id": "start", "components": []}`}))
		var names []string
		for _, r := range a.ok(http.StatusOK, "GET", "/deployment/"+field(d, "id").(string)+"/resources", nil).([]any) {
			names = append(names, field(r, "name").(string))
		}
		sort.Strings(names)
		if strings.Join(names, " ") != "forms/start.form processes/one.bpmn" {
			t.Errorf("resources %v", names)
		}
		for _, def := range field(d, "deployedProcessDefinitions").(map[string]any) {
			if field(def, "resource") != "processes/one.bpmn" {
				t.Errorf("definition's resource %v", field(def, "resource"))
			}
		}
	})
}
