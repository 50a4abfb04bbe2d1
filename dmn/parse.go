package dmn

import (
	"fmt"
	"strings"

	"github.com/beevik/etree"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
)

const nsCamunda = "http://camunda.org/schema/1.0/dmn"

// isDMN reports whether ns is one of the DMN namespaces (1.1, 1.2, 1.3).
func isDMN(ns string) bool {
	return strings.Contains(ns, "omg.org/spec/DMN/")
}

// camundaAttributes are the camunda: attributes of DMN that bpmnlite reads.
var camundaAttributes = map[string]bool{"inputVariable": true, "versionTag": true, "historyTimeToLive": true}

// Options bound what Parse reads.
type Options struct {
	File string // names the file in errors
	// MaxBytes, when positive, refuses a larger file before reading it.
	MaxBytes int
	// CheckExpression, when set, checks every expression text (input
	// expressions and entries, output entries, literal expressions) before
	// it is compiled: the engine's bounds.
	CheckExpression func(src string) error
}

// Parse reads a DMN file. file names it in errors.
func Parse(data []byte, file string) (*Definitions, error) {
	return ParseWith(data, Options{File: file})
}

// ParseWith reads a DMN file within opts' bounds.
func ParseWith(data []byte, opts Options) (*Definitions, error) {
	file := opts.File
	if opts.MaxBytes > 0 && len(data) > opts.MaxBytes {
		return nil, &ParseError{File: file, Problems: []bpmn.Problem{{File: file, Pos: bpmn.Position{Line: 1, Column: 1},
			Message: fmt.Sprintf("the file is %d bytes, more than the limit of %d", len(data), opts.MaxBytes)}}}
	}
	doc, pos, prob := bpmn.ReadXML(data)
	if prob != nil {
		prob.File = file
		return nil, &ParseError{File: file, Problems: []bpmn.Problem{*prob}}
	}
	p := &parser{file: file, pos: pos, check: opts.CheckExpression}
	root := doc.Root()
	switch {
	case root == nil:
		p.errorf(nil, "", "no root element")
	case root.Tag != "definitions" || !isDMN(root.NamespaceURI()):
		p.errorf(root, "", "the root element must be a DMN definitions element, not <%s> in namespace %q", root.Tag, root.NamespaceURI())
	default:
		p.definitions(root)
	}
	if len(p.problems) > 0 {
		return nil, &ParseError{File: file, Problems: p.problems}
	}
	return p.defs, nil
}

type parser struct {
	check    func(string) error
	file     string
	pos      map[*etree.Element]bpmn.Position
	problems []bpmn.Problem
	defs     *Definitions
}

// checked reports whether expression text src passes the engine's check,
// reporting it at e when not.
func (p *parser) checked(e *etree.Element, id, src string) bool {
	if p.check == nil || src == "" {
		return true
	}
	if err := p.check(src); err != nil {
		p.errorf(e, id, "%v", err)
		return false
	}
	return true
}

func (p *parser) errorf(e *etree.Element, id, format string, args ...any) {
	pr := bpmn.Problem{File: p.file, Pos: bpmn.Position{Line: 1, Column: 1}, ElementID: id, Message: fmt.Sprintf(format, args...)}
	if e != nil {
		pr.Pos = p.pos[e]
		pr.ElementType = e.Tag
	}
	p.problems = append(p.problems, pr)
}

func attr(e *etree.Element, name string) string {
	for _, a := range e.Attr {
		if a.Key == name && (a.Space == "" || isDMN(a.NamespaceURI())) {
			return a.Value
		}
	}
	return ""
}

func camunda(e *etree.Element, name string) string {
	for _, a := range e.Attr {
		if a.Key == name && a.NamespaceURI() == nsCamunda {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

// children are e's DMN child elements named tag ("": all).
func children(e *etree.Element, tag string) []*etree.Element {
	var out []*etree.Element
	for _, c := range e.ChildElements() {
		if isDMN(c.NamespaceURI()) && (tag == "" || c.Tag == tag) {
			out = append(out, c)
		}
	}
	return out
}

func child(e *etree.Element, tag string) *etree.Element {
	if c := children(e, tag); len(c) > 0 {
		return c[0]
	}
	return nil
}

// text is the trimmed text of e's text child ("" when none).
func text(e *etree.Element) string {
	if e == nil {
		return ""
	}
	if t := child(e, "text"); t != nil {
		return strings.TrimSpace(t.Text())
	}
	return ""
}

// checkCamunda refuses the camunda: attributes bpmnlite does not read.
func (p *parser) checkCamunda(e *etree.Element) {
	for _, a := range e.Attr {
		if a.Space != "" && a.Space != "xmlns" && a.NamespaceURI() == nsCamunda && !camundaAttributes[a.Key] {
			p.errorf(e, attr(e, "id"), "camunda:%s is not supported", a.Key)
		}
	}
	for _, c := range e.ChildElements() {
		p.checkCamunda(c)
	}
}

// decisionLogic are the DMN boxed expressions a decision may have, with
// why the others are refused.
var decisionLogic = map[string]string{
	"context":            "boxed contexts are not supported (Camunda 7 evaluates decision tables and literal expressions only)",
	"invocation":         "invocations of business knowledge models are not supported (Camunda 7 evaluates decision tables and literal expressions only)",
	"relation":           "relations are not supported (Camunda 7 evaluates decision tables and literal expressions only)",
	"list":               "lists are not supported (Camunda 7 evaluates decision tables and literal expressions only)",
	"functionDefinition": "function definitions are not supported (Camunda 7 evaluates decision tables and literal expressions only)",
	"conditional":        "conditional boxed expressions are not supported (Camunda 7 evaluates decision tables and literal expressions only)",
}

func (p *parser) definitions(root *etree.Element) {
	p.checkCamunda(root)
	p.defs = &Definitions{ID: attr(root, "id"), Name: attr(root, "name"), Namespace: attr(root, "namespace")}
	if p.defs.ID == "" {
		p.errorf(root, "", "definitions has no id")
	}
	requires := map[*Decision][]*etree.Element{}
	ids := map[string]bool{}
	for _, e := range children(root, "decision") {
		d := p.decision(e)
		if d == nil {
			continue
		}
		if ids[d.ID] {
			p.errorf(e, d.ID, "the id '%s' is used by another decision", d.ID)
			continue
		}
		ids[d.ID] = true
		p.defs.Decisions = append(p.defs.Decisions, d)
		for _, ir := range children(e, "informationRequirement") {
			if rd := child(ir, "requiredDecision"); rd != nil {
				requires[d] = append(requires[d], rd)
			}
		}
	}
	for _, d := range p.defs.Decisions {
		for _, rd := range requires[d] {
			ref := strings.TrimPrefix(strings.TrimSpace(attr(rd, "href")), "#")
			req := p.defs.Decision(ref)
			if req == nil {
				p.errorf(rd, d.ID, "requiredDecision '%s' is not a decision of this file", ref)
				continue
			}
			d.Requires = append(d.Requires, req)
		}
	}
	for _, d := range p.defs.Decisions {
		if cycle := requirementCycle(d, nil); cycle != "" {
			p.errorf(nil, d.ID, "decision '%s' requires itself: %s", d.ID, cycle)
			return
		}
	}
	if len(p.defs.Decisions) == 0 && len(p.problems) == 0 {
		p.errorf(root, p.defs.ID, "the model has no decision")
	}
}

// requirementCycle returns the path of a requirement cycle through d, or "".
func requirementCycle(d *Decision, path []*Decision) string {
	for i, x := range path {
		if x == d {
			ids := make([]string, 0, len(path)-i+1)
			for _, y := range path[i:] {
				ids = append(ids, y.ID)
			}
			return strings.Join(append(ids, d.ID), " → ")
		}
	}
	for _, r := range d.Requires {
		if c := requirementCycle(r, append(path, d)); c != "" {
			return c
		}
	}
	return ""
}

func (p *parser) decision(e *etree.Element) *Decision {
	d := &Decision{ID: attr(e, "id"), Name: attr(e, "name"), Pos: p.pos[e], VersionTag: camunda(e, "versionTag")}
	if d.ID == "" {
		p.errorf(e, "", "decision has no id")
		return nil
	}
	if v := camunda(e, "historyTimeToLive"); v != "" {
		days, err := bpmn.HistoryTimeToLive(v)
		if err != nil {
			p.errorf(e, d.ID, "%v", err)
		}
		d.HistoryTimeToLive = &days
	}
	for _, c := range children(e, "") {
		switch c.Tag {
		case "decisionTable":
			d.Table = p.table(d, c)
		case "literalExpression":
			d.Literal = p.literal(d, e, c)
		default:
			if why := decisionLogic[c.Tag]; why != "" {
				p.errorf(c, d.ID, "%s", why)
				return nil
			}
		}
	}
	if d.Table == nil && d.Literal == nil {
		p.errorf(e, d.ID, "the decision has neither a decision table nor a literal expression")
		return nil
	}
	return d
}

func (p *parser) literal(d *Decision, decision, e *etree.Element) *LiteralExpression {
	l := &LiteralExpression{TypeRef: attr(e, "typeRef")}
	if v := child(decision, "variable"); v != nil {
		l.VariableName = attr(v, "name")
		if t := attr(v, "typeRef"); t != "" {
			l.TypeRef = t
		}
	}
	if l.VariableName == "" {
		l.VariableName = d.ID // as Camunda names the result of a literal expression without variable
	}
	p.checkLanguage(e, d.ID)
	l.Value = p.value(d.ID, e, text(e))
	if l.Value == nil {
		p.errorf(e, d.ID, "the literal expression is empty")
	}
	return l
}

// checkLanguage refuses expression languages other than JUEL and FEEL.
func (p *parser) checkLanguage(e *etree.Element, id string) {
	switch l := strings.ToLower(strings.TrimSpace(attr(e, "expressionLanguage"))); l {
	case "", "juel", "feel", "camunda", "http://www.omg.org/spec/feel/20140401", "https://www.omg.org/spec/dmn/20191111/feel/", "http://www.omg.org/spec/dmn/20180521/feel/":
	default:
		p.errorf(e, id, "expressionLanguage '%s' is not supported: write JUEL (${...}) or FEEL", attr(e, "expressionLanguage"))
	}
}

func (p *parser) table(d *Decision, e *etree.Element) *DecisionTable {
	t := &DecisionTable{ID: attr(e, "id"), HitPolicy: Unique}
	if hp := strings.TrimSpace(attr(e, "hitPolicy")); hp != "" {
		t.HitPolicy = HitPolicy(hp)
	}
	switch t.HitPolicy {
	case Unique, First, Priority, Any, Collect, RuleOrder, OutputOrder:
	default:
		p.errorf(e, d.ID, "hitPolicy '%s' is not a DMN hit policy (UNIQUE, FIRST, PRIORITY, ANY, COLLECT, RULE ORDER, OUTPUT ORDER)", t.HitPolicy)
	}
	t.Aggregation = strings.TrimSpace(attr(e, "aggregation"))
	switch t.Aggregation {
	case "":
	case "SUM", "MIN", "MAX", "COUNT":
		if t.HitPolicy != Collect {
			p.errorf(e, d.ID, "aggregation '%s' is only allowed with hit policy COLLECT, not %s", t.Aggregation, t.HitPolicy)
		}
	default:
		p.errorf(e, d.ID, "aggregation '%s' is not a DMN aggregator (SUM, MIN, MAX, COUNT)", t.Aggregation)
	}
	for _, c := range children(e, "input") {
		t.Inputs = append(t.Inputs, p.input(d, c))
	}
	names := map[string]bool{}
	for _, c := range children(e, "output") {
		o := &Output{ID: attr(c, "id"), Label: attr(c, "label"), Name: attr(c, "name"), TypeRef: attr(c, "typeRef")}
		if ov := child(c, "outputValues"); ov != nil {
			o.Values = p.outputValues(d.ID, ov)
		}
		if names[o.Name] {
			p.errorf(c, d.ID, "two outputs are named '%s': each output needs a name of its own", o.Name)
		}
		names[o.Name] = true
		t.Outputs = append(t.Outputs, o)
	}
	if len(t.Outputs) == 0 {
		p.errorf(e, d.ID, "the decision table has no output")
	}
	if t.HitPolicy == Priority || t.HitPolicy == OutputOrder {
		ordered := false
		for _, o := range t.Outputs {
			ordered = ordered || o.Values != nil
		}
		if !ordered {
			p.errorf(e, d.ID, "hit policy %s orders rules by the output values (outputValues) of the outputs: give at least one output its values", t.HitPolicy)
		}
	}
	for _, c := range children(e, "rule") {
		t.Rules = append(t.Rules, p.rule(d, t, c))
	}
	return t
}

func (p *parser) input(d *Decision, e *etree.Element) *Input {
	in := &Input{ID: attr(e, "id"), Label: attr(e, "label"), Pos: p.pos[e], Variable: camunda(e, "inputVariable")}
	if in.Variable == "" {
		in.Variable = "cellInput"
	}
	ie := child(e, "inputExpression")
	if ie == nil {
		return in
	}
	in.TypeRef = attr(ie, "typeRef")
	p.checkLanguage(ie, d.ID)
	if src := text(ie); src != "" && p.checked(ie, d.ID, src) {
		x, err := compile(src)
		if err != nil {
			p.errorf(ie, d.ID, "input '%s': %v", in.ID, err)
		}
		in.Expr = x
	}
	return in
}

// compile compiles an expression: "${...}" as it is, a plain expression
// ("amount * 2") as if it were written "${amount * 2}", as Camunda 7
// evaluates plain JUEL and FEEL expressions.
func compile(src string) (*expression.Expr, error) {
	if !expression.IsExpression(src) {
		src = "${" + src + "}"
	}
	return expression.Compile(src)
}

func (p *parser) outputValues(id string, e *etree.Element) []any {
	src := text(e)
	if src == "" {
		return nil
	}
	var out []any
	for _, part := range splitTopLevel(src) {
		v, ok, err := literal(strings.TrimSpace(part))
		if err != nil || !ok {
			p.errorf(e, id, "outputValues '%s': '%s' is not a literal", src, strings.TrimSpace(part))
			continue
		}
		out = append(out, v)
	}
	return out
}

func (p *parser) rule(d *Decision, t *DecisionTable, e *etree.Element) *Rule {
	r := &Rule{ID: attr(e, "id"), Pos: p.pos[e]}
	if desc := child(e, "description"); desc != nil {
		r.Description = strings.TrimSpace(desc.Text())
	} else if ann := child(e, "annotationEntry"); ann != nil {
		r.Description = text(ann)
	}
	entries := children(e, "inputEntry")
	if len(entries) != len(t.Inputs) {
		p.errorf(e, d.ID, "rule '%s' has %d input entries for %d inputs", r.ID, len(entries), len(t.Inputs))
	}
	for i, c := range entries {
		p.checkLanguage(c, d.ID)
		in := &Input{}
		if i < len(t.Inputs) {
			in = t.Inputs[i]
		}
		src := text(c)
		if !p.checked(c, d.ID, src) {
			continue
		}
		ut, err := parseUnaryTests(src, strings.EqualFold(attr(c, "expressionLanguage"), "juel"))
		if err != nil {
			p.errorf(c, d.ID, "rule '%s', input '%s': input entry '%s': %v", r.ID, in.ID, src, err)
		}
		r.Entries = append(r.Entries, ut)
	}
	outs := children(e, "outputEntry")
	if len(outs) != len(t.Outputs) {
		p.errorf(e, d.ID, "rule '%s' has %d output entries for %d outputs", r.ID, len(outs), len(t.Outputs))
	}
	for _, c := range outs {
		p.checkLanguage(c, d.ID)
		r.Outputs = append(r.Outputs, p.value(d.ID, c, text(c)))
	}
	return r
}

// value reads an output entry or literal expression; nil when empty.
func (p *parser) value(id string, e *etree.Element, src string) *Value {
	if src == "" || !p.checked(e, id, src) {
		return nil
	}
	v := &Value{Text: src, Pos: p.pos[e]}
	lit, ok, err := literal(src)
	switch {
	case err != nil:
		p.errorf(e, id, "'%s': %v", src, err)
	case ok:
		v.literal, v.isLit = lit, true
	default:
		x, err := compile(src)
		if err != nil {
			p.errorf(e, id, "'%s': %v", src, err)
		}
		v.expr = x
	}
	return v
}
