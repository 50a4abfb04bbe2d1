package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Errors of runtime commands.
var (
	// ErrSuspended: the definition or instance is suspended.
	ErrSuspended = errors.New("suspended")
	// ErrNoMatch: a message or signal found nobody waiting for it.
	ErrNoMatch = errors.New("no matching subscription")
	// ErrAmbiguous: a correlation for exactly one receiver matched several.
	ErrAmbiguous = errors.New("ambiguous correlation")
)

// command runs fn as one command with runtime state, then drains the agenda.
func (e *Core) command(ctx context.Context, t persistence.Tx, name string, fn func(c *command) error) (err error) {
	ctx, end := e.startSpan(ctx, "bpmnlite."+name)
	defer func() { end(err) }()
	body := func(cc *tx.Context) error {
		c := e.newCommand(cc)
		if err := fn(c); err != nil && !errors.Is(err, errListenerThrew) {
			return err
		}
		if err := c.run(); err != nil || c.settled == nil {
			return err
		}
		return c.settled()
	}
	if t != nil {
		return e.quoting(e.cmd.RunIn(ctx, t, body))
	}
	return e.quoting(e.cmd.Run(ctx, body))
}

// BeginOuter begins a transaction in which several commands commit
// together: pass it as their transaction, then commit or roll it back.
func (e *Core) BeginOuter(ctx context.Context) (*tx.Outer, error) {
	return e.cmd.Begin(ctx)
}

// StartRequest starts a process instance.
type StartRequest struct {
	DefinitionID string // or Key: the latest version of the process with this key
	Key          string
	// VersionTag, with Key, starts the latest version with this
	// camunda:versionTag.
	VersionTag string
	// TenantID, with Key, starts the latest version of this tenant's;
	// WithoutTenantID that of no tenant. Without either, Key must be
	// deployed by one tenant (or none) only (else an *AmbiguousKeyError).
	TenantID        string
	WithoutTenantID bool
	BusinessKey     string
	Variables       map[string]any
	// StartBefore starts the instance directly before this activity, skipping
	// the start event (process instance modification).
	StartBefore string
	// Instructions start the instance directly before each of several
	// activities (Camunda's startBeforeActivity, given several times), each
	// path with variables local to the execution entering its activity.
	// Used instead of StartBefore.
	Instructions []StartInstruction
}

// StartInstruction is one path of a process instance started by
// modification: the activity it starts before, inside embedded subprocesses
// too, and variables local to the execution that enters it.
type StartInstruction struct {
	ActivityID string
	Variables  map[string]any
}

// Start starts a process instance and runs it to its first wait states, all
// in one transaction (t, when not nil, is the caller's). It returns the
// process instance id.
func (e *Core) Start(ctx context.Context, t persistence.Tx, req StartRequest) (string, error) {
	ids, err := e.StartAll(ctx, t, []StartRequest{req})
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// StartAll starts process instances as Start does, all in one
// transaction: all start, or none. It returns their ids in order.
func (e *Core) StartAll(ctx context.Context, t persistence.Tx, reqs []StartRequest) ([]string, error) {
	var ids []string
	err := e.command(ctx, t, "start", func(c *command) error {
		ids = ids[:0]
		for _, req := range reqs {
			id, err := c.start(req)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// start starts the instance req asks for and returns its id.
func (c *command) start(req StartRequest) (id string, err error) {
	var def *Definition
	switch {
	case req.DefinitionID != "":
		def, err = c.definition(req.DefinitionID)
	case req.Key != "":
		if req.TenantID != "" || req.WithoutTenantID {
			def, err = c.latestDefinition(req.Key, req.TenantID, req.VersionTag)
		} else {
			def, err = c.latestDefinitionOfAnyTenant(req.Key, req.VersionTag)
		}
	default:
		err = errors.New("start: a process definition id or key is required")
	}
	if err != nil {
		return "", err
	}
	started := func(in *instance) {
		id = in.root.ID
		if c.e.tracing() {
			annotate(c.cc, attrDefinitionKey.String(def.Key), attrInstanceID.String(id))
		}
	}
	instructions := req.Instructions
	switch {
	case req.StartBefore != "" && len(instructions) > 0:
		return "", errors.New("start: give StartBefore or Instructions, not both")
	case req.StartBefore != "":
		instructions = []StartInstruction{{ActivityID: req.StartBefore}}
	case len(instructions) == 0:
		in, err := c.startInstance(def, req.BusinessKey, "", req.Variables, initialActivity(def))
		if err != nil {
			return "", err
		}
		started(in)
		return id, nil
	}
	targets := make([]*bpmn.Activity, len(instructions))
	for i, ins := range instructions {
		if targets[i] = def.Process.Activity(ins.ActivityID); targets[i] == nil {
			return "", fmt.Errorf("start before %q: no such activity in process %q: %w", ins.ActivityID, def.Key, persistence.ErrNotFound)
		}
	}
	in, err := c.createInstance(def, req.BusinessKey, "", req.Variables, targets[0].ID)
	if err != nil {
		return "", err
	}
	for i, ins := range instructions {
		if err := c.startBefore(in, targets[i], ins.Variables, len(instructions) > 1); err != nil {
			return "", err
		}
	}
	started(in)
	return id, nil
}

// Trigger continues an execution waiting at a receive task or catch event
// (Camunda's runtimeService.signal(executionId)).
func (e *Core) Trigger(ctx context.Context, t persistence.Tx, executionID string, vars map[string]any) error {
	return e.command(ctx, t, "trigger", func(c *command) error {
		x, err := c.execution(executionID)
		if err != nil {
			return err
		}
		// A path whose activity runs in a child execution (an input/output
		// scope) is not the one waiting: queries show it at no activity.
		if x.ActivityID == "" || x.IsActive || len(x.activeChildren()) > 0 {
			return fmt.Errorf("%s is not waiting", x)
		}
		// Only receive tasks and catch events wait for a trigger: a user
		// task waits for its completion, a call activity for its instance.
		if a := x.activity(); a == nil || (a.Kind != bpmn.ReceiveTask && a.Kind != bpmn.IntermediateCatchEvent) {
			return fmt.Errorf("%s cannot be triggered: only receive tasks and intermediate catch events wait for a trigger", x)
		}
		return c.trigger(x, x.ActivityID, vars)
	})
}

// SetVariables sets variables visible from an execution (local: in its own
// scope). A process instance id is its root execution's id.
func (e *Core) SetVariables(ctx context.Context, t persistence.Tx, executionID string, vars map[string]any, local bool) error {
	return e.command(ctx, t, "set_variables", func(c *command) error {
		x, err := c.execution(executionID)
		if err != nil {
			return err
		}
		return x.setVariables(vars, local)
	})
}

// Variables returns the variables visible from an execution.
func (e *Core) Variables(ctx context.Context, executionID string) (map[string]any, error) {
	var out map[string]any
	err := e.command(ctx, nil, "variables", func(c *command) error {
		x, err := c.execution(executionID)
		if errors.Is(err, persistence.ErrNotFound) {
			return c.endedVariables(executionID, &out, err)
		}
		if err != nil {
			return err
		}
		out, err = x.variables()
		return err
	})
	return out, err
}

// endedVariables reads the variables process instance id had when it
// ended, from history; notFound is the error when it is no ended instance.
func (c *command) endedVariables(id string, out *map[string]any, notFound error) error {
	if _, err := c.cc.Get(persistence.HistoricProcessInstanceTable, id); err != nil {
		return notFound
	}
	rows, err := tx.Select(c.cc, persistence.HistoricVariablesOf(id))
	if err != nil {
		return err
	}
	*out = make(map[string]any, len(rows))
	for _, r := range rows {
		v, err := decodeVariable(&r.Variable)
		if err != nil {
			return err
		}
		(*out)[r.Name] = v
	}
	return nil
}

// DeleteOptions say how a process instance is deleted, as Camunda's
// deleteProcessInstance does.
type DeleteOptions struct {
	Reason string
	// SkipCustomListeners: the execution and task listeners of the
	// cancelled activities and of the process do not run.
	SkipCustomListeners bool
	// SkipSubprocesses: the instances its call activities started keep
	// running, on their own, instead of being deleted with it.
	SkipSubprocesses bool
}

// DeleteProcessInstance cancels a running process instance.
func (e *Core) DeleteProcessInstance(ctx context.Context, t persistence.Tx, id string, opt DeleteOptions) error {
	return e.command(ctx, t, "delete_process_instance", func(c *command) error {
		in, err := c.loadInstance(id)
		if err != nil {
			return err
		}
		return c.deleteByAPI(in, opt)
	})
}
