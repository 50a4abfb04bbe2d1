package bpmn

// Compensation, as Camunda parses it: a compensation boundary event has no
// outgoing flows and is associated with its handler, an activity marked
// isForCompensation outside the sequence flows; a throwing compensation
// event compensates one activity of its scope (activityRef: one with a
// handler, or a subprocess, whose activities are compensated; in an event
// subprocess one of the scope around it too) or all.

// compensationHandler links compensation boundary event b of target to
// the handler its association names.
func (p *parser) compensationHandler(st *procState, sc *scopeState, b, target *Activity) {
	s := b.site()
	// The association may be written in any scope of the process (Camunda
	// resolves it across the process; modelers put it at process level).
	var ref string
	for _, o := range st.scopes {
		if r := o.associations[b.ID]; r != "" {
			ref = r
			break
		}
	}
	handler := sc.local[ref]
	switch {
	case ref == "":
		p.errorf(s, "a compensation boundary event needs an association to its compensation handler")
	case handler == nil:
		p.errorf(s, "association to '%s': no activity of that id in the boundary event's scope", ref)
	case !handler.IsForCompensation:
		p.errorf(s, "association to %s: a compensation handler needs isForCompensation=\"true\"", handler)
	case target.CompensationHandler != nil:
		p.errorf(s, "%s has a compensation boundary event already", target)
	case target.CompensationEventSubprocess != nil:
		p.errorf(s, "compensation boundary event and event subprocess with compensation start event are not supported on the same scope")
	default:
		target.CompensationHandler = handler
		st.proc.HasCompensation = true
	}
}

// checkCompensation checks the compensation elements of one scope.
func (p *parser) checkCompensation(st *procState, sc *scopeState, acts []*Activity) {
	for _, a := range acts {
		switch {
		case a.Kind == BoundaryEvent && a.Event == CompensationEvent && len(a.Outgoing) > 0:
			p.errorf(a.site(), "a compensation boundary event has no outgoing sequence flows: its handler is linked by an association")
		case a.IsForCompensation && (len(a.Incoming) > 0 || len(a.Outgoing) > 0):
			p.errorf(a.site(), "a compensation handler (isForCompensation) has no incoming or outgoing sequence flows")
		case a.IsForCompensation && a.MultiInstance != nil:
			// Camunda 7 starts such a handler without its loop.
			p.errorf(a.site(), "a multi-instance compensation handler is not supported: remove its multiInstanceLoopCharacteristics (compensating a multi-instance activity runs its handler once per completed instance already)")
		case a.IsForCompensation && keepsCompensation(a):
			// Camunda runs such a handler again when compensation is thrown again.
			p.errorf(a.site(), "a compensation handler subprocess with compensation boundary events inside is not supported")
		case a.CompensateActivity != "":
			target := sc.local[a.CompensateActivity]
			if target == nil && sc.owner != nil && sc.owner.TriggeredByEvent {
				// An event subprocess compensates activities of the scope around it, as in Camunda.
				target = findActivity(st, sc.owner.Parent, a.CompensateActivity)
			}
			if target == nil {
				p.errorf(a.site(), "activityRef '%s' names no activity of the compensation event's scope", a.CompensateActivity)
			} else if target.CompensationHandler == nil && target.Kind != SubProcess {
				p.errorf(a.site(), "activityRef '%s': %s has no compensation boundary event", a.CompensateActivity, target)
			}
		}
	}
}

// findActivity returns the activity id directly in scope (nil: the process).
func findActivity(st *procState, scope *Activity, id string) *Activity {
	acts := st.proc.Activities
	if scope != nil {
		acts = scope.Activities
	}
	for _, a := range acts {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// keepsCompensation reports whether subprocess a has a compensation
// boundary event inside, at any depth.
func keepsCompensation(a *Activity) bool {
	for _, in := range a.Activities {
		if in.Kind == BoundaryEvent && in.Event == CompensationEvent || keepsCompensation(in) {
			return true
		}
	}
	return false
}

// compensationStart reads compensation start event a of event subprocess
// owner, as Camunda: owner becomes the compensation handler of the
// embedded subprocess around it, one per subprocess.
func (p *parser) compensationStart(st *procState, s site, a, owner *Activity) {
	switch {
	case owner == nil || !owner.TriggeredByEvent:
		p.errorf(s, "compensateEventDefinition is not allowed on start event within a subprocess")
	case owner.Parent == nil:
		p.errorf(s, "event subprocess with compensation start event is only supported for embedded subprocess (since throwing compensation through a call activity-induced process hierarchy is not supported)")
	case owner.Parent.CompensationEventSubprocess != nil:
		p.errorf(s, "multiple event subprocesses with compensation start event are not supported on the same scope")
	default:
		owner.Parent.CompensationEventSubprocess = owner
		owner.IsForCompensation = true
		st.proc.HasCompensation = true
	}
}
