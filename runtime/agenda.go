package runtime

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// command is the runtime state of one command: the instances it touched and
// the agenda of operations still to run.
type command struct {
	e             *Core
	cc            *tx.Context
	instances     map[string]*instance
	agenda        []func() error
	jobDefs       map[string]map[jobDefKey]*persistence.JobDefinition // by process definition id
	jobDue        []*persistence.Job
	history       map[string]*persistence.HistoricActivityInstance // inserted by this command
	historicTasks map[string]*persistence.HistoricTask             // inserted by this command
	initialVars   string                                           // the instance whose start variables are being set (history: initial)
	startDef      *Definition                                      // definition of a timer start job being created or run
	defs          map[string]*Definition                           // the definitions the command uses, by id (definition)
	running       *persistence.Job                                 // the job this command runs, deleted by its runner
	ops           int                                              // operations run so far
	trail         []string                                         // the activities entered last, round robin, near the limit
	entered       int                                              // activities recorded in trail
	current       string                                           // the activity entered last: where a failure happened
	// wakesFetches: the command makes external tasks fetchable (see externalTasksReady).
	wakesFetches bool
	// started, ended: process instances, counted in the engine's Stats at
	// commit; rootStarted, activityStarts, activityEnds: meters.
	started, ended                            int64
	rootStarted, activityStarts, activityEnds int64
	jobSucceeded                              bool // the job this command ran succeeded
	// rescheduled: the running job set its own next due date, to be kept
	// and run again instead of deleted (the history cleanup job).
	rescheduled bool
	// returnVars: the process variables the command returns (see
	// CompleteTaskReturning); settled runs when its agenda is done.
	returnVars *returnedVariables
	settled    func() error
	// listenedTask is the user task whose task listeners run.
	listenedTask *persistence.Task
	// cancelling counts the cancellations whose end listeners run now.
	cancelling int
	// skipCustomListeners, skipSubprocesses: a deletion's options (see
	// DeleteOptions).
	skipCustomListeners, skipSubprocesses bool
	// skipIoMappings: a modification's option: input and output
	// parameters are not evaluated.
	skipIoMappings bool
	// reparented: the activity instances a migration moved to another
	// parent activity instance (migrate_scopes.go).
	reparented map[string]bool
	// varChanges and freshConditions are what conditional events are
	// evaluated for at the next save point or when the agenda drains
	// (events_conditional.go): the variable changes, and the subscriptions
	// made, since the last time.
	varChanges      []variableChange
	freshConditions map[string]freshWait // by subscription id
	conditionSeq    int                  // orders varChanges and freshConditions
	conditions      *conditionRound      // the round being fired, one event at a time
	settling        bool                 // settle fires events: no nested save point
	conditionsRead  map[string]bool      // instances whose conditional subscriptions are cached
}

func (e *Core) newCommand(cc *tx.Context) *command {
	c := &command{e: e, cc: cc, instances: make(map[string]*instance)}
	cc.AfterCommit(c.committed)
	return c
}

// push schedules an operation; operations run in order from the agenda, so
// long synchronous chains never grow the Go stack.
func (c *command) push(op func() error) { c.agenda = append(c.agenda, op) }

// run drains the agenda. It stops when the command's context ends (checked
// every 256 operations: it costs a lock) and when the command ran more
// operations than the engine allows, which only a loop without a wait state
// does.
func (c *command) run() error {
	for {
		if err := c.drain(); err != nil {
			return err
		}
		if more, err := c.evaluateConditions(); err != nil || !more {
			return err
		}
	}
}

// drain runs the operations on the agenda until none is left.
func (c *command) drain() error {
	limit := c.e.Config.Limits.MaxOperations
	for len(c.agenda) > 0 {
		c.ops++
		if c.ops&255 == 0 {
			if err := c.cc.Err(); err != nil {
				return fmt.Errorf("command stopped after %d operations: %w", c.ops, err)
			}
		}
		if limit > 0 && c.ops > limit {
			return c.loopError()
		}
		op := c.agenda[0]
		c.agenda[0] = nil
		c.agenda = c.agenda[1:]
		if err := op(); err != nil && !errors.Is(err, errListenerThrew) {
			return err
		}
	}
	return nil
}

// trailLength is how many of the last activities entered loopError names
// from; they are recorded only in the last operations before the limit,
// so that commands that end well below it pay nothing.
const trailLength = 64

// entering records that a path enters activity id, for loopError.
func (c *command) entering(id string) {
	c.current = id
	if limit := c.e.Config.Limits.MaxOperations; limit <= 0 || c.ops < limit-16*trailLength {
		return
	}
	if c.trail == nil {
		c.trail = make([]string, trailLength)
	}
	c.trail[c.entered%trailLength] = id
	c.entered++
}

// loopError names the activities entered last, most often first: the
// elements of the loop that kept the command from reaching a wait state.
func (c *command) loopError() error {
	counts := make(map[string]int)
	for _, id := range c.trail[:min(c.entered, trailLength)] {
		counts[id]++
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if counts[ids[i]] != counts[ids[j]] {
			return counts[ids[i]] > counts[ids[j]]
		}
		return ids[i] < ids[j]
	})
	return &LoopError{Operations: c.ops - 1, Activities: ids}
}

// ErrOperationLimit: a command ran the most operations the engine allows
// without reaching a wait state.
var ErrOperationLimit = errors.New("operation limit reached")

// LoopError reports a command stopped at the operation limit, with the
// activities it kept entering. errors.Is(err, ErrOperationLimit) holds.
type LoopError struct {
	Operations int
	Activities []string // the activities entered last, most often first
}

func (e *LoopError) Error() string {
	return fmt.Sprintf("the command ran %d operations without reaching a wait state, repeating %s: a loop with no wait state or asynchronous continuation? (the bound is the engine's MaxOperations)",
		e.Operations, quoteList(e.Activities))
}

func (e *LoopError) Unwrap() error { return ErrOperationLimit }

func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = "'" + id + "'"
	}
	return strings.Join(q, ", ")
}

// instance is a process instance loaded into a command: its whole execution
// tree and, once needed, its variables.
type instance struct {
	c     *command
	def   *Definition
	root  *execution
	execs map[string]*execution
	// vars by execution id; loaded lazily for instances read from the database.
	vars       map[string]map[string]*persistence.Variable
	varsLoaded bool
	movedVars  [][2]string                          // from, to: compactions of this command before the variables were loaded
	started    bool                                 // process start listeners have run
	lastEnd    string                               // the end event that ended the last path, for history
	history    *persistence.HistoricProcessInstance // inserted by this command
	// transient: the transient variables set in this command, by execution
	// id, never written; removed: the variables removed in this command, by
	// execution id, each with whether it was transient (setLocal).
	transient map[string]map[string]*persistence.Variable
	removed   map[string]map[string]bool
}

// execution wraps an execution row with its place in the tree.
type execution struct {
	*persistence.Execution
	inst     *instance
	parent   *execution
	children []*execution
	removed  bool
	// replacedBy is the scope execution that took over this path when it
	// was compacted: operations already on the agenda continue there.
	replacedBy *execution
	// endListened: the end listeners of its activity ran (one threw a BPMN
	// error): the cancellation that follows does not run them again.
	endListened bool
}

func (x *execution) String() string {
	return fmt.Sprintf("execution %s (activity %q)", x.ID, x.ActivityID)
}

// activity returns the model activity the execution is at, or nil.
func (x *execution) activity() *bpmn.Activity {
	if x.ActivityID == "" {
		return nil
	}
	return x.inst.def.Process.Activity(stripBody(x.ActivityID))
}

// isMIBody reports whether x is the body of a multi-instance activity.
func (x *execution) isMIBody() bool { return isBodyID(x.ActivityID) }

func (x *execution) activeChildren() []*execution {
	var out []*execution
	for _, ch := range x.children {
		if !ch.removed {
			out = append(out, ch)
		}
	}
	return out
}

// loadInstance returns the instance with id, loading its execution tree on
// first use in this command.
func (c *command) loadInstance(id string) (*instance, error) {
	if in := c.instances[id]; in != nil {
		return in, nil
	}
	rows, err := tx.Select(c.cc, persistence.ExecutionsOfInstance(id))
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("process instance %q: %w", id, persistence.ErrNotFound)
	}
	in := &instance{c: c, execs: make(map[string]*execution, len(rows))}
	for _, r := range rows {
		x := &execution{Execution: r, inst: in}
		in.execs[x.ID] = x
	}
	for _, x := range in.execs {
		if x.ParentID == "" {
			in.root = x
			continue
		}
		p := in.execs[x.ParentID]
		if p == nil {
			return nil, fmt.Errorf("execution %s: parent %s missing", x.ID, x.ParentID)
		}
		x.parent = p
		p.children = append(p.children, x)
	}
	if in.root == nil {
		return nil, fmt.Errorf("process instance %q has no root execution", id)
	}
	for _, x := range in.execs {
		// Children in creation order, so forks and multi-instance run predictably.
		sort.Slice(x.children, func(i, j int) bool {
			return x.children[i].StartTime.Before(x.children[j].StartTime) || (x.children[i].StartTime.Equal(x.children[j].StartTime) && x.children[i].ID < x.children[j].ID)
		})
	}
	in.def, err = c.definition(in.root.ProcessDefinitionID)
	if err != nil {
		return nil, err
	}
	c.instances[id] = in
	return in, nil
}

// execution loads the instance of execution id and returns the execution.
func (c *command) execution(id string) (*execution, error) {
	for _, in := range c.instances {
		if x := in.execs[id]; x != nil && !x.removed {
			return x, nil
		}
	}
	ent, err := c.cc.Get(persistence.ExecutionTable, id)
	if err != nil {
		return nil, fmt.Errorf("execution %q: %w", id, err)
	}
	in, err := c.loadInstance(ent.(*persistence.Execution).ProcessInstanceID)
	if err != nil {
		return nil, err
	}
	x := in.execs[id]
	if x == nil || x.removed {
		return nil, fmt.Errorf("execution %q: %w", id, persistence.ErrNotFound)
	}
	return x, nil
}

// newInstance creates the root execution of a new process instance.
func (c *command) newInstance(def *Definition, businessKey, superExecutionID string) *instance {
	now := c.cc.Now().UTC()
	id := newID()
	root := &persistence.Execution{
		ID:                    id,
		Rev:                   1,
		ProcessInstanceID:     id,
		ProcessDefinitionID:   def.ID,
		BusinessKey:           businessKey,
		SuperExecutionID:      superExecutionID,
		IsActive:              true,
		IsScope:               true,
		Suspension:            persistence.Active,
		StartTime:             now,
		RootProcessInstanceID: id,
		TenantID:              def.TenantID,
	}
	if superExecutionID != "" {
		// The caller is loaded: its call activity is starting this instance.
		if super, err := c.execution(superExecutionID); err == nil {
			root.RootProcessInstanceID = super.inst.rootID()
		}
	}
	c.cc.Insert(root)
	c.started++
	if superExecutionID == "" {
		c.rootStarted++
	}
	in := &instance{c: c, def: def, execs: map[string]*execution{}, vars: map[string]map[string]*persistence.Variable{}, varsLoaded: true}
	in.root = &execution{Execution: root, inst: in}
	in.execs[id] = in.root
	c.instances[id] = in
	return in
}

// rootID is the top of the instance's call hierarchy.
func (in *instance) rootID() string {
	if id := in.root.RootProcessInstanceID; id != "" {
		return id
	}
	return in.root.ID
}

// newChild creates a child execution of parent (a token in parent's scope).
func (c *command) newChild(parent *execution) *execution {
	in := parent.inst
	row := &persistence.Execution{
		ID:                  newID(),
		Rev:                 1,
		ProcessInstanceID:   in.root.ID,
		ParentID:            parent.ID,
		ProcessDefinitionID: in.def.ID,
		IsActive:            true,
		Suspension:          parent.Suspension,
		StartTime:           c.cc.Now().UTC(),
		TenantID:            in.def.TenantID,
	}
	c.cc.Insert(row)
	x := &execution{Execution: row, inst: in, parent: parent}
	parent.children = append(parent.children, x)
	in.execs[row.ID] = x
	return x
}

// removeExecution deletes x (which must have no live children) and its
// local variables.
func (c *command) removeExecution(x *execution) error {
	if x.removed {
		return nil
	}
	c.deleteVariablesOf(x.inst, x.ID)
	if err := c.disarmEventSubprocesses(x); err != nil {
		return err
	}
	if err := c.dropCompensations(x); err != nil {
		return err
	}
	x.removed = true
	c.cc.Delete(x.Execution)
	return nil
}

// touch bumps x's revision at flush even if nothing else changed: the
// optimistic-lock point where concurrent transactions meet (joins, scope ends).
func (c *command) touch(x *execution) { c.cc.Update(x.Execution) }

// update marks x changed.
func (c *command) update(x *execution) { c.cc.Update(x.Execution) }
