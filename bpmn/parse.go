package bpmn

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/beevik/etree"
	"github.com/bpmnlite/bpmnlite/bpmn/timer"
	"github.com/bpmnlite/bpmnlite/expression"
)

// ParseOptions tune Parse.
type ParseOptions struct {
	// File is the file name used in problems.
	File string
	// ForceExecutable parses every process as if it had isExecutable="true"
	// (useful to check exports of modelling tools, which mostly omit it).
	ForceExecutable bool
	// CheckExpression, when set, is called for every expression text in the
	// model: conditions, camunda:expression and delegateExpression, listener
	// expressions, completion conditions, sourceExpression and businessKey,
	// and the values that may be either a constant or an expression
	// (priorities, timer values, loopCardinality, collection, assignee and
	// candidates, calledElement, topic, retry cycles, input/output
	// parameter values and map keys) when they contain "${" or "#{". A non-nil error is a problem for the element.
	CheckExpression func(src string) error
	// MaxBytes, when positive, rejects a file larger than this before
	// reading it: parsing takes time and memory in proportion to the size.
	MaxBytes int
	// MaxScriptBytes, when positive, bounds the source of one script.
	MaxScriptBytes int
	// Resources, when set, are the deployment's other resources by name:
	// a script's constant camunda:resource must be one of them, and is
	// compiled with the model. Unset, resources are left to the runtime.
	Resources map[string][]byte
	// MaxQuoted is how much of an expression a problem quotes, in
	// characters, before an ellipsis (default 200; negative: all of it).
	MaxQuoted int
}

// Parse reads a BPMN 2.0 file and validates the processes it deploys. On
// failure it returns nil and a *ParseError listing every problem found, each
// with its position, element id and type. Non-fatal findings are returned in
// Definitions.Warnings. The result is never modified afterwards and may be
// shared between goroutines.
//
// After a successful parse the model is complete: every sequence flow has a
// Source and a Target in its own scope, every boundary event an AttachedTo,
// every timer event a Timer, every message and signal event a MessageName or
// SignalName, every error end event an ErrorCode, every subprocess one none
// start event, and constant timer values and priorities are well-formed.
func Parse(data []byte, opts ParseOptions) (*Definitions, error) {
	p := &parser{
		opts: opts,
		defs: &Definitions{
			File:        opts.File,
			Messages:    map[string]*Message{},
			Signals:     map[string]*Signal{},
			Errors:      map[string]*Error{},
			Escalations: map[string]*Escalation{},
		},
		claimed: map[string]site{},
		docIDs:  map[string]bool{},
	}
	if opts.MaxBytes > 0 && len(data) > opts.MaxBytes {
		return nil, &ParseError{File: opts.File, Problems: []Problem{{File: opts.File,
			Message: fmt.Sprintf("the file is %d bytes, more than the limit of %d", len(data), opts.MaxBytes)}}}
	}
	doc, pos, prob := readDocument(data)
	if prob != nil {
		prob.File = opts.File
		return nil, &ParseError{File: opts.File, Problems: []Problem{*prob}}
	}
	p.pos = pos
	p.parseDefinitions(doc.Root())
	p.checkCamundaAttributes(doc.Root())
	if len(p.problems) > 0 {
		return nil, &ParseError{File: opts.File, Problems: sortProblems(p.problems)}
	}
	p.defs.Warnings = sortProblems(p.warnings)
	return p.defs, nil
}

func sortProblems(ps []Problem) []Problem {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Column, b.Pos.Column))
	})
	return ps
}

// site is where a problem is reported: a position and the element it concerns.
type site struct {
	pos Position
	id  string
	typ string
}

func (a *Activity) site() site { return site{a.Pos, a.ID, a.typeName()} }

func (f *SequenceFlow) site() site {
	if f.Generated {
		return site{f.Pos, "", "sequenceFlow"}
	}
	return site{f.Pos, f.ID, "sequenceFlow"}
}

type parser struct {
	opts     ParseOptions
	defs     *Definitions
	pos      map[*etree.Element]Position
	problems []Problem
	warnings []Problem
	claimed  map[string]site // ids of the elements read so far
	docIDs   map[string]bool // every id in the file, so that generated ids never collide
}

func (p *parser) siteOf(e *etree.Element) site {
	return site{p.pos[e], attrValue(e, "id"), e.Tag}
}

// at is the site of a child element (an event definition, an extension
// element) reported under its owner's id and type.
func (p *parser) at(owner site, child *etree.Element) site {
	return site{p.pos[child], owner.id, owner.typ}
}

func (p *parser) problem(s site, msg string) Problem {
	return Problem{File: p.opts.File, Pos: s.pos, ElementID: s.id, ElementType: s.typ, Message: msg}
}

func (p *parser) errorf(s site, format string, args ...any) {
	p.problems = append(p.problems, p.problem(s, fmt.Sprintf(format, args...)))
}

func (p *parser) warnf(s site, format string, args ...any) {
	p.warnings = append(p.warnings, p.problem(s, fmt.Sprintf(format, args...)))
}

// unsupported reports a construct bpmnlite does not execute. construct names
// it as the element type ("scriptTask", "boundaryEvent/escalationEventDefinition").
func (p *parser) unsupported(st *procState, s site, construct, hint string) {
	if st != nil && s.id != "" {
		st.invalid[s.id] = true
	}
	msg := "unsupported element type"
	if hint != "" {
		msg += "; " + hint
	}
	p.errorf(site{s.pos, s.id, construct}, "%s", msg)
}

// claim registers an id; a second element with the same id is a problem.
func (p *parser) claim(s site) bool {
	if first, dup := p.claimed[s.id]; dup {
		p.errorf(s, "duplicate id '%s' (already used by the %s at %d:%d)", s.id, first.typ, first.pos.Line, first.pos.Column)
		return false
	}
	p.claimed[s.id] = s
	return true
}

func (p *parser) checkExpr(s site, what, src string) {
	if p.opts.CheckExpression == nil {
		return
	}
	if err := p.opts.CheckExpression(src); err != nil {
		p.errorf(s, "invalid expression in %s %q: %v", what, expression.Quote(src, p.opts.MaxQuoted), err)
	}
}

// checkMaybeExpr checks a value that is either a constant or an expression.
func (p *parser) checkMaybeExpr(s site, what, src string) {
	if isExpression(src) {
		p.checkExpr(s, what, src)
	}
}

func isExpression(s string) bool {
	return strings.Contains(s, "${") || strings.Contains(s, "#{")
}

func parseBool(v string) (val, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "on", "enabled", "active":
		return true, true
	case "false", "0", "no", "off", "disabled", "inactive":
		return false, true
	}
	return false, false
}

// flag reads a boolean attribute (a Camunda one when camunda is set).
func (p *parser) flag(s site, e *etree.Element, name string, camunda, def bool) bool {
	var v string
	var ok bool
	if camunda {
		v, ok = camundaAttr(e, name)
	} else {
		v, ok = attr(e, name)
	}
	if !ok || strings.TrimSpace(v) == "" {
		return def
	}
	b, valid := parseBool(v)
	if !valid {
		p.errorf(s, "attribute '%s' must be true or false, not '%s'", name, v)
		return def
	}
	return b
}

// priority reads camunda:jobPriority or camunda:taskPriority: an int64
// constant or an expression.
func (p *parser) priority(s site, e *etree.Element, name string) string {
	v, _ := camundaAttr(e, name)
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	if isExpression(v) {
		p.checkExpr(s, "camunda:"+name, v)
		return v
	}
	if _, err := strconv.ParseInt(v, 10, 64); err != nil {
		p.errorf(s, "Value '%s' for attribute '%s' is not a valid number", v, name)
	}
	return v
}

// taskDate reads a user task's camunda:dueDate or camunda:followUpDate: an
// expression, an ISO 8601 date or an ISO 8601 duration.
func (p *parser) taskDate(s site, e *etree.Element, name string) string {
	v := strings.TrimSpace(camundaValue(e, name))
	switch {
	case v == "":
	case isExpression(v):
		p.checkExpr(s, "camunda:"+name, v)
	default:
		if _, err := timer.ParseDueDate(v, time.Time{}, time.UTC); err != nil {
			p.errorf(s, "camunda:%s '%s' is neither an ISO 8601 date nor a duration", name, v)
		}
	}
	return v
}

// historyTimeToLive reads camunda:historyTimeToLive: a number of days, or
// an ISO 8601 period of days ("P30D"), as Camunda accepts.
func (p *parser) historyTimeToLive(s site, e *etree.Element) *int {
	v, ok := camundaAttr(e, "historyTimeToLive")
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return nil
	}
	days, err := HistoryTimeToLive(v)
	if err != nil {
		p.errorf(s, "%v", err)
		return nil
	}
	return &days
}

func (p *parser) parseDefinitions(root *etree.Element) {
	if root == nil {
		p.errorf(site{pos: Position{1, 1}}, "no root element")
		return
	}
	rs := p.siteOf(root)
	if !isBPMN(root, "definitions") {
		p.errorf(rs, "the root element must be a BPMN definitions element (namespace %s), not <%s> in namespace %q",
			nsBPMN, root.Tag, root.NamespaceURI())
		return
	}
	p.collectIDs(root)
	p.defs.TargetNamespace = attrValue(root, "targetNamespace")

	// Root elements first: events refer to messages declared anywhere.
	for _, c := range bpmnChildren(root) {
		s := p.siteOf(c)
		switch c.Tag {
		case "message", "signal", "error", "escalation":
			if s.id == "" {
				p.errorf(s, "%s has no id", c.Tag)
				continue
			}
			if !p.claim(s) {
				continue
			}
			name := attrValue(c, "name")
			switch c.Tag {
			case "message":
				p.defs.Messages[s.id] = &Message{ID: s.id, Name: name}
			case "signal":
				p.defs.Signals[s.id] = &Signal{ID: s.id, Name: name}
			case "error":
				p.defs.Errors[s.id] = &Error{ID: s.id, Name: name, Code: attrValue(c, "errorCode"), Message: camundaValue(c, "errorMessage")}
			case "escalation":
				p.defs.Escalations[s.id] = &Escalation{ID: s.id, Name: name, Code: attrValue(c, "escalationCode")}
			}
		}
	}
	for _, c := range bpmnChildren(root) {
		if c.Tag != "process" {
			continue // collaborations, diagrams, item definitions...: decoration
		}
		s := p.siteOf(c)
		v, set := attr(c, "isExecutable")
		exec, valid := parseBool(v)
		switch {
		case p.opts.ForceExecutable:
		case !set:
			p.skip(s, "isExecutable is not set")
			continue
		case !valid:
			p.errorf(s, "attribute 'isExecutable' must be true or false, not '%s'", v)
			continue
		case !exec:
			p.skip(s, `isExecutable="false"`)
			continue
		}
		if isEmptyProcess(c) {
			// Such as the process Bizagi adds for a pool: nothing to run.
			p.skip(s, "the process has no flow elements")
			continue
		}
		p.parseProcess(c)
	}
	if len(p.defs.Processes) == 0 {
		p.warnf(rs, "no executable process in the file: nothing to deploy")
	}
}

// isEmptyProcess reports whether a process holds nothing but decoration.
func isEmptyProcess(e *etree.Element) bool {
	for _, c := range bpmnChildren(e) {
		if !decoration[c.Tag] {
			return false
		}
	}
	return true
}

func (p *parser) skip(s site, reason string) {
	p.defs.Skipped = append(p.defs.Skipped, SkippedProcess{ID: s.id, Reason: reason, Pos: s.pos})
}

// collectIDs records every id in the document (diagram elements included).
func (p *parser) collectIDs(e *etree.Element) {
	if id := attrValue(e, "id"); id != "" {
		p.docIDs[id] = true
	}
	for _, c := range e.ChildElements() {
		p.collectIDs(c)
	}
}

// procState is the bookkeeping of one process while it is read.
type procState struct {
	proc   *Process
	scopes []*scopeState
	// invalid holds the ids of flow nodes rejected (unsupported, malformed):
	// references to them are not reported a second time.
	invalid map[string]bool
	// rejectedStart marks the scopes (nil: the process) where a start event
	// was rejected, so that a missing start event is not reported as well.
	rejectedStart map[*Activity]bool
}

// scopeState is one level of a process: the process itself or a subprocess.
// Sequence flows and boundary events connect only elements of one scope.
type scopeState struct {
	owner      *Activity // nil at process level
	local      map[string]*Activity
	flows      []pendingFlow
	boundaries []pendingRef // boundary events and their attachedToRef
	defaults   []pendingRef // activities and their default attribute
	// associations, by sourceRef: they link compensation boundary events
	// to their handlers.
	associations map[string]string
}

type pendingFlow struct {
	f        *SequenceFlow
	src, tgt string
}

type pendingRef struct {
	a   *Activity
	ref string
}

// documentation is the text of e's documentation elements, one a line,
// trimmed, as Camunda reads a process's description.
func documentation(e *etree.Element) string {
	var texts []string
	for _, c := range bpmnChildren(e) {
		if c.Tag == "documentation" {
			texts = append(texts, strings.TrimSpace(c.Text()))
		}
	}
	return strings.TrimSpace(strings.Join(texts, "\n"))
}

func (p *parser) parseProcess(e *etree.Element) {
	s := p.siteOf(e)
	if s.id == "" {
		p.errorf(s, "process has no id")
		return
	}
	if !p.claim(s) {
		return
	}
	proc := &Process{
		ID:         s.id,
		Name:       attrValue(e, "name"),
		Pos:        s.pos,
		activities: map[string]*Activity{},
		flows:      map[string]*SequenceFlow{},
	}
	proc.JobPriority = p.priority(s, e, "jobPriority")
	proc.TaskPriority = p.priority(s, e, "taskPriority")
	proc.VersionTag = strings.TrimSpace(camundaValue(e, "versionTag"))
	proc.NotStartableInTasklist = strings.TrimSpace(camundaValue(e, "isStartableInTasklist")) == "false"
	proc.Documentation = documentation(e)
	proc.CandidateStarterGroups = strings.TrimSpace(camundaValue(e, "candidateStarterGroups"))
	proc.CandidateStarterUsers = strings.TrimSpace(camundaValue(e, "candidateStarterUsers"))
	proc.HistoryTimeToLive = p.historyTimeToLive(s, e)
	ext := p.extensions(s, e, "executionListener", "potentialStarter")
	proc.Listeners = p.listeners(s, ext, false)
	potentialStarters(proc, ext)

	st := &procState{proc: proc, invalid: map[string]bool{}, rejectedStart: map[*Activity]bool{}}
	proc.Activities, proc.Flows = p.parseScope(st, e, nil)
	p.resolve(st)
	p.validate(st)
	p.warnLoops(proc.Activities)
	p.defs.Processes = append(p.defs.Processes, proc)
}

// unsupportedHints say what to use instead of a BPMN element bpmnlite
// does not execute.
var unsupportedHints = map[string]string{
	"complexGateway":  "use an inclusive gateway, or an exclusive gateway with conditions",
	"adHocSubProcess": "ad-hoc subprocesses are not supported: use user tasks in a parallel gateway, or an event-based gateway",
}

// flowNodes are the element types bpmnlite executes.
var flowNodes = map[Kind]bool{
	StartEvent: true, EndEvent: true, IntermediateCatchEvent: true, IntermediateThrowEvent: true, BoundaryEvent: true,
	Task: true, ServiceTask: true, BusinessRuleTask: true, SendTask: true, UserTask: true, ReceiveTask: true, ManualTask: true,
	ExclusiveGateway: true, ParallelGateway: true, InclusiveGateway: true, EventBasedGateway: true,
	SubProcess: true, CallActivity: true,
	ScriptTask: true,
}

// decoration lists BPMN elements of a process or subprocess that carry no
// execution semantics for bpmnlite. The loop characteristics and data
// associations of a subprocess are read by parseActivity.
var decoration = map[string]bool{
	"documentation": true, "extensionElements": true, "laneSet": true, "lane": true,
	"dataObject": true, "dataObjectReference": true, "dataStoreReference": true,
	"association": true, "textAnnotation": true, "group": true,
	"ioSpecification": true, "property": true, "auditing": true, "monitoring": true,
	"resourceRole": true, "performer": true, "humanPerformer": true, "potentialOwner": true,
	"correlationSubscription": true, "supports": true, "incoming": true, "outgoing": true,
	"dataInputAssociation": true, "dataOutputAssociation": true,
	"multiInstanceLoopCharacteristics": true, "standardLoopCharacteristics": true,
}

// parseScope reads the flow elements of a process or subprocess.
func (p *parser) parseScope(st *procState, container *etree.Element, owner *Activity) ([]*Activity, []*SequenceFlow) {
	sc := &scopeState{owner: owner, local: map[string]*Activity{}}
	st.scopes = append(st.scopes, sc)
	var acts []*Activity
	var flows []*SequenceFlow
	for _, c := range bpmnChildren(container) {
		switch {
		case c.Tag == "sequenceFlow":
			if f := p.parseFlow(sc, c); f != nil {
				flows = append(flows, f)
			}
		case flowNodes[Kind(c.Tag)] || c.Tag == "transaction":
			if a := p.parseActivity(st, sc, c, owner); a != nil {
				acts = append(acts, a)
			} else if c.Tag == string(StartEvent) {
				st.rejectedStart[owner] = true
			}
		case c.Tag == "association":
			if src, tgt := attrValue(c, "sourceRef"), attrValue(c, "targetRef"); src != "" {
				if sc.associations == nil {
					sc.associations = map[string]string{}
				}
				sc.associations[src] = tgt
			}
		case decoration[c.Tag]:
		default:
			s := p.siteOf(c)
			if s.id != "" {
				p.claim(s)
			}
			p.unsupported(st, s, c.Tag, unsupportedHints[c.Tag])
		}
	}
	return acts, flows
}

func (p *parser) parseFlow(sc *scopeState, e *etree.Element) *SequenceFlow {
	s := p.siteOf(e)
	if s.id != "" && !p.claim(s) {
		return nil
	}
	f := &SequenceFlow{ID: s.id, Name: attrValue(e, "name"), Pos: s.pos}
	if c := bpmnChild(e, "conditionExpression"); c != nil {
		f.Condition = text(c)
		if sc, isScript := p.conditionScript(p.at(s, c), "condition", c); isScript {
			f.ConditionScript = sc
			if f.Condition == "" && sc != nil {
				f.Condition = sc.Resource
			}
		} else if f.Condition != "" {
			p.checkExpr(s, "condition", f.Condition)
		}
	}
	f.Listeners = p.listeners(s, p.extensions(s, e, "executionListener"), true)
	sc.flows = append(sc.flows, pendingFlow{f, attrValue(e, "sourceRef"), attrValue(e, "targetRef")})
	return f
}

// potentialStarters adds the camunda:potentialStarter elements of a
// process to its candidate starters, as Camunda reads them: a
// formalExpression of comma-separated user(id), group(id) or plain
// (group) ids.
func potentialStarters(proc *Process, ext []*etree.Element) {
	var groups, users []string
	found := false
	for _, c := range ext {
		if c.Tag != "potentialStarter" {
			continue
		}
		found = true
		rae := bpmnChild(c, "resourceAssignmentExpression")
		if rae == nil {
			continue
		}
		fe := bpmnChild(rae, "formalExpression")
		if fe == nil {
			continue
		}
		for _, item := range strings.Split(fe.Text(), ",") {
			item = strings.TrimSpace(item)
			switch {
			case item == "":
			case strings.HasPrefix(item, "user(") && strings.HasSuffix(item, ")"):
				users = append(users, strings.TrimSpace(item[len("user("):len(item)-1]))
			case strings.HasPrefix(item, "group(") && strings.HasSuffix(item, ")"):
				groups = append(groups, strings.TrimSpace(item[len("group("):len(item)-1]))
			default:
				groups = append(groups, item)
			}
		}
	}
	if !found {
		return
	}
	proc.CandidateStarterGroups = joinCSV(proc.CandidateStarterGroups, groups)
	proc.CandidateStarterUsers = joinCSV(proc.CandidateStarterUsers, users)
}

// joinCSV appends ids to a comma-separated list as written.
func joinCSV(written string, ids []string) string {
	if written != "" {
		ids = append([]string{written}, ids...)
	}
	return strings.Join(ids, ",")
}
