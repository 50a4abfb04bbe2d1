package runtime

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// historyStart records that x entered activity id (a's id, or its
// multi-instance body's).
func (c *command) historyStart(x *execution, id string, a *bpmn.Activity) {
	c.activityStarts++
	if !c.e.history(config.HistoryActivity) {
		x.ActivityInstanceID = id + ":" + newID()
		return
	}
	typ := activityType(a)
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
	if id != "" {
		c.activityEnds++
	}
	if !c.e.history(config.HistoryActivity) || id == "" {
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
	if !c.e.history(config.HistoryActivity) {
		return
	}
	super := ""
	if in.root.SuperExecutionID != "" {
		if sx, err := c.execution(in.root.SuperExecutionID); err == nil {
			super = sx.ProcessInstanceID
		}
	}
	h := &persistence.HistoricProcessInstance{
		ID:                       in.root.ID,
		Rev:                      1,
		ProcessDefinitionID:      in.def.ID,
		ProcessDefinitionKey:     in.def.Key,
		BusinessKey:              in.root.BusinessKey,
		StartTime:                in.root.StartTime,
		State:                    persistence.StateActive,
		StartActivityID:          startActivity,
		SuperProcessInstanceID:   super,
		RootProcessInstanceID:    cmp.Or(in.root.RootProcessInstanceID, in.root.ID),
		ProcessDefinitionName:    in.def.Name,
		ProcessDefinitionVersion: in.def.Version,
		TenantID:                 in.def.TenantID,
	}
	c.cc.Insert(h)
	in.history = h
}

// historyInstanceEnd closes the instance's history record.
func (c *command) historyInstanceEnd(in *instance, state, reason, endActivity string) {
	if !c.e.history(config.HistoryActivity) {
		return
	}
	now := c.cc.Now().UTC()
	if h := in.history; h != nil {
		h.EndTime, h.State, h.DeleteReason, h.EndActivityID = &now, state, reason, endActivity
		c.cc.Update(h) // a no-op unless a flush already inserted h
	} else {
		c.cc.Write(persistence.EndProcessInstance(in.root.ID, now, state, reason, endActivity))
	}
	c.setRemovalTime(in, now)
}

// deleteIncidentsOfInstance removes the open incidents of an ending
// instance; their history records end as deleted.
func (c *command) deleteIncidentsOfInstance(processInstanceID string) {
	if c.e.history(config.HistoryFull) {
		c.cc.Write(persistence.DeleteHistoricIncidentsOfInstance(processInstanceID, c.cc.Now().UTC()))
	}
	c.cc.Write(persistence.DeleteIncidentsOfInstance(processInstanceID))
}

// historyTaskStart records a new user task, waited on by x (nil for a
// standalone task).
func (c *command) historyTaskStart(t *persistence.Task, x *execution) {
	if !c.e.history(config.HistoryActivity) {
		return
	}
	h := &persistence.HistoricTask{
		ID: t.ID, Rev: 1, Name: t.Name, ExecutionID: t.ExecutionID, ProcessInstanceID: t.ProcessInstanceID,
		ProcessDefinitionID: t.ProcessDefinitionID, TaskDefinitionKey: t.TaskDefinitionKey,
		ActivityInstanceID: t.ActivityInstanceID, Assignee: t.Assignee, Priority: t.Priority, DueDate: t.DueDate,
		FollowUpDate: t.FollowUpDate, StartTime: t.CreateTime, Description: t.Description, Owner: t.Owner,
		ParentTaskID: t.ParentTaskID, CandidateGroups: t.CandidateGroups, CandidateUsers: t.CandidateUsers,
		TenantID: t.TenantID,
	}
	if x != nil { // nil: a standalone task's
		h.ProcessDefinitionKey = x.inst.def.Key
	}
	c.cc.Insert(h)
	if c.historicTasks == nil {
		c.historicTasks = make(map[string]*persistence.HistoricTask)
	}
	c.historicTasks[h.ID] = h
}

// historyTaskUpdate keeps a task's history record in step with the task:
// its fields as they are now, its candidates every one it ever had (as
// Camunda's identity link log keeps them).
func (c *command) historyTaskUpdate(t *persistence.Task) error {
	ent, err := c.cc.Get(persistence.HistoricTaskTable, t.ID)
	if errors.Is(err, persistence.ErrNotFound) {
		return nil // started before the engine wrote history
	}
	if err != nil {
		return err
	}
	h := ent.(*persistence.HistoricTask)
	h.Name, h.Assignee, h.Owner, h.Description, h.Priority = t.Name, t.Assignee, t.Owner, t.Description, t.Priority
	h.DueDate, h.FollowUpDate, h.ParentTaskID = t.DueDate, t.FollowUpDate, t.ParentTaskID
	h.CandidateGroups, h.CandidateUsers = union(h.CandidateGroups, t.CandidateGroups), union(h.CandidateUsers, t.CandidateUsers)
	c.cc.Update(h)
	return nil
}

// union is comma-separated list a with the entries of b it lacks.
func union(a, b string) string {
	es := entries(a)
	for _, e := range entries(b) {
		if !slices.Contains(es, e) {
			es = append(es, e)
		}
	}
	return strings.Join(es, ",")
}

// historyTaskEnd closes a user task's history record: completed or deleted.
func (c *command) historyTaskEnd(t *persistence.Task, reason string) {
	if !c.e.history(config.HistoryActivity) {
		return
	}
	now := c.cc.Now().UTC()
	if h := c.historicTasks[t.ID]; h != nil {
		// Inserted by this command: the insert (or an update, after a
		// flush) writes the final state.
		h.EndTime, h.DeleteReason, h.Assignee = &now, reason, t.Assignee
		c.cc.Update(h)
		return
	}
	c.cc.Write(persistence.EndHistoricTask(t.ID, now, reason))
}
