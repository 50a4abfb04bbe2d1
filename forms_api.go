package bpmnlite

import (
	"context"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// Forms of user tasks and start events, as Camunda 7's FormService:
// camunda:formKey kept as given, camunda:formRef resolved to a deployed
// Camunda Form (.form) by its binding, and camunda:formData generated
// forms whose fields are validated and converted on submit.

// Form is the form of a user task or a process definition's start event.
// Key is camunda:formKey (a task's as evaluated at its creation), Ref its
// camunda:formRef (nil when none), Fields its camunda:formData fields,
// BusinessKeyField the field whose value is a start form's business key.
// DeploymentID and TenantID are those of its process definition, where
// Ref resolves.
type Form struct {
	Key              string
	Ref              *FormRef
	Fields           []FormField
	BusinessKeyField string
	DeploymentID     string
	TenantID         string
	// Properties are its legacy camunda:formProperty elements, applied
	// when the form is submitted.
	Properties []FormProperty
}

// StartForm is a start event's form.
type StartForm = Form

// FormField is a camunda:formField.
type FormField = bpmn.FormField

// FormProperty is a legacy camunda:formProperty.
type FormProperty = bpmn.FormProperty

// FormRef is a camunda:formRef with its binding ("latest", "deployment"
// or "version") and, with binding version, camunda:formRefVersion.
type FormRef = runtime.FormRef

// FormDefinition is a deployed Camunda Form: its key is the form's id.
type FormDefinition = persistence.FormDefinition

// FormFieldValidator is a custom form field validator, registered with
// RegisterBean and named by a camunda:constraint name="validator".
type FormFieldValidator = runtime.FormFieldValidator

// FormFieldValidatorContext is what a custom form field validator sees.
type FormFieldValidatorContext = runtime.FormFieldValidatorContext

// FormFieldError is a submitted value that a form field's validation
// constraints (required, readonly, minlength, maxlength, min, max) or
// type refuse; the submission changed nothing.
type FormFieldError = runtime.FormFieldError

// StartForm is the form of process definition id's none start event (a
// zero Form when it has none), its form key and reference evaluated
// without variables, as Camunda's.
func (e *Engine) StartForm(ctx context.Context, definitionID string) (StartForm, error) {
	pd, form, err := e.rt.DefinitionForm(ctx, definitionID, "")
	if err != nil {
		return Form{}, err
	}
	f := formOf(pd, form)
	if form == nil {
		return f, nil
	}
	if f.Key, err = e.rt.StartFormText(form.Key); err != nil {
		return f, err
	}
	f.Ref, err = e.rt.StartFormRef(form)
	return f, err
}

// TaskForm is the form of task id: its form key and form reference as
// evaluated when it was created, and its user task's form fields. A
// standalone task has none (a zero Form).
func (e *Engine) TaskForm(ctx context.Context, id string) (Form, error) {
	task, err := e.Task(ctx, id)
	if err != nil || task.ProcessDefinitionID == "" {
		return Form{}, err
	}
	pd, form, err := e.rt.DefinitionForm(ctx, task.ProcessDefinitionID, task.TaskDefinitionKey)
	if err != nil {
		return Form{}, err
	}
	f := formOf(pd, form)
	f.Key = task.FormKey
	if task.FormRef != "" {
		f.Ref = &FormRef{Key: task.FormRef, Binding: task.FormRefBinding, Version: task.FormRefVersion}
	}
	return f, nil
}

// formOf is form (nil: none) of process definition pd, its key as written.
func formOf(pd *ProcessDefinition, form *bpmn.Form) Form {
	f := Form{DeploymentID: pd.DeploymentID, TenantID: pd.TenantID}
	if form != nil {
		f.Key, f.Fields, f.BusinessKeyField, f.Properties = form.Key, form.Fields, form.BusinessKeyField, form.Properties
	}
	return f
}

// TaskDeployedForm is the deployed form of task id (see DeployedForm).
func (e *Engine) TaskDeployedForm(ctx context.Context, id string) (name string, content []byte, err error) {
	f, err := e.TaskForm(ctx, id)
	if err != nil {
		return "", nil, err
	}
	return e.DeployedForm(ctx, f)
}

// StartDeployedForm is the deployed start form of process definition id
// (see DeployedForm).
func (e *Engine) StartDeployedForm(ctx context.Context, definitionID string) (name string, content []byte, err error) {
	f, err := e.StartForm(ctx, definitionID)
	if err != nil {
		return "", nil, err
	}
	return e.DeployedForm(ctx, f)
}

// DeployedForm is the resource form f references, as Camunda's
// getDeployedTaskForm: its form key's resource in its deployment
// ("deployment:x", "embedded:deployment:x", "camunda-forms:deployment:x"),
// else the Camunda Form its form reference resolves to. A form with
// neither, or a key that names no deployed resource, is ErrNotValid; a
// resource or form definition that does not exist, ErrNotFound.
func (e *Engine) DeployedForm(ctx context.Context, f Form) (name string, content []byte, err error) {
	deploymentID := f.DeploymentID
	switch {
	case f.Key != "":
		name = f.Key
		for _, prefix := range []string{"embedded:", "camunda-forms:"} {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				name = rest
				break
			}
		}
		var ok bool
		if name, ok = strings.CutPrefix(name, "deployment:"); !ok {
			return "", nil, runtime.NotValidf("The form key '%s' does not reference a deployed form.", f.Key)
		}
	case f.Ref != nil && f.Ref.Key != "":
		def, err := e.rt.FormDefinition(ctx, *f.Ref, f.DeploymentID, f.TenantID)
		if err != nil {
			return "", nil, err
		}
		name, deploymentID = def.ResourceName, def.DeploymentID
	default:
		return "", nil, runtime.NotValidf("One of the attributes 'formKey' and 'camunda:formRef' must be supplied but none were set.")
	}
	res, err := persistence.List(ctx, e.db, persistence.ResourceNamed(deploymentID, name))
	if err != nil {
		return "", nil, err
	}
	if len(res) == 0 {
		return "", nil, runtime.NotFoundf("The form with the resource name '%s' cannot be found in deployment with id %s", name, deploymentID)
	}
	return name, res[0].Bytes, nil
}

// FormDefinitions are the deployed Camunda Forms of deployment id.
func (e *Engine) FormDefinitions(ctx context.Context, deploymentID string) ([]*FormDefinition, error) {
	return persistence.List(ctx, e.db, persistence.FormDefinitionsOfDeployment(deploymentID))
}

// TaskFormVariables are task id's form variables, as Camunda's
// getTaskFormVariables: each form field's value (its variable's,
// converted to the field's form type, else its default), then the other
// variables the task sees; names, when not nil, keeps only those.
func (e *Engine) TaskFormVariables(ctx context.Context, id string, names []string) (map[string]*VariableInstance, error) {
	fields, err := e.rt.TaskFormValues(ctx, id, names)
	if err != nil {
		return nil, err
	}
	out := formVariables(fields)
	vars, err := e.ScopeVariables(ctx, VariableScope{TaskID: id})
	if err != nil {
		return nil, err
	}
	for name, v := range vars {
		if out[name] == nil && (names == nil || slices.Contains(names, name)) {
			out[name] = v
		}
	}
	return out, nil
}

// StartFormVariables are the start form fields' values of process
// definition id (their defaults, typed as the form shows them), as
// Camunda's getStartFormVariables; names, when not nil, keeps only those.
func (e *Engine) StartFormVariables(ctx context.Context, definitionID string, names []string) (map[string]*VariableInstance, error) {
	fields, err := e.rt.StartFormValues(ctx, definitionID, names)
	if err != nil {
		return nil, err
	}
	return formVariables(fields), nil
}

func formVariables(fields map[string]runtime.TypedValue) map[string]*VariableInstance {
	out := make(map[string]*VariableInstance, len(fields))
	for name, tv := range fields {
		out[name] = &VariableInstance{Name: name, Type: tv.Type, Value: tv.Value}
	}
	return out
}

// SubmitStartForm starts an instance of process definition id from its
// start form, as Camunda's submitStartForm: the form fields' values are
// validated (a *FormFieldError naming the field when refused, and nothing
// starts) and converted to their types, fields not submitted get their
// defaults, and a business key field's value is the business key. At
// history level full the submitted text values are kept as form fields
// (HistoricDetails with FormFields).
func (e *Engine) SubmitStartForm(ctx context.Context, definitionID, businessKey string, vars map[string]any) (string, error) {
	return e.rt.SubmitStartForm(ctx, nil, definitionID, businessKey, vars)
}

// RenderedTaskForm is task id's generated form (camunda:formData fields,
// readable legacy form properties) as the HTML Camunda's HtmlFormEngine
// writes for its Tasklist; "" when the task's form has no fields.
func (e *Engine) RenderedTaskForm(ctx context.Context, id string) (string, error) {
	return e.rt.RenderedTaskForm(ctx, id)
}

// RenderedStartForm is process definition id's generated start form as
// HTML (see RenderedTaskForm); "" when it has no fields.
func (e *Engine) RenderedStartForm(ctx context.Context, definitionID string) (string, error) {
	return e.rt.RenderedStartForm(ctx, definitionID)
}
