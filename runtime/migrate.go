package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Executing a migration plan, as Camunda's synchronous migration: every
// instance is checked first (each activity and transition instance must
// be mapped); if one cannot be migrated, nothing is, and the error reports
// it. Then each instance moves in place: its executions, tasks, external
// tasks, jobs, subscriptions, incidents and open history keep their ids
// and take the target's definition and activity ids. Event triggers of
// boundary events and event subprocesses that the plan does not map are
// removed, those of the target that nothing maps to are armed, and those
// of instructions with UpdateEventTrigger are re-created from the target.
// Subprocess and multi-instance body instances the plan does not map are
// removed and subprocesses the target adds around a migrated activity are
// created (migrate_scopes.go):
// only their listeners and input/output mappings run, which
// SkipCustomListeners and SkipIOMappings skip.

// MigrationRequest executes Plan for ProcessInstanceIDs and the instances
// Query selects.
type MigrationRequest struct {
	Plan                MigrationPlan
	ProcessInstanceIDs  []string
	Query               *persistence.InstanceFilter
	SkipCustomListeners bool
	SkipIOMappings      bool
}

// MigratingActivityInstanceReport names an activity instance that cannot
// be migrated and why.
type MigratingActivityInstanceReport struct {
	Instruction        *MigrationInstruction // nil when none applies
	ActivityInstanceID string
	SourceScopeID      string
	Failures           []string
}

// MigratingTransitionInstanceReport names a transition instance (an
// execution waiting for its asynchronous continuation) that cannot be
// migrated and why.
type MigratingTransitionInstanceReport struct {
	Instruction          *MigrationInstruction
	TransitionInstanceID string
	SourceScopeID        string
	Failures             []string
}

// MigratingInstanceReport is what keeps a process instance from being
// migrated (Camunda's MigratingProcessInstanceValidationReport).
type MigratingInstanceReport struct {
	ProcessInstanceID         string
	Failures                  []string
	ActivityInstanceReports   []MigratingActivityInstanceReport
	TransitionInstanceReports []MigratingTransitionInstanceReport
}

func (r *MigratingInstanceReport) empty() bool {
	return len(r.Failures) == 0 && len(r.ActivityInstanceReports) == 0 && len(r.TransitionInstanceReports) == 0
}

// MigratingInstanceError is an instance that the plan cannot migrate
// (Camunda's MigratingProcessInstanceValidationException); nothing was
// migrated.
type MigratingInstanceError struct {
	Report MigratingInstanceReport
}

func (e *MigratingInstanceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Cannot migrate process instance '%s':\n", e.Report.ProcessInstanceID)
	for _, f := range e.Report.Failures {
		fmt.Fprintf(&b, "\t%s\n", f)
	}
	for _, r := range e.Report.ActivityInstanceReports {
		fmt.Fprintf(&b, "\tCannot migrate activity instance '%s':\n", r.ActivityInstanceID)
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "\t\t%s\n", f)
		}
	}
	for _, r := range e.Report.TransitionInstanceReports {
		fmt.Fprintf(&b, "\tCannot migrate transition instance '%s':\n", r.TransitionInstanceID)
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "\t\t%s\n", f)
		}
	}
	return b.String()
}

func (e *MigratingInstanceError) Unwrap() error { return ErrMigration }

// Migrate executes a migration plan in one transaction: all the instances
// or none.
func (e *Core) Migrate(ctx context.Context, t persistence.Tx, req MigrationRequest) error {
	return e.command(ctx, t, "migrate", func(c *command) error {
		m, instances, reports, err := c.checkMigrations(req, true)
		if err != nil {
			return err
		}
		if len(reports) > 0 {
			return &MigratingInstanceError{Report: reports[0]}
		}
		c.skipCustomListeners, c.skipIoMappings = req.SkipCustomListeners, req.SkipIOMappings
		for _, in := range instances {
			if err := c.migrateInstance(in, m); err != nil {
				return err
			}
		}
		// As in Camunda, migrating triggers no conditional event: the
		// conditions armed and the plan variables set are evaluated at
		// the instance's next variable change.
		c.varChanges, c.freshConditions = nil, nil
		return nil
	})
}

// CheckMigration validates req's plan (a *MigrationPlanError when it is
// invalid) and returns the report of every instance it cannot migrate,
// changing nothing: a dry run of Migrate.
func (e *Core) CheckMigration(ctx context.Context, req MigrationRequest) ([]MigratingInstanceReport, error) {
	var reports []MigratingInstanceReport
	err := e.command(ctx, nil, "migration_check", func(c *command) error {
		var err error
		_, _, reports, err = c.checkMigrations(req, false)
		return err
	})
	return reports, err
}

// checkMigrations validates req's plan and checks its instances, up to the
// first that cannot be migrated when firstOnly, else all of them.
func (c *command) checkMigrations(req MigrationRequest, firstOnly bool) (*migration, []*instance, []MigratingInstanceReport, error) {
	m, err := c.validMigration(req.Plan)
	if err != nil {
		return nil, nil, nil, err
	}
	ids, err := c.migratingInstanceIDs(req)
	if err != nil {
		return nil, nil, nil, err
	}
	var instances []*instance
	var reports []MigratingInstanceReport
	for _, id := range ids {
		in, report, err := c.migratingInstance(id, m)
		if err != nil {
			return nil, nil, nil, err
		}
		if !report.empty() {
			reports = append(reports, *report)
			if firstOnly {
				break
			}
		}
		instances = append(instances, in)
	}
	return m, instances, reports, nil
}

// validMigration is plan validated (a *MigrationPlanError when it is
// invalid), ready to apply.
func (c *command) validMigration(plan MigrationPlan) (*migration, error) {
	src, tgt, err := c.migrationDefinitions(plan)
	if err != nil {
		return nil, err
	}
	if report := validatePlan(plan, src.Process, tgt.Process, c.e.Config.Limits.MaxVariableBytes); !report.Valid() {
		return nil, &MigrationPlanError{Plan: plan, Report: *report}
	}
	return newMigration(plan, tgt), nil
}

// migratingInstance loads process instance id and reports what keeps it
// from being migrated by m.
func (c *command) migratingInstance(id string, m *migration) (*instance, *MigratingInstanceReport, error) {
	in, err := c.loadInstance(id)
	if err != nil && !errors.Is(err, persistence.ErrNotFound) {
		return nil, nil, err
	}
	if err != nil || in.root.ID != id {
		return nil, nil, fmt.Errorf("%w: process instance '%s' cannot be migrated: the process instance does not exist", ErrMigration, id)
	}
	report, err := c.checkMigration(in, m)
	return in, report, err
}

// migratingInstanceIDs are the request's instances, listed and queried,
// each once.
func (c *command) migratingInstanceIDs(req MigrationRequest) ([]string, error) {
	ids := slices.Clone(req.ProcessInstanceIDs)
	if req.Query != nil {
		rows, err := tx.Select(c.cc, req.Query.Query())
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
	}
	seen := map[string]bool{}
	ids = slices.DeleteFunc(ids, func(id string) bool {
		dup := seen[id]
		seen[id] = true
		return dup
	})
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: process instance ids is empty", ErrMigration)
	}
	return ids, nil
}

// migration is a validated plan ready to apply: each source activity's
// instruction and its target in the target definition.
type migration struct {
	plan   MigrationPlan
	tgt    *Definition
	by     map[string]*MigrationInstruction // by source activity id
	mapped map[string]bool                  // target activities something maps to
}

func newMigration(plan MigrationPlan, tgt *Definition) *migration {
	m := &migration{plan: plan, tgt: tgt, by: map[string]*MigrationInstruction{}, mapped: map[string]bool{}}
	for i := range plan.Instructions {
		in := &m.plan.Instructions[i]
		m.by[in.SourceActivityIDs[0]] = in
		m.mapped[in.TargetActivityIDs[0]] = true
	}
	return m
}

// target returns the activity id that source id maps to, "" when none.
func (m *migration) target(id string) string {
	if in := m.by[id]; in != nil {
		return in.TargetActivityIDs[0]
	}
	return ""
}

// checkMigration reports what keeps in from being migrated by m.
func (c *command) checkMigration(in *instance, m *migration) (*MigratingInstanceReport, error) {
	report := &MigratingInstanceReport{ProcessInstanceID: in.root.ID}
	if in.def.ID != m.plan.SourceProcessDefinitionID {
		report.Failures = append(report.Failures, fmt.Sprintf("Process instance '%s' is an instance of process definition '%s', not of the migration plan's source '%s'",
			in.root.ID, in.def.ID, m.plan.SourceProcessDefinitionID))
		return report, nil
	}
	jobs, err := tx.Select(c.cc, persistence.JobsOfInstance(in.root.ID))
	if err != nil {
		return nil, err
	}
	continuations := map[string]*persistence.Job{} // by execution
	for _, j := range jobs {
		if j.Type == persistence.JobMessage {
			continuations[j.ExecutionID] = j
		}
		if _, listener, ok := strings.Cut(j.HandlerConfig, timeoutConfigSep); ok && j.HandlerType == handlerTimeoutListener {
			if a := m.tgt.Process.Activity(m.target(j.ActivityID)); a == nil || timeoutListener(a, listener) == nil {
				report.Failures = append(report.Failures, fmt.Sprintf("The timeout task listener '%s' of user task '%s' does not exist in the target user task", listener, j.ActivityID))
			}
		}
	}
	activity := map[string]*MigratingActivityInstanceReport{}
	for _, x := range liveExecutions(in) {
		if x.ActivityID == "" {
			continue
		}
		instr := m.by[x.ActivityID]
		var failures []string
		if instr == nil && (removableScope(x) || removableBody(x)) {
			continue // an unmapped subprocess or body: removed, its paths moving out
		}
		if instr == nil {
			failures = append(failures, "There is no migration instruction for this instance's activity")
		} else {
			failures = transitionFailures(x, continuations[x.ID], m)
		}
		if len(failures) == 0 {
			continue
		}
		if x.ActivityInstanceID == "" && len(x.activeChildren()) > 0 {
			continue // a multi-instance body's scope: its owner reports it
		}
		if x.ActivityInstanceID == "" {
			report.TransitionInstanceReports = append(report.TransitionInstanceReports, MigratingTransitionInstanceReport{
				Instruction: instr, TransitionInstanceID: x.ID, SourceScopeID: x.ActivityID, Failures: failures})
			continue
		}
		r := activity[x.ActivityInstanceID]
		if r == nil {
			report.ActivityInstanceReports = append(report.ActivityInstanceReports, MigratingActivityInstanceReport{
				Instruction: instr, ActivityInstanceID: x.ActivityInstanceID, SourceScopeID: x.ActivityID})
			r = &report.ActivityInstanceReports[len(report.ActivityInstanceReports)-1]
			activity[x.ActivityInstanceID] = r
		}
		for _, f := range failures {
			if !slices.Contains(r.Failures, f) {
				r.Failures = append(r.Failures, f)
			}
		}
	}
	compensations, err := tx.Select(c.cc, persistence.CompensationsOf(in.root.ID))
	if err != nil {
		return nil, err
	}
	for _, s := range compensations {
		report.Failures = append(report.Failures, fmt.Sprintf("Cannot migrate subscription for compensation handler '%s': bpmnlite does not migrate compensation subscriptions", s.ActivityID))
	}
	return report, nil
}

// transitionFailures checks what x waits for beyond its activity: the
// asynchronous continuation its job j runs (nil: none) and the sequence
// flow it is on (at a join, or to take after the activity).
func transitionFailures(x *execution, j *persistence.Job, m *migration) []string {
	var failures []string
	tid := m.target(x.ActivityID)
	t, _ := nodeOf(m.tgt.Process, tid)
	flow := x.TransitionID
	if j != nil && j.HandlerType == handlerAsyncAfter {
		flow = j.HandlerConfig
	}
	if flow != "" {
		if f := m.tgt.Process.Flow(flow); f == nil || (f.Source != t.a && f.Target != t.a) {
			failures = append(failures, fmt.Sprintf("Transition instance is assigned to the sequence flow '%s' that does not lead from or to '%s' in the target process definition", flow, tid))
		}
	}
	if j == nil {
		return failures
	}
	before, after := t.a.AsyncBefore, t.a.AsyncAfter
	if !t.body && t.a.MultiInstance != nil {
		before, after = t.a.MultiInstance.AsyncBefore, t.a.MultiInstance.AsyncAfter
	}
	switch j.HandlerType {
	case handlerAsyncAfter:
		if !after {
			failures = append(failures, "Target activity is not asyncAfter")
		}
	case handlerProcessStart:
		if t.a.Parent != nil || t.a.Kind != bpmn.StartEvent {
			failures = append(failures, "A transition instance that instantiates the process can only be migrated to a process-level flow node")
		} else if !before {
			failures = append(failures, "Target activity is not asyncBefore")
		}
	case handlerAsyncBefore:
		if !before {
			failures = append(failures, "Target activity is not asyncBefore")
		}
	}
	return failures
}

// liveExecutions are in's executions, parents before children.
func liveExecutions(in *instance) []*execution {
	var out []*execution
	var walk func(x *execution)
	walk = func(x *execution) {
		out = append(out, x)
		for _, ch := range x.activeChildren() {
			walk(ch)
		}
	}
	walk(in.root)
	return out
}

// migrateInstance moves in to the target definition.
func (c *command) migrateInstance(in *instance, m *migration) error {
	tgt := m.tgt
	piID := in.root.ID
	if err := c.removeUnmappedScopes(in, m); err != nil {
		return err
	}
	kept := map[[2]string]bool{} // (execution, target activity) of the event triggers kept
	rearm := map[string]bool{}   // executions whose own catch event's timer is re-created
	jobs, err := tx.Select(c.cc, persistence.JobsOfInstance(piID))
	if err != nil {
		return err
	}
	migratedJobDefs := map[string]string{} // job id → its new job definition
	for _, j := range jobs {
		instr := m.by[j.ActivityID]
		passive := isPassiveTrigger(in.def.Process.Activity(stripBody(j.ActivityID)))
		if instr == nil && !passive {
			return fmt.Errorf("job %s: activity '%s' is not mapped", j.ID, j.ActivityID) // checked before: cannot happen
		}
		if instr == nil || (instr.UpdateEventTrigger && j.Type == persistence.JobTimer) {
			if instr != nil && !passive {
				rearm[j.ExecutionID] = true
			}
			if err := c.deleteJob(j); err != nil {
				return err
			}
			continue
		}
		tid := instr.TargetActivityIDs[0]
		jd, err := c.jobDefinition(tgt, tid, handlerKind(j.HandlerType))
		if err != nil {
			return err
		}
		j.ActivityID, j.ProcessDefinitionID, j.ProcessDefinitionKey, j.DeploymentID = tid, tgt.ID, tgt.Key, tgt.DeploymentID
		j.JobDefinitionID = ""
		if jd != nil {
			j.JobDefinitionID = jd.ID
		}
		migratedJobDefs[j.ID] = j.JobDefinitionID
		if j.Type == persistence.JobTimer {
			j.HandlerConfig = migratedTimerConfig(j.HandlerConfig, tid)
		}
		kept[[2]string{j.ExecutionID, tid}] = true
		c.cc.Update(j)
	}
	subs, err := tx.Select(c.cc, persistence.SubscriptionFilter{ProcessInstanceID: piID}.Query())
	if err != nil {
		return err
	}
	for _, s := range subs {
		instr := m.by[s.ActivityID]
		if instr == nil {
			c.cc.Delete(s) // an unmapped boundary event or event subprocess start
			continue
		}
		tid := instr.TargetActivityIDs[0]
		s.ActivityID, s.ProcessDefinitionID = tid, tgt.ID
		if instr.UpdateEventTrigger {
			if a := tgt.Process.Activity(tid); a != nil {
				switch s.EventType {
				case persistence.SubscriptionMessage:
					s.EventName = a.MessageName
				case persistence.SubscriptionSignal:
					s.EventName = a.SignalName
				}
			}
		}
		kept[[2]string{s.ExecutionID, tid}] = true
		c.cc.Update(s)
	}
	tasks, err := tx.Select(c.cc, persistence.TasksOfInstance(piID))
	if err != nil {
		return err
	}
	for _, t := range tasks {
		t.TaskDefinitionKey, t.ProcessDefinitionID = m.target(t.TaskDefinitionKey), tgt.ID
		c.cc.Update(t)
	}
	externals, err := tx.Select(c.cc, persistence.ExternalTasksOfInstance(piID))
	if err != nil {
		return err
	}
	for _, t := range externals {
		t.ActivityID, t.ProcessDefinitionID, t.ProcessDefinitionKey = m.target(t.ActivityID), tgt.ID, tgt.Key
		c.cc.Update(t)
	}
	incidents, err := tx.Select(c.cc, persistence.IncidentFilter{ProcessInstanceID: piID}.Query())
	if err != nil {
		return err
	}
	for _, i := range incidents {
		i.ProcessDefinitionID = tgt.ID
		i.ActivityID = orKeep(m.target(i.ActivityID), i.ActivityID)
		i.FailedActivityID = orKeep(m.target(i.FailedActivityID), i.FailedActivityID)
		if jd, ok := migratedJobDefs[i.Configuration]; ok {
			i.JobDefinitionID = jd
		}
		c.cc.Update(i)
	}
	for _, x := range liveExecutions(in) {
		x.ProcessDefinitionID = tgt.ID
		if x.ActivityID != "" {
			x.ActivityID = m.target(x.ActivityID)
		}
		c.update(x)
	}
	if err := c.migrateHistory(in, m, incidents); err != nil {
		return err
	}
	in.def = tgt
	if err := c.armMigratedTriggers(in, m, kept, rearm); err != nil {
		return err
	}
	if err := c.addTargetScopes(in); err != nil {
		return err
	}
	if err := c.reparentHistory(in); err != nil {
		return err
	}
	if len(m.plan.Variables) > 0 {
		return in.root.setVariables(m.plan.Variables, true)
	}
	return nil
}

// migratedTimerConfig is a timer job's handler configuration in the
// target: its activity's id, followed by a timeout listener's id.
func migratedTimerConfig(config, tid string) string {
	if _, listener, ok := strings.Cut(config, timeoutConfigSep); ok {
		return tid + timeoutConfigSep + listener
	}
	return tid
}

func orKeep(mapped, old string) string {
	if mapped == "" {
		return old
	}
	return mapped
}

// armMigratedTriggers arms, on the migrated instance, the event triggers
// of the target that no kept trigger stands for: boundary events and
// event subprocess starts that nothing maps to or whose trigger is
// re-created, and the timers of catch events re-created (rearm).
func (c *command) armMigratedTriggers(in *instance, m *migration, kept map[[2]string]bool, rearm map[string]bool) error {
	for _, x := range liveExecutions(in) {
		for _, start := range eventSubprocessStarts(x) {
			if !kept[[2]string{x.ID, start.ID}] && !runsInterruptingEventSubprocess(x) {
				if err := c.armEventSubprocess(x, start); err != nil {
					return err
				}
			}
		}
		if a := boundaryOwner(x); a != nil {
			for _, b := range a.Boundaries {
				if !kept[[2]string{x.ID, b.ID}] {
					if err := c.armBoundary(x, b); err != nil {
						return err
					}
				}
			}
		}
		if rearm[x.ID] {
			if a := x.activity(); a != nil && waitsFor(a) && !kept[[2]string{x.ID, a.ID}] {
				if err := c.armEvent(x, a); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// runsInterruptingEventSubprocess reports whether scope runs an
// interrupting event subprocess, which disarmed the scope's triggers.
func runsInterruptingEventSubprocess(scope *execution) bool {
	a := scope.activity()
	if a == nil || !a.TriggeredByEvent {
		return false
	}
	for _, start := range a.Activities {
		if start.IsEventSubprocessStart() && start.CancelActivity {
			return true
		}
	}
	return false
}

// boundaryOwner returns the activity whose boundary events x's path owns,
// nil when it owns none: the path waiting at a multi-instance body (not
// its scope execution or inner instances), the input/output scope of an
// activity that has one, else the execution running the activity.
func boundaryOwner(x *execution) *bpmn.Activity {
	a := x.activity()
	if a == nil || x.ActivityInstanceID == "" || len(a.Boundaries) == 0 {
		return nil
	}
	if x.isMIBody() {
		if x.isBodyScope() {
			return nil
		}
		return a
	}
	if a.MultiInstance != nil || (a.HasIOScope() && !x.isIOScope()) {
		return nil
	}
	return a
}

// migrateHistory moves in's history to the target definition: the
// process instance, its running activity instances, open tasks and open
// incidents (ended ones stay with the definition they ran in).
func (c *command) migrateHistory(in *instance, m *migration, incidents []*persistence.Incident) error {
	tgt, piID := m.tgt, in.root.ID
	if e, err := c.cc.Get(persistence.HistoricProcessInstanceTable, piID); err == nil {
		h := e.(*persistence.HistoricProcessInstance)
		h.ProcessDefinitionID, h.ProcessDefinitionKey = tgt.ID, tgt.Key
		h.ProcessDefinitionName, h.ProcessDefinitionVersion = tgt.Name, tgt.Version
		c.cc.Update(h)
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	acts, err := tx.Select(c.cc, persistence.HistoricActivityFilter{ProcessInstanceID: piID, Unfinished: true}.Query())
	if err != nil {
		return err
	}
	for _, h := range acts {
		if tid := m.target(h.ActivityID); tid != "" {
			h.ActivityID = tid
			if a := tgt.Process.Activity(stripBody(tid)); a != nil {
				h.ActivityName = a.Name
			}
		}
		h.ProcessDefinitionID = tgt.ID
		c.cc.Update(h)
	}
	tasks, err := tx.Select(c.cc, persistence.HistoricTaskFilter{ProcessInstanceID: piID, Unfinished: true}.Query())
	if err != nil {
		return err
	}
	for _, h := range tasks {
		h.ProcessDefinitionID, h.ProcessDefinitionKey = tgt.ID, tgt.Key
		h.TaskDefinitionKey = orKeep(m.target(h.TaskDefinitionKey), h.TaskDefinitionKey)
		c.cc.Update(h)
	}
	for _, i := range incidents {
		e, err := c.cc.Get(persistence.HistoricIncidentTable, i.ID)
		if errors.Is(err, persistence.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		h := e.(*persistence.HistoricIncident)
		h.ProcessDefinitionID, h.ActivityID, h.FailedActivityID, h.JobDefinitionID = i.ProcessDefinitionID, i.ActivityID, i.FailedActivityID, i.JobDefinitionID
		c.cc.Update(h)
	}
	return nil
}
