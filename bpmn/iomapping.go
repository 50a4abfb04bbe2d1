package bpmn

import (
	"fmt"
	"strings"

	"github.com/beevik/etree"
)

// inputOutput reads the camunda:inputOutput among ext (Camunda reads the
// first one).
func (p *parser) inputOutput(s site, ext []*etree.Element) *InputOutput {
	for _, c := range ext {
		if c.Tag != "inputOutput" {
			continue
		}
		io := &InputOutput{Pos: p.pos[c]}
		for _, pe := range c.ChildElements() {
			ps := p.at(s, pe)
			if pe.Tag != "inputParameter" && pe.Tag != "outputParameter" {
				p.errorf(ps, "camunda:inputOutput holds camunda:inputParameter and camunda:outputParameter elements, not <%s>", pe.Tag)
				continue
			}
			name := strings.TrimSpace(attrValue(pe, "name"))
			if name == "" {
				p.errorf(ps, "Missing attribute 'name' for %s", pe.Tag)
				continue
			}
			par := Parameter{Name: name, Pos: ps.pos, Value: p.nestedValue(s, "camunda:"+pe.Tag+" '"+name+"'", pe)}
			if pe.Tag == "inputParameter" {
				io.Inputs = append(io.Inputs, par)
			} else {
				io.Outputs = append(io.Outputs, par)
			}
		}
		return io
	}
	return nil
}

// nestedValue reads the value of a parameter or map entry: its text, or
// its only child element.
func (p *parser) nestedValue(s site, what string, e *etree.Element) Value {
	switch kids := e.ChildElements(); len(kids) {
	case 0:
		return p.textValue(p.at(s, e), what, e)
	case 1:
		return p.value(s, what, kids[0])
	default:
		p.errorf(p.at(s, kids[1]), "%s may hold only one element: its value is text, a camunda:list or a camunda:map", what)
		return Value{}
	}
}

// value reads a value element: camunda:list, camunda:map, or camunda:value
// (a list item). Elements are recognised by their local name, as Camunda
// does.
func (p *parser) value(s site, what string, e *etree.Element) Value {
	es := p.at(s, e)
	switch e.Tag {
	case "list":
		v := Value{Kind: ListValue}
		for i, item := range e.ChildElements() {
			v.Items = append(v.Items, p.value(s, fmt.Sprintf("%s (item %d)", what, i+1), item))
		}
		return v
	case "map":
		v := Value{Kind: MapValue}
		for _, en := range e.ChildElements() {
			ens := p.at(s, en)
			if en.Tag != "entry" {
				p.errorf(ens, "%s: a camunda:map holds camunda:entry elements, not <%s>", what, en.Tag)
				continue
			}
			key := strings.TrimSpace(attrValue(en, "key"))
			if key == "" {
				p.errorf(ens, "%s: Missing attribute 'key' for 'entry' element", what)
				continue
			}
			p.checkMaybeExpr(ens, what+" entry key", key)
			v.Entries = append(v.Entries, MapEntry{Key: key, Value: p.nestedValue(s, what+" (entry '"+key+"')", en)})
		}
		return v
	case "value":
		return p.textValue(es, what, e)
	case "script":
		if sc := p.camundaScript(s, what, e); sc != nil {
			return Value{Kind: ScriptValue, Script: sc}
		}
		return Value{}
	}
	p.errorf(es, "%s: unexpected <%s>; a value is text, a camunda:list (of camunda:value, lists and maps) or a camunda:map", what, e.Tag)
	return Value{}
}

// textValue reads a text value: a constant or an expression; empty is null.
func (p *parser) textValue(s site, what string, e *etree.Element) Value {
	t := text(e)
	if t == "" {
		return Value{}
	}
	p.checkMaybeExpr(s, what, t)
	return Value{Kind: TextValue, Text: t}
}

// checkInputOutput rejects input/output mappings where Camunda does: on
// start events, boundary events and gateways; output parameters on end
// events (the path ends there) and on multi-instance activities (each
// instance would overwrite the others' values).
func (p *parser) checkInputOutput(s site, a *Activity) {
	if a.IO == nil {
		return
	}
	switch a.Kind {
	case StartEvent, BoundaryEvent, ExclusiveGateway, ParallelGateway, InclusiveGateway, EventBasedGateway:
		p.errorf(site{a.IO.Pos, s.id, s.typ}, "camunda:inputOutput is not supported on element type '%s' (as in Camunda): input/output mappings belong on tasks, subprocesses, call activities, intermediate events and end events", a.Kind)
		return
	}
	if len(a.IO.Outputs) == 0 {
		return
	}
	os := site{a.IO.Outputs[0].Pos, s.id, s.typ}
	switch {
	case a.Kind == EndEvent:
		p.errorf(os, "camunda:outputParameter is not allowed on an end event: the path ends there")
	case a.MultiInstance != nil:
		p.errorf(os, "camunda:outputParameter is not allowed on a multi-instance activity (as in Camunda: each instance would overwrite the values of the others); input parameters apply to each instance")
	}
}
