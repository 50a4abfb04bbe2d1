package bpmn

import (
	"reflect"
	"strings"
	"testing"
)

// ioTask is a task with the given camunda:inputOutput content.
func ioTask(kind, content string) []byte {
	return simple(`<` + kind + ` id="x"><extensionElements><camunda:inputOutput>` + content +
		`</camunda:inputOutput></extensionElements></` + kind + `>`)
}

func TestInputOutputValues(t *testing.T) {
	d := mustParse(t, ioTask("userTask", `
  <camunda:inputParameter name="text">foo</camunda:inputParameter>
  <camunda:inputParameter name="expr">${a + 1}</camunda:inputParameter>
  <camunda:inputParameter name="empty"/>
  <camunda:inputParameter name="list">
    <camunda:list>
      <camunda:value>a</camunda:value>
      <camunda:value>${b}</camunda:value>
      <camunda:value/>
      <camunda:list><camunda:value>1</camunda:value></camunda:list>
      <camunda:map><camunda:entry key="k">v</camunda:entry></camunda:map>
    </camunda:list>
  </camunda:inputParameter>
  <camunda:outputParameter name="map">
    <camunda:map>
      <camunda:entry key="foo">bar</camunda:entry>
      <camunda:entry key="${keyVar}"><camunda:list><camunda:value>x</camunda:value></camunda:list></camunda:entry>
      <camunda:entry key="none"></camunda:entry>
    </camunda:map>
  </camunda:outputParameter>`))
	a := d.Process("p").Activity("x")
	if a.IO == nil || a.IO.Pos.Line == 0 {
		t.Fatalf("IO %+v", a.IO)
	}
	text := func(s string) Value { return Value{Kind: TextValue, Text: s} }
	wantIn := []Value{
		text("foo"), text("${a + 1}"), {},
		{Kind: ListValue, Items: []Value{text("a"), text("${b}"), {},
			{Kind: ListValue, Items: []Value{text("1")}},
			{Kind: MapValue, Entries: []MapEntry{{"k", text("v")}}}}},
	}
	var names []string
	for i, p := range a.IO.Inputs {
		names = append(names, p.Name)
		if p.Pos.Line == 0 {
			t.Errorf("input %s has no position", p.Name)
		}
		if !reflect.DeepEqual(p.Value, wantIn[i]) {
			t.Errorf("input %s = %+v, want %+v", p.Name, p.Value, wantIn[i])
		}
	}
	if got := strings.Join(names, ","); got != "text,expr,empty,list" {
		t.Errorf("inputs %s", got)
	}
	wantOut := Value{Kind: MapValue, Entries: []MapEntry{
		{"foo", text("bar")},
		{"${keyVar}", Value{Kind: ListValue, Items: []Value{text("x")}}},
		{"none", Value{}},
	}}
	if len(a.IO.Outputs) != 1 || a.IO.Outputs[0].Name != "map" || !reflect.DeepEqual(a.IO.Outputs[0].Value, wantOut) {
		t.Errorf("outputs %+v", a.IO.Outputs)
	}
	if !a.IsScope() || !a.HasIOScope() {
		t.Errorf("an activity with input/output mappings is a scope")
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings: %v", d.Warnings)
	}
}

// Camunda makes an activity with mappings a scope, but for the inner
// activity of a multi-instance one; an empty camunda:inputOutput counts.
func TestInputOutputScope(t *testing.T) {
	d := mustParse(t, simple(`<serviceTask id="x" camunda:class="C"><extensionElements><camunda:inputOutput/></extensionElements>
<multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></serviceTask>`))
	if a := d.Process("p").Activity("x"); a.IO == nil || a.HasIOScope() || a.IsScope() {
		t.Errorf("multi-instance: IO %+v, HasIOScope %v, IsScope %v", a.IO, a.HasIOScope(), a.IsScope())
	}
	d = mustParse(t, simple(`<task id="x"><extensionElements><camunda:inputOutput/></extensionElements></task>`))
	if a := d.Process("p").Activity("x"); a.IO == nil || !a.HasIOScope() {
		t.Errorf("empty inputOutput: IO %+v, HasIOScope %v", a.IO, a.HasIOScope())
	}
}

// Every element kind Camunda maps accepts camunda:inputOutput.
func TestInputOutputAllowed(t *testing.T) {
	in := `<extensionElements><camunda:inputOutput><camunda:inputParameter name="a">1</camunda:inputParameter></camunda:inputOutput></extensionElements>`
	out := `<extensionElements><camunda:inputOutput><camunda:outputParameter name="a">1</camunda:outputParameter></camunda:inputOutput></extensionElements>`
	for name, src := range map[string][]byte{
		"task":           simple(`<task id="x">` + out + `</task>`),
		"serviceTask":    simple(`<serviceTask id="x" camunda:class="C">` + out + `</serviceTask>`),
		"sendTask":       simple(`<sendTask id="x" camunda:type="external" camunda:topic="t">` + out + `</sendTask>`),
		"userTask":       simple(`<userTask id="x">` + out + `</userTask>`),
		"receiveTask":    simple(`<receiveTask id="x">` + out + `</receiveTask>`),
		"manualTask":     simple(`<manualTask id="x">` + out + `</manualTask>`),
		"subProcess":     simple(`<subProcess id="x">` + out + `<startEvent id="in"/></subProcess>`),
		"callActivity":   simple(`<callActivity id="x" calledElement="c">` + out + `</callActivity>`),
		"catch event":    simple(`<intermediateCatchEvent id="x">` + out + `<timerEventDefinition><timeDuration>PT1M</timeDuration></timerEventDefinition></intermediateCatchEvent>`),
		"throw event":    simple(`<intermediateThrowEvent id="x">` + out + `</intermediateThrowEvent>`),
		"end event":      proc(`<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/><endEvent id="x">` + in + `</endEvent>`),
		"multi-instance": simple(`<userTask id="x">` + in + `<multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></userTask>`),
	} {
		t.Run(name, func(t *testing.T) {
			if a := mustParse(t, src).Process("p").Activity("x"); a.IO == nil {
				t.Errorf("no IO")
			}
		})
	}
}

func TestInputOutputProblems(t *testing.T) {
	io := func(content string) string {
		return `<extensionElements><camunda:inputOutput>` + content + `</camunda:inputOutput></extensionElements>`
	}
	in := io(`<camunda:inputParameter name="a">1</camunda:inputParameter>`)
	for _, c := range []struct {
		name      string
		src       []byte
		id, msg   string
		line, col int
	}{
		{"start event", proc(`<startEvent id="x">` + in + `</startEvent>`),
			"x", "camunda:inputOutput is not supported on element type 'startEvent'", 7, 75},
		{"boundary event", simple(`<userTask id="x"/><boundaryEvent id="b" attachedToRef="x">` + in + `<timerEventDefinition><timeDuration>PT1M</timeDuration></timerEventDefinition></boundaryEvent>`),
			"b", "camunda:inputOutput is not supported on element type 'boundaryEvent'", 9, 78},
		{"gateway", simple(`<exclusiveGateway id="x">` + in + `</exclusiveGateway>`),
			"x", "camunda:inputOutput is not supported on element type 'exclusiveGateway'", 9, 45},
		{"output on end event", proc(`<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/><endEvent id="x">` +
			io(`<camunda:inputParameter name="a"/><camunda:outputParameter name="b">1</camunda:outputParameter>`) + `</endEvent>`),
			"x", "camunda:outputParameter is not allowed on an end event", 7, 198},
		{"output on multi-instance", simple(`<userTask id="x">` + io(`<camunda:outputParameter name="b">1</camunda:outputParameter>`) +
			`<multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></userTask>`),
			"x", "camunda:outputParameter is not allowed on a multi-instance activity", 9, 58},
		{"script", simple(`<task id="x">` + io(`<camunda:inputParameter name="a"><camunda:script scriptFormat="groovy">1 + 1</camunda:script></camunda:inputParameter>`) + `</task>`),
			"x", "camunda:inputParameter 'a': scriptFormat 'groovy' is not supported: use javascript, an expression, or a delegate", 9, 87},
		{"script in a map", simple(`<task id="x">` + io(`<camunda:outputParameter name="m"><camunda:map><camunda:entry key="k"><camunda:script scriptFormat="js">1 +</camunda:script></camunda:entry></camunda:map></camunda:outputParameter>`) + `</task>`),
			"x", "camunda:outputParameter 'm' (entry 'k') (js) line 1:4 of the script: SyntaxError: Unexpected end of input", 9, 124},
		{"no name", simple(`<task id="x">` + io(`<camunda:inputParameter>1</camunda:inputParameter>`) + `</task>`),
			"x", "Missing attribute 'name' for inputParameter", 9, 54},
		{"entry without key", simple(`<task id="x">` + io(`<camunda:inputParameter name="m"><camunda:map><camunda:entry>1</camunda:entry></camunda:map></camunda:inputParameter>`) + `</task>`),
			"x", "camunda:inputParameter 'm': Missing attribute 'key' for 'entry' element", 9, 100},
		{"two values", simple(`<task id="x">` + io(`<camunda:inputParameter name="a"><camunda:list/><camunda:map/></camunda:inputParameter>`) + `</task>`),
			"x", "camunda:inputParameter 'a' may hold only one element", 9, 102},
		{"unknown value element", simple(`<task id="x">` + io(`<camunda:inputParameter name="a"><camunda:list><camunda:item>1</camunda:item></camunda:list></camunda:inputParameter>`) + `</task>`),
			"x", "camunda:inputParameter 'a' (item 1): unexpected <item>", 9, 101},
		{"unknown child", simple(`<task id="x">` + io(`<camunda:parameter name="a"/>`) + `</task>`),
			"x", "camunda:inputOutput holds camunda:inputParameter and camunda:outputParameter elements, not <parameter>", 9, 54},
		{"bad expression", simple(`<task id="x">` + io(`<camunda:inputParameter name="a">${oops</camunda:inputParameter>`) + `</task>`),
			"x", `invalid expression in camunda:inputParameter 'a' "${oops"`, 9, 54},
		{"bad key expression", simple(`<task id="x">` + io(`<camunda:inputParameter name="m"><camunda:map><camunda:entry key="${k">1</camunda:entry></camunda:map></camunda:inputParameter>`) + `</task>`),
			"x", `invalid expression in camunda:inputParameter 'm' entry key "${k"`, 9, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := findProblem(t, mustFail(t, c.src), c.id, c.msg)
			if p.Pos != (Position{c.line, c.col}) {
				t.Errorf("at %d:%d, want %d:%d: %s", p.Pos.Line, p.Pos.Column, c.line, c.col, p)
			}
		})
	}
}
