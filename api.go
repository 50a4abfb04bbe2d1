package bpmnlite

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// Resource is a BPMN file to deploy.
type Resource = runtime.Resource

// DeployRequest describes a deployment: a name and its resources.
type DeployRequest = runtime.DeployRequest

// Deploy parses, validates and stores resources. Every problem of every file
// is reported at once in the error (a *ParseError per file); nothing is
// stored unless all files are valid. Files that are not process models
// (see IsProcessModel: forms, decision tables, HTML, scripts, images) are
// stored as they are. DeployRequest.TenantID makes the deployment a
// tenant's: its definitions, and what they start, carry the tenant.
func (e *Engine) Deploy(ctx context.Context, req DeployRequest) (*Deployment, error) {
	d, err := e.rt.Deploy(ctx, req)
	if err != nil {
		return nil, err
	}
	out := deploymentOf(d.Deployment)
	out.Definitions = copies(d.Definitions, func(p ProcessDefinition) ProcessDefinition { return p })
	out.DecisionDefinitions, out.DecisionRequirementsDefinitions = d.DecisionDefinitions, d.DecisionRequirementsDefinitions
	out.Skipped, out.Warnings, out.Unchanged = d.Skipped, d.Warnings, d.Unchanged
	out.FormDefinitions = d.FormDefinitions
	return &out, nil
}

// DeployFiles deploys BPMN files from disk under one deployment name. Files
// unchanged since that name's last deployment make no new version
// (Deployment.Unchanged), so a service may call it at every start; use
// Deploy to force a new version.
func (e *Engine) DeployFiles(ctx context.Context, name string, paths ...string) (*Deployment, error) {
	req := DeployRequest{Name: name, Source: "files", SkipUnchanged: true}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("bpmnlite: deploy: %w", err)
		}
		req.Resources = append(req.Resources, Resource{Name: filepath.Base(p), Bytes: b})
	}
	return e.Deploy(ctx, req)
}

// DeployFS deploys every file of fsys matching one of the glob patterns
// (default "*.bpmn" and "*.bpmn20.xml"), e.g. from an embed.FS; like
// DeployFiles, unchanged files make no new version.
func (e *Engine) DeployFS(ctx context.Context, name string, fsys fs.FS, patterns ...string) (*Deployment, error) {
	if len(patterns) == 0 {
		patterns = []string{"*.bpmn", "*.bpmn20.xml"}
	}
	req := DeployRequest{Name: name, Source: "fs", SkipUnchanged: true}
	for _, pat := range patterns {
		matches, err := fs.Glob(fsys, pat)
		if err != nil {
			return nil, fmt.Errorf("bpmnlite: deploy: pattern %q: %w", pat, err)
		}
		for _, m := range matches {
			b, err := fs.ReadFile(fsys, m)
			if err != nil {
				return nil, fmt.Errorf("bpmnlite: deploy: %w", err)
			}
			req.Resources = append(req.Resources, Resource{Name: m, Bytes: b})
		}
	}
	if len(req.Resources) == 0 {
		return nil, fmt.Errorf("bpmnlite: deploy %q: no file matches %v", name, patterns)
	}
	return e.Deploy(ctx, req)
}

// StartRequest starts a process instance by definition id or by key (the
// latest version), with a business key and variables; StartBefore starts
// directly before an activity instead of at the start event.
type StartRequest = runtime.StartRequest

// StartInstruction is one path of an instance started by modification
// (StartRequest.Instructions): the activity it starts before, and variables
// local to the execution entering it.
type StartInstruction = runtime.StartInstruction

// WithAuthenticatedUser returns ctx naming userID as the user the engine
// calls made with it act for, as Camunda's
// identityService.setAuthenticatedUserId: a process instance they start
// (by Start, a message or a signal start event, a call activity) stores it
// in the variable its start event's camunda:initiator names. Without one
// that variable is null. The REST server names the user of a request's
// basic authentication.
func WithAuthenticatedUser(ctx context.Context, userID string) context.Context {
	return runtime.WithAuthenticatedUser(ctx, userID)
}

// Start starts a process instance and runs it to its first wait states in
// one transaction. If anything fails, nothing is stored. It returns the
// process instance id.
func (e *Engine) Start(ctx context.Context, req StartRequest) (string, error) {
	return e.rt.Start(ctx, nil, req)
}

// StartTx is Start inside the caller's PostgreSQL transaction, so a service
// can start a process atomically with its own writes.
func (e *Engine) StartTx(ctx context.Context, t pgx.Tx, req StartRequest) (string, error) {
	return joinedTx(e, ctx, t, func(pt persistence.Tx) (string, error) { return e.rt.Start(ctx, pt, req) })
}

// CompleteTask completes a user task with variables and continues the
// instance to its next wait states. Completing a task twice concurrently:
// one call wins, the other gets ErrOptimisticLock (or ErrNotFound if it
// starts after the first committed).
func (e *Engine) CompleteTask(ctx context.Context, taskID string, vars map[string]any) error {
	return e.rt.CompleteTask(ctx, nil, taskID, vars)
}

// CompleteTaskTx is CompleteTask inside the caller's transaction.
func (e *Engine) CompleteTaskTx(ctx context.Context, t pgx.Tx, taskID string, vars map[string]any) error {
	return e.inPgxTx(ctx, t, func(pt persistence.Tx) error { return e.rt.CompleteTask(ctx, pt, taskID, vars) })
}

// ClaimTask makes userID the assignee of a user task, unless another user
// already has it (ErrTaskClaimed).
func (e *Engine) ClaimTask(ctx context.Context, taskID, userID string) error {
	return e.rt.ClaimTask(ctx, nil, taskID, userID)
}

// SetTaskAssignee sets (or, with "", clears) a user task's assignee.
func (e *Engine) SetTaskAssignee(ctx context.Context, taskID, userID string) error {
	return e.rt.SetTaskAssignee(ctx, nil, taskID, userID)
}

// CorrelateRequest delivers a message by name, optionally narrowed by
// business key, process instance and variable values.
type CorrelateRequest = runtime.CorrelateRequest

// Correlate delivers a message to the one execution waiting for it (or all,
// with All), or starts an instance at a message start event. It returns the
// receiving process instance ids. Nobody waiting is ErrNoMatch; a
// suspended instance does not wait.
func (e *Engine) Correlate(ctx context.Context, req CorrelateRequest) ([]string, error) {
	return e.rt.Correlate(ctx, nil, req)
}

// CorrelateTx is Correlate inside the caller's transaction.
func (e *Engine) CorrelateTx(ctx context.Context, t pgx.Tx, req CorrelateRequest) ([]string, error) {
	return joinedTx(e, ctx, t, func(pt persistence.Tx) ([]string, error) { return e.rt.Correlate(ctx, pt, req) })
}

// Signal broadcasts a signal to every execution waiting for it, but for
// those of suspended instances.
func (e *Engine) Signal(ctx context.Context, name string, vars map[string]any) error {
	return e.rt.Signal(ctx, nil, name, vars)
}

// ConditionEvaluation asks which processes start on a condition (see
// EvaluateStartConditions).
type ConditionEvaluation = runtime.ConditionEvaluation

// EvaluateStartConditions starts an instance of every latest process
// definition (or of ProcessDefinitionID) whose conditional start event's
// condition holds on the given variables, with them, and returns the new
// instances' ids, as Camunda's condition evaluation (REST POST
// /condition). A condition on a variable not given does not hold (nor
// does one whose camunda:variableName is not given); suspended definitions
// are skipped; none deployed is ErrNoConditionalStart.
func (e *Engine) EvaluateStartConditions(ctx context.Context, req ConditionEvaluation) ([]string, error) {
	return e.rt.EvaluateStartConditions(ctx, nil, req)
}

// SignalTx is Signal inside the caller's transaction.
func (e *Engine) SignalTx(ctx context.Context, t pgx.Tx, name string, vars map[string]any) error {
	return e.inPgxTx(ctx, t, func(pt persistence.Tx) error { return e.rt.Signal(ctx, pt, name, vars) })
}

// Trigger continues an execution waiting at a receive task (without a
// message) or a catch event, like Camunda's runtimeService.signal.
func (e *Engine) Trigger(ctx context.Context, executionID string, vars map[string]any) error {
	return e.rt.Trigger(ctx, nil, executionID, vars)
}

// TriggerTx is Trigger inside the caller's transaction.
func (e *Engine) TriggerTx(ctx context.Context, t pgx.Tx, executionID string, vars map[string]any) error {
	return e.inPgxTx(ctx, t, func(pt persistence.Tx) error { return e.rt.Trigger(ctx, pt, executionID, vars) })
}

// SetVariables sets variables where they are defined in the execution's
// scope chain, new ones on the process instance. A process instance id is
// an execution id too.
func (e *Engine) SetVariables(ctx context.Context, executionID string, vars map[string]any) error {
	return e.rt.SetVariables(ctx, nil, executionID, vars, false)
}

// SetVariablesLocal sets variables in the execution's own scope.
func (e *Engine) SetVariablesLocal(ctx context.Context, executionID string, vars map[string]any) error {
	return e.rt.SetVariables(ctx, nil, executionID, vars, true)
}

// SetVariablesTx is SetVariables inside the caller's transaction.
func (e *Engine) SetVariablesTx(ctx context.Context, t pgx.Tx, executionID string, vars map[string]any) error {
	return e.inPgxTx(ctx, t, func(pt persistence.Tx) error { return e.rt.SetVariables(ctx, pt, executionID, vars, false) })
}

// Variables returns the variables visible from an execution (or process
// instance): JSON objects and arrays come back as map[string]any and []any,
// integers as int64.
func (e *Engine) Variables(ctx context.Context, executionID string) (map[string]any, error) {
	return e.rt.Variables(ctx, executionID)
}

// Variable returns one variable visible from an execution.
func (e *Engine) Variable(ctx context.Context, executionID, name string) (any, bool, error) {
	vars, err := e.Variables(ctx, executionID)
	if err != nil {
		return nil, false, err
	}
	v, ok := vars[name]
	return v, ok, nil
}

// DeleteProcessInstance cancels a running instance: its tasks, jobs and
// subscriptions are removed; history keeps it as externally terminated.
func (e *Engine) DeleteProcessInstance(ctx context.Context, id, reason string) error {
	return e.rt.DeleteProcessInstance(ctx, nil, id, DeleteOptions{Reason: reason})
}

// DeleteOptions say how DeleteProcessInstanceWith deletes an instance:
// with a reason, without running custom listeners, without deleting the
// instances its call activities started.
type DeleteOptions = runtime.DeleteOptions

// DeleteProcessInstanceWith is DeleteProcessInstance with options.
func (e *Engine) DeleteProcessInstanceWith(ctx context.Context, id string, opt DeleteOptions) error {
	return e.rt.DeleteProcessInstance(ctx, nil, id, opt)
}

// DeleteProcessInstanceTx is DeleteProcessInstance inside the caller's transaction.
func (e *Engine) DeleteProcessInstanceTx(ctx context.Context, t pgx.Tx, id, reason string) error {
	return e.inPgxTx(ctx, t, func(pt persistence.Tx) error {
		return e.rt.DeleteProcessInstance(ctx, pt, id, DeleteOptions{Reason: reason})
	})
}

// Validate parses a BPMN file as Deploy would, without storing anything. It
// returns the file's warnings plus one for every camunda:class that no
// delegate is registered under in this engine (such a task fails when it
// runs, as in Camunda, where another node may hold the code); the error is
// the *ParseError listing every problem.
func (e *Engine) Validate(file string, data []byte) ([]Problem, error) {
	defs, err := bpmn.Parse(data, bpmn.ParseOptions{File: file, CheckExpression: e.rt.CheckExpression, MaxBytes: e.rt.Config.Limits.MaxResourceBytes, MaxQuoted: e.rt.Config.Limits.MaxQuotedSource, MaxScriptBytes: e.rt.Config.Limits.MaxScriptBytes})
	if err != nil {
		return nil, err
	}
	warnings := append([]Problem(nil), defs.Warnings...)
	missing := func(a *bpmn.Activity, class, what string) {
		if class != "" && !e.rt.HasDelegate(class) {
			warnings = append(warnings, Problem{File: file, Pos: a.Pos, ElementID: a.ID, ElementType: string(a.Kind),
				Message: fmt.Sprintf("%s %q is not registered in this engine; the activity will fail when it runs", what, class)})
		}
	}
	for _, p := range defs.Processes {
		for _, a := range p.AllActivities() {
			missing(a, a.Class, "delegate")
			for _, l := range a.Listeners {
				missing(a, l.Class, l.Event+" listener")
			}
		}
	}
	return warnings, nil
}
