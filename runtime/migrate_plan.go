package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Migration plans, as Camunda's MigrationPlan: which activity of the source
// process definition each running activity instance moves to in the
// target. A plan maps activities one to one (a multi-instance body is
// mapped by its "<id>#multiInstanceBody" id, as in Camunda). As in Camunda,
// an activity may move into embedded subprocesses the source does not have
// (they are created) or out of ones the target does not map (they are
// removed, as are multi-instance bodies the plan does not map), as long as
// its closest mapped ancestor is mapped to an
// ancestor of its target (see migrate_scopes.go).

// MigrationInstruction maps a source activity to a target activity.
// UpdateEventTrigger re-creates the activity's event trigger from the
// target (a timer's due date, a message's or signal's name) instead of
// keeping the source's.
type MigrationInstruction struct {
	SourceActivityIDs  []string
	TargetActivityIDs  []string
	UpdateEventTrigger bool
}

func (i MigrationInstruction) String() string {
	return fmt.Sprintf("MigrationInstructionImpl{sourceActivityIds=[%s], targetActivityIds=[%s], updateEventTrigger=%t}",
		strings.Join(i.SourceActivityIDs, ", "), strings.Join(i.TargetActivityIDs, ", "), i.UpdateEventTrigger)
}

// MigrationPlan moves instances of SourceProcessDefinitionID to
// TargetProcessDefinitionID; Variables are set on every migrated process
// instance (Camunda 7.17's plan variables).
type MigrationPlan struct {
	SourceProcessDefinitionID string
	TargetProcessDefinitionID string
	Instructions              []MigrationInstruction
	Variables                 map[string]any
}

// MigrationInstructionReport names an invalid instruction and why.
type MigrationInstructionReport struct {
	Instruction MigrationInstruction
	Failures    []string
}

// MigrationPlanReport is the validation report of a plan (Camunda's
// MigrationPlanValidationReport): empty when the plan is valid.
type MigrationPlanReport struct {
	InstructionReports []MigrationInstructionReport
	// VariableReports: the plan variables that cannot be stored, by name.
	VariableReports map[string][]string
}

// Valid reports whether the report found nothing wrong.
func (r *MigrationPlanReport) Valid() bool {
	return len(r.InstructionReports) == 0 && len(r.VariableReports) == 0
}

// ErrMigration is what every migration refusal matches (errors.Is).
var ErrMigration = errors.New("migration refused")

// MigrationPlanError is a plan that does not validate (Camunda's
// MigrationPlanValidationException).
type MigrationPlanError struct {
	Plan   MigrationPlan
	Report MigrationPlanReport
}

func (e *MigrationPlanError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Migration plan for process definition '%s' to '%s' is not valid:\n", e.Plan.SourceProcessDefinitionID, e.Plan.TargetProcessDefinitionID)
	for _, r := range e.Report.InstructionReports {
		fmt.Fprintf(&b, "\t Migration instruction %s is not valid:\n", r.Instruction)
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "\t\t%s\n", f)
		}
	}
	for _, name := range sortedKeys(e.Report.VariableReports) {
		fmt.Fprintf(&b, "\t Migration variable %s is not valid:\n", name)
		for _, f := range e.Report.VariableReports[name] {
			fmt.Fprintf(&b, "\t\t%s\n", f)
		}
	}
	return b.String()
}

func (e *MigrationPlanError) Unwrap() error { return ErrMigration }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// migrationNode is an activity of a plan: a BPMN activity, or the
// multi-instance body of one.
type migrationNode struct {
	a    *bpmn.Activity // nil: the process itself
	body bool
}

func (n migrationNode) id() string {
	switch {
	case n.a == nil:
		return ""
	case n.body:
		return n.a.MultiInstanceBodyID()
	}
	return n.a.ID
}

// nodeOf finds the activity id names in p.
func nodeOf(p *bpmn.Process, id string) (migrationNode, bool) {
	a := p.Activity(stripBody(id))
	if a == nil || (isBodyID(id) && a.MultiInstance == nil) {
		return migrationNode{}, false
	}
	return migrationNode{a: a, body: isBodyID(id)}, true
}

// flowScope is the scope n runs in: the body of a multi-instance activity
// for its inner activity, the enclosing subprocess, or the process.
func (n migrationNode) flowScope() migrationNode {
	if n.a == nil {
		return n
	}
	if !n.body && n.a.MultiInstance != nil {
		return migrationNode{a: n.a, body: true}
	}
	if n.a.Parent == nil {
		return migrationNode{}
	}
	return migrationNode{a: n.a.Parent}
}

// eventScope is where n's event trigger lives when that is not n's flow
// scope: the activity a boundary event is attached to (its body when it
// is multi-instance), the scope an event subprocess runs in for its start
// event; nil for other activities.
func (n migrationNode) eventScope() *migrationNode {
	switch {
	case n.a == nil || n.body:
		return nil
	case n.a.IsEventSubprocessStart():
		es := n.flowScope().flowScope()
		return &es
	case n.a.Kind != bpmn.BoundaryEvent || n.a.AttachedTo == nil:
		return nil
	}
	at := n.a.AttachedTo
	return &migrationNode{a: at, body: at.MultiInstance != nil}
}

// scopeID names a scope in a report: the process by its id.
func (n migrationNode) scopeID(p *bpmn.Process) string {
	if n.a == nil {
		return p.ID
	}
	return n.id()
}

// migrationType is the type an activity must keep when it migrates, and
// whether bpmnlite migrates instances of it ("" when it does not). As in
// Camunda: wait states, scopes, events that wait passively, joins, and
// any activity with an asynchronous continuation.
func migrationType(n migrationNode) string {
	if n.body {
		if n.a.MultiInstance.Sequential {
			return "sequentialMultiInstanceBody"
		}
		return "parallelMultiInstanceBody"
	}
	a := n.a
	typ := activityType(a)
	switch a.Kind {
	case bpmn.UserTask, bpmn.ReceiveTask, bpmn.CallActivity, bpmn.ParallelGateway, bpmn.InclusiveGateway:
		return typ
	case bpmn.SubProcess:
		if a.TriggeredByEvent {
			return "eventSubProcess"
		}
		return typ
	case bpmn.ServiceTask, bpmn.SendTask, bpmn.BusinessRuleTask:
		if a.External {
			return "externalTask"
		}
	case bpmn.IntermediateCatchEvent:
		switch a.Event {
		case bpmn.MessageEvent, bpmn.SignalEvent, bpmn.TimerEvent, bpmn.ConditionalEvent:
			return typ
		}
	case bpmn.BoundaryEvent:
		switch a.Event {
		case bpmn.MessageEvent, bpmn.SignalEvent, bpmn.TimerEvent, bpmn.ConditionalEvent:
			return typ
		}
		return ""
	case bpmn.StartEvent:
		if a.IsEventSubprocessStart() {
			switch a.Event {
			case bpmn.MessageEvent, bpmn.SignalEvent, bpmn.TimerEvent, bpmn.ConditionalEvent:
				return typ
			}
			return ""
		}
	}
	if a.AsyncBefore || a.AsyncAfter || (a.MultiInstance != nil && (a.MultiInstance.AsyncBefore || a.MultiInstance.AsyncAfter)) {
		return typ
	}
	return ""
}

// hasEventTrigger reports whether n waits for a persistent trigger that
// updateEventTrigger can re-create: a message, signal, timer or condition.
func hasEventTrigger(n migrationNode) bool {
	if n.body {
		return false
	}
	a := n.a
	if a.Kind == bpmn.ReceiveTask {
		return true
	}
	switch a.Kind {
	case bpmn.IntermediateCatchEvent, bpmn.BoundaryEvent, bpmn.StartEvent:
		switch a.Event {
		case bpmn.MessageEvent, bpmn.SignalEvent, bpmn.TimerEvent, bpmn.ConditionalEvent:
			return a.Kind != bpmn.StartEvent || a.IsEventSubprocessStart()
		}
	}
	return false
}

// isPassiveTrigger: a boundary event or an event subprocess start event,
// whose trigger belongs to another activity's (or scope's) execution.
func isPassiveTrigger(a *bpmn.Activity) bool {
	return a != nil && (a.Kind == bpmn.BoundaryEvent || a.IsEventSubprocessStart())
}

// ValidateMigrationPlan checks plan against its two definitions (Camunda's
// creation-time validation) and returns the report.
func (e *Core) ValidateMigrationPlan(ctx context.Context, plan MigrationPlan) (*MigrationPlanReport, error) {
	var report *MigrationPlanReport
	err := e.command(ctx, nil, "migration_validate", func(c *command) error {
		src, tgt, err := c.migrationDefinitions(plan)
		if err != nil {
			return err
		}
		report = validatePlan(plan, src.Process, tgt.Process, e.Config.Limits.MaxVariableBytes)
		return nil
	})
	return report, err
}

// GenerateMigrationPlan maps the equal activities of two definitions
// (Camunda's mapEqualActivities): same id, same type, in scopes mapped to
// each other, keeping only the instructions that validate.
func (e *Core) GenerateMigrationPlan(ctx context.Context, sourceID, targetID string, updateEventTriggers bool) (*MigrationPlan, error) {
	plan := &MigrationPlan{SourceProcessDefinitionID: sourceID, TargetProcessDefinitionID: targetID}
	err := e.command(ctx, nil, "migration_generate", func(c *command) error {
		src, tgt, err := c.migrationDefinitions(*plan)
		if err != nil {
			return err
		}
		plan.Instructions = generateInstructions(src.Process, tgt.Process, updateEventTriggers)
		return nil
	})
	return plan, err
}

// migrationDefinitions loads the plan's two definitions.
func (c *command) migrationDefinitions(plan MigrationPlan) (*Definition, *Definition, error) {
	if plan.SourceProcessDefinitionID == "" || plan.TargetProcessDefinitionID == "" {
		return nil, nil, fmt.Errorf("%w: a migration plan needs a source and a target process definition id", ErrMigration)
	}
	src, err := c.definition(plan.SourceProcessDefinitionID)
	if err != nil {
		return nil, nil, fmt.Errorf("source process definition with id '%s' does not exist: %w", plan.SourceProcessDefinitionID, err)
	}
	tgt, err := c.definition(plan.TargetProcessDefinitionID)
	if err != nil {
		return nil, nil, fmt.Errorf("target process definition with id '%s' does not exist: %w", plan.TargetProcessDefinitionID, err)
	}
	if src.TenantID != tgt.TenantID {
		return nil, nil, fmt.Errorf("%w: cannot migrate from tenant '%s' to a process definition of tenant '%s'", ErrMigration, src.TenantID, tgt.TenantID)
	}
	return src, tgt, nil
}

// generateInstructions walks the source scopes top down: an activity maps
// to the target's of the same id and type in the scope its own scope is
// mapped to. Instructions that do not validate are left out.
func generateInstructions(src, tgt *bpmn.Process, updateEventTriggers bool) []MigrationInstruction {
	var out []MigrationInstruction
	var nodes []migrationNode
	for _, a := range src.AllActivities() {
		if a.MultiInstance != nil {
			nodes = append(nodes, migrationNode{a: a, body: true})
		}
		nodes = append(nodes, migrationNode{a: a})
	}
	for _, s := range nodes {
		t, ok := nodeOf(tgt, s.id())
		typ := migrationType(s)
		if !ok || typ == "" || migrationType(t) != typ {
			continue
		}
		in := MigrationInstruction{SourceActivityIDs: []string{s.id()}, TargetActivityIDs: []string{t.id()},
			UpdateEventTrigger: hasEventTrigger(s) && (updateEventTriggers || s.a.Event == bpmn.ConditionalEvent)}
		out = append(out, in)
	}
	// Dropping an instruction may invalidate those within its scope:
	// repeat until what is left validates and maps each activity between
	// scopes mapped to each other (generation never adds or removes a
	// scope, as Camunda's).
	for {
		report := validatePlan(MigrationPlan{Instructions: out}, src, tgt, 0)
		mapped := map[string]string{}
		for _, in := range out {
			mapped[in.SourceActivityIDs[0]] = in.TargetActivityIDs[0]
		}
		n := len(out)
		out = slices.DeleteFunc(out, func(in MigrationInstruction) bool {
			s, _ := nodeOf(src, in.SourceActivityIDs[0])
			t, _ := nodeOf(tgt, in.TargetActivityIDs[0])
			sfs, tfs := s.flowScope(), t.flowScope()
			if (sfs.a == nil) != (tfs.a == nil) || (sfs.a != nil && mapped[sfs.id()] != tfs.id()) {
				return true
			}
			return slices.ContainsFunc(report.InstructionReports, func(r MigrationInstructionReport) bool {
				return slices.Equal(r.Instruction.SourceActivityIDs, in.SourceActivityIDs)
			})
		})
		if len(out) == n {
			return out
		}
	}
}

// validatePlan returns the failures of each instruction of plan and of
// its variables (maxVarBytes: the engine's variable size limit, 0: none).
func validatePlan(plan MigrationPlan, src, tgt *bpmn.Process, maxVarBytes int) *MigrationPlanReport {
	report := &MigrationPlanReport{}
	// The mapping of every well-formed instruction, to check scopes.
	mapped := map[string]string{}
	targets := map[string]int{}
	sources := map[string]int{}
	for _, in := range plan.Instructions {
		if len(in.SourceActivityIDs) == 1 && len(in.TargetActivityIDs) == 1 {
			mapped[in.SourceActivityIDs[0]] = in.TargetActivityIDs[0]
			targets[in.TargetActivityIDs[0]]++
			sources[in.SourceActivityIDs[0]]++
		}
	}
	for _, in := range plan.Instructions {
		var failures []string
		fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
		if len(in.SourceActivityIDs) != 1 || len(in.TargetActivityIDs) != 1 {
			fail("An instruction maps exactly one source activity to one target activity (got %d source and %d target activities)",
				len(in.SourceActivityIDs), len(in.TargetActivityIDs))
			report.InstructionReports = append(report.InstructionReports, MigrationInstructionReport{in, failures})
			continue
		}
		sid, tid := in.SourceActivityIDs[0], in.TargetActivityIDs[0]
		s, sok := nodeOf(src, sid)
		t, tok := nodeOf(tgt, tid)
		if !sok {
			fail("Source activity '%s' does not exist", sid)
		}
		if !tok {
			fail("Target activity '%s' does not exist", tid)
		}
		if sok && tok {
			failures = append(failures, instructionFailures(in, s, t, mapped, sources, targets)...)
		}
		if len(failures) > 0 {
			report.InstructionReports = append(report.InstructionReports, MigrationInstructionReport{in, failures})
		}
	}
	for name, v := range plan.Variables {
		r := persistence.Variable{Name: name}
		if err := encodeVariable(&r, v, maxVarBytes); err != nil {
			if report.VariableReports == nil {
				report.VariableReports = map[string][]string{}
			}
			report.VariableReports[name] = append(report.VariableReports[name], fmt.Sprintf("Cannot set variable with name %s: %v", name, err))
		}
	}
	return report
}

// instructionFailures applies Camunda's instruction validators that
// bpmnlite needs, with their messages, and its own limits on scopes.
func instructionFailures(in MigrationInstruction, s, t migrationNode, mapped map[string]string, sources, targets map[string]int) []string {
	var failures []string
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	styp, ttyp := migrationType(s), migrationType(t)
	switch {
	case styp == "":
		fail("The type of the source activity '%s' (%s) is not supported for activity instance migration", s.id(), activityType(s.a))
	case ttyp == "":
		fail("The type of the target activity '%s' (%s) is not supported for activity instance migration", t.id(), activityType(t.a))
	case styp != ttyp && (isPassiveTrigger(s.a) || s.a.Kind == bpmn.IntermediateCatchEvent):
		fail("Events are not of the same type (%s != %s)", styp, ttyp)
	case styp != ttyp:
		fail("Activities have incompatible types (%s is not compatible with %s)", styp, ttyp)
	}
	if sources[s.id()] > 1 {
		fail("There are multiple mappings for source activity id '%s'", s.id())
	}
	if targets[t.id()] > 1 && (isPassiveTrigger(t.a) || t.a.Kind == bpmn.ParallelGateway || t.a.Kind == bpmn.InclusiveGateway) {
		fail("Only one source activity can be mapped to '%s': several source activities are mapped to it", t.id())
	}
	failures = append(failures, multiInstanceFailures(s, t, sources, targets)...)
	if se := s.eventScope(); se != nil {
		te := t.eventScope()
		switch {
		case te == nil:
			fail("The source activity's event scope (%s) must be mapped but the target activity has no event scope", se.scopeID(s.a.Process))
		case (se.a == nil) != (te.a == nil) || (se.a != nil && mapped[se.id()] != te.id()):
			fail("The source activity's event scope (%s) must be mapped to the target activity's event scope (%s)", se.scopeID(s.a.Process), te.scopeID(t.a.Process))
		}
	}
	if !s.body && !t.body && s.a.HasIOScope() != t.a.HasIOScope() {
		fail("Only one of the source and the target activity has input/output mappings: bpmnlite does not add or remove the scope they open in a migration")
	}
	if in.UpdateEventTrigger && !hasEventTrigger(s) {
		fail("Cannot update event trigger because the activity does not define a persistent event trigger")
	}
	failures = append(failures, ancestorFailures(s, t, mapped)...)
	if !in.UpdateEventTrigger && !s.body && s.a.Event == bpmn.ConditionalEvent && hasEventTrigger(s) {
		fail("Conditional event has to migrate with update event trigger.")
	}
	if (s.a.Kind == bpmn.ParallelGateway || s.a.Kind == bpmn.InclusiveGateway) && !s.body && len(t.a.Incoming) < len(s.a.Incoming) {
		fail("The target gateway must have at least the same number of incoming sequence flows that the source gateway has")
	}
	return failures
}

// multiInstanceFailures applies Camunda's CannotAddMultiInstanceBody,
// CannotAddMultiInstanceInnerActivity and
// CannotRemoveMultiInstanceInnerActivity validators.
func multiInstanceFailures(s, t migrationNode, sources, targets map[string]int) []string {
	var failures []string
	// The target's flow scopes up to the first one something is mapped
	// to would be created: none may be a multi-instance body.
	for fs := t.flowScope(); fs.a != nil && targets[fs.id()] == 0; fs = fs.flowScope() {
		if fs.body {
			failures = append(failures, fmt.Sprintf("Target activity '%s' is a descendant of multi-instance body '%s' that is not mapped from the source process definition.", t.id(), fs.id()))
			break
		}
	}
	if t.body && targets[t.a.ID] == 0 {
		failures = append(failures, "Must map the inner activity of a multi-instance body when the body is mapped")
	}
	if s.body && sources[s.a.ID] == 0 {
		failures = append(failures, "Cannot remove the inner activity of a multi-instance body when the body is mapped")
	}
	return failures
}

// ancestorFailures applies Camunda's AdditionalFlowScopeInstructionValidator
// (the closest mapped ancestor of the source must be mapped to an ancestor
// of the target) and bpmnlite's limits on the scopes a migration removes
// (the source's unmapped flow scopes below that ancestor) and adds (the
// target's flow scopes below the ancestor's target): multi-instance bodies
// (removed, as Camunda removes them), and embedded subprocesses outside
// multi-instance activities.
func ancestorFailures(s, t migrationNode, mapped map[string]string) []string {
	var failures []string
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	var removed []migrationNode
	anc := s.flowScope()
	for ; anc.a != nil && mapped[anc.id()] == ""; anc = anc.flowScope() {
		removed = append(removed, anc)
	}
	ancT := migrationNode{} // the process
	if anc.a != nil {
		var ok bool
		if ancT, ok = nodeOf(t.a.Process, mapped[anc.id()]); !ok {
			return nil // reported on the ancestor's instruction
		}
		if !ancT.isAncestorOf(t) {
			fail("The closest mapped ancestor '%s' is mapped to scope '%s' which is not an ancestor of target scope '%s'", anc.id(), ancT.id(), t.id())
			return failures
		}
	}
	if isPassiveTrigger(s.a) {
		return failures // no instance of it moves: its event scope's rule applies
	}
	var added []migrationNode
	for fs := t.flowScope(); fs.a != nil && fs.id() != ancT.id(); fs = fs.flowScope() {
		added = append(added, fs)
	}
	subprocesses := 0 // removed or added subprocesses: multi-instance bodies are removed anywhere
	for _, r := range removed {
		switch {
		case r.body:
			continue // removed as Camunda removes it (migrate_scopes.go)
		case r.a.MultiInstance != nil:
			fail("The multi-instance activity '%s' around the source activity is not mapped: bpmnlite removes a multi-instance body only when its inner activity is mapped", r.a.ID)
		case !isEmbeddedSubprocess(r.a):
			fail("The flow scope '%s' of the source activity is not mapped: bpmnlite removes only embedded subprocesses in a migration (not %s)", r.id(), scopeKind(r.a))
		}
		subprocesses++
	}
	for _, a := range added {
		if !a.body && a.a.MultiInstance == nil && !isEmbeddedSubprocess(a.a) {
			fail("The flow scope '%s' of the target activity is not mapped from the source: bpmnlite adds only embedded subprocesses in a migration (not %s)", a.id(), scopeKind(a.a))
		}
		subprocesses++
	}
	if subprocesses > 0 && (anc.inMultiInstance() || ancT.inMultiInstance()) {
		fail("The closest mapped ancestor '%s' lies in a multi-instance activity: bpmnlite does not add or remove scopes inside one in a migration", anc.id())
	}
	return failures
}

// isAncestorOf reports whether n is a flow scope of o, or of its flow
// scopes (the process is an ancestor of every activity).
func (n migrationNode) isAncestorOf(o migrationNode) bool {
	for fs := o.flowScope(); ; fs = fs.flowScope() {
		if fs.id() == n.id() {
			return true
		}
		if fs.a == nil {
			return false
		}
	}
}

// inMultiInstance reports whether n is, or lies in, a multi-instance
// activity.
func (n migrationNode) inMultiInstance() bool {
	for ; n.a != nil; n = n.flowScope() {
		if n.body || n.a.MultiInstance != nil {
			return true
		}
	}
	return false
}

// isEmbeddedSubprocess: a scope a migration may add or remove.
func isEmbeddedSubprocess(a *bpmn.Activity) bool {
	return a.Kind == bpmn.SubProcess && !a.TriggeredByEvent && !a.Transaction && a.MultiInstance == nil
}

func scopeKind(a *bpmn.Activity) string {
	switch {
	case a.TriggeredByEvent:
		return "an event subprocess"
	case a.Transaction:
		return "a transaction subprocess"
	}
	return "a " + activityType(a)
}
