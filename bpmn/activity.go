package bpmn

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/beevik/etree"

	"github.com/bpmnlite/bpmnlite/bpmn/timer"
)

// isActivity reports whether k is an activity in the BPMN sense (a task, a
// subprocess or a call activity): what boundary events, multi-instance and
// default flows apply to.
func isActivity(k Kind) bool {
	switch k {
	case Task, ServiceTask, BusinessRuleTask, SendTask, UserTask, ReceiveTask, ManualTask, SubProcess, CallActivity,
		ScriptTask:
		return true
	}
	return false
}

// eventDefinitions lists, per event kind, the event definitions bpmnlite
// executes ("" is an event without definition), with a hint for the others.
var eventDefinitions = map[Kind]struct {
	allowed map[string]EventType
	hint    string
}{
	StartEvent: {map[string]EventType{"": NoEvent, "timerEventDefinition": TimerEvent, "messageEventDefinition": MessageEvent,
		"signalEventDefinition": SignalEvent, "errorEventDefinition": ErrorEvent, "escalationEventDefinition": EscalationEvent,
		"conditionalEventDefinition": ConditionalEvent, "compensateEventDefinition": CompensationEvent},
		"start events can be none, timer, message, signal or conditional start events (error, escalation and compensation ones in event subprocesses)"},
	EndEvent: {map[string]EventType{"": NoEvent, "terminateEventDefinition": TerminateEvent, "errorEventDefinition": ErrorEvent,
		"messageEventDefinition": MessageEvent, "escalationEventDefinition": EscalationEvent, "signalEventDefinition": SignalEvent,
		"compensateEventDefinition": CompensationEvent, "cancelEventDefinition": CancelEvent},
		"end events can be none, terminate, error, message, escalation, signal, compensation or cancel end events"},
	IntermediateCatchEvent: {map[string]EventType{"timerEventDefinition": TimerEvent, "messageEventDefinition": MessageEvent, "signalEventDefinition": SignalEvent,
		"conditionalEventDefinition": ConditionalEvent,
		"linkEventDefinition":        LinkEvent},
		"intermediate catch events can be timer, message, signal, conditional or link events"},
	IntermediateThrowEvent: {map[string]EventType{"": NoEvent, "signalEventDefinition": SignalEvent, "messageEventDefinition": MessageEvent,
		"linkEventDefinition": LinkEvent, "escalationEventDefinition": EscalationEvent, "compensateEventDefinition": CompensationEvent},
		"intermediate throw events can be none, signal, message, link, escalation or compensation events"},
	BoundaryEvent: {map[string]EventType{"timerEventDefinition": TimerEvent, "messageEventDefinition": MessageEvent, "errorEventDefinition": ErrorEvent,
		"escalationEventDefinition": EscalationEvent, "signalEventDefinition": SignalEvent, "conditionalEventDefinition": ConditionalEvent,
		"compensateEventDefinition": CompensationEvent, "cancelEventDefinition": CancelEvent},
		"boundary events can be timer, message, signal, conditional, error, escalation, compensation or cancel events"},
}

// parseActivity reads one flow node; it returns nil when the node is
// rejected, after reporting why.
func (p *parser) parseActivity(st *procState, sc *scopeState, e *etree.Element, owner *Activity) *Activity {
	s := p.siteOf(e)
	kind := Kind(e.Tag)
	transaction := e.Tag == "transaction" // a subprocess with cancel semantics
	if transaction {
		kind = SubProcess
	}
	if s.id == "" {
		p.errorf(s, "%s has no id", kind)
		return nil
	}
	if !p.claim(s) {
		return nil
	}
	if c := bpmnChild(e, "standardLoopCharacteristics"); c != nil {
		p.unsupported(st, p.at(s, c), "standardLoopCharacteristics", "use multiInstanceLoopCharacteristics")
		return nil
	}
	a := &Activity{
		ID:             s.id,
		Name:           attrValue(e, "name"),
		Kind:           kind,
		Pos:            s.pos,
		Process:        st.proc,
		Parent:         owner,
		Exclusive:      true,
		CancelActivity: true,
		Transaction:    transaction,
	}
	a.TriggeredByEvent = kind == SubProcess && p.flag(s, e, "triggeredByEvent", false, false)
	if _, isEvent := eventDefinitions[kind]; isEvent && !p.parseEvent(st, s, e, a) {
		return nil
	}
	sc.local[a.ID] = a
	st.proc.activities[a.ID] = a
	if kind == EndEvent && a.Event == CancelEvent && (owner == nil || !owner.Transaction) {
		p.errorf(s, "end event with cancelEventDefinition only supported inside transaction subprocess")
	}
	if kind == StartEvent && a.Event == CompensationEvent {
		p.compensationStart(st, s, a, owner)
	}
	if kind == StartEvent && owner == nil {
		// Camunda reads it on the process's start events only.
		if v := strings.TrimSpace(camundaValue(e, "initiator")); v != "" {
			st.proc.Initiator = v
		}
	}

	a.AsyncBefore = p.flag(s, e, "asyncBefore", true, false) || p.flag(s, e, "async", true, false)
	a.AsyncAfter = p.flag(s, e, "asyncAfter", true, false)
	a.Exclusive = p.flag(s, e, "exclusive", true, true)
	a.IsForCompensation = p.flag(s, e, "isForCompensation", false, false)
	a.JobPriority = p.priority(s, e, "jobPriority")
	a.TaskPriority = p.priority(s, e, "taskPriority")
	allowed := []string{"executionListener", "failedJobRetryTimeCycle", "properties", "field", "inputOutput"}
	switch kind {
	case CallActivity:
		allowed = append(allowed, "in", "out")
	case UserTask:
		allowed = append(allowed, "taskListener")
	case ServiceTask, SendTask:
		allowed = append(allowed, "errorEventDefinition")
	}
	ext := p.extensions(s, e, allowed...)
	a.Listeners = p.listeners(s, ext, false)
	a.RetryTimeCycle = p.retryCycle(s, ext)
	a.Fields = p.fields(s, ext)
	a.Properties = properties(ext)
	a.IO = p.inputOutput(s, ext)

	switch kind {
	case ServiceTask, SendTask:
		p.parseImplementation(s, e, a)
		p.externalErrors(s, ext, a)
	case ScriptTask:
		p.scriptTask(s, e, a)
	case BusinessRuleTask:
		if _, ok := camundaAttr(e, "decisionRef"); ok {
			a.Decision = p.decisionRef(s, e, a)
		} else {
			p.parseImplementation(s, e, a)
		}
	case UserTask:
		u := &UserTaskInfo{Assignee: camundaValue(e, "assignee"), CandidateGroups: camundaValue(e, "candidateGroups"),
			CandidateUsers: camundaValue(e, "candidateUsers")}
		p.checkMaybeExpr(s, "camunda:assignee", u.Assignee)
		p.checkMaybeExpr(s, "camunda:candidateGroups", u.CandidateGroups)
		p.checkMaybeExpr(s, "camunda:candidateUsers", u.CandidateUsers)
		u.DueDate = p.taskDate(s, e, "dueDate")
		u.FollowUpDate = p.taskDate(s, e, "followUpDate")
		u.Priority = p.priority(s, e, "priority")
		a.Form = p.form(s, e)
		u.TaskListeners = p.taskListeners(s, ext)
		a.User = u
	case StartEvent:
		a.Form = p.form(s, e)
	case ReceiveTask:
		if ref := attrValue(e, "messageRef"); ref != "" {
			a.MessageName = p.messageName(s, ref)
		}
	case CallActivity:
		call := &CallInfo{CalledElement: strings.TrimSpace(attrValue(e, "calledElement"))}
		// A case call (camunda:caseRef) is refused as CMMN, not for this.
		if call.CalledElement == "" && camundaValue(e, "caseRef") == "" {
			p.errorf(s, "callActivity has no calledElement")
		}
		p.checkMaybeExpr(s, "calledElement", call.CalledElement)
		p.calledBinding(s, e, call)
		call.In, call.Out = p.mappings(s, ext)
		call.VariableMappingClass = strings.TrimSpace(camundaValue(e, "variableMappingClass"))
		call.VariableMappingDelegateExpression = strings.TrimSpace(camundaValue(e, "variableMappingDelegateExpression"))
		if call.VariableMappingClass != "" && call.VariableMappingDelegateExpression != "" {
			p.errorf(s, "only one of camunda:variableMappingClass and camunda:variableMappingDelegateExpression may be set")
		} else if call.VariableMappingDelegateExpression != "" {
			p.checkExpr(s, "camunda:variableMappingDelegateExpression", call.VariableMappingDelegateExpression)
		}
		a.Call = call
	case SubProcess:
		a.Activities, a.Flows = p.parseScope(st, e, a)
	case BoundaryEvent:
		sc.boundaries = append(sc.boundaries, pendingRef{a, attrValue(e, "attachedToRef")})
	}

	if c := bpmnChild(e, "multiInstanceLoopCharacteristics"); c != nil {
		if isActivity(kind) {
			a.MultiInstance = p.parseMultiInstance(s, c)
		} else {
			p.errorf(p.at(s, c), "multiInstanceLoopCharacteristics are only allowed on tasks, subprocesses and call activities")
		}
	}
	p.checkInputOutput(s, a)
	if ref, ok := attr(e, "default"); ok && ref != "" {
		sc.defaults = append(sc.defaults, pendingRef{a, ref})
	}
	return a
}

// parseEvent reads the event definition of an event. It returns false when
// the event is rejected.
func (p *parser) parseEvent(st *procState, s site, e *etree.Element, a *Activity) bool {
	var defs []*etree.Element
	for _, c := range bpmnChildren(e) {
		if strings.HasSuffix(c.Tag, "EventDefinition") || c.Tag == "eventDefinitionRef" {
			defs = append(defs, c)
		}
	}
	spec := eventDefinitions[a.Kind]
	if len(defs) > 1 {
		names := make([]string, len(defs))
		for i, d := range defs {
			names[i] = d.Tag
		}
		p.unsupported(st, s, e.Tag+"/"+strings.Join(names, "+"), "events with several event definitions are not supported")
		return false
	}
	name := ""
	if len(defs) == 1 {
		name = defs[0].Tag
	}
	typ, ok := spec.allowed[name]
	switch {
	case !ok && name == "":
		p.errorf(s, "%s needs an event definition: %s", e.Tag, spec.hint)
		st.invalid[s.id] = true
		return false
	case !ok:
		p.unsupported(st, s, e.Tag+"/"+name, spec.hint)
		return false
	}
	a.Event = typ
	if typ == NoEvent {
		return true
	}
	def := defs[0]
	ds := p.at(s, def)
	switch typ {
	case TimerEvent:
		a.Timer = p.parseTimer(ds, def)
	case MessageEvent:
		throwing := a.Kind == IntermediateThrowEvent || a.Kind == EndEvent
		if ref := attrValue(def, "messageRef"); ref != "" && throwing && lookupRef(p.defs.Messages, ref) == nil {
			// Camunda does not resolve a throw event's message: it is
			// documentation for the delegate that sends it.
			p.warnf(ds, "messageRef '%s' names no message of this file", ref)
		} else if ref != "" {
			a.MessageName = p.messageName(ds, ref)
		} else if a.Kind != IntermediateThrowEvent && a.Kind != EndEvent {
			p.errorf(ds, "messageEventDefinition has no messageRef")
		}
		if (a.Kind == IntermediateThrowEvent || a.Kind == EndEvent) && hasImplementation(def) {
			// As in Camunda, a message throw or end event sends its message
			// by a delegate or an external task, written on its definition.
			p.parseImplementation(ds, def, a)
		}
	case SignalEvent:
		if ref := attrValue(def, "signalRef"); ref != "" {
			a.SignalName = p.signalName(ds, ref)
		} else {
			p.errorf(ds, "signalEventDefinition has no signalRef")
		}
	case ErrorEvent:
		a.ErrorCode, a.ErrorMessage = p.errorRef(ds, def, a.Kind == EndEvent)
		if a.Kind == EndEvent {
			p.checkMaybeExpr(ds, "errorCode", a.ErrorCode)
			p.checkMaybeExpr(ds, "camunda:errorMessage", a.ErrorMessage)
		}
		if a.Kind == BoundaryEvent || a.Kind == StartEvent {
			a.ErrorCodeVariable = strings.TrimSpace(camundaValue(def, "errorCodeVariable"))
			a.ErrorMessageVariable = strings.TrimSpace(camundaValue(def, "errorMessageVariable"))
		}
	case CompensationEvent:
		a.CompensateActivity = strings.TrimSpace(attrValue(def, "activityRef"))
	case ConditionalEvent:
		p.conditionalEvent(ds, def, a)
		st.proc.HasConditionalEvents = true
	case LinkEvent:
		if a.LinkName = strings.TrimSpace(attrValue(def, "name")); a.LinkName == "" {
			p.errorf(ds, "linkEventDefinition has no name")
		}
	case EscalationEvent:
		if ref := attrValue(def, "escalationRef"); ref != "" {
			if esc := lookupRef(p.defs.Escalations, ref); esc != nil {
				a.EscalationCode = esc.Code
			} else {
				p.unresolved(ds, "escalationRef", "escalation", ref)
			}
		}
		if a.Kind != BoundaryEvent && a.Kind != StartEvent && a.EscalationCode == "" {
			p.errorf(ds, "a throwing escalation event needs an escalationRef to an escalation with an escalationCode")
		}
		if a.Kind == BoundaryEvent || a.Kind == StartEvent {
			a.EscalationCodeVariable = strings.TrimSpace(camundaValue(def, "escalationCodeVariable"))
		}
	}
	if a.Kind == BoundaryEvent {
		a.CancelActivity = p.flag(s, e, "cancelActivity", false, true)
		if typ == ErrorEvent && !a.CancelActivity {
			p.warnf(s, "error boundary events always interrupt: cancelActivity=\"false\" is ignored")
			a.CancelActivity = true
		}
	}
	if a.IsEventSubprocessStart() {
		a.CancelActivity = p.flag(s, e, "isInterrupting", false, true)
	}
	return true
}

// lookupRef finds a root element by reference. References are QNames:
// some exporters write them with a prefix ("tns:Message_1").
func lookupRef[T any](m map[string]*T, ref string) *T {
	if v, ok := m[ref]; ok {
		return v
	}
	if i := strings.LastIndexByte(ref, ':'); i >= 0 {
		return m[ref[i+1:]]
	}
	return nil
}

// messageName resolves a messageRef to the message's name (else its id).
func (p *parser) messageName(s site, ref string) string {
	m := lookupRef(p.defs.Messages, ref)
	if m == nil {
		return p.unresolved(s, "messageRef", "message", ref)
	}
	return cmp.Or(m.Name, m.ID)
}

// signalName resolves a signalRef to the signal's name (else its id).
func (p *parser) signalName(s site, ref string) string {
	sig := lookupRef(p.defs.Signals, ref)
	if sig == nil {
		return p.unresolved(s, "signalRef", "signal", ref)
	}
	return cmp.Or(sig.Name, sig.ID)
}

// unresolved reports a reference attr that names no root element of its
// kind, and resolves it to nothing.
func (p *parser) unresolved(s site, attr, kind, ref string) string {
	p.errorf(s, "%s '%s' names no %s of this file", attr, ref, kind)
	return ""
}

// errorRef resolves an errorRef as Camunda does: the error's errorCode (and
// camunda:errorMessage), or the reference itself when it names no error. A
// catching event without errorRef (or whose error has no code) catches
// every error.
func (p *parser) errorRef(s site, def *etree.Element, throwing bool) (code, message string) {
	ref := attrValue(def, "errorRef")
	if ref == "" {
		if throwing {
			p.errorf(s, "'errorRef' attribute is mandatory on error end event")
		}
		return "", ""
	}
	e := lookupRef(p.defs.Errors, ref)
	if e == nil {
		return ref, ""
	}
	if e.Code == "" && throwing {
		p.errorf(s, "'errorCode' is mandatory on errors referenced by throwing error event definitions, but the error '%s' does not define one.", e.ID)
	}
	return e.Code, e.Message
}

func (p *parser) parseTimer(s site, def *etree.Element) *TimerDefinition {
	var found []*etree.Element
	for _, c := range bpmnChildren(def) {
		switch c.Tag {
		case "timeDate", "timeDuration", "timeCycle":
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		p.errorf(s, "timerEventDefinition needs one of timeDate, timeDuration or timeCycle")
		return nil
	case 1:
	default:
		p.errorf(s, "timerEventDefinition has more than one of timeDate, timeDuration and timeCycle")
		return nil
	}
	c := found[0]
	td := &TimerDefinition{Value: text(c)}
	switch c.Tag {
	case "timeDate":
		td.Type = TimeDate
	case "timeDuration":
		td.Type = TimeDuration
	case "timeCycle":
		td.Type = TimeCycle
	}
	if td.Value == "" {
		p.errorf(s, "%s is empty", c.Tag)
		return td
	}
	if isExpression(td.Value) {
		p.checkExpr(s, c.Tag, td.Value)
		return td
	}
	var err error
	switch td.Type {
	case TimeDate:
		// As the runtime reads it: a date, or a duration from now.
		_, err = timer.ParseDueDate(td.Value, time.Time{}, time.UTC)
	case TimeDuration:
		_, err = timer.ParseDuration(td.Value)
	case TimeCycle:
		_, err = timer.ParseCycle(td.Value)
	}
	if err != nil {
		p.errorf(s, "invalid %s '%s': %v", c.Tag, td.Value, err)
	}
	return td
}

// silentExtensions are Camunda extension elements without effect on
// execution (form metadata, free properties): ignored without a warning.
var silentExtensions = map[string]bool{"properties": true, "formData": true, "formProperty": true}

// extensions returns the Camunda (and legacy fox) elements inside e's
// extensionElements whose names are allowed. Other Camunda elements would
// change behaviour bpmnlite does not have: each is a deployment error.
// Everything else there (other vendors' elements, even BPMN-namespace ones
// that some exporters put there) is ignored.
func (p *parser) extensions(s site, e *etree.Element, allowed ...string) []*etree.Element {
	var out []*etree.Element
	for _, ee := range e.ChildElements() {
		if !isBPMN(ee, "extensionElements") {
			continue
		}
		for _, c := range ee.ChildElements() {
			ns := c.NamespaceURI()
			known := slices.Contains(allowed, c.Tag)
			switch {
			case isCamundaNS(ns) && known, ns == nsFox && known && c.Tag == "failedJobRetryTimeCycle":
				out = append(out, c)
			case isCamundaNS(ns) && !silentExtensions[c.Tag]:
				p.unsupportedExtension(s, c)
			}
		}
	}
	return out
}

// properties reads the camunda:property elements of camunda:properties.
func properties(ext []*etree.Element) []Property {
	var out []Property
	for _, c := range ext {
		if c.Tag != "properties" {
			continue
		}
		for _, pe := range c.ChildElements() {
			if pe.Tag == "property" && isCamundaNS(pe.NamespaceURI()) {
				out = append(out, Property{Name: attrValue(pe, "name"), Value: attrValue(pe, "value")})
			}
		}
	}
	return out
}

// fields reads the camunda:field elements among els: a name and one value,
// a string (stringValue, <camunda:string>) or an expression (expression,
// <camunda:expression>).
func (p *parser) fields(s site, els []*etree.Element) []Field {
	var out []Field
	for _, c := range els {
		if c.Tag != "field" || !isCamundaNS(c.NamespaceURI()) {
			continue
		}
		fs := p.at(s, c)
		f := Field{Name: strings.TrimSpace(attrValue(c, "name"))}
		var values []string
		if v, ok := attr(c, "stringValue"); ok {
			values = append(values, v)
		}
		if v, ok := attr(c, "expression"); ok {
			values = append(values, strings.TrimSpace(v))
			f.Expression = true
		}
		for _, sub := range c.ChildElements() {
			switch {
			case !isCamundaNS(sub.NamespaceURI()):
			case sub.Tag == "string":
				values = append(values, sub.Text())
			case sub.Tag == "expression":
				values = append(values, strings.TrimSpace(sub.Text()))
				f.Expression = true
			}
		}
		switch {
		case f.Name == "":
			p.errorf(fs, "camunda:field has no name")
			continue
		case len(values) != 1:
			p.errorf(fs, "camunda:field '%s' needs exactly one value: stringValue, expression, <camunda:string> or <camunda:expression>", f.Name)
			continue
		}
		f.Value = values[0]
		if f.Expression {
			p.checkExpr(fs, "camunda:field '"+f.Name+"'", f.Value)
		}
		out = append(out, f)
	}
	return out
}

// listeners reads camunda:executionListener elements. On a sequence flow
// every listener is a take listener.
func (p *parser) listeners(s site, ext []*etree.Element, onFlow bool) []Listener {
	var out []Listener
	for _, c := range ext {
		if c.Tag != "executionListener" {
			continue
		}
		l := p.listener(s, c)
		if onFlow {
			l.Event = "take"
		} else if l.Event != "start" && l.Event != "end" {
			p.errorf(p.at(s, c), "executionListener event must be 'start' or 'end', not '%s'", l.Event)
		}
		out = append(out, l)
	}
	return out
}

// taskListeners reads the camunda:taskListener elements of a user task.
func (p *parser) taskListeners(s site, ext []*etree.Element) []Listener {
	var out []Listener
	for _, c := range ext {
		if c.Tag != "taskListener" {
			continue
		}
		l := p.listener(s, c)
		switch l.Event {
		case "create", "assignment", "update", "complete", "delete":
			out = append(out, l)
		case "timeout":
			if p.timeoutListener(s, c, &l, out) {
				out = append(out, l)
			}
		default:
			p.errorf(p.at(s, c), "taskListener event must be create, assignment, update, complete, delete or timeout, not '%s'", l.Event)
		}
	}
	return out
}

// timeoutListener reads the id and timer of timeout task listener l (c),
// as Camunda requires them; ids are unique on a task (they name its jobs).
func (p *parser) timeoutListener(s site, c *etree.Element, l *Listener, others []Listener) bool {
	ls := p.at(s, c)
	l.ID = strings.TrimSpace(attrValue(c, "id"))
	def := bpmnChild(c, "timerEventDefinition")
	switch {
	case l.ID == "":
		p.errorf(ls, "Element 'id' is mandatory on taskListener of type 'timeout'")
		return false
	case def == nil:
		p.errorf(ls, "Element 'timerEventDefinition' is mandatory on taskListener of type 'timeout'")
		return false
	case slices.ContainsFunc(others, func(o Listener) bool { return o.ID == l.ID && o.Timer != nil }):
		p.errorf(ls, "two timeout task listeners have the id '%s'", l.ID)
		return false
	}
	l.Timer = p.parseTimer(p.at(s, def), def)
	return l.Timer != nil
}

// listener reads an execution or task listener's event, implementation
// and fields.
func (p *parser) listener(s site, c *etree.Element) Listener {
	ls := p.at(s, c)
	l := Listener{
		Event:              strings.TrimSpace(attrValue(c, "event")),
		Class:              strings.TrimSpace(attrValue(c, "class")),
		Expression:         strings.TrimSpace(attrValue(c, "expression")),
		DelegateExpression: strings.TrimSpace(attrValue(c, "delegateExpression")),
		Fields:             p.fields(s, c.ChildElements()),
	}
	scripts := 0
	for _, sc := range c.ChildElements() {
		if sc.Tag == "script" && isCamundaNS(sc.NamespaceURI()) {
			scripts++
			l.Script = p.camundaScript(s, c.Tag+" '"+l.Event+"'", sc)
		}
	}
	switch n := countSet(l.Class, l.Expression, l.DelegateExpression) + scripts; {
	case n == 0:
		p.errorf(ls, "Element 'class', 'expression', 'delegateExpression' or 'script' is mandatory on %s", c.Tag)
	case n > 1:
		p.errorf(ls, "%s may have only one of 'class', 'expression', 'delegateExpression' and 'script'", c.Tag)
	}
	if l.Expression != "" {
		p.checkExpr(ls, c.Tag+" expression", l.Expression)
	}
	if l.DelegateExpression != "" {
		p.checkExpr(ls, c.Tag+" delegateExpression", l.DelegateExpression)
	}
	return l
}

func countSet(vals ...string) int {
	n := 0
	for _, v := range vals {
		if v != "" {
			n++
		}
	}
	return n
}

// retryCycle reads camunda:failedJobRetryTimeCycle (or fox:). A malformed
// constant is not fatal: Camunda deploys it and jobs get the default retries.
func (p *parser) retryCycle(s site, ext []*etree.Element) string {
	for _, c := range ext {
		if c.Tag != "failedJobRetryTimeCycle" {
			continue
		}
		rs := p.at(s, c)
		v := text(c)
		switch {
		case v == "":
			p.warnf(rs, "failedJobRetryTimeCycle is empty; jobs get the default retries")
		case isExpression(v):
			p.checkExpr(rs, "failedJobRetryTimeCycle", v)
		default:
			if _, err := timer.ParseRetryCycle(v); err != nil {
				p.warnf(rs, "failedJobRetryTimeCycle '%s' is malformed (%v); jobs get the default retries", v, err)
			}
		}
		return v
	}
	return ""
}

// hasImplementation reports whether e names an implementation.
func hasImplementation(e *etree.Element) bool {
	for _, name := range []string{"class", "delegateExpression", "expression", "type"} {
		if camundaValue(e, name) != "" {
			return true
		}
	}
	return false
}

// parseImplementation reads what a service or send task runs.
func (p *parser) parseImplementation(s site, e *etree.Element, a *Activity) {
	a.Class = strings.TrimSpace(camundaValue(e, "class"))
	a.DelegateExpression = strings.TrimSpace(camundaValue(e, "delegateExpression"))
	a.Expression = strings.TrimSpace(camundaValue(e, "expression"))
	a.ResultVariable = strings.TrimSpace(camundaValue(e, "resultVariable"))
	a.Topic = strings.TrimSpace(camundaValue(e, "topic"))
	typ := strings.TrimSpace(camundaValue(e, "type"))
	a.External = typ == "external"
	switch n := countSet(a.Class, a.DelegateExpression, a.Expression, typ); {
	case typ != "" && !a.External:
		p.errorf(s, "camunda:type '%s' is not supported (only 'external')", typ)
	case n == 0:
		p.errorf(s, "One of the attributes 'class', 'delegateExpression', 'type', or 'expression' is mandatory on %s.", a.Kind)
	case n > 1:
		p.errorf(s, "only one of the attributes 'class', 'delegateExpression', 'type' and 'expression' may be set")
	}
	if a.External && a.Topic == "" {
		p.errorf(s, "External tasks must specify a 'topic' attribute in the camunda namespace")
	}
	p.checkMaybeExpr(s, "camunda:topic", a.Topic)
	if a.Expression != "" {
		p.checkExpr(s, "camunda:expression", a.Expression)
	}
	if a.DelegateExpression != "" {
		p.checkExpr(s, "camunda:delegateExpression", a.DelegateExpression)
	}
	if a.ResultVariable != "" && a.Expression == "" {
		p.errorf(s, "camunda:resultVariable is only supported together with camunda:expression")
	}
}

// externalErrors reads the camunda:errorEventDefinition elements of an
// external task; on other tasks they mean nothing in Camunda.
func (p *parser) externalErrors(s site, ext []*etree.Element, a *Activity) {
	for _, c := range ext {
		if c.Tag != "errorEventDefinition" {
			continue
		}
		cs := p.at(s, c)
		if !a.External {
			p.unsupportedExtension(s, c)
			continue
		}
		if attrValue(c, "errorRef") == "" {
			p.errorf(cs, "camunda:errorEventDefinition needs an errorRef")
			continue
		}
		for _, v := range []string{"errorCodeVariable", "errorMessageVariable"} {
			if _, set := camundaAttr(c, v); set {
				p.errorf(cs, "camunda:%s on camunda:errorEventDefinition is not supported: set it on the error boundary event that catches the error", v)
			}
		}
		code, _ := p.errorRef(cs, c, true)
		ee := ExternalError{ErrorCode: code, Expression: strings.TrimSpace(attrValue(c, "expression"))}
		if ee.Expression != "" {
			p.checkExpr(cs, "camunda:errorEventDefinition expression", ee.Expression)
		}
		a.ExternalErrors = append(a.ExternalErrors, ee)
	}
}

// mappings reads the camunda:in and camunda:out of a call activity.
func (p *parser) mappings(s site, ext []*etree.Element) (in, out []VariableMapping) {
	for _, c := range ext {
		if c.Tag != "in" && c.Tag != "out" {
			continue
		}
		ms := p.at(s, c)
		m := VariableMapping{
			Source:           strings.TrimSpace(attrValue(c, "source")),
			SourceExpression: strings.TrimSpace(attrValue(c, "sourceExpression")),
			Target:           strings.TrimSpace(attrValue(c, "target")),
			All:              strings.TrimSpace(attrValue(c, "variables")) == "all",
			Local:            p.flag(ms, c, "local", false, false),
		}
		bk, hasBK := attr(c, "businessKey")
		switch {
		case hasBK && c.Tag == "out":
			p.errorf(ms, "camunda:out cannot carry a businessKey")
		case hasBK:
			m.BusinessKey = strings.TrimSpace(bk)
			if m.BusinessKey == "" {
				p.errorf(ms, "camunda:in businessKey is empty")
			}
			p.checkExpr(ms, "businessKey", m.BusinessKey)
		case m.All:
		case m.Source == "" && m.SourceExpression == "":
			p.errorf(ms, "Missing parameter 'source' or 'sourceExpression' when passing variables")
		case m.Source != "" && m.SourceExpression != "":
			p.errorf(ms, "camunda:%s may have only one of 'source' and 'sourceExpression'", c.Tag)
		case m.Target == "":
			p.errorf(ms, "Missing attribute 'target' when attribute 'source' or 'sourceExpression' is set")
		}
		if m.SourceExpression != "" {
			p.checkExpr(ms, "sourceExpression", m.SourceExpression)
		}
		if c.Tag == "in" {
			in = append(in, m)
		} else {
			out = append(out, m)
		}
	}
	return in, out
}

func (p *parser) parseMultiInstance(owner site, e *etree.Element) *MultiInstance {
	s := site{p.pos[e], owner.id, "multiInstanceLoopCharacteristics"}
	mi := &MultiInstance{
		Sequential:      p.flag(s, e, "isSequential", false, false),
		Collection:      strings.TrimSpace(camundaValue(e, "collection")),
		ElementVariable: strings.TrimSpace(camundaValue(e, "elementVariable")),
		AsyncBefore:     p.flag(s, e, "asyncBefore", true, false) || p.flag(s, e, "async", true, false),
		AsyncAfter:      p.flag(s, e, "asyncAfter", true, false),
		Exclusive:       p.flag(s, e, "exclusive", true, true),
	}
	// The standard BPMN spellings, which Camunda also reads.
	if c := bpmnChild(e, "loopDataInputRef"); c != nil && mi.Collection == "" {
		mi.Collection = text(c)
	}
	if c := bpmnChild(e, "inputDataItem"); c != nil && mi.ElementVariable == "" {
		mi.ElementVariable = strings.TrimSpace(attrValue(c, "name"))
	}
	if c := bpmnChild(e, "loopCardinality"); c != nil {
		mi.LoopCardinality = text(c)
		if isExpression(mi.LoopCardinality) {
			p.checkExpr(s, "loopCardinality", mi.LoopCardinality)
		} else if n, err := strconv.Atoi(mi.LoopCardinality); mi.LoopCardinality != "" && (err != nil || n < 0) {
			p.errorf(s, "loopCardinality '%s' is neither a non-negative integer nor an expression", mi.LoopCardinality)
		}
	}
	p.checkMaybeExpr(s, "camunda:collection", mi.Collection)
	if mi.LoopCardinality == "" && mi.Collection == "" {
		p.errorf(s, "multiInstanceLoopCharacteristics needs a loopCardinality or a camunda:collection")
	}
	if c := bpmnChild(e, "completionCondition"); c != nil {
		mi.CompletionCondition = text(c)
		if mi.CompletionCondition != "" {
			p.checkExpr(s, "completionCondition", mi.CompletionCondition)
		}
	}
	mi.RetryTimeCycle = p.retryCycle(s, p.extensions(s, e, "failedJobRetryTimeCycle"))
	return mi
}

// calledBinding reads which version of the called process a call activity
// starts (camunda:calledElementBinding and its version or version tag).
func (p *parser) calledBinding(s site, e *etree.Element, a *CallInfo) {
	a.CalledBinding, a.CalledVersion, a.CalledVersionTag = p.binding(s, e, "calledElement")
}

// binding reads a camunda:<ref>Binding with its <ref>Version or
// <ref>VersionTag: which version of a called process or decision is used.
func (p *parser) binding(s site, e *etree.Element, ref string) (binding, version, tag string) {
	binding = strings.TrimSpace(camundaValue(e, ref+"Binding"))
	version = strings.TrimSpace(camundaValue(e, ref+"Version"))
	tag = strings.TrimSpace(camundaValue(e, ref+"VersionTag"))
	switch binding {
	case "":
		binding = "latest"
	case "latest", "deployment":
	case "version":
		if version == "" {
			p.errorf(s, "camunda:%sBinding 'version' needs camunda:%sVersion", ref, ref)
			return
		}
		if !isExpression(version) {
			if n, err := strconv.Atoi(version); err != nil || n < 1 {
				p.errorf(s, "camunda:%sVersion '%s' is not a version number (1, 2, ...) or an expression", ref, version)
			}
		}
		p.checkMaybeExpr(s, ref+"Version", version)
	case "versionTag":
		if tag == "" {
			p.errorf(s, "camunda:%sBinding 'versionTag' needs camunda:%sVersionTag", ref, ref)
			return
		}
		p.checkMaybeExpr(s, ref+"VersionTag", tag)
	default:
		p.errorf(s, "camunda:%sBinding '%s': want latest, deployment, version or versionTag", ref, binding)
	}
	return binding, version, tag
}

// decisionRef reads a business rule task that evaluates a decision, as
// Camunda's BpmnParse does.
func (p *parser) decisionRef(s site, e *etree.Element, a *Activity) *DecisionRef {
	d := &DecisionRef{Key: strings.TrimSpace(camundaValue(e, "decisionRef")),
		TenantID: strings.TrimSpace(camundaValue(e, "decisionRefTenantId")), MapResult: strings.TrimSpace(camundaValue(e, "mapDecisionResult"))}
	if d.Key == "" {
		p.errorf(s, "camunda:decisionRef is empty")
	}
	p.checkMaybeExpr(s, "camunda:decisionRef", d.Key)
	p.checkMaybeExpr(s, "camunda:decisionRefTenantId", d.TenantID)
	d.Binding, d.Version, d.VersionTag = p.binding(s, e, "decisionRef")
	switch d.MapResult {
	case "":
		d.MapResult = "resultList"
	case "singleEntry", "singleResult", "collectEntries", "resultList":
	default:
		p.errorf(s, "No decision result mapper found for name '%s'. Supported mappers are 'singleEntry', 'singleResult', 'collectEntries' and 'resultList'.", d.MapResult)
	}
	for _, other := range []string{"class", "delegateExpression", "expression", "type"} {
		if _, ok := camundaAttr(e, other); ok {
			p.errorf(s, "camunda:decisionRef cannot be combined with camunda:%s", other)
		}
	}
	a.ResultVariable = strings.TrimSpace(camundaValue(e, "resultVariable"))
	return d
}

// conditionalEvent reads a conditionalEventDefinition: its condition and
// the variable changes that evaluate it.
func (p *parser) conditionalEvent(s site, def *etree.Element, a *Activity) {
	script := false // a script condition: parseScript reports its problems
	if c := bpmnChild(def, "condition"); c != nil {
		a.Condition = text(c)
		a.ConditionScript, script = p.conditionScript(p.at(s, c), "condition", c)
		if a.ConditionScript != nil && a.Condition == "" {
			a.Condition = a.ConditionScript.Resource
		}
	}
	switch {
	case script:
	case a.Condition == "":
		p.errorf(s, "conditionalEventDefinition has no condition")
	case !isExpression(a.Condition):
		p.errorf(s, "condition '%s' is not an expression: write ${...}", a.Condition)
	default:
		p.checkMaybeExpr(s, "condition", a.Condition)
	}
	a.ConditionVariable = strings.TrimSpace(camundaValue(def, "variableName"))
	for ev := range strings.SplitSeq(camundaValue(def, "variableEvents"), ",") {
		switch ev = strings.TrimSpace(ev); ev {
		case "":
		case "create", "update", "delete":
			a.ConditionVariableEvents = append(a.ConditionVariableEvents, ev)
		default:
			p.errorf(s, "camunda:variableEvents '%s': want create, update or delete", ev)
		}
	}
}
