package bpmn

import (
	"fmt"
	"slices"
)

// resolve connects sequence flows, boundary events and default flows once
// the whole process is read, and gives flows without id their generated id.
func (p *parser) resolve(st *procState) {
	for _, sc := range st.scopes {
		for _, pf := range sc.flows {
			f := pf.f
			s := f.site()
			f.Source = p.flowEnd(st, sc, s, "sourceRef", pf.src)
			f.Target = p.flowEnd(st, sc, s, "targetRef", pf.tgt)
			if f.ID == "" {
				f.ID = p.generateID(pf.src, pf.tgt)
				f.Generated = true
			}
			st.proc.flows[f.ID] = f
			if f.Source != nil {
				f.Source.Outgoing = append(f.Source.Outgoing, f)
			}
			if f.Target != nil {
				f.Target.Incoming = append(f.Target.Incoming, f)
			}
		}
		for _, b := range sc.boundaries {
			p.attach(st, sc, b.a, b.ref)
		}
		acts := st.proc.Activities
		if sc.owner != nil {
			acts = sc.owner.Activities
		}
		p.resolveLinks(acts)
		p.checkCompensation(st, sc, acts)
		if sc.owner != nil {
			sc.owner.eventStarts = eventSubprocessStarts(acts)
		} else {
			st.proc.eventStarts = eventSubprocessStarts(acts)
		}
	}
	for _, sc := range st.scopes {
		for _, d := range sc.defaults {
			a := d.a
			f := st.proc.flows[d.ref]
			switch {
			case f == nil:
				p.errorf(a.site(), "default flow '%s' names no sequence flow", d.ref)
			case f.Source != a:
				p.errorf(a.site(), "default flow '%s' is not an outgoing sequence flow of %s '%s'", d.ref, a.Kind, a.ID)
			case a.Kind == ExclusiveGateway || a.Kind == InclusiveGateway || isActivity(a.Kind):
				a.DefaultFlow = f
			default:
				p.warnf(a.site(), "a default flow has no meaning on a %s and is ignored", a.Kind)
			}
		}
	}
}

// flowEnd resolves the sourceRef or targetRef of a sequence flow within its scope.
func (p *parser) flowEnd(st *procState, sc *scopeState, s site, name, ref string) *Activity {
	if ref == "" {
		p.errorf(s, "sequence flow has no %s", name)
		return nil
	}
	if a := sc.local[ref]; a != nil {
		return a
	}
	switch {
	case st.invalid[ref]: // already reported
	case st.proc.activities[ref] != nil:
		p.errorf(s, "%s '%s' is in another scope: sequence flows cannot cross subprocess boundaries", name, ref)
	default:
		p.errorf(s, "%s '%s' names no flow node of %s", name, ref, scopeName(st, sc))
	}
	return nil
}

func scopeName(st *procState, sc *scopeState) string {
	if sc.owner != nil {
		return fmt.Sprintf("subProcess '%s'", sc.owner.ID)
	}
	return fmt.Sprintf("process '%s'", st.proc.ID)
}

// attach connects a boundary event to its activity, which must be in the
// same scope.
func (p *parser) attach(st *procState, sc *scopeState, b *Activity, ref string) {
	if ref == "" {
		p.errorf(b.site(), "boundary event has no attachedToRef")
		return
	}
	target := sc.local[ref]
	switch {
	case target == nil && st.invalid[ref]:
	case target == nil && st.proc.activities[ref] != nil:
		p.errorf(b.site(), "attachedToRef '%s' is in another scope: a boundary event must be defined in the scope of its activity", ref)
	case target == nil:
		p.errorf(b.site(), "attachedToRef '%s' names no activity of %s", ref, scopeName(st, sc))
	case !isActivity(target.Kind):
		p.errorf(b.site(), "a boundary event can only be attached to an activity, not to %s '%s'", target.Kind, ref)
	case b.Event == CompensationEvent:
		b.AttachedTo = target
		p.compensationHandler(st, sc, b, target)
	case b.Event == CancelEvent && !target.Transaction:
		p.errorf(b.site(), "boundary event with cancelEventDefinition only supported on transaction subprocesses")
	case b.Event == CancelEvent && slices.ContainsFunc(target.Boundaries, func(o *Activity) bool { return o.Event == CancelEvent }):
		p.errorf(b.site(), "multiple boundary events with cancelEventDefinition not supported on same transaction subprocess")
	case b.Event == CancelEvent && !b.CancelActivity:
		p.errorf(b.site(), "a cancel boundary event is always interrupting: remove cancelActivity=\"false\"")
	default:
		b.AttachedTo = target
		target.Boundaries = append(target.Boundaries, b)
	}
}

// generateID names a sequence flow that has no id, the same way every time
// the file is read.
func (p *parser) generateID(src, tgt string) string {
	for n := 1; ; n++ {
		id := fmt.Sprintf("_flow_%s_%s_%d", src, tgt, n)
		if !p.docIDs[id] {
			p.docIDs[id] = true
			return id
		}
	}
}

// validate checks the structure of a process after resolve.
func (p *parser) validate(st *procState) {
	proc := st.proc
	ps := site{proc.Pos, proc.ID, "process"}
	starts := proc.StartEvents()
	if len(starts) == 0 && !st.rejectedStart[nil] {
		p.errorf(ps, "process has no start event")
	}
	plain := 0
	messages := map[string]bool{}
	for _, s := range starts {
		switch s.Event {
		case NoEvent, TimerEvent:
			if plain++; plain > 1 {
				p.errorf(s.site(), "multiple none start events or timer start events not supported on process definition")
			}
		case MessageEvent:
			if s.MessageName != "" && messages[s.MessageName] {
				p.errorf(s.site(), "Cannot have more than one message event subscription with name '%s' for scope '%s'", s.MessageName, proc.ID)
			}
			messages[s.MessageName] = true
		}
	}
	p.validateEventSubprocessStarts(proc.EventSubprocessStarts(), proc.ID)
	for _, a := range proc.AllActivities() {
		p.validateActivity(st, a)
	}
}

func (p *parser) validateActivity(st *procState, a *Activity) {
	if a.Kind == EndEvent && a.Event == CancelEvent && a.Parent != nil && a.Parent.Transaction &&
		!slices.ContainsFunc(a.Parent.Boundaries, func(b *Activity) bool { return b.Event == CancelEvent }) {
		// Camunda fails when the event is reached; refused at deployment.
		p.errorf(a.site(), "a cancel end event needs a cancel boundary event on its transaction '%s'", a.Parent.ID)
	}
	s := a.site()
	switch a.Kind {
	case StartEvent:
		if len(a.Incoming) > 0 {
			p.errorf(s, "a start event cannot have incoming sequence flows")
		}
		// Inside a plain subprocess the none-start rule reports it.
		if (a.Event == ErrorEvent || a.Event == EscalationEvent) && a.Parent == nil {
			p.errorf(s, "%s start events are only allowed in event subprocesses", a.Event)
		}
	case EndEvent:
		if len(a.Outgoing) > 0 {
			p.errorf(s, "an end event cannot have outgoing sequence flows")
		}
	case BoundaryEvent:
		if len(a.Incoming) > 0 {
			p.errorf(s, "a boundary event cannot have incoming sequence flows")
		}
	case SubProcess:
		p.validateEventSubprocessStarts(a.EventSubprocessStarts(), a.ID)
		if a.TriggeredByEvent {
			p.validateEventSubprocess(st, a)
			break
		}
		starts := startEvents(a.Activities)
		switch {
		case len(starts) == 0 && !st.rejectedStart[a]:
			p.errorf(s, "subprocess has no start event: it needs exactly one none start event")
		case len(starts) > 1:
			p.errorf(starts[1].site(), "multiple start events not supported for subprocess")
		}
		for _, se := range starts {
			if se.Event != NoEvent {
				p.errorf(se.site(), "a start event inside a subprocess must be a none start event, not a %s start event", se.Event)
			}
		}
	case ExclusiveGateway, InclusiveGateway, EventBasedGateway:
		// A parallel join without outgoing flows ends its branch (an
		// implicit end); these would fail or wait forever.
		if len(a.Outgoing) == 0 {
			p.errorf(s, "gateway has no outgoing sequence flows")
		}
	}
	if a.AsyncAfter {
		for _, f := range a.Outgoing {
			if f.Generated {
				p.errorf(s, "Sequence flow with sourceRef='%s' must have an id, activity with id '%s' uses 'asyncAfter'.", a.ID, a.ID)
			}
		}
	}
	switch a.Kind {
	case ExclusiveGateway:
		p.validateExclusiveGateway(a)
	case InclusiveGateway:
		if d := a.DefaultFlow; d != nil && d.Condition != "" {
			p.warnf(s, "default flow '%s' has a condition; the condition is ignored", d.ID)
		}
	case ParallelGateway, EventBasedGateway:
		for _, f := range a.Outgoing {
			if f.Condition != "" {
				p.warnf(f.site(), "conditions on the outgoing flows of a %s are ignored", a.Kind)
			}
		}
	}
	if a.Kind == EventBasedGateway {
		p.validateEventBasedGateway(a)
	}
}

// validateEventSubprocess checks an event subprocess: no sequence flows in
// or out, no loop, no boundary event, exactly one start event, which has a
// trigger (an error one interrupts, as Camunda requires).
func (p *parser) validateEventSubprocess(st *procState, a *Activity) {
	s := a.site()
	for _, f := range a.Incoming {
		p.errorf(f.site(), "Invalid incoming sequence flow of event subprocess '%s': it starts by its start event's trigger", a.ID)
	}
	for _, f := range a.Outgoing {
		p.errorf(f.site(), "Invalid outgoing sequence flow of event subprocess '%s': its scope goes on without it", a.ID)
	}
	if a.MultiInstance != nil {
		p.errorf(s, "an event subprocess cannot be multi-instance")
	}
	if len(a.Boundaries) > 0 {
		p.errorf(a.Boundaries[0].site(), "a boundary event cannot be attached to an event subprocess")
	}
	starts := startEvents(a.Activities)
	switch {
	case len(starts) == 0 && !st.rejectedStart[a]:
		p.errorf(s, "event subprocess has no start event: it needs exactly one error, message, timer, signal, escalation or conditional start event")
	case len(starts) > 1:
		p.errorf(starts[1].site(), "multiple start events not supported for event subprocess")
	}
	for _, se := range starts {
		switch {
		case se.Event == NoEvent:
			p.errorf(se.site(), "start event of event subprocess must be of type 'error', 'message', 'timer', 'signal', 'escalation' or 'conditional'")
		case se.Event == ErrorEvent && !se.CancelActivity:
			p.errorf(se.site(), "error start event of event subprocess must be interrupting")
		}
	}
}

// validateEventSubprocessStarts checks the event subprocess start events of
// one scope as Camunda does: one message subscription per name, and
// escalation event subprocesses that never compete for an escalation
// (Camunda's words).
func (p *parser) validateEventSubprocessStarts(starts []*Activity, scope string) {
	messages := map[string]bool{}
	var escalations []*Activity
	for _, se := range starts {
		switch se.Event {
		case MessageEvent:
			if se.MessageName != "" && messages[se.MessageName] {
				p.errorf(se.site(), "Cannot have more than one message event subscription with name '%s' for scope '%s'", se.MessageName, scope)
			}
			messages[se.MessageName] = true
		case EscalationEvent:
			for _, other := range escalations {
				switch {
				case other.EscalationCode == "" && se.EscalationCode == "":
					p.errorf(se.site(), "The same scope can not contains more than one escalation event subprocess without escalation code. (also '%s')", other.Parent.ID)
				case other.EscalationCode == "" || se.EscalationCode == "":
					p.errorf(se.site(), "The same scope can not contains an escalation event subprocess without escalation code and another one with escalation code. (also '%s')", other.Parent.ID)
				case other.EscalationCode == se.EscalationCode:
					p.errorf(se.site(), "multiple escalation event subprocesses with the same escalationCode '%s' are not supported on same scope (also '%s')", se.EscalationCode, other.Parent.ID)
				}
			}
			escalations = append(escalations, se)
		}
	}
}

// validateExclusiveGateway notes doubtful outgoing flows. Camunda rejects
// some of these; bpmnlite takes the first flow whose condition holds (a flow
// without condition always holds), then the default flow, so they only get
// warnings: exports of modelling tools often carry no conditions at all.
func (p *parser) validateExclusiveGateway(a *Activity) {
	s := a.site()
	if len(a.Outgoing) == 1 {
		if f := a.Outgoing[0]; f.Condition != "" && f != a.DefaultFlow {
			p.warnf(s, "the only outgoing sequence flow '%s' has a condition: when it is false the gateway fails", f.ID)
		}
		return
	}
	for _, f := range a.Outgoing {
		switch {
		case f == a.DefaultFlow && f.Condition != "":
			p.warnf(s, "default flow '%s' has a condition; the condition is ignored", f.ID)
		case f != a.DefaultFlow && f.Condition == "":
			p.warnf(s, "outgoing sequence flow '%s' has no condition and is not the default flow: it is taken whenever no earlier flow is", f.ID)
		}
	}
}

// validateEventBasedGateway checks that the gateway leads only to catch
// events that it alone reaches.
func (p *parser) validateEventBasedGateway(a *Activity) {
	for _, f := range a.Outgoing {
		t := f.Target
		if t == nil {
			continue
		}
		if t.Kind != IntermediateCatchEvent {
			p.errorf(a.site(), "Event based gateway can only be connected to elements of type intermediateCatchEvent (flow '%s' leads to %s '%s')", f.ID, t.Kind, t.ID)
			continue
		}
		if len(t.Incoming) > 1 {
			p.errorf(t.site(), "Invalid incoming sequenceflow for intermediateCatchEvent with id '%s' connected to an event-based gateway.", t.ID)
		}
	}
}

// resolveLinks pairs each throwing link event among a scope's activities
// with the catching link of the same name there: links jump within a scope
// only.
func (p *parser) resolveLinks(acts []*Activity) {
	catches := map[string]*Activity{}
	var throws []*Activity
	for _, a := range acts {
		if a.Event != LinkEvent || a.LinkName == "" {
			continue
		}
		if a.Kind == IntermediateThrowEvent {
			throws = append(throws, a)
			continue
		}
		if other := catches[a.LinkName]; other != nil {
			p.errorf(a.site(), "link '%s' is caught twice in its scope (also by '%s')", a.LinkName, other.ID)
			continue
		}
		catches[a.LinkName] = a
	}
	for _, t := range throws {
		if t.AsyncAfter {
			p.warnf(t.site(), "camunda:asyncAfter on a throwing link event is ignored: the path continues at its catching link")
			t.AsyncAfter = false
		}
		if t.LinkTarget = catches[t.LinkName]; t.LinkTarget == nil {
			p.errorf(t.site(), "no intermediate catch event with linkEventDefinition name '%s' in the same scope", t.LinkName)
		}
	}
}
