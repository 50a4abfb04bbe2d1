package runtime

import (
	"context"
	"fmt"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
)

// Rendered forms: a generated form (camunda:formData fields, readable
// legacy form properties) as the HTML Camunda 7's HtmlFormEngine writes
// for its Tasklist (AngularJS attributes, Bootstrap classes), byte for
// byte: two spaces per level, text on its own line, quotes escaped in
// attributes; text content is escaped too (Camunda writes it as it is, so
// a label showing a variable could inject markup).

// RenderedTaskForm is task id's generated form as HTML ("" when it has
// no fields).
func (e *Core) RenderedTaskForm(ctx context.Context, id string) (string, error) {
	var out string
	err := e.command(ctx, nil, "rendered_task_form", func(c *command) error {
		form, sc, err := c.taskForm(id)
		if err != nil || form == nil {
			return err
		}
		out, err = renderForm(form, c.taskScope(sc))
		return err
	})
	return out, err
}

// RenderedStartForm is process definition id's generated start form as
// HTML ("" when it has no fields).
func (e *Core) RenderedStartForm(ctx context.Context, definitionID string) (string, error) {
	form, err := e.startForm(ctx, definitionID)
	if err != nil || form == nil {
		return "", err
	}
	return renderForm(form, e.startScope())
}

// renderedField is a form field, or a legacy form property, as the HTML
// form engine sees it (Camunda's FormField, FormPropertyAdapter).
type renderedField struct {
	bpmn.FormField
	defaultValue *string
	businessKey  bool
}

// renderForm writes form's fields, then its readable properties.
func renderForm(form *bpmn.Form, s formScope) (string, error) {
	var fields []renderedField
	for _, f := range form.Fields {
		r := renderedField{FormField: f, businessKey: f.ID == form.BusinessKeyField}
		label, err := formText(f.Label, s)
		if err != nil {
			return "", fmt.Errorf("label of form field %s: %w", f.ID, err)
		}
		r.Label = label
		if f.DefaultValue != "" {
			d, err := fieldDefault(f, s)
			if err != nil {
				return "", err
			}
			if d != nil {
				text := fmt.Sprint(d)
				r.defaultValue = &text
			}
		}
		var shown []bpmn.FormConstraint // custom validators are not shown, as in Camunda
		for _, con := range f.Constraints {
			if con.Name != "validator" {
				shown = append(shown, con)
			}
		}
		r.Constraints = shown
		fields = append(fields, r)
	}
	for _, p := range form.Properties {
		if !p.Readable {
			continue
		}
		r := renderedField{FormField: p.Field}
		if p.Required {
			r.Constraints = append(r.Constraints, bpmn.FormConstraint{Name: "required"})
		}
		if !p.Writable {
			r.Constraints = append(r.Constraints, bpmn.FormConstraint{Name: "readonly"})
		}
		if r.Type == "" {
			r.Type = "string"
		}
		v, err := propertyValue(p, s)
		if err != nil {
			return "", err
		}
		r.defaultValue = v
		fields = append(fields, r)
	}
	if len(fields) == 0 {
		return "", nil
	}
	d := &htmlDoc{}
	d.start(newElement("form").attr("name", "generatedForm").attr("role", "form"))
	for _, f := range fields {
		renderField(d, f)
	}
	d.end()
	return d.b.String(), nil
}

// formText is a form's text attribute, evaluated when an expression.
func formText(src string, s formScope) (string, error) {
	if !expression.IsExpression(src) {
		return src, nil
	}
	v, err := s.eval(src)
	if v == nil || err != nil {
		return "", err
	}
	return fmt.Sprint(v), nil
}

// propertyValue is legacy property p's current value as text: its
// variable's, else its default (nil: none), as Camunda's
// FormPropertyHandler.createFormProperty.
func propertyValue(p bpmn.FormProperty, s formScope) (*string, error) {
	name := p.Variable
	if name == "" {
		name = p.Field.ID
	}
	v, ok, err := s.lookup(name)
	if err != nil {
		return nil, err
	}
	if !ok && p.Field.DefaultValue != "" {
		text, err := formText(p.Field.DefaultValue, s)
		return &text, err
	}
	if v = plainValue(v); v == nil {
		return nil, nil
	}
	if f := p.Field; f.Type == "date" {
		if tv, err := fieldFormValue(f, v); err == nil {
			v = tv.Value
		}
	}
	text := fmt.Sprint(v)
	return &text, nil
}

func renderField(d *htmlDoc, f renderedField) {
	d.start(newElement("div").attr("class", "form-group"))
	if f.Label != "" {
		d.start(newElement("label").attr("for", f.ID).text(f.Label)).end()
	}
	switch f.Type {
	case "enum":
		sel := newElement("select")
		formControl(sel, f)
		d.start(sel)
		for _, v := range f.Values {
			d.start(newElement("option").attr("value", v.ID).text(v.Name)).end()
		}
		d.end()
	case "date":
		renderDatePicker(d, f)
	default:
		input := newSelfClosing("input")
		formControl(input, f)
		typ := "text"
		if f.Type == "boolean" {
			typ = "checkbox"
		}
		input.attr("type", typ)
		if f.defaultValue != nil {
			input.attr("value", *f.defaultValue)
		}
		d.start(input).end()
	}
	ifInvalid := fmt.Sprintf("this.generatedForm.%s.$invalid && this.generatedForm.%s.$dirty", f.ID, f.ID)
	d.start(newElement("div").attr("ng-if", ifInvalid).attr("class", "has-error"))
	errorOf := "this.generatedForm." + f.ID + ".$error"
	if f.Type != "date" {
		d.start(newElement("div").attr("ng-show", errorOf+".required").attr("class", "help-block").text("Required field")).end()
		d.start(newElement("div").attr("ng-show", errorOf+".camVariableType").attr("class", "help-block").
			text(fmt.Sprintf("Only a %s value is allowed", shownType(f.Type, false)))).end()
	} else {
		d.start(newElement("div").attr("ng-show", errorOf+".required && !"+errorOf+".date").attr("class", "help-block").text("Required field")).end()
		d.start(newElement("div").attr("ng-show", errorOf+".date").attr("class", "help-block").
			text("Invalid date format: the date should have the pattern '" + datePattern(f.FormField) + "'")).end()
	}
	d.end()
	d.end()
}

func renderDatePicker(d *htmlDoc, f renderedField) {
	readOnly := false
	for _, con := range f.Constraints {
		readOnly = readOnly || con.Name == "readonly"
	}
	d.start(newElement("div").attr("class", "input-group"))
	input := newSelfClosing("input")
	formControl(input, f)
	input.attr("type", "text")
	if !readOnly {
		input.attr("uib-datepicker-popup", datePattern(f.FormField)).attr("is-open", "dateFieldOpened"+f.ID)
	}
	d.start(input).end()
	if !readOnly {
		d.start(newElement("div").attr("class", "input-group-btn"))
		d.start(newElement("button").attr("type", "button").attr("class", "btn btn-default").attr("ng-click", "open"+f.ID+"($event)"))
		d.start(newElement("i").attr("class", "glyphicon glyphicon-calendar")).end()
		d.end()
		d.end()
		script := fmt.Sprintf("$scope.open%s = function ($event) { $event.preventDefault(); $event.stopPropagation(); $scope.dateFieldOpened%s = true; };", f.ID, f.ID)
		d.start(newElement("script").bare("cam-script").attr("type", "text/form-script").text(script)).end()
	}
	d.end()
}

// formControl adds the attributes every control has: its class and name,
// its variable (or the business key), its constraints (readonly as
// disabled).
func formControl(e *htmlElement, f renderedField) {
	e.attr("class", "form-control").attr("name", f.ID)
	if f.businessKey {
		e.bare("cam-business-key")
	} else {
		e.attr("cam-variable-type", shownType(f.Type, true)).attr("cam-variable-name", f.ID)
	}
	for _, con := range f.Constraints {
		name := con.Name
		if name == "readonly" {
			name = "disabled"
		}
		if con.Config == "" {
			e.bare(name)
		} else {
			e.attr(name, con.Config)
		}
	}
}

// shownType is the type name the HTML shows: an enum as a string, and in
// cam-variable-type a date too, capitalized.
func shownType(typ string, variable bool) string {
	if typ == "enum" || variable && typ == "date" {
		typ = "string"
	}
	if variable {
		return strings.ToUpper(typ[:1]) + typ[1:]
	}
	return typ
}

func datePattern(f bpmn.FormField) string {
	if f.DatePattern == "" {
		return "dd/MM/yyyy"
	}
	return f.DatePattern
}

// htmlElement is an element the document writes: its attributes in
// order (a nil value is a bare attribute), its text.
type htmlElement struct {
	tag         string
	selfClosing bool
	attrs       []htmlAttr
	textContent *string
}

type htmlAttr struct {
	name  string
	value *string
}

func newElement(tag string) *htmlElement     { return &htmlElement{tag: tag} }
func newSelfClosing(tag string) *htmlElement { return &htmlElement{tag: tag, selfClosing: true} }

func (e *htmlElement) set(name string, value *string) *htmlElement {
	for i := range e.attrs {
		if e.attrs[i].name == name {
			e.attrs[i].value = value
			return e
		}
	}
	e.attrs = append(e.attrs, htmlAttr{name, value})
	return e
}

func (e *htmlElement) attr(name, value string) *htmlElement { return e.set(name, &value) }
func (e *htmlElement) bare(name string) *htmlElement        { return e.set(name, nil) }
func (e *htmlElement) text(s string) *htmlElement           { e.textContent = &s; return e }

// textEscaper escapes text content, which Camunda writes as it is.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// htmlDoc writes elements as Camunda's HtmlDocumentBuilder: a start tag
// indented by the open elements, the text and end tag when it ends.
type htmlDoc struct {
	b    strings.Builder
	open []*htmlElement
}

func (d *htmlDoc) indent() { d.b.WriteString(strings.Repeat("  ", len(d.open))) }

func (d *htmlDoc) start(e *htmlElement) *htmlDoc {
	d.indent()
	d.b.WriteString("<" + e.tag)
	for _, a := range e.attrs {
		d.b.WriteString(" " + a.name)
		if a.value != nil {
			d.b.WriteString(`="` + strings.ReplaceAll(*a.value, `"`, "&quot;") + `"`)
		}
	}
	if e.selfClosing {
		d.b.WriteString(" /")
	}
	d.b.WriteString(">\n")
	d.open = append(d.open, e)
	return d
}

func (d *htmlDoc) end() *htmlDoc {
	e := d.open[len(d.open)-1]
	d.open = d.open[:len(d.open)-1]
	if e.textContent != nil {
		text := *e.textContent
		if e.tag != "script" { // a label or option may show a variable: no markup from it
			text = textEscaper.Replace(text)
		}
		d.indent()
		d.b.WriteString("  " + text + "\n")
	}
	if !e.selfClosing {
		d.indent()
		d.b.WriteString("</" + e.tag + ">\n")
	}
	return d
}
