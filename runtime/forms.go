package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Forms, as Camunda 7 defines them: Camunda Forms (.form resources)
// deployed as form definitions and referenced by camunda:formRef, and
// generated forms (camunda:formData) whose fields are validated and
// converted to their types when a form is submitted.

// IsForm reports whether a deployment's resource of this name is a
// Camunda Form, which Camunda deploys as a form definition.
func IsForm(name string) bool { return strings.EqualFold(path.Ext(name), ".form") }

// formKeyOf is the key of Camunda Form resource r: its id.
func formKeyOf(r Resource) (string, error) {
	var doc struct {
		ID any `json:"id"`
	}
	if err := json.Unmarshal(r.Bytes, &doc); err != nil {
		return "", fmt.Errorf("Exception during parsing of Camunda Form resource '%s': %v", r.Name, err)
	}
	id, ok := doc.ID.(string)
	if !ok || id == "" {
		return "", fmt.Errorf("Exception during parsing of Camunda Form resource '%s': it has no \"id\" (the form's key)", r.Name)
	}
	return id, nil
}

// deployForm stores the form definition of resource name (key) in d: the
// next version of its key in d's tenant.
func (e *Core) deployForm(cc *tx.Context, d *persistence.Deployment, name, key string) (*persistence.FormDefinition, error) {
	prev, err := tx.Read(cc, persistence.LatestFormDefinition(key, d.TenantID))
	if err != nil {
		return nil, err
	}
	version := 1
	if len(prev) > 0 {
		version = prev[0].Version + 1
	}
	f := &persistence.FormDefinition{ID: fmt.Sprintf("%s:%d:%s", key, version, newID()), Key: key, Version: version,
		DeploymentID: d.ID, ResourceName: name, TenantID: d.TenantID}
	cc.Insert(f)
	return f, nil
}

// FormRef is a camunda:formRef as evaluated for a task or start form:
// the form's key, its binding (latest, deployment or version) and, with
// binding version, the version.
type FormRef struct {
	Key     string
	Binding string
	Version *int
}

// FormDefinition resolves ref as Camunda does: the latest version of its
// key in tenant, the one deployed by deploymentID, or the version given.
// None: ErrNotFound naming ref.
func (e *Core) FormDefinition(ctx context.Context, ref FormRef, deploymentID, tenant string) (*persistence.FormDefinition, error) {
	var q persistence.Query[*persistence.FormDefinition]
	switch ref.Binding {
	case "deployment":
		q = persistence.FormDefinitionOfDeployment(ref.Key, deploymentID)
	case "version":
		if ref.Version == nil {
			return nil, NotValidf("camunda:formRefVersion must be set when camunda:formRefBinding is 'version'")
		}
		q = persistence.FormDefinitionVersion(ref.Key, tenant, *ref.Version)
	default:
		q = persistence.LatestFormDefinition(ref.Key, tenant)
	}
	rows, err := persistence.List(ctx, e.db, q)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		version := "null"
		if ref.Version != nil {
			version = strconv.Itoa(*ref.Version)
		}
		return nil, NotFoundf("No Camunda Form Definition was found for Camunda Form Ref: CamundaFormRefImpl [key=%s, binding=%s, version=%s]", ref.Key, ref.Binding, version)
	}
	return rows[0], nil
}

// formRef evaluates form's camunda:formRef in x's context ("": none).
func (c *command) formRef(x *execution, form *bpmn.Form) (key, binding string, version *int, err error) {
	ref, err := formRefOf(form, func(src string) (string, error) { return c.text(x, src) })
	if ref == nil || err != nil {
		return "", "", nil, err
	}
	return ref.Key, ref.Binding, ref.Version, nil
}

// formRefOf evaluates form's camunda:formRef with text (nil: none).
func formRefOf(form *bpmn.Form, text func(src string) (string, error)) (*FormRef, error) {
	if form == nil || form.Ref == "" {
		return nil, nil
	}
	key, err := text(form.Ref)
	if err != nil {
		return nil, fmt.Errorf("formRef: %w", err)
	}
	ref := &FormRef{Key: key, Binding: form.RefBinding}
	if ref.Binding == "" {
		ref.Binding = "latest"
	}
	if ref.Binding == "version" {
		s, err := text(form.RefVersion)
		if err != nil {
			return nil, fmt.Errorf("formRefVersion: %w", err)
		}
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("formRefVersion %q is not a version number", s)
		}
		ref.Version = &v
	}
	return ref, nil
}

// FormFieldError is a value submitted for a form field that its
// validation constraints or its type refuse, as Camunda's
// FormFieldValidatorException.
type FormFieldError struct {
	Field string
	Msg   string
	// Property: a legacy camunda:formProperty refused it; Msg is the
	// whole message, as Camunda's ("form property 'x' is required").
	Property bool
}

func (e *FormFieldError) Error() string {
	if e.Property {
		return e.Msg
	}
	return "Invalid value submitted for form field '" + e.Field + "': " + e.Msg
}

// formScope is what a form sees: the variables of its task (or none, for
// a start form), and how it evaluates expressions.
type formScope struct {
	lookup func(name string) (any, bool, error)
	eval   func(src string) (any, error)
	bean   func(name string) (any, bool)
}

// FormFieldValidator is a custom form field validator: a value registered
// as a bean (Engine.RegisterBean) that a camunda:constraint
// name="validator" names in its config, by the bean's name (Camunda's
// class name) or an expression resolving to it. It reports whether value
// (nil: none submitted) is valid; an error refuses it too.
type FormFieldValidator interface {
	ValidateFormField(value any, c FormFieldValidatorContext) (bool, error)
}

// FormFieldValidatorContext is what a custom validator sees, as Camunda's
// FormFieldValidatorContext: the field, all submitted values, and the
// variables of the task (none for a start form).
type FormFieldValidatorContext struct {
	FieldID         string
	SubmittedValues map[string]any
	Variable        func(name string) (any, bool, error)
}

// submitForm validates vars against form's fields and converts each
// field's value to its type, as Camunda's DefaultFormHandler: a field not
// submitted gets its default value; the other variables pass unchanged.
func submitForm(form *bpmn.Form, vars map[string]any, s formScope) (map[string]any, error) {
	if form == nil || len(form.Fields) == 0 && len(form.Properties) == 0 {
		return vars, nil
	}
	out := make(map[string]any, len(vars)+len(form.Fields))
	for k, v := range vars {
		out[k] = v
	}
	for _, p := range form.Properties {
		if err := submitProperty(p, vars, out, s); err != nil {
			return nil, err
		}
	}
	for _, f := range form.Fields {
		if f.ID == form.BusinessKeyField {
			continue // the business key, set as it is, as in Camunda
		}
		raw, present := vars[f.ID]
		v, transient := unwrapTransient(raw)
		v = plainValue(v)
		for _, con := range f.Constraints {
			ok, err := checkConstraint(f, con, v, vars, s)
			if err != nil {
				return nil, err
			}
			if !ok {
				what := con.Name
				if con.Config != "" {
					what += "(" + con.Config + ")"
				}
				return nil, &FormFieldError{Field: f.ID, Msg: "validation of " + what + " failed."}
			}
		}
		switch {
		case present:
			m, err := fieldModelValue(f, v)
			if err != nil {
				return nil, &FormFieldError{Field: f.ID, Msg: err.Error()}
			}
			if transient {
				out[f.ID] = Transient(declared(f, m))
			} else {
				out[f.ID] = declared(f, m)
			}
		case f.DefaultValue != "":
			d, err := fieldDefault(f, s)
			if err != nil {
				return nil, err
			}
			out[f.ID] = declared(f, d)
		}
	}
	return out, nil
}

// declared is model value m of a long field declared Long, which a small
// Go integer alone would not be (Camunda's form type gives a LongValue).
func declared(f bpmn.FormField, m any) any {
	if f.Type == "long" && m != nil {
		return TypedValue{Type: "Long", Value: m}
	}
	return m
}

// submitProperty applies legacy form property p to the submitted vars,
// writing out, as Camunda's FormPropertyHandler.submitFormProperty: the
// submitted value (taken out of the variables set as they are) or the
// default, converted to the property's type, is set as its variable.
func submitProperty(p bpmn.FormProperty, vars, out map[string]any, s formScope) error {
	f := p.Field
	raw, present := vars[f.ID]
	switch {
	case !p.Writable && present:
		return &FormFieldError{Field: f.ID, Msg: "form property '" + f.ID + "' is not writable", Property: true}
	case p.Required && !present && f.DefaultValue == "":
		return &FormFieldError{Field: f.ID, Msg: "form property '" + f.ID + "' is required", Property: true}
	}
	var model any
	var err error
	switch {
	case present:
		delete(out, f.ID)
		model = plainValue(raw)
		if str, isString := model.(string); f.Type != "" && f.Type != "string" && str == "" && isString {
			model = nil // an empty form value is none, as Camunda's form types read it
		}
		if f.Type != "" && model != nil {
			model, err = fieldModelValue(f, model)
		}
	case f.DefaultValue != "":
		var d any = f.DefaultValue
		if expression.IsExpression(f.DefaultValue) {
			if d, err = s.eval(f.DefaultValue); err != nil {
				return fmt.Errorf("default of form property %s: %w", f.ID, err)
			}
		}
		switch {
		case d == nil && p.Required:
			return &FormFieldError{Field: f.ID, Msg: "form property '" + f.ID + "' is required", Property: true}
		case d != nil && f.Type != "" && f.Type != "string":
			model, err = fieldModelValue(f, fmt.Sprint(d))
		case d != nil:
			model = fmt.Sprint(d)
		}
	}
	if err != nil {
		return &FormFieldError{Field: f.ID, Msg: "form property '" + f.ID + "': " + err.Error(), Property: true}
	}
	if model != nil {
		name := p.Variable
		if name == "" {
			name = f.ID
		}
		out[name] = declared(f, model)
	}
	return nil
}

// fieldDefault is f's default value (evaluated) as its type's value.
func fieldDefault(f bpmn.FormField, s formScope) (any, error) {
	if f.DefaultValue == "" {
		return fieldModelValue(f, nil)
	}
	var d any = f.DefaultValue
	if expression.IsExpression(f.DefaultValue) {
		var err error
		if d, err = s.eval(f.DefaultValue); err != nil {
			return nil, fmt.Errorf("default value of form field %s: %w", f.ID, err)
		}
	}
	m, err := fieldModelValue(f, d)
	if err != nil {
		return nil, fmt.Errorf("default value of form field %s: %w", f.ID, err)
	}
	return m, nil
}

// checkConstraint is one of Camunda's built-in validators, or a custom
// one, on submitted value v (nil: not submitted, or null) of vars.
func checkConstraint(f bpmn.FormField, con bpmn.FormConstraint, v any, vars map[string]any, s formScope) (bool, error) {
	switch con.Name {
	case "validator":
		return customValidator(f, con, v, vars, s)
	case "required":
		if v != nil {
			str, isString := v.(string)
			return !isString || str != "", nil
		}
		if cur, ok, err := s.lookup(f.ID); err != nil || ok {
			return cur != nil, err
		}
		d, err := fieldDefault(f, s)
		return d != nil, err
	case "readonly":
		return v == nil, nil
	case "minlength", "maxlength":
		if v == nil {
			return true, nil
		}
		str, ok := v.(string)
		if !ok {
			return false, nil
		}
		n, err := strconv.Atoi(con.Config)
		if err != nil {
			return false, &FormFieldError{Field: f.ID, Msg: fmt.Sprintf("Cannot validate \"%s\": configuration %s cannot be interpreted as Integer", con.Name, con.Config)}
		}
		if con.Name == "minlength" {
			return utf8.RuneCountInString(str) >= n, nil
		}
		return utf8.RuneCountInString(str) <= n, nil
	case "min", "max":
		if v == nil {
			return true, nil
		}
		num, ok := number(v)
		if !ok {
			return false, nil
		}
		limit, err := strconv.ParseFloat(strings.TrimSpace(con.Config), 64)
		if err != nil {
			return false, &FormFieldError{Field: f.ID, Msg: fmt.Sprintf("Cannot validate %v: configuration %s cannot be parsed as a number.", v, con.Config)}
		}
		if con.Name == "min" {
			return num >= limit, nil
		}
		return num <= limit, nil
	}
	return false, fmt.Errorf("form field %s: no validator %q", f.ID, con.Name) // refused at parse
}

// customValidator runs the custom validator con names on v.
func customValidator(f bpmn.FormField, con bpmn.FormConstraint, v any, vars map[string]any, s formScope) (bool, error) {
	var found any
	var err error
	if expression.IsExpression(con.Config) {
		found, err = s.eval(con.Config)
	} else {
		found, _ = s.bean(con.Config)
	}
	if err != nil {
		return false, fmt.Errorf("validator of form field %s: %w", f.ID, err)
	}
	val, ok := found.(FormFieldValidator)
	if !ok {
		return false, fmt.Errorf("form field %s: validator '%s' is no registered FormFieldValidator (register one with RegisterBean)", f.ID, con.Config)
	}
	valid, err := val.ValidateFormField(v, FormFieldValidatorContext{FieldID: f.ID, SubmittedValues: vars, Variable: s.lookup})
	if err != nil {
		return false, &FormFieldError{Field: f.ID, Msg: "validation of validator(" + con.Config + ") failed: " + err.Error()}
	}
	return valid, nil
}

// number is a numeric Go value as a float64.
func number(v any) (float64, bool) {
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt():
		return float64(rv.Int()), true
	case rv.CanUint():
		return float64(rv.Uint()), true
	case rv.CanFloat():
		return rv.Float(), true
	}
	return 0, false
}

// fieldModelValue converts v to f's type, as Camunda's form types
// convert a submitted value: string, long (int64), boolean, date
// (time.Time, from a string in the field's date pattern) and enum (one of
// its values' ids); nil stays nil.
func fieldModelValue(f bpmn.FormField, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch f.Type {
	case "long":
		switch n := v.(type) {
		case string:
			i, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("Value '%s' is not of type Long.", n)
			}
			return i, nil
		default:
			x, ok := number(v)
			if !ok || x != math.Trunc(x) || math.Abs(x) >= 1<<63 {
				return nil, fmt.Errorf("Value '%v' is not of type Long.", v)
			}
			return int64(x), nil
		}
	case "boolean":
		switch b := v.(type) {
		case bool:
			return b, nil
		case string:
			return strings.EqualFold(b, "true"), nil // Java's Boolean.valueOf
		}
		return nil, fmt.Errorf("Value '%v' is not of type Boolean.", v)
	case "date":
		switch d := v.(type) {
		case time.Time:
			return d, nil
		case string:
			d = strings.TrimSpace(d)
			if d == "" {
				return nil, nil
			}
			t, err := time.ParseInLocation(f.DateLayout(), d, time.UTC)
			if err != nil {
				pattern := f.DatePattern
				if pattern == "" {
					pattern = "dd/MM/yyyy"
				}
				return nil, fmt.Errorf("Could not parse value '%s' as date using date format '%s'.", d, pattern)
			}
			return t, nil
		}
		return nil, fmt.Errorf("Value '%v' cannot be transformed into a Date.", v)
	case "enum":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("Value '%v' is not of type String.", v)
		}
		for _, val := range f.Values {
			if val.ID == s {
				return s, nil
			}
		}
		return nil, fmt.Errorf("Invalid value for enum form property: %s", s)
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	if t, ok := v.(time.Time); ok {
		return t.Format(time.RFC3339Nano), nil
	}
	return fmt.Sprint(v), nil
}

// fieldFormValue is model value v (nil: none) of field f as the form
// shows it, typed: Long, Boolean, String (a date formatted in its
// pattern, "" when none), as Camunda's convertToFormValue.
func fieldFormValue(f bpmn.FormField, v any) (TypedValue, error) {
	switch f.Type {
	case "long":
		m, err := fieldModelValue(f, v)
		return TypedValue{Type: "Long", Value: m}, err
	case "boolean":
		m, err := fieldModelValue(f, v)
		return TypedValue{Type: "Boolean", Value: m}, err
	case "date":
		if v == nil {
			return TypedValue{Type: "String", Value: ""}, nil
		}
		t, ok := v.(time.Time)
		if !ok {
			return TypedValue{}, fmt.Errorf("Expected value to be of type 'date' but got '%T'.", v)
		}
		return TypedValue{Type: "String", Value: t.UTC().Format(f.DateLayout())}, nil
	}
	m, err := fieldModelValue(f, v)
	return TypedValue{Type: "String", Value: m}, err
}

// formValues are the values of form's fields named in names (nil: all):
// the variable's when s has one, else the default, as the form shows them.
func formValues(form *bpmn.Form, names []string, s formScope) (map[string]TypedValue, error) {
	out := map[string]TypedValue{}
	if form == nil {
		return out, nil
	}
	for _, f := range form.Fields {
		if names != nil && !containsString(names, f.ID) {
			continue
		}
		v, ok, err := s.lookup(f.ID)
		if err != nil {
			return nil, err
		}
		if !ok {
			if v, err = fieldDefault(f, s); err != nil {
				return nil, err
			}
		}
		tv, err := fieldFormValue(f, plainValue(v))
		if err != nil {
			return nil, &FormFieldError{Field: f.ID, Msg: "failed to convert '" + f.ID + "': " + err.Error()}
		}
		out[f.ID] = tv
	}
	return out, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// startScope is the scope of a start form: no variables yet, as Camunda's
// StartProcessVariableScope; expressions see the registered beans.
func (e *Core) startScope() formScope {
	return formScope{
		lookup: func(string) (any, bool, error) { return nil, false, nil },
		eval:   func(src string) (any, error) { return evalWith(src, resolver{e: e}) },
		bean:   e.bean,
	}
}

// taskScope is the scope of task sc's form: its variables, its own first.
func (c *command) taskScope(sc *variableScope) formScope {
	return formScope{
		lookup: func(name string) (any, bool, error) {
			if r := sc.taskVars[name]; r != nil {
				v, err := decodeVariable(r)
				return v, true, err
			}
			return sc.x.variable(name)
		},
		eval: func(src string) (any, error) { return c.eval(sc.x, src) },
		bean: c.e.bean,
	}
}

// StartFormValues are the values of the start form fields of process
// definition id named in names (nil: all): their defaults, as Camunda's
// start form variables.
func (e *Core) StartFormValues(ctx context.Context, definitionID string, names []string) (map[string]TypedValue, error) {
	form, err := e.startForm(ctx, definitionID)
	if err != nil {
		return nil, err
	}
	return formValues(form, names, e.startScope())
}

// SubmitStartForm starts an instance of process definition id from its
// start form, in one command: the values are validated and converted
// (submitForm), a business key field's value is the business key, and at
// history level full the submitted text values are kept as form fields.
func (e *Core) SubmitStartForm(ctx context.Context, t persistence.Tx, definitionID, businessKey string, vars map[string]any) (string, error) {
	var id string
	err := e.command(ctx, t, "submit_start_form", func(c *command) error {
		def, err := c.definition(definitionID)
		if err != nil {
			return err
		}
		var form *bpmn.Form
		if s := def.Process.NoneStartEvent(); s != nil {
			form = s.Form
		}
		if form != nil && form.BusinessKeyField != "" {
			if v, ok := vars[form.BusinessKeyField]; ok && v != nil {
				businessKey = fmt.Sprint(plainValue(v))
			}
		}
		converted, err := submitForm(form, vars, e.startScope())
		if err != nil {
			return err
		}
		if id, err = c.start(StartRequest{DefinitionID: definitionID, BusinessKey: businessKey, Variables: converted}); err != nil {
			return err
		}
		c.historyFormFields(def.ProcessDefinition, id, id, "", "", vars)
		return nil
	})
	return id, err
}

// historyFormFields keeps the submitted text values of a form in
// history (level full), as Camunda's historic form fields: of the
// execution and task (none for a start form) that took them.
func (c *command) historyFormFields(pd *persistence.ProcessDefinition, processInstanceID, executionID, activityInstanceID, taskID string, vars map[string]any) {
	if !c.e.history(config.HistoryFull) {
		return
	}
	now := c.cc.Now().UTC()
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	sort.Strings(names) // ids are time-ordered: occurrence follows the names
	for _, name := range names {
		text, ok := plainValue(vars[name]).(string) // Camunda keeps string values only
		if !ok {
			continue
		}
		c.cc.Insert(&persistence.HistoricDetail{ID: newID(), Rev: 1, Name: name, Type: persistence.VarString, Text: text,
			ExecutionID: executionID, ProcessInstanceID: processInstanceID, TaskID: taskID, ProcessDefinitionID: pd.ID,
			ProcessDefinitionKey: pd.Key, ActivityInstanceID: activityInstanceID, Time: now, FormField: true})
	}
}

// startForm is the form of the none start event of definition id (nil
// when it has none).
func (e *Core) startForm(ctx context.Context, definitionID string) (*bpmn.Form, error) {
	_, form, err := e.DefinitionForm(ctx, definitionID, "")
	return form, err
}

// DefinitionForm is process definition id and the form of its activity
// activityID ("": its none start event), nil when it has none, from the
// definition cache.
func (e *Core) DefinitionForm(ctx context.Context, definitionID, activityID string) (*persistence.ProcessDefinition, *bpmn.Form, error) {
	var d *Definition
	err := e.cmd.RunDeferred(ctx, func(cc *tx.Context) (err error) {
		d, err = e.Definition(cc, definitionID)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	a := d.Process.NoneStartEvent()
	if activityID != "" {
		a = d.Process.Activity(activityID)
	}
	if a == nil {
		return d.ProcessDefinition, nil, nil
	}
	return d.ProcessDefinition, a.Form, nil
}

// TaskFormValues are the values of task id's form fields named in names
// (nil: all): its variables', else the fields' defaults.
func (e *Core) TaskFormValues(ctx context.Context, id string, names []string) (map[string]TypedValue, error) {
	var out map[string]TypedValue
	err := e.command(ctx, nil, "task_form_variables", func(c *command) error {
		form, sc, err := c.taskForm(id)
		if err != nil || form == nil {
			out = map[string]TypedValue{}
			return err
		}
		out, err = formValues(form, names, c.taskScope(sc))
		return err
	})
	return out, err
}

// taskForm is the form of task id's user task (nil for a standalone
// task, or one without a form) and its variable scope.
func (c *command) taskForm(id string) (*bpmn.Form, *variableScope, error) {
	ent, err := c.cc.Get(persistence.TaskTable, id)
	if err != nil {
		return nil, nil, fmt.Errorf("task %q: %w", id, err)
	}
	if ent.(*persistence.Task).ExecutionID == "" {
		return nil, nil, nil
	}
	sc, err := c.scopeOf(VariableScope{TaskID: id})
	if err != nil {
		return nil, nil, err
	}
	a := sc.x.inst.def.Process.Activity(sc.task.TaskDefinitionKey)
	if a == nil {
		return nil, nil, nil
	}
	return a.Form, sc, nil
}

// submitTaskForm validates and converts vars submitted with task id's
// form, and keeps the submitted text values in history.
func (c *command) submitTaskForm(id string, vars map[string]any) (map[string]any, error) {
	form, sc, err := c.taskForm(id)
	if err != nil || sc == nil {
		return vars, err
	}
	c.historyFormFields(sc.x.inst.def.ProcessDefinition, sc.x.ProcessInstanceID, sc.x.ID, sc.x.ActivityInstanceID, id, vars)
	return submitForm(form, vars, c.taskScope(sc))
}

// StartFormRef evaluates a start form's camunda:formRef in no
// execution's context (as Camunda's StartProcessVariableScope).
func (e *Core) StartFormRef(form *bpmn.Form) (*FormRef, error) {
	return formRefOf(form, e.StartFormText)
}

// StartFormText evaluates a start form's attribute (its form key, form
// reference) in no execution's context; a constant is itself.
func (e *Core) StartFormText(src string) (string, error) {
	if !expression.IsExpression(src) {
		return src, nil
	}
	v, err := evalWith(src, resolver{e: e})
	if v == nil || err != nil {
		return "", err
	}
	return fmt.Sprint(v), nil
}
