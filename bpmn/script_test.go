package bpmn

import (
	"testing"
)

// Every place a script may be is read into the model, compiled; a
// resource is compiled when the parser has the deployment's resources.
func TestScriptsParsed(t *testing.T) {
	src := simple(`<scriptTask id="x" scriptFormat="JavaScript" camunda:resultVariable="r"><script>
  a + 1</script>
  <extensionElements>
    <camunda:executionListener event="start"><camunda:script scriptFormat="js">1</camunda:script></camunda:executionListener>
    <camunda:inputOutput><camunda:inputParameter name="in"><camunda:list><camunda:script scriptFormat="ecmascript">2</camunda:script></camunda:list></camunda:inputParameter></camunda:inputOutput>
  </extensionElements></scriptTask>
<scriptTask id="y" scriptFormat="javascript" camunda:resource="deployment://lib/y.js"/>
<sequenceFlow id="toY" sourceRef="x" targetRef="y"><conditionExpression language="javascript">a &gt; 1</conditionExpression></sequenceFlow>
<intermediateCatchEvent id="c"><conditionalEventDefinition><condition language="javascript" camunda:resource="cond.js"/></conditionalEventDefinition></intermediateCatchEvent>`)
	d := mustParse(t, src)
	p := d.Process("p")
	x := p.Activity("x")
	if x.Kind != ScriptTask || x.Script == nil || x.Script.Program == nil || x.Script.Format != "JavaScript" || x.Script.Source != "\n  a + 1" || x.ResultVariable != "r" {
		t.Errorf("script task %+v, script %+v", x, x.Script)
	}
	if l := x.Listeners; len(l) != 1 || l[0].Script == nil || l[0].Script.Program == nil {
		t.Errorf("listener %+v", l)
	}
	if in := x.IO.Inputs[0].Value; in.Kind != ListValue || in.Items[0].Kind != ScriptValue || in.Items[0].Script.Program == nil {
		t.Errorf("input %+v", in)
	}
	y := p.Activity("y")
	if y.Script == nil || y.Script.Resource != "deployment://lib/y.js" || y.Script.Program != nil {
		t.Errorf("resource script without the deployment's resources: %+v", y.Script)
	}
	if f := p.Flow("toY"); f.ConditionScript == nil || f.Condition != "a > 1" {
		t.Errorf("flow condition %+v", f)
	}
	if c := p.Activity("c"); c.ConditionScript == nil || c.Condition != "cond.js" {
		t.Errorf("conditional event %+v", c)
	}

	opts := testOpts
	opts.Resources = map[string][]byte{"lib/y.js": []byte("a * 2"), "cond.js": []byte("true")}
	d, err := Parse(src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if y := d.Process("p").Activity("y"); y.Script.Program == nil {
		t.Errorf("resource script not compiled with the deployment's resources")
	}
	if c := d.Process("p").Activity("c"); c.ConditionScript.Program == nil {
		t.Errorf("resource condition not compiled")
	}
}
