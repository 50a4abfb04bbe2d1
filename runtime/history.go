package runtime

import (
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// historyStart records that x entered activity id (a's id, or its
// multi-instance body's).
func (c *command) historyStart(x *execution, id string, a *bpmn.Activity) {
	if !c.e.Config.History {
		x.ActivityInstanceID = id + ":" + newID()
		return
	}
	typ := string(a.Kind)
	if id != a.ID {
		typ = "multiInstanceBody"
	}
	h := &persistence.HistoricActivityInstance{
		ID:                  newID(),
		Rev:                 1,
		ProcessInstanceID:   x.ProcessInstanceID,
		ProcessDefinitionID: x.ProcessDefinitionID,
		ExecutionID:         x.ID,
		ActivityID:          id,
		ActivityName:        a.Name,
		ActivityType:        typ,
		StartTime:           c.cc.Now().UTC(),
	}
	h.ParentActivityInstanceID = x.parentActivityInstance()
	x.ActivityInstanceID = h.ID
	c.cc.Insert(h)
	if c.history == nil {
		c.history = make(map[string]*persistence.HistoricActivityInstance)
	}
	c.history[h.ID] = h
}

// historyEnd closes x's current activity instance.
func (c *command) historyEnd(x *execution, canceled bool) {
	id := x.ActivityInstanceID
	x.ActivityInstanceID = ""
	if !c.e.Config.History || id == "" {
		return
	}
	now := c.cc.Now().UTC()
	if h := c.history[id]; h != nil {
		// Inserted by this command: the insert writes the final state, or
		// an update does when a flush (a signal throw) already wrote it.
		h.EndTime = &now
		h.Canceled = canceled
		c.cc.Update(h)
		return
	}
	c.cc.Write(persistence.EndActivityInstance(id, now, canceled))
}

// historyInstanceStart records a new process instance.
func (c *command) historyInstanceStart(in *instance, startActivity string) {
	if !c.e.Config.History {
		return
	}
	super := ""
	if in.root.SuperExecutionID != "" {
		if sx, err := c.execution(in.root.SuperExecutionID); err == nil {
			super = sx.ProcessInstanceID
		}
	}
	h := &persistence.HistoricProcessInstance{
		ID:                     in.root.ID,
		Rev:                    1,
		ProcessDefinitionID:    in.def.ID,
		ProcessDefinitionKey:   in.def.Key,
		BusinessKey:            in.root.BusinessKey,
		StartTime:              in.root.StartTime,
		State:                  persistence.StateActive,
		StartActivityID:        startActivity,
		SuperProcessInstanceID: super,
	}
	c.cc.Insert(h)
	in.history = h
}

// historyInstanceEnd closes the instance's history record.
func (c *command) historyInstanceEnd(in *instance, state, reason, endActivity string) {
	if !c.e.Config.History {
		return
	}
	now := c.cc.Now().UTC()
	if h := in.history; h != nil {
		h.EndTime, h.State, h.DeleteReason, h.EndActivityID = &now, state, reason, endActivity
		c.cc.Update(h) // a no-op unless a flush already inserted h
		return
	}
	c.cc.Write(persistence.EndProcessInstance(in.root.ID, now, state, reason, endActivity))
}
