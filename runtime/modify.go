package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Process instance modification (Camunda's ProcessInstanceModificationBuilder):
// instructions that cancel activity and transition instances and start
// paths before or after activities or on sequence flows, run in order in
// one command. Camunda's scope rules apply: starting inside a subprocess
// creates its scope and those between it and the ancestor instance (their
// event subprocesses and boundary events armed), cancelling the last path
// of a scope cancels the scope, and an instance left with nothing ends.

// InstructionType is the kind of a modification instruction, named as
// Camunda's builder methods.
type InstructionType string

// The modification instructions.
const (
	StartBeforeActivity      InstructionType = "startBeforeActivity"
	StartAfterActivity       InstructionType = "startAfterActivity"
	StartTransition          InstructionType = "startTransition"
	CancelActivityInstance   InstructionType = "cancelActivityInstance"
	CancelTransitionInstance InstructionType = "cancelTransitionInstance"
	CancelAllForActivity     InstructionType = "cancelAllForActivity"
)

// ModificationInstruction is one step of a modification. Which members
// apply depends on Type: ActivityID (start before or after, cancel all),
// TransitionID (start transition), ActivityInstanceID and
// TransitionInstanceID (the cancellations, ids from the activity instance
// tree).
type ModificationInstruction struct {
	Type                 InstructionType
	ActivityID           string
	TransitionID         string
	ActivityInstanceID   string
	TransitionInstanceID string
	// AncestorActivityInstanceID, for a start: the activity instance (a
	// subprocess's, or the process instance's id) the new path starts
	// in; without it the innermost enclosing scope with one instance.
	AncestorActivityInstanceID string
	// CancelCurrentActiveActivityInstances, for CancelAllForActivity:
	// only the instances that ran before the modification began are
	// cancelled, not those its instructions started.
	CancelCurrentActiveActivityInstances bool
	// Variables are set from the new path as setVariable does (where
	// they exist, else on the process instance); LocalVariables on the
	// execution that enters the activity.
	Variables, LocalVariables map[string]any
}

// ModificationRequest modifies a running process instance.
type ModificationRequest struct {
	Instructions []ModificationInstruction
	// SkipCustomListeners: execution and task listeners do not run.
	SkipCustomListeners bool
	// SkipIoMappings: input and output mappings are not evaluated.
	SkipIoMappings bool
	// Annotation says why; it is logged with the modification (bpmnlite
	// has no user operation log).
	Annotation string
}

// ModificationError is a refused instruction: nothing was changed.
type ModificationError struct {
	Index       int // from 0
	Instruction InstructionType
	Err         error
}

func (e *ModificationError) Error() string {
	return fmt.Sprintf("instruction %d (%s): %v", e.Index, e.Instruction, e.Err)
}

func (e *ModificationError) Unwrap() error { return e.Err }

// ErrInvalidInstruction is an instruction that cannot apply to the
// instance (wrapped in a *ModificationError).
var ErrInvalidInstruction = errors.New("invalid modification instruction")

const modificationReason = "Cancellation due to process instance modification"

// ModifyProcessInstance runs req's instructions on process instance id, in
// one transaction (t, when not nil, is the caller's): all apply, or none.
func (e *Core) ModifyProcessInstance(ctx context.Context, t persistence.Tx, id string, req ModificationRequest) error {
	return e.ModifyProcessInstances(ctx, t, "", []string{id}, req)
}

// ModifyProcessInstances runs req's instructions on each of the process
// instances ids in turn, all in one transaction (Camunda's synchronous
// modification of several instances); with definitionID, each must be an
// instance of that process definition.
func (e *Core) ModifyProcessInstances(ctx context.Context, t persistence.Tx, definitionID string, ids []string, req ModificationRequest) error {
	return e.command(ctx, t, "modify_process_instance", func(c *command) error {
		for _, id := range ids {
			if err := c.modify(id, definitionID, req); err != nil {
				return err
			}
		}
		return nil
	})
}

func (c *command) modify(id, definitionID string, req ModificationRequest) error {
	in, err := c.loadInstance(id)
	if err != nil {
		return err
	}
	if in.root.ID != id {
		return fmt.Errorf("process instance %q: %w", id, persistence.ErrNotFound)
	}
	if definitionID != "" && in.def.ID != definitionID {
		return fmt.Errorf("process instance %s is an instance of %s, not of process definition %s: %w", id, in.def.ID, definitionID, ErrInvalidInstruction)
	}
	if in.root.Suspension == persistence.Suspended {
		return fmt.Errorf("process instance %s is suspended: %w", id, ErrSuspended)
	}
	c.skipCustomListeners, c.skipIoMappings = req.SkipCustomListeners, req.SkipIoMappings
	c.e.log.Debug("modifying process instance", "instance", id, "instructions", len(req.Instructions), "annotation", req.Annotation)
	if err := c.applyInstructions(in, req.Instructions); err != nil {
		return err
	}
	if root := in.root; !root.removed && root.ActivityID == "" && len(root.activeChildren()) == 0 {
		return c.deleteInstance(in, modificationReason, persistence.StateExternallyTerminated)
	}
	return nil
}

// applyInstructions runs instructions on in in order, each to its wait
// states before the next, as in Camunda: the next one sees the activity
// instances it made. A failure is a *ModificationError.
func (c *command) applyInstructions(in *instance, instructions []ModificationInstruction) error {
	before := map[string]bool{} // the activity and transition instances before the first instruction
	for _, x := range pathsAt(in, "") {
		before[instanceKey(x)] = true
	}
	for i, ins := range instructions {
		if in.root.removed {
			return &ModificationError{i, ins.Type, fmt.Errorf("process instance %s has ended: %w", in.root.ID, ErrInvalidInstruction)}
		}
		if err := c.instruct(in, ins, before); err != nil {
			return &ModificationError{i, ins.Type, err}
		}
		if err := c.run(); err != nil {
			return &ModificationError{i, ins.Type, err}
		}
	}
	return nil
}

// instruct runs one instruction on in; before holds the instances (see
// instanceKey) in ran when the modification began.
func (c *command) instruct(in *instance, ins ModificationInstruction, before map[string]bool) error {
	proc := in.def.Process
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrInvalidInstruction)
	}
	activity := func() (*bpmn.Activity, error) {
		if ins.ActivityID == "" {
			return nil, invalid("activityId is required")
		}
		a := proc.Activity(ins.ActivityID)
		if body := proc.Activity(stripBody(ins.ActivityID)); a == nil && isBodyID(ins.ActivityID) && body != nil && body.MultiInstance != nil {
			a = body // "a#multiInstanceBody": a start enters the body, as for "a"
		}
		if a == nil {
			return nil, invalid("activity %q does not exist in process %q", ins.ActivityID, in.def.Key)
		}
		return a, nil
	}
	switch ins.Type {
	case StartBeforeActivity, StartAfterActivity:
		a, err := activity()
		if err != nil {
			return err
		}
		if ins.Type == StartBeforeActivity {
			return c.startIn(in, a, nil, ins)
		}
		if len(a.Outgoing) != 1 {
			return invalid("%s has %d outgoing sequence flows; start after an activity with exactly one, or start a transition", a, len(a.Outgoing))
		}
		return c.startIn(in, a.Outgoing[0].Source, a.Outgoing[0], ins)
	case StartTransition:
		if ins.TransitionID == "" {
			return invalid("transitionId is required")
		}
		f := proc.Flow(ins.TransitionID)
		if f == nil {
			return invalid("sequence flow %q does not exist in process %q", ins.TransitionID, in.def.Key)
		}
		return c.startIn(in, f.Source, f, ins)
	case CancelActivityInstance:
		x := activityInstancePath(in, ins.ActivityInstanceID)
		if x == nil {
			return invalid("activity instance %q does not exist in process instance %s", ins.ActivityInstanceID, in.root.ID)
		}
		return c.cancelPath(x)
	case CancelTransitionInstance:
		x := in.execs[ins.TransitionInstanceID]
		if x == nil || x.removed || !isTransition(x) {
			return invalid("transition instance %q does not exist in process instance %s", ins.TransitionInstanceID, in.root.ID)
		}
		return c.cancelPath(x)
	case CancelAllForActivity:
		if _, err := activity(); err != nil {
			return err
		}
		for _, x := range pathsAt(in, ins.ActivityID) {
			if !x.removed && (!ins.CancelCurrentActiveActivityInstances || before[instanceKey(x)]) {
				if err := c.cancelPath(x); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return invalid("unknown instruction type %q", ins.Type)
}

// isTransition reports whether x waits for its job to start or leave its
// activity: a transition instance of the activity instance tree.
func isTransition(x *execution) bool {
	return x.ActivityID != "" && x.ActivityInstanceID == "" && len(x.activeChildren()) == 0
}

// activityInstancePath returns the path that runs activity instance id:
// the outermost execution with that id (a scope below it shares it), the
// path outside when that is an input/output scope; the process instance
// for its own id.
func activityInstancePath(in *instance, id string) *execution {
	if id == "" {
		return nil
	}
	if id == in.root.ID {
		return in.root // the tree's root: cancelling it cancels everything
	}
	for _, x := range in.execs {
		if x.removed || x.ActivityInstanceID != id || (x.parent != nil && x.parent.ActivityInstanceID == id) {
			continue
		}
		return x.outside()
	}
	return nil
}

// instanceKey identifies the activity or transition instance path x runs,
// whichever execution runs it after compactions.
func instanceKey(x *execution) string {
	if x.ActivityInstanceID != "" {
		return x.ActivityInstanceID
	}
	return "transition " + x.ID
}

// pathsAt returns the paths of in at activity id (at any activity: ""):
// its activity instances (its multi-instance body's) and transition
// instances, outermost first.
func pathsAt(in *instance, id string) []*execution {
	var out []*execution
	var walk func(x *execution)
	walk = func(x *execution) {
		if x.removed {
			return
		}
		if (id == "" || x.ActivityID == id || x.ActivityID == id+bodySuffix) && x.ActivityID != "" && !x.isIOScope() && !x.isBodyScope() &&
			(x.ActivityInstanceID != "" || isTransition(x)) {
			out = append(out, x)
			if id != "" {
				return
			}
		}
		for _, ch := range x.children {
			walk(ch)
		}
	}
	walk(in.root)
	return out
}

// cancelPath cancels the path x and, when it was its scope's last, the
// scope too, up to the process instance, whose execution stays without a
// path for later instructions (modify ends it if none starts one).
func (c *command) cancelPath(x *execution) error {
	for {
		if body := x.parent; body != nil && body.isBodyScope() && len(body.activeChildren()) > 1 {
			// One inner instance of several (parallel) goes, as Camunda's
			// destroyInnerInstance: the body counts one active less and
			// completes when the others are done.
			if err := c.cancel(x, modificationReason); err != nil {
				return err
			}
			active, err := intVar(body, varNrOfActiveInstances)
			if err != nil {
				return err
			}
			c.touch(body)
			return body.setLocal(varNrOfActiveInstances, active-1)
		}
		scope := x.scope()
		if x.IsConcurrent && len(scope.activeChildren()) > 1 {
			if err := c.cancel(x, modificationReason); err != nil {
				return err
			}
			c.touch(scope)
			_, err := c.compact(scope)
			return err
		}
		if scope.parent == nil {
			if err := c.cancel(scope, modificationReason); err != nil {
				return err
			}
			scope.ActivityID, scope.ActivityInstanceID, scope.TransitionID, scope.IsActive = "", "", "", false
			scope.replacedBy = nil // a fork's concurrent path it pointed to is gone: the next start runs here
			c.update(scope)
			return nil
		}
		x = scope.parent // the path at the subprocess, body or mapped activity
	}
}

// startIn starts a path before activity a, or on flow f out of a, in the
// scope ins selects.
func (c *command) startIn(in *instance, a *bpmn.Activity, f *bpmn.SequenceFlow, ins ModificationInstruction) error {
	scopes, err := flowScopes(a)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidInstruction, err)
	}
	scope, n, err := ancestorScope(in, scopes, ins.AncestorActivityInstanceID)
	if err != nil {
		return err
	}
	in.started = true // no process start event, no process start listeners
	token, err := c.newPathIn(scope)
	if err != nil {
		return err
	}
	if token, err = c.openScopes(token, scopes[:n]); err != nil {
		return err
	}
	if err := token.setVariables(ins.Variables, false); err != nil {
		return err
	}
	if err := token.setVariables(ins.LocalVariables, true); err != nil {
		return err
	}
	if f != nil {
		token.ActivityID = a.ID
		c.update(token)
		c.push(func() error { return c.take(token, f) })
		return nil
	}
	c.push(func() error { return c.enter(token, a, false) })
	return nil
}

// ancestorScope returns the scope execution a new path inside scopes
// (innermost first) starts in, and how many of scopes must be created
// below it: the one of ancestor's activity instance, else the innermost
// of scopes with exactly one instance, else the process instance.
func ancestorScope(in *instance, scopes []*bpmn.Activity, ancestor string) (*execution, int, error) {
	if ancestor == in.root.ID {
		return in.root, len(scopes), nil
	}
	if ancestor != "" {
		owner := activityInstancePath(in, ancestor)
		if owner == nil {
			return nil, 0, fmt.Errorf("ancestor activity instance %q does not exist in process instance %s: %w", ancestor, in.root.ID, ErrInvalidInstruction)
		}
		for i, p := range scopes {
			if owner.ActivityID == p.ID {
				if s := innerScope(owner); s != nil {
					return s, i, nil
				}
			}
		}
		return nil, 0, fmt.Errorf("activity instance %q (of %q) is not an ancestor of the activity to start: %w", ancestor, owner.ActivityID, ErrInvalidInstruction)
	}
	for i, p := range scopes {
		var found []*execution
		for _, x := range in.execs {
			if !x.removed && x.ActivityID == p.ID && !x.isIOScope() && x.ActivityInstanceID != "" && (x.parent == nil || x.parent.ActivityInstanceID != x.ActivityInstanceID) {
				if s := innerScope(x); s != nil {
					found = append(found, s)
				}
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], i, nil
		}
		return nil, 0, fmt.Errorf("ancestor activity instance is ambiguous: %s has %d instances; give ancestorActivityInstanceId: %w", p, len(found), ErrInvalidInstruction)
	}
	return in.root, len(scopes), nil
}

// innerScope returns the scope execution that runs the inside of the
// subprocess owner waits at (below its input/output scope, if any).
func innerScope(owner *execution) *execution {
	for _, ch := range owner.activeChildren() {
		if !ch.IsScope {
			continue
		}
		if ch.isIOScope() {
			return innerScope(ch)
		}
		return ch
	}
	return nil
}

// newPathIn returns a new path in scope execution s: s itself when it
// runs none (the process instance after its last path was cancelled),
// else a new concurrent one (s's own path moving to one first).
func (c *command) newPathIn(s *execution) (*execution, error) {
	live := s.activeChildren()
	if s.ActivityID == "" && len(live) == 0 {
		s.IsActive = true
		c.update(s)
		return s, nil
	}
	for _, ch := range live {
		if ch.IsConcurrent {
			return c.newConcurrent(s), nil
		}
	}
	paths, err := c.fork(s, 2)
	if err != nil {
		return nil, err
	}
	return paths[1], nil
}

// flowScopes returns the embedded subprocesses around a, innermost
// first; a path cannot start inside a multi-instance one.
func flowScopes(a *bpmn.Activity) ([]*bpmn.Activity, error) {
	var scopes []*bpmn.Activity
	for p := a.Parent; p != nil; p = p.Parent {
		if p.MultiInstance != nil {
			return nil, fmt.Errorf("%s lies inside the multi-instance %s; start before that instead", a, p)
		}
		scopes = append(scopes, p)
	}
	return scopes, nil
}

// openScopes enters the embedded subprocesses scopes (innermost first)
// from path token without their start events, as a start before an
// activity inside them does: each is started (listeners, history,
// boundary events) and gets its scope execution, where its event
// subprocesses are armed. It returns the path inside the innermost.
func (c *command) openScopes(token *execution, scopes []*bpmn.Activity) (*execution, error) {
	for i := len(scopes) - 1; i >= 0; i-- {
		token.ActivityID, token.IsActive = scopes[i].ID, false
		run, err := c.openIOScope(token, scopes[i])
		if err != nil {
			return nil, err
		}
		run.IsActive = false
		if err := c.startActivity(run, scopes[i]); err != nil {
			return nil, err
		}
		token = c.newScope(run)
		if err := c.armEventSubprocesses(token); err != nil {
			return nil, err
		}
	}
	return token, nil
}
