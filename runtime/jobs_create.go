package runtime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/bpmn/timer"
	"github.com/bpmnlite/bpmnlite/expression"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Job definition kinds: the key of a job definition within its process
// definition is (activity id, kind).
const (
	kindAsyncBefore = "async-before"
	kindAsyncAfter  = "async-after"
	kindTimer       = "timer"
)

type jobDefKey struct{ activity, kind string }

func handlerKind(handler string) string { return jobHandlers[handler].kind }

// createJobDefinitions creates one job definition per job-producing
// declaration of the process: async before/after on each activity (on the
// multi-instance body and on the inner activity separately) and each timer.
func (e *Core) createJobDefinitions(cc *tx.Context, def *Definition) map[jobDefKey]*persistence.JobDefinition {
	out := make(map[jobDefKey]*persistence.JobDefinition)
	add := func(activity, jobType, kind, config string) {
		jd := &persistence.JobDefinition{
			ID:                   newID(),
			Rev:                  1,
			ProcessDefinitionID:  def.ID,
			ProcessDefinitionKey: def.Key,
			ActivityID:           activity,
			JobType:              jobType,
			JobConfiguration:     config,
			Suspension:           persistence.Active,
			HandlerType:          camundaJobType(def.Process.Activity(activity), jobType),
			DeploymentID:         def.DeploymentID,
		}
		cc.Insert(jd)
		out[jobDefKey{activity, kind}] = jd
	}
	for _, a := range def.Process.AllActivities() {
		id := a.ID
		if a.MultiInstance != nil {
			id = a.MultiInstanceBodyID()
			if a.MultiInstance.AsyncBefore {
				add(a.ID, persistence.JobMessage, kindAsyncBefore, kindAsyncBefore)
			}
			if a.MultiInstance.AsyncAfter {
				add(a.ID, persistence.JobMessage, kindAsyncAfter, kindAsyncAfter)
			}
		}
		if a.AsyncBefore {
			add(id, persistence.JobMessage, kindAsyncBefore, kindAsyncBefore)
		}
		if a.AsyncAfter {
			add(id, persistence.JobMessage, kindAsyncAfter, kindAsyncAfter)
		}
		if a.Event == bpmn.TimerEvent && a.Timer != nil {
			add(a.ID, persistence.JobTimer, kindTimer, a.Timer.Type.String()+": "+a.Timer.Value)
		}
		if hasTimeoutListeners(a) {
			// One for the task's timeout listeners (a definition is keyed
			// by activity and kind), listing their timers.
			var timers []string
			for _, l := range a.User.TaskListeners {
				if l.Timer != nil {
					timers = append(timers, l.Timer.Type.String()+": "+l.Timer.Value)
				}
			}
			add(a.ID, persistence.JobTimer, kindTimeoutListener, strings.Join(timers, ", "))
		}
	}
	return out
}

// camundaJobType is Camunda's job type of the jobs of a job definition at
// activity a: its job handler's name.
func camundaJobType(a *bpmn.Activity, jobType string) string {
	switch {
	case jobType == persistence.JobMessage:
		return "async-continuation"
	case a == nil:
		return ""
	case a.Kind == bpmn.UserTask:
		return handlerTimeoutListener
	case a.Kind == bpmn.BoundaryEvent:
		return handlerTimerBoundary
	case a.IsEventSubprocessStart():
		return handlerTimerEventSubprocess
	case a.Kind == bpmn.StartEvent:
		return handlerTimerStart
	}
	return handlerTimerCatch // Camunda's for a timer after an event-based gateway too
}

// jobDefTTL bounds how long a node uses cached job definitions: an
// overriding priority or suspension set on another node applies to the
// jobs this node creates within this time (at once for changes made here).
const jobDefTTL = time.Second

type jobDefSet struct {
	byKey  map[jobDefKey]*persistence.JobDefinition
	loaded time.Time
}

// jobDefinition returns the job definition for (activity, kind) of def:
// from the command, else from the engine's cache while fresh, else read
// with the definition's other job definitions. Creating a job thus costs
// no query in the common case.
func (c *command) jobDefinition(def *Definition, activity, kind string) (*persistence.JobDefinition, error) {
	if c.jobDefs == nil {
		c.jobDefs = make(map[string]map[jobDefKey]*persistence.JobDefinition)
	}
	m := c.jobDefs[def.ID]
	if m == nil {
		set := c.e.defs.jobDefs(def.ID)
		if set != nil && time.Since(set.loaded) < jobDefTTL {
			m = set.byKey
		} else {
			loaded := time.Now()
			rows, err := tx.Read(c.cc, persistence.JobDefinitionsOf(def.ID))
			if err != nil {
				return nil, err
			}
			m = make(map[jobDefKey]*persistence.JobDefinition, len(rows))
			for _, jd := range rows {
				m[jobDefKey{jd.ActivityID, jobDefKind(jd)}] = jd
			}
			c.e.defs.setJobDefs(def.ID, &jobDefSet{byKey: m, loaded: loaded})
		}
		c.jobDefs[def.ID] = m
	}
	return m[jobDefKey{activity, kind}], nil
}

// forgetJobDefinitions drops the cached job definitions of a process
// definition after they changed.
func (e *Core) forgetJobDefinitions(defID string) { e.defs.setJobDefs(defID, nil) }

func jobDefKind(jd *persistence.JobDefinition) string {
	if jd.HandlerType == handlerTimeoutListener {
		return kindTimeoutListener
	}
	if jd.JobType == persistence.JobTimer {
		return kindTimer
	}
	return jd.JobConfiguration
}

// createAsyncJob creates the asynchronous continuation job of x at a.
func (c *command) createAsyncJob(x *execution, a *bpmn.Activity, s asyncSettings, handler, config string) (*persistence.Job, error) {
	j, err := c.newJob(x, x.inst.def, a, s.activityID, persistence.JobMessage, handler, s.exclusive, s.retryCycle)
	if err != nil {
		return nil, err
	}
	j.HandlerConfig = config
	if c.e.Config.Jobs.EnsureDueDateNotNull {
		j.DueDate = &j.CreateTime
	}
	c.update(x)
	c.insertJob(j)
	return j, nil
}

// newJob builds a job row with its definition, priority, retries and
// suspension state.
func (c *command) newJob(x *execution, def *Definition, a *bpmn.Activity, activityID, jobType, handler string, exclusive bool, retryCycle string) (*persistence.Job, error) {
	jd, err := c.jobDefinition(def, activityID, handlerKind(handler))
	if err != nil {
		return nil, err
	}
	j := &persistence.Job{
		ID:                   newID(),
		Rev:                  1,
		Type:                 jobType,
		Exclusive:            exclusive,
		ProcessDefinitionID:  def.ID,
		ProcessDefinitionKey: def.Key,
		DeploymentID:         def.DeploymentID,
		ActivityID:           activityID,
		Retries:              c.e.initialRetries(retryCycle),
		HandlerType:          handler,
		Suspension:           persistence.Active,
		CreateTime:           c.cc.Now().UTC(),
		TenantID:             def.TenantID,
	}
	if x != nil {
		j.ExecutionID = x.ID
		j.ProcessInstanceID = x.ProcessInstanceID
		j.RootProcessInstanceID = x.inst.rootID()
		if x.inst.root.Suspension == persistence.Suspended {
			j.Suspension = persistence.Suspended
		}
	}
	if def.Suspension == persistence.Suspended {
		j.Suspension = persistence.Suspended
	}
	if jd != nil {
		j.JobDefinitionID = jd.ID
		if jd.Suspension == persistence.Suspended {
			j.Suspension = persistence.Suspended
		}
	}
	if j.Priority, err = c.jobPriority(x, def, a, jd); err != nil {
		return nil, err
	}
	return j, nil
}

func (c *command) insertJob(j *persistence.Job) {
	c.cc.Insert(j)
	c.e.logJob(c.cc, j, persistence.JobLogCreated, "", nil)
	if n, ok := c.e.db.(persistence.Notifier); ok && len(c.jobDue) == 0 && c.cc.InCallerTx {
		// Delivered when the caller commits, to the job executors of every
		// node; after our own commits notifyJobs sends it instead.
		c.cc.Write(n.NotifyAtCommit(c.e.jobChannel, c.e.ID))
	}
	c.jobDue = append(c.jobDue, j)
}

// notifyJobs tells the job executors, after commit, that jobs were created:
// this engine's through their hooks and, unless one of them takes the jobs
// on, other nodes' through the database. A local executor with room picks
// a new job up sooner than another node could, and waking every node for
// every job under load costs the database a notification per commit.
// committed runs after the command's commit: it counts the instances it
// started and ended and wakes the job executors for its jobs.
func (c *command) committed() {
	if c.started > 0 {
		c.e.counts.started.Add(c.started)
	}
	if c.ended > 0 {
		c.e.counts.ended.Add(c.ended)
	}
	c.e.meters.add(MeterRootInstanceStart, c.rootStarted)
	c.e.meters.add(MeterActivityInstanceStart, c.activityStarts)
	c.e.meters.add(MeterActivityInstanceEnd, c.activityEnds)
	if c.jobSucceeded {
		c.e.meters.add(MeterJobSuccessful, 1)
	}
	c.notifyJobs()
}

func (c *command) notifyJobs() {
	if len(c.jobDue) == 0 {
		return
	}
	c.e.mu.RLock()
	hooks := c.e.jobCreated
	c.e.mu.RUnlock()
	taken := false
	for _, fn := range hooks {
		if fn(c.jobDue) {
			taken = true
		}
	}
	if n, ok := c.e.db.(persistence.Notifier); ok && !taken && !c.cc.InCallerTx {
		n.Notify(c.e.jobChannel, c.e.ID)
	}
}

// initialRetries: a job starts with the retries of its retry cycle, else the
// engine default. A malformed cycle falls back to the default, as Camunda
// does; an expression is evaluated at the first failure. R0 still runs the
// job once: it fails once and then has its incident.
func (e *Core) initialRetries(cycle string) int {
	if cycle == "" {
		cycle = e.Config.Jobs.DefaultRetryCycle
	}
	if cycle != "" && !expression.IsExpression(cycle) {
		if rc, err := timer.ParseRetryCycle(cycle); err == nil {
			return max(rc.Retries, 1)
		}
	}
	return e.Config.Jobs.DefaultRetries
}

// jobPriority applies the precedence: the job definition's overriding
// priority, the activity's camunda:jobPriority, the process's, then 0.
func (c *command) jobPriority(x *execution, def *Definition, a *bpmn.Activity, jd *persistence.JobDefinition) (int64, error) {
	if c.e.Config.Jobs.NoPriorities {
		return 0, nil
	}
	if jd != nil && jd.OverridingPriority != nil {
		return *jd.OverridingPriority, nil
	}
	p, err := c.constOrExpr(x, a.JobPriority, def.Process.JobPriority, "jobPriority")
	if err != nil {
		return 0, failAt(a, "%w", err)
	}
	return p, nil
}

// constOrExpr evaluates the first non-empty of an activity-level and a
// process-level priority attribute: a constant or an expression giving an
// integer within int64. With PriorityFallback, an expression naming an
// unknown variable or bean gives FallbackPriority, as Camunda's graceful
// degradation does.
func (c *command) constOrExpr(x *execution, activityLevel, processLevel, attr string) (int64, error) {
	src := activityLevel
	if src == "" {
		src = processLevel
	}
	if src == "" {
		return 0, nil
	}
	if !expression.IsExpression(src) {
		n, err := strconv.ParseInt(strings.TrimSpace(src), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("value '%s' for attribute '%s' is not a valid number", src, attr)
		}
		return n, nil
	}
	ex, err := expression.Compile(src)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", attr, err)
	}
	n, err := ex.EvalInt64(c.resolver(x))
	if err != nil && c.e.Config.Jobs.PriorityFallback && (errors.Is(err, expression.ErrUnknownName) || errors.Is(err, expression.ErrUnknownFunction)) {
		c.e.log.Debug("priority expression could not be resolved; using the fallback priority",
			"attribute", attr, "priority", c.e.Config.Jobs.FallbackPriority, "error", err)
		return c.e.Config.Jobs.FallbackPriority, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", attr, err)
	}
	return n, nil
}

// createStartEvents arms a new definition's start events: a timer job per
// timer start event, a subscription per message, signal or conditional
// start event.
func (e *Core) createStartEvents(cc *tx.Context, def *Definition, jobDefs map[jobDefKey]*persistence.JobDefinition) error {
	c := e.newCommand(cc)
	c.startDef = def
	c.jobDefs = map[string]map[jobDefKey]*persistence.JobDefinition{def.ID: jobDefs}
	for _, s := range def.Process.StartEvents() {
		switch s.Event {
		case bpmn.TimerEvent:
			if _, err := c.createTimerJob(nil, s, handlerTimerStart); err != nil {
				return err
			}
		case bpmn.MessageEvent, bpmn.SignalEvent, bpmn.ConditionalEvent:
			typ, name := persistence.SubscriptionMessage, s.MessageName
			switch s.Event {
			case bpmn.SignalEvent:
				typ, name = persistence.SubscriptionSignal, s.SignalName
			case bpmn.ConditionalEvent:
				typ, name = persistence.SubscriptionConditional, ""
			}
			cc.Insert(&persistence.EventSubscription{
				ID:                  newID(),
				Rev:                 1,
				EventType:           typ,
				EventName:           name,
				ActivityID:          s.ID,
				ProcessDefinitionID: def.ID,
				Created:             cc.Now().UTC(),
			})
		}
	}
	return nil
}

// removeStartEvents deletes the start timers and message start subscriptions
// of a definition replaced by a new version.
func (e *Core) removeStartEvents(cc *tx.Context, defID string) error {
	cc.Write(persistence.DeleteStartTimers(defID, handlerTimerStart), persistence.DeleteStartSubscriptions(defID))
	return nil
}
