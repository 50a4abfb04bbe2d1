package runtime

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// ActivityInstance is one node of a process instance's activity instance
// tree, as Camunda's: the process instance at the root (its id is the
// instance's, its activity the definition), the subprocess and
// multi-instance body instances within, the activities running in them.
type ActivityInstance struct {
	ID                       string
	ParentActivityInstanceID string // "" at the root
	ActivityID               string // the definition id at the root; "a#multiInstanceBody" for a body
	ActivityName             string
	ActivityType             string // "processDefinition" at the root, "multiInstanceBody", or the element (userTask, ...)
	ProcessInstanceID        string
	ProcessDefinitionID      string
	ExecutionIDs             []string
	IncidentIDs              []string
	Children                 []*ActivityInstance
	// Transitions are the executions within this instance that wait to
	// start an activity (async before) or to leave one (async after).
	Transitions []*TransitionInstance
}

// TransitionInstance is an execution between activities: its job will
// start ActivityID (async before) or leave it (async after).
type TransitionInstance struct {
	ID                       string // the execution's id, as Camunda's
	ParentActivityInstanceID string
	ActivityID               string
	ActivityName             string
	ActivityType             string
	ProcessInstanceID        string
	ProcessDefinitionID      string
	ExecutionID              string
	IncidentIDs              []string
}

// ActivityInstanceTree is the activity instance tree of a running process
// instance, read from its executions (whatever the history level).
func (e *Core) ActivityInstanceTree(ctx context.Context, processInstanceID string) (*ActivityInstance, error) {
	var root *ActivityInstance
	err := e.command(ctx, nil, "activity_instances", func(c *command) error {
		in, err := c.loadInstance(processInstanceID)
		if err != nil {
			return err
		}
		if in.root.ID != processInstanceID {
			return persistence.ErrNotFound // an execution's id, not an instance's
		}
		incidents, err := tx.Select(c.cc, persistence.IncidentFilter{ProcessInstanceID: processInstanceID}.Query())
		if err != nil {
			return err
		}
		root = activityTree(in, incidents)
		return nil
	})
	return root, err
}

// activityTree builds the tree of in's executions: each execution at an
// activity instance adds to the node of that id (the path waiting at a
// scope activity and the scope execution inside share it), each one at an
// activity without one is a transition.
func activityTree(in *instance, incidents []*persistence.Incident) *ActivityInstance {
	proc := in.def.Process
	root := &ActivityInstance{ID: in.root.ID, ActivityID: in.def.ID, ActivityName: proc.Name, ActivityType: "processDefinition",
		ProcessInstanceID: in.root.ID, ProcessDefinitionID: in.def.ID, ExecutionIDs: []string{in.root.ID}}
	nodes := map[string]*ActivityInstance{root.ID: root}
	var order []*execution
	for _, x := range in.execs {
		if !x.removed && x.ActivityID != "" {
			order = append(order, x)
		}
	}
	slices.SortFunc(order, func(a, b *execution) int {
		return cmp.Or(a.StartTime.Compare(b.StartTime), strings.Compare(a.ID, b.ID))
	})
	incidentsOf := func(executionID, activityID string) []string {
		var ids []string
		for _, i := range incidents {
			if i.ExecutionID == executionID && (i.ActivityID == activityID || i.ActivityID == stripBody(activityID)) {
				ids = append(ids, i.ID)
			}
		}
		return ids
	}
	var transitions []*execution
	for _, x := range order {
		if x.ActivityInstanceID == "" {
			// Waiting for its job to start or leave the activity; one with
			// children (a path at a scope, a multi-instance body's scope)
			// is shown by them.
			if len(x.activeChildren()) == 0 {
				transitions = append(transitions, x)
			}
			continue
		}
		n := nodes[x.ActivityInstanceID]
		if n == nil {
			name, typ := activityLabel(x)
			n = &ActivityInstance{ID: x.ActivityInstanceID, ParentActivityInstanceID: x.parentActivityInstance(), ActivityID: x.ActivityID,
				ActivityName: name, ActivityType: typ, ProcessInstanceID: in.root.ID, ProcessDefinitionID: in.def.ID}
			nodes[n.ID] = n
		}
		if !slices.Contains(n.ExecutionIDs, x.ID) {
			n.ExecutionIDs = append(n.ExecutionIDs, x.ID)
		}
		n.IncidentIDs = append(n.IncidentIDs, incidentsOf(x.ID, x.ActivityID)...)
	}
	linked := map[*ActivityInstance]bool{root: true}
	for _, x := range order { // in start order, so children keep it
		n := nodes[x.ActivityInstanceID]
		if n == nil || linked[n] {
			continue
		}
		linked[n] = true
		parent := nodes[n.ParentActivityInstanceID]
		if parent == nil {
			parent = root
		}
		parent.Children = append(parent.Children, n)
		n.ParentActivityInstanceID = parent.ID
	}
	for _, x := range transitions {
		name, typ := activityLabel(x)
		parent := nodes[x.parentActivityInstance()]
		if parent == nil {
			parent = root
		}
		parent.Transitions = append(parent.Transitions, &TransitionInstance{ID: x.ID, ParentActivityInstanceID: parent.ID,
			ActivityID: x.ActivityID, ActivityName: name, ActivityType: typ, ProcessInstanceID: in.root.ID,
			ProcessDefinitionID: in.def.ID, ExecutionID: x.ID, IncidentIDs: incidentsOf(x.ID, x.ActivityID)})
	}
	return root
}

// activityLabel is the name and type of the activity x is at, as history
// records them.
func activityLabel(x *execution) (string, string) {
	a := x.activity()
	if a == nil {
		return "", ""
	}
	if x.isMIBody() {
		return a.Name, "multiInstanceBody"
	}
	return a.Name, activityType(a)
}

// activityType is an activity's type as Camunda's history and activity
// instance tree name it (its ActivityTypes): events by their definition.
func activityType(a *bpmn.Activity) string {
	if a.Transaction {
		return "transaction"
	}
	if names := eventTypes[a.Kind]; names != nil {
		if name, ok := names[a.Event]; ok {
			return name
		}
	}
	return string(a.Kind)
}

// eventTypes are Camunda's names of events, by kind and definition.
var eventTypes = map[bpmn.Kind]map[bpmn.EventType]string{
	bpmn.StartEvent: {bpmn.NoEvent: "startEvent", bpmn.TimerEvent: "startTimerEvent", bpmn.MessageEvent: "messageStartEvent",
		bpmn.SignalEvent: "signalStartEvent", bpmn.EscalationEvent: "escalationStartEvent", bpmn.CompensationEvent: "compensationStartEvent",
		bpmn.ErrorEvent: "errorStartEvent", bpmn.ConditionalEvent: "conditionalStartEvent"},
	bpmn.EndEvent: {bpmn.NoEvent: "noneEndEvent", bpmn.ErrorEvent: "errorEndEvent", bpmn.TerminateEvent: "terminateEndEvent",
		bpmn.MessageEvent: "messageEndEvent", bpmn.SignalEvent: "signalEndEvent", bpmn.CompensationEvent: "compensationEndEvent",
		bpmn.EscalationEvent: "escalationEndEvent", bpmn.CancelEvent: "cancelEndEvent"},
	bpmn.IntermediateCatchEvent: {bpmn.MessageEvent: "intermediateMessageCatch", bpmn.TimerEvent: "intermediateTimer",
		bpmn.LinkEvent: "intermediateLinkCatch", bpmn.SignalEvent: "intermediateSignalCatch", bpmn.ConditionalEvent: "intermediateConditional"},
	bpmn.IntermediateThrowEvent: {bpmn.NoEvent: "intermediateNoneThrowEvent", bpmn.SignalEvent: "intermediateSignalThrow",
		bpmn.CompensationEvent: "intermediateCompensationThrowEvent", bpmn.MessageEvent: "intermediateMessageThrowEvent",
		bpmn.EscalationEvent: "intermediateEscalationThrowEvent"},
	bpmn.BoundaryEvent: {bpmn.TimerEvent: "boundaryTimer", bpmn.MessageEvent: "boundaryMessage", bpmn.SignalEvent: "boundarySignal",
		bpmn.CompensationEvent: "compensationBoundaryCatch", bpmn.ErrorEvent: "boundaryError", bpmn.EscalationEvent: "boundaryEscalation",
		bpmn.ConditionalEvent: "boundaryConditional", bpmn.CancelEvent: "cancelBoundaryCatch"},
}
