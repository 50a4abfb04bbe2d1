package runtime_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// formsProcess forks to one user task per way of naming a form: a
// Camunda Form reference bound to the latest version, to the one of the
// process's deployment, to a version (from an expression), and a form key
// (from an expression); its start event references the latest form.
var formsProcess = enginetest.Process("forms", `
    <startEvent id="start" camunda:formRef="invoice" />
    <sequenceFlow id="f0" sourceRef="start" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f1" sourceRef="fork" targetRef="latest" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="deployment" />
    <sequenceFlow id="f3" sourceRef="fork" targetRef="version" />
    <sequenceFlow id="f4" sourceRef="fork" targetRef="keyed" />
    <userTask id="latest" camunda:formRef="invoice" camunda:formRefBinding="latest" />
    <userTask id="deployment" camunda:formRef="invoice" camunda:formRefBinding="deployment" />
    <userTask id="version" camunda:formRef="${formName}" camunda:formRefBinding="version" camunda:formRefVersion="${wanted}" />
    <userTask id="keyed" camunda:formKey="embedded:deployment:${page}" />`)

func invoiceForm(label string) string {
	return `{"id": "invoice", "type": "default", "components": [{"key": "amount", "label": "` + label + `", "type": "number"}]}`
}

// A .form resource deploys as a Camunda Form definition, versioned by its
// id; camunda:formRef resolves by its binding when the form is asked for,
// to the version the binding names, across deployments.
func TestFormRefBindings(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		first, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "forms", Resources: []bpmnlite.Resource{
			{Name: "forms.bpmn", Bytes: []byte(formsProcess)},
			{Name: "invoice.form", Bytes: []byte(invoiceForm("v1"))},
			{Name: "page.html", Bytes: []byte("<form>page</form>")},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if len(first.FormDefinitions) != 1 || first.FormDefinitions[0].Key != "invoice" || first.FormDefinitions[0].Version != 1 {
			t.Fatalf("first deployment's forms: %+v", first.FormDefinitions)
		}
		second, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "forms-2", Resources: []bpmnlite.Resource{
			{Name: "invoice-v2.form", Bytes: []byte(invoiceForm("v2"))},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if defs, err := e.Eng.FormDefinitions(e.Ctx, second.ID); err != nil || len(defs) != 1 || defs[0].Version != 2 || defs[0].ResourceName != "invoice-v2.form" {
			t.Fatalf("second deployment's forms: %+v %v", defs, err)
		}
		pi := e.Start("forms", map[string]any{"formName": "invoice", "wanted": 1, "page": "page.html"})
		deployed := map[string]string{}
		for _, task := range e.Tasks(pi) {
			name, content, err := e.Eng.TaskDeployedForm(e.Ctx, task.ID)
			if err != nil {
				t.Fatalf("%s: deployed form: %v", task.TaskDefinitionKey, err)
			}
			deployed[task.TaskDefinitionKey] = name + " " + string(content)
			f, err := e.Eng.TaskForm(e.Ctx, task.ID)
			if err != nil {
				t.Fatal(err)
			}
			switch task.TaskDefinitionKey {
			case "keyed":
				if f.Key != "embedded:deployment:page.html" || f.Ref != nil || task.FormKey != f.Key {
					t.Errorf("keyed: form %+v, task form key %q", f, task.FormKey)
				}
			case "version":
				if f.Key != "" || f.Ref == nil || f.Ref.Key != "invoice" || f.Ref.Binding != "version" || f.Ref.Version == nil || *f.Ref.Version != 1 {
					t.Errorf("version: form %+v", f)
				}
			case "deployment", "latest":
				if f.Ref == nil || f.Ref.Binding != task.TaskDefinitionKey || f.Ref.Version != nil {
					t.Errorf("%s: form %+v", task.TaskDefinitionKey, f)
				}
			}
		}
		wantEq(t, "deployed forms", deployed, map[string]string{
			"latest":     "invoice-v2.form " + invoiceForm("v2"),
			"deployment": "invoice.form " + invoiceForm("v1"),
			"version":    "invoice.form " + invoiceForm("v1"),
			"keyed":      "page.html <form>page</form>",
		})
		pd, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "forms"})
		if err != nil || len(pd) != 1 {
			t.Fatal(pd, err)
		}
		if name, _, err := e.Eng.StartDeployedForm(e.Ctx, pd[0].ID); err != nil || name != "invoice-v2.form" {
			t.Errorf("start form: %q %v", name, err)
		}

		// A version that is not deployed: not found, naming the reference.
		pi = e.Start("forms", map[string]any{"formName": "invoice", "wanted": 3, "page": "missing.html"})
		for _, task := range e.Tasks(pi) {
			_, _, err := e.Eng.TaskDeployedForm(e.Ctx, task.ID)
			switch task.TaskDefinitionKey {
			case "version":
				if !errors.Is(err, bpmnlite.ErrNotFound) || !strings.Contains(err.Error(), "No Camunda Form Definition was found for Camunda Form Ref: CamundaFormRefImpl [key=invoice, binding=version, version=3]") {
					t.Errorf("version 3: %v", err)
				}
			case "keyed":
				if !errors.Is(err, bpmnlite.ErrNotFound) || !strings.Contains(err.Error(), "The form with the resource name 'missing.html' cannot be found in deployment with id "+first.ID) {
					t.Errorf("missing page: %v", err)
				}
			}
		}

		// Deleting the second deployment deletes its form: latest is v1 again.
		if err := e.Eng.DeleteDeployment(e.Ctx, second.ID, false); err != nil {
			t.Fatal(err)
		}
		if name, _, err := e.Eng.StartDeployedForm(e.Ctx, pd[0].ID); err != nil || name != "invoice.form" {
			t.Errorf("start form after the second deployment was deleted: %q %v", name, err)
		}
	})
}

// A .form resource without an id, or that is not JSON, is refused at
// deployment, naming the resource.
func TestFormResourceRefused(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for body, want := range map[string]string{
			`{"components": []}`: `Exception during parsing of Camunda Form resource 'bad.form': it has no "id"`,
			`{"id": `:            `Exception during parsing of Camunda Form resource 'bad.form': unexpected end of JSON input`,
		} {
			_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.form", Bytes: []byte(body)}}})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", body, err, want)
			}
		}
		if n, err := e.Eng.Count(e.Ctx, bpmnlite.DeploymentQuery{}); err != nil || n != 0 {
			t.Errorf("deployments after refusals: %d %v", n, err)
		}
	})
}

// fieldsProcess has a user task with a generated form: one field per
// type, each constraint of Camunda's, defaults (one an expression).
var fieldsProcess = enginetest.Process("fields", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <userTask id="review">
      <extensionElements><camunda:formData>
        <camunda:formField id="name" label="Name of ${who}" type="string">
          <camunda:properties><camunda:property id="hint" value="full name" /></camunda:properties>
          <camunda:validation>
            <camunda:constraint name="required" />
            <camunda:constraint name="minlength" config="2" />
            <camunda:constraint name="maxlength" config="5" />
          </camunda:validation>
        </camunda:formField>
        <camunda:formField id="amount" type="long">
          <camunda:validation><camunda:constraint name="min" config="1" /><camunda:constraint name="max" config="10" /></camunda:validation>
        </camunda:formField>
        <camunda:formField id="approved" type="boolean" defaultValue="false" />
        <camunda:formField id="due" type="date" />
        <camunda:formField id="shipped" type="date" datePattern="yyyy-MM-dd" />
        <camunda:formField id="kind" type="enum">
          <camunda:value id="a" name="Type A" /><camunda:value id="b" name="Type B" />
        </camunda:formField>
        <camunda:formField id="locked" type="string" defaultValue="fixed">
          <camunda:validation><camunda:constraint name="readonly" /></camunda:validation>
        </camunda:formField>
        <camunda:formField id="note" type="string" defaultValue="${greeting}" />
      </camunda:formData></extensionElements>
    </userTask>
    <sequenceFlow id="f2" sourceRef="review" targetRef="wait" />
    <userTask id="wait" />`)

// A generated form's constraints are checked on submit, each failure a
// *FormFieldError naming the field that changes nothing; values are
// converted to their fields' types, and fields not submitted get their
// defaults, as Camunda's FormFieldHandler.
func TestGeneratedFormSubmit(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("fields", fieldsProcess)
		pi := e.Start("fields", map[string]any{"greeting": "hello", "who": "you", "amount": int64(3)})
		task := e.Tasks(pi)[0].ID

		vars, err := e.Eng.TaskFormVariables(e.Ctx, task, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for name, v := range vars {
			got[name] = fmt.Sprint(v.Type, " ", v.Value)
		}
		wantEq(t, "form variables", got, map[string]string{
			"name": "String <nil>", "amount": "Long 3", "approved": "Boolean false", "due": "String ",
			"shipped": "String ", "kind": "String <nil>", "locked": "String fixed", "note": "String hello",
			"greeting": "String hello", "who": "String you", // the task's other variables
		})
		only, err := e.Eng.TaskFormVariables(e.Ctx, task, []string{"amount", "who"})
		if err != nil || len(only) != 2 || only["amount"] == nil || only["who"] == nil {
			t.Errorf("form variables by name: %v %v", only, err)
		}

		ok := map[string]any{"name": "Ann", "amount": int64(5), "approved": "true", "due": "24/12/2030",
			"shipped": "2031-01-02", "kind": "a", "extra": 1}
		with := func(name string, v any) map[string]any {
			out := map[string]any{}
			for k, x := range ok {
				out[k] = x
			}
			if v == nil {
				delete(out, name)
			} else {
				out[name] = v
			}
			return out
		}
		for _, c := range []struct {
			vars       map[string]any
			field, msg string
		}{
			{with("name", nil), "name", "validation of required failed."},
			{with("name", ""), "name", "validation of required failed."},
			{with("name", "A"), "name", "validation of minlength(2) failed."},
			{with("name", "Annabel"), "name", "validation of maxlength(5) failed."},
			{with("name", 42), "name", "validation of minlength(2) failed."},
			{with("amount", 0), "amount", "validation of min(1) failed."},
			{with("amount", int64(11)), "amount", "validation of max(10) failed."},
			{with("amount", "seven"), "amount", "validation of min(1) failed."},
			{with("amount", 2.5), "amount", "Value '2.5' is not of type Long."},
			{with("approved", 3), "approved", "Value '3' is not of type Boolean."},
			{with("due", "2030-12-24"), "due", "Could not parse value '2030-12-24' as date using date format 'dd/MM/yyyy'."},
			{with("shipped", "02/01/2031"), "shipped", "Could not parse value '02/01/2031' as date using date format 'yyyy-MM-dd'."},
			{with("kind", "c"), "kind", "Invalid value for enum form property: c"},
			{with("locked", "changed"), "locked", "validation of readonly failed."},
		} {
			_, err := e.Eng.SubmitTaskForm(e.Ctx, task, c.vars, false)
			var fe *bpmnlite.FormFieldError
			if !errors.As(err, &fe) || fe.Field != c.field || err.Error() != "Invalid value submitted for form field '"+c.field+"': "+c.msg {
				t.Errorf("%v: %v, want %s: %s", c.vars, err, c.field, c.msg)
			}
		}
		if e.TaskKeys(pi) != "review" || e.Var(pi, "name") != nil || e.Var(pi, "extra") != nil {
			t.Fatalf("after refused submissions: tasks %s, name %v", e.TaskKeys(pi), e.Var(pi, "name"))
		}

		if _, err := e.Eng.SubmitTaskForm(e.Ctx, task, ok, false); err != nil {
			t.Fatal(err)
		}
		if e.TaskKeys(pi) != "wait" {
			t.Fatalf("after submit: %s", e.TaskKeys(pi))
		}
		wantEq(t, "submitted variables", e.VarsOf(pi), map[string]any{
			"greeting": "hello", "who": "you", "extra": int64(1),
			"name": "Ann", "amount": int64(5), "approved": true, "kind": "a",
			"due":     time.Date(2030, 12, 24, 0, 0, 0, 0, time.UTC),
			"shipped": time.Date(2031, 1, 2, 0, 0, 0, 0, time.UTC),
			"locked":  "fixed", "note": "hello", // not submitted: the defaults
		})
		typed, err := e.Eng.ScopeVariables(e.Ctx, bpmnlite.VariableScope{ExecutionID: pi})
		if err != nil || typed["amount"].Type != "Long" || typed["due"].Type != "Date" || typed["approved"].Type != "Boolean" {
			t.Errorf("stored types: amount %v, due %v, approved %v (%v)", typed["amount"], typed["due"], typed["approved"], err)
		}
	})
}

// formTask is process id: a user task "task" with extension elements ext,
// then next (an element with id "next").
func formTask(id, ext, next string) string {
	return enginetest.Process(id, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task"><extensionElements>`+ext+`</extensionElements></userTask>
    <sequenceFlow id="f2" sourceRef="task" targetRef="next" />
    `+next)
}

// required is met by a variable the task already sees, or by a default
// value, as Camunda's RequiredValidator.
func TestGeneratedFormRequiredSeesVariables(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("req", formTask("req", `<camunda:formData>
        <camunda:formField id="known" type="string"><camunda:validation><camunda:constraint name="required" /></camunda:validation></camunda:formField>
        <camunda:formField id="defaulted" type="long" defaultValue="7"><camunda:validation><camunda:constraint name="required" /></camunda:validation></camunda:formField>
      </camunda:formData>`, `<endEvent id="next" />`))
		pi := e.Start("req", nil)
		if _, err := e.Eng.SubmitTaskForm(e.Ctx, e.Tasks(pi)[0].ID, nil, false); err == nil || !strings.Contains(err.Error(), "form field 'known'") {
			t.Fatalf("without known: %v", err)
		}
		pi = e.Start("req", map[string]any{"known": "yes"})
		if _, err := e.Eng.SubmitTaskForm(e.Ctx, e.Tasks(pi)[0].ID, nil, false); err != nil {
			t.Fatal(err)
		}
		h, err := e.Eng.HistoricVariableInstances(e.Ctx, bpmnlite.HistoricVariableInstanceQuery{ProcessInstanceID: pi, Name: "defaulted"})
		if !e.Ended(pi) || err != nil || len(h) != 1 || h[0].Value != int64(7) {
			t.Errorf("ended %v, defaulted %+v %v", e.Ended(pi), h, err)
		}
	})
}

// A start form's fields are validated and converted when it is submitted;
// its business key field's value is the business key.
func TestStartFormSubmit(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("order", enginetest.Process("order", `
    <startEvent id="start">
      <extensionElements><camunda:formData businessKey="orderId">
        <camunda:formField id="orderId" type="string"><camunda:validation><camunda:constraint name="required" /></camunda:validation></camunda:formField>
        <camunda:formField id="count" type="long" defaultValue="2"><camunda:validation><camunda:constraint name="max" config="9" /></camunda:validation></camunda:formField>
      </camunda:formData></extensionElements>
    </startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="wait" />
    <userTask id="wait" />`))
		pd, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "order"})
		if err != nil || len(pd) != 1 || pd[0].HasStartForm { // no form key: Camunda's hasStartFormKey is false
			t.Fatal(pd, err)
		}
		vars, err := e.Eng.StartFormVariables(e.Ctx, pd[0].ID, nil)
		if err != nil || len(vars) != 2 || vars["count"].Type != "Long" || vars["count"].Value != int64(2) || vars["orderId"].Value != nil {
			t.Errorf("start form variables: %+v %v", vars, err)
		}
		if _, err := e.Eng.SubmitStartForm(e.Ctx, pd[0].ID, "", map[string]any{"orderId": "o-1", "count": 10}); err == nil || err.Error() != "Invalid value submitted for form field 'count': validation of max(9) failed." {
			t.Errorf("count 10: %v", err)
		}
		if n, _ := e.Eng.Count(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{}); n != 0 {
			t.Errorf("%d instances after a refused submission", n)
		}
		pi, err := e.Eng.SubmitStartForm(e.Ctx, pd[0].ID, "", map[string]any{"orderId": "o-1"})
		if err != nil {
			t.Fatal(err)
		}
		inst, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
		if err != nil || len(inst) != 1 || inst[0].BusinessKey != "o-1" {
			t.Errorf("business key: %+v %v", inst, err)
		}
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"orderId": "o-1", "count": int64(2)})
	})
}

// Legacy camunda:formProperty elements apply on submit, as Camunda's
// FormPropertyHandler: required and writable are checked, the value (or
// the default) is converted to the property's type and set as its
// variable, under another name when it says so.
func TestFormPropertiesSubmit(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("legacy", formTask("legacy", `
        <camunda:formProperty id="speaker" variable="SpeakerName" />
        <camunda:formProperty id="room" writable="false" />
        <camunda:formProperty id="duration" type="long" required="true" />
        <camunda:formProperty id="estimate" type="long" default="${12 * 2 - 1}" />
        <camunda:formProperty id="free" type="boolean" />
        <camunda:formProperty id="direction" type="enum"><camunda:value id="left" /><camunda:value id="right" /></camunda:formProperty>
        <camunda:formProperty id="start" type="date" datePattern="dd-MM-yyyy hh:mm" />`, `<userTask id="next" />`))
		pi := e.Start("legacy", nil)
		task := e.Tasks(pi)[0].ID
		for _, c := range []struct {
			vars map[string]any
			want string
		}{
			{map[string]any{"duration": "5", "room": "A"}, "form property 'room' is not writable"},
			{map[string]any{"speaker": "Ann"}, "form property 'duration' is required"},
			{map[string]any{"duration": "five"}, "form property 'duration': Value 'five' is not of type Long."},
			{map[string]any{"duration": "5", "direction": "up"}, "form property 'direction': Invalid value for enum form property: up"},
			{map[string]any{"duration": "5", "start": "2030-01-01"}, "form property 'start': Could not parse value '2030-01-01' as date using date format 'dd-MM-yyyy hh:mm'."},
		} {
			_, err := e.Eng.SubmitTaskForm(e.Ctx, task, c.vars, false)
			var fe *bpmnlite.FormFieldError
			if !errors.As(err, &fe) || err.Error() != c.want {
				t.Errorf("%v: %v, want %s", c.vars, err, c.want)
			}
		}
		if _, err := e.Eng.SubmitTaskForm(e.Ctx, task, map[string]any{"speaker": "Ann", "duration": "45", "free": "true",
			"direction": "left", "start": "24-12-2030 09:30", "other": "x"}, false); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "variables", e.VarsOf(pi), map[string]any{"SpeakerName": "Ann", "duration": int64(45), "estimate": int64(23),
			"free": true, "direction": "left", "start": time.Date(2030, 12, 24, 9, 30, 0, 0, time.UTC), "other": "x"})
	})
}

// evenValidator accepts even numbers; it sees the other submitted values.
type evenValidator struct{ seen map[string]any }

func (v *evenValidator) ValidateFormField(value any, c bpmnlite.FormFieldValidatorContext) (bool, error) {
	v.seen = c.SubmittedValues
	n, ok := value.(int64)
	if value != nil && !ok {
		return false, fmt.Errorf("%v is no integer", value)
	}
	return n%2 == 0, nil
}

// A custom validator (camunda:constraint name="validator") is a registered
// bean, named as Camunda names the Java class, or by an expression.
func TestFormCustomValidator(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		even := &evenValidator{}
		e.Eng.RegisterBean("org.example.EvenValidator", even)
		e.Eng.RegisterBean("evenBean", even)
		e.Deploy("custom", formTask("custom", `<camunda:formData>
        <camunda:formField id="byName" type="long"><camunda:validation><camunda:constraint name="validator" config="org.example.EvenValidator" /></camunda:validation></camunda:formField>
        <camunda:formField id="byExpr" type="long"><camunda:validation><camunda:constraint name="validator" config="${evenBean}" /></camunda:validation></camunda:formField>
      </camunda:formData>`, `<userTask id="next" />`))
		pi := e.Start("custom", nil)
		task := e.Tasks(pi)[0].ID
		for _, c := range []struct {
			vars map[string]any
			want string
		}{
			{map[string]any{"byName": int64(3)}, "Invalid value submitted for form field 'byName': validation of validator(org.example.EvenValidator) failed."},
			{map[string]any{"byExpr": int64(5)}, "Invalid value submitted for form field 'byExpr': validation of validator(${evenBean}) failed."},
			{map[string]any{"byName": "x"}, "Invalid value submitted for form field 'byName': validation of validator(org.example.EvenValidator) failed: x is no integer"},
		} {
			if _, err := e.Eng.SubmitTaskForm(e.Ctx, task, c.vars, false); err == nil || err.Error() != c.want {
				t.Errorf("%v: %v, want %s", c.vars, err, c.want)
			}
		}
		if _, err := e.Eng.SubmitTaskForm(e.Ctx, task, map[string]any{"byName": int64(2), "byExpr": int64(4)}, false); err != nil {
			t.Fatal(err)
		}
		if even.seen["byExpr"] != int64(4) || e.TaskKeys(pi) != "next" {
			t.Errorf("validator saw %v; tasks %s", even.seen, e.TaskKeys(pi))
		}
		e.Deploy("unknown", formTask("unknown", `<camunda:formData>
        <camunda:formField id="f" type="long"><camunda:validation><camunda:constraint name="validator" config="org.example.Missing" /></camunda:validation></camunda:formField>
      </camunda:formData>`, `<userTask id="next" />`))
		pi = e.Start("unknown", nil)
		_, err := e.Eng.SubmitTaskForm(e.Ctx, e.Tasks(pi)[0].ID, map[string]any{"f": int64(2)}, false)
		if err == nil || err.Error() != "form field f: validator 'org.example.Missing' is no registered FormFieldValidator (register one with RegisterBean)" {
			t.Errorf("unregistered validator: %v", err)
		}
	})
}

// At history level full the text values submitted with a form are kept
// as historic form fields (of the task, or of the started instance),
// apart from the variable updates; a refused submission keeps none.
func TestFormFieldsInHistory(t *testing.T) {
	eachBackend(t, bpmnlite.Config{History: bpmnlite.HistoryConfig{Level: bpmnlite.HistoryFull}}, func(t *testing.T, e *env) {
		e.Deploy("audit", enginetest.Process("audit", `
    <startEvent id="start"><extensionElements><camunda:formData>
      <camunda:formField id="customer" type="string" />
    </camunda:formData></extensionElements></startEvent>
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task"><extensionElements><camunda:formData>
      <camunda:formField id="amount" type="long"><camunda:validation><camunda:constraint name="max" config="9" /></camunda:validation></camunda:formField>
    </camunda:formData></extensionElements></userTask>
    <sequenceFlow id="f2" sourceRef="task" targetRef="next" />
    <userTask id="next" />`))
		pd, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "audit"})
		if err != nil || len(pd) != 1 {
			t.Fatal(pd, err)
		}
		pi, err := e.Eng.SubmitStartForm(e.Ctx, pd[0].ID, "", map[string]any{"customer": "ACME", "count": int64(1)})
		if err != nil {
			t.Fatal(err)
		}
		task := e.Tasks(pi)[0]
		if _, err := e.Eng.SubmitTaskForm(e.Ctx, task.ID, map[string]any{"amount": int64(12), "note": "refused"}, false); err == nil {
			t.Fatal("amount 12 was accepted")
		}
		if _, err := e.Eng.SubmitTaskForm(e.Ctx, task.ID, map[string]any{"amount": int64(7), "note": "ok"}, false); err != nil {
			t.Fatal(err)
		}
		fields, err := e.Eng.HistoricDetails(e.Ctx, bpmnlite.HistoricDetailQuery{ProcessInstanceID: pi, FormFields: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range fields {
			got = append(got, fmt.Sprintf("%s=%s task:%v", d.Name, d.Text, d.TaskID == task.ID))
		}
		// Text values only, as Camunda's: not the Long amount.
		wantEq(t, "form fields", got, []string{"customer=ACME task:false", "note=ok task:true"})
		updates, err := e.Eng.HistoricDetails(e.Ctx, bpmnlite.HistoricDetailQuery{ProcessInstanceID: pi, VariableUpdates: true})
		if err != nil || len(updates) != 4 { // customer, count, amount (a Long), note
			t.Errorf("variable updates: %d %v", len(updates), err)
		}
		for _, d := range updates {
			if d.FormField {
				t.Errorf("a form field among the variable updates: %+v", d)
			}
		}
	})
}

// A start form's key and reference may be expressions, evaluated without
// variables (beans only), as Camunda's start form.
func TestStartFormExpressions(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterBean("startPage", "start.html")
		e.Eng.RegisterBean("forms", map[string]any{"key": "invoice"})
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "expr", Resources: []bpmnlite.Resource{
			{Name: "keyed.bpmn", Bytes: []byte(enginetest.Process("keyed", `
    <startEvent id="start" camunda:formKey="embedded:deployment:${startPage}" />`))},
			{Name: "reffed.bpmn", Bytes: []byte(enginetest.Process("reffed", `
    <startEvent id="start" camunda:formRef="${forms.key}" camunda:formRefBinding="deployment" />`))},
			{Name: "start.html", Bytes: []byte("<form/>")},
			{Name: "invoice.form", Bytes: []byte(invoiceForm("v1"))},
		}})
		if err != nil {
			t.Fatal(err)
		}
		for key, want := range map[string]string{"keyed": "start.html <form/>", "reffed": "invoice.form " + invoiceForm("v1")} {
			pd, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: key})
			if err != nil || len(pd) != 1 || !pd[0].HasStartForm {
				t.Fatal(pd, err)
			}
			name, content, err := e.Eng.StartDeployedForm(e.Ctx, pd[0].ID)
			if err != nil || name+" "+string(content) != want {
				t.Errorf("%s: %q %q %v, want %s", key, name, content, err, want)
			}
		}
	})
}

// A generated form renders as the HTML Camunda's HtmlFormEngine writes
// for its Tasklist: labels evaluated, defaults as values, constraints as
// attributes (readonly as disabled, a read-only date without its picker),
// enum options, readable legacy properties after the fields.
func TestRenderedForm(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("rendered", formTask("rendered", `<camunda:formData>
        <camunda:formField id="ok" label="OK, ${who}?" type="boolean" defaultValue="true" />
        <camunda:formField id="kind" type="enum"><camunda:value id="a" name="Type &quot;A&quot;" /></camunda:formField>
        <camunda:formField id="due" label="Due" type="date"><camunda:validation><camunda:constraint name="readonly" /></camunda:validation></camunda:formField>
      </camunda:formData>
      <camunda:formProperty id="room" name="Room" writable="false" />
      <camunda:formProperty id="hidden" readable="false" />`, `<userTask id="next" />`))
		pi := e.Start("rendered", map[string]any{"who": "<b>Ann</b>", "room": "B2"})
		html, err := e.Eng.RenderedTaskForm(e.Ctx, e.Tasks(pi)[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		want := `<form name="generatedForm" role="form">
  <div class="form-group">
    <label for="ok">
      OK, &lt;b&gt;Ann&lt;/b&gt;?
    </label>
    <input class="form-control" name="ok" cam-variable-type="Boolean" cam-variable-name="ok" type="checkbox" value="true" />
    <div ng-if="this.generatedForm.ok.$invalid && this.generatedForm.ok.$dirty" class="has-error">
      <div ng-show="this.generatedForm.ok.$error.required" class="help-block">
        Required field
      </div>
      <div ng-show="this.generatedForm.ok.$error.camVariableType" class="help-block">
        Only a boolean value is allowed
      </div>
    </div>
  </div>
  <div class="form-group">
    <select class="form-control" name="kind" cam-variable-type="String" cam-variable-name="kind">
      <option value="a">
        Type "A"
      </option>
    </select>
    <div ng-if="this.generatedForm.kind.$invalid && this.generatedForm.kind.$dirty" class="has-error">
      <div ng-show="this.generatedForm.kind.$error.required" class="help-block">
        Required field
      </div>
      <div ng-show="this.generatedForm.kind.$error.camVariableType" class="help-block">
        Only a string value is allowed
      </div>
    </div>
  </div>
  <div class="form-group">
    <label for="due">
      Due
    </label>
    <div class="input-group">
      <input class="form-control" name="due" cam-variable-type="String" cam-variable-name="due" disabled type="text" />
    </div>
    <div ng-if="this.generatedForm.due.$invalid && this.generatedForm.due.$dirty" class="has-error">
      <div ng-show="this.generatedForm.due.$error.required && !this.generatedForm.due.$error.date" class="help-block">
        Required field
      </div>
      <div ng-show="this.generatedForm.due.$error.date" class="help-block">
        Invalid date format: the date should have the pattern 'dd/MM/yyyy'
      </div>
    </div>
  </div>
  <div class="form-group">
    <label for="room">
      Room
    </label>
    <input class="form-control" name="room" cam-variable-type="String" cam-variable-name="room" disabled type="text" value="B2" />
    <div ng-if="this.generatedForm.room.$invalid && this.generatedForm.room.$dirty" class="has-error">
      <div ng-show="this.generatedForm.room.$error.required" class="help-block">
        Required field
      </div>
      <div ng-show="this.generatedForm.room.$error.camVariableType" class="help-block">
        Only a string value is allowed
      </div>
    </div>
  </div>
</form>
`
		if html != want {
			t.Errorf("rendered form:\n%s\nwant\n%s", html, want)
		}
		e.Deploy("plain", formTask("plain", ``, `<userTask id="next" />`))
		pi = e.Start("plain", nil)
		if html, err := e.Eng.RenderedTaskForm(e.Ctx, e.Tasks(pi)[0].ID); err != nil || html != "" {
			t.Errorf("a task without fields: %q %v", html, err)
		}
	})
}
