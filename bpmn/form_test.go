package bpmn

import (
	"reflect"
	"strings"
	"testing"
)

// A user task's and a start event's forms are read whole: form key, form
// reference with binding and version, and the generated form's fields.
func TestFormsParsed(t *testing.T) {
	d := mustParse(t, proc(`<startEvent id="s" camunda:formRef="start" camunda:formRefBinding="deployment">
<extensionElements><camunda:formData businessKey="order">
  <camunda:formField id="order" type="string" label="Order ${n}" />
</camunda:formData></extensionElements>
</startEvent>
<sequenceFlow id="f1" sourceRef="s" targetRef="t" />
<userTask id="t" camunda:formRef="${form}" camunda:formRefBinding="version" camunda:formRefVersion="2">
<extensionElements><camunda:formData>
  <camunda:formField id="kind" type="enum" defaultValue="a">
    <camunda:value id="a" name="A" /><camunda:value id="b" name="B" />
    <camunda:properties><camunda:property id="p" value="q" /></camunda:properties>
    <camunda:validation><camunda:constraint name="required" /><camunda:constraint name="maxlength" config="3" /></camunda:validation>
  </camunda:formField>
  <camunda:formField id="due" type="date" datePattern="yyyy-MM-dd'T'HH:mm" />
</camunda:formData></extensionElements>
</userTask>
<sequenceFlow id="f2" sourceRef="t" targetRef="k" />
<userTask id="k" camunda:formKey="embedded:app:forms/k.html" />
<sequenceFlow id="f3" sourceRef="k" targetRef="e" />
<endEvent id="e" />`))
	p := d.Processes[0]
	want := map[string]*Form{
		"s": {Ref: "start", RefBinding: "deployment", BusinessKeyField: "order",
			Fields: []FormField{{ID: "order", Type: "string", Label: "Order ${n}"}}},
		"t": {Ref: "${form}", RefBinding: "version", RefVersion: "2", Fields: []FormField{
			{ID: "kind", Type: "enum", DefaultValue: "a", Values: []FormValue{{"a", "A"}, {"b", "B"}},
				Properties: []Property{{Name: "p", Value: "q"}}, Constraints: []FormConstraint{{"required", ""}, {"maxlength", "3"}}},
			{ID: "due", Type: "date", DatePattern: "yyyy-MM-dd'T'HH:mm"},
		}},
		"k": {Key: "embedded:app:forms/k.html"},
		"e": nil,
	}
	for id, w := range want {
		if got := p.Activity(id).Form; !reflect.DeepEqual(got, w) {
			t.Errorf("%s: form %+v, want %+v", id, got, w)
		}
	}
	if l := p.Activity("t").Form.Fields[1].DateLayout(); l != "2006-01-02T15:04" {
		t.Errorf("date layout %q", l)
	}
	if l := p.Activity("s").Form.Fields[0].DateLayout(); l != "02/01/2006" {
		t.Errorf("default date layout %q", l)
	}
}

// Legacy form properties are read with Camunda's defaults (readable and
// writable, not required); an expression that names a variable is that
// variable.
func TestFormPropertiesParsed(t *testing.T) {
	d := mustParse(t, simple(`<userTask id="x"><extensionElements>
  <camunda:formProperty id="speaker" variable="SpeakerName" writable="false" />
  <camunda:formProperty id="street" expression="${street}" required="yes" />
  <camunda:formProperty id="kind" type="enum" default="a"><camunda:value id="a" name="A" /></camunda:formProperty>
  <camunda:formProperty id="when" name="When" type="date" datePattern="dd-MM-yyyy hh:mm" readable="off" />
</extensionElements></userTask>`))
	got := d.Processes[0].Activity("x").Form.Properties
	want := []FormProperty{
		{Field: FormField{ID: "speaker"}, Readable: true, Variable: "SpeakerName"},
		{Field: FormField{ID: "street"}, Required: true, Readable: true, Writable: true, Variable: "street"},
		{Field: FormField{ID: "kind", Type: "enum", DefaultValue: "a", Values: []FormValue{{"a", "A"}}}, Readable: true, Writable: true},
		{Field: FormField{ID: "when", Label: "When", Type: "date", DatePattern: "dd-MM-yyyy hh:mm"}, Writable: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("properties:\n got %+v\nwant %+v", got, want)
	}
}

// What bpmnlite's forms cannot honour is refused at its element, with a
// hint: form property expressions that are no variable, Java form
// handlers, a custom validator naming none, unknown types and
// constraints, bad bindings.
func TestFormProblems(t *testing.T) {
	for _, c := range []struct{ task, want string }{
		{`<userTask id="x"><extensionElements><camunda:formProperty id="a" expression="#{address.street}" /></extensionElements></userTask>`,
			"form property a: expression '#{address.street}' is not supported: bpmnlite sets a form property's variable"},
		{`<userTask id="x"><extensionElements><camunda:formProperty id="a" required="maybe" /></extensionElements></userTask>`,
			"form property a: attribute 'required' must be one of {on|yes|true|enabled|active|off|no|false|disabled|inactive}"},
		{`<userTask id="x"><extensionElements><camunda:formProperty name="a" /></extensionElements></userTask>`,
			"camunda:formProperty: attribute 'id' is required"},
		{`<userTask id="x"><extensionElements><camunda:formProperty id="a" type="money" /></extensionElements></userTask>`,
			"form property a: unknown type 'money'"},
		{`<userTask id="x" camunda:formHandlerClass="org.Handler" />`,
			"camunda:formHandlerClass is not supported: bpmnlite has no Java form handlers"},
		{`<userTask id="x"><extensionElements><camunda:formData><camunda:formField id="a" type="string"><camunda:validation><camunda:constraint name="validator" /></camunda:validation></camunda:formField></camunda:formData></extensionElements></userTask>`,
			`form field a: validator configuration needs to provide either the name of a registered form field validator or an expression resolving to one`},
		{`<userTask id="x"><extensionElements><camunda:formData><camunda:formField id="a" type="string"><camunda:validation><camunda:constraint name="email" /></camunda:validation></camunda:formField></camunda:formData></extensionElements></userTask>`,
			"form field a: Cannot find validator implementation for name 'email'"},
		{`<userTask id="x"><extensionElements><camunda:formData><camunda:formField id="a" type="money" /></camunda:formData></extensionElements></userTask>`,
			"form field a: unknown type 'money'"},
		{`<userTask id="x"><extensionElements><camunda:formData><camunda:formField id="a" /></camunda:formData></extensionElements></userTask>`,
			"form field a must have a 'type' attribute"},
		{`<userTask id="x"><extensionElements><camunda:formData><camunda:formField type="string" /></camunda:formData></extensionElements></userTask>`,
			"attribute id must be set for camunda:formField"},
		{`<userTask id="x"><extensionElements><camunda:formData><camunda:formField id="a" type="date" datePattern="yyyy-QQ" /></camunda:formData></extensionElements></userTask>`,
			"form field a: datePattern 'yyyy-QQ': bpmnlite does not know the date pattern letters at 'QQ'"},
		{`<userTask id="x" camunda:formRef="f" camunda:formRefBinding="versionTag" />`,
			"camunda:formRefBinding must be one of deployment, latest, version but was 'versionTag'"},
		{`<userTask id="x" camunda:formRef="f" camunda:formRefBinding="version" />`,
			"camunda:formRefVersion must be set when camunda:formRefBinding is 'version'"},
	} {
		probs := mustFail(t, simple(c.task))
		if len(probs) != 1 || !strings.Contains(probs[0].Message, c.want) || probs[0].ElementID != "x" || probs[0].Pos.Line == 0 {
			t.Errorf("%s:\n problems %v\n want %q at x", c.task, listProblems(probs), c.want)
		}
	}
}
