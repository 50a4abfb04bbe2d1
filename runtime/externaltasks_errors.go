package runtime

import (
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// camunda:errorEventDefinition of external tasks, as Camunda's
// ExternalTaskEntity evaluates them: when a worker completes the task or
// reports its failure (after the variables it sent are set), the
// definitions are tried in order, and the first whose expression is true
// throws its error from the task's activity, with the task's error
// message, instead. The expressions see the variables and externalTask.

// hasExternalErrors reports whether task's activity has error event
// definitions, without loading its execution.
func (c *command) hasExternalErrors(task *persistence.ExternalTask) bool {
	def, err := c.definition(task.ProcessDefinitionID)
	if err != nil {
		return true // let the execution's load report it
	}
	a := def.Process.Activity(task.ActivityID)
	return a != nil && len(a.ExternalErrors) > 0
}

// externalError returns the first error event definition of x's activity
// whose expression is true for task, or nil. lenient (a failure report)
// counts an expression that fails as false, after logging it; otherwise
// its error is returned.
func (c *command) externalError(x *execution, task *persistence.ExternalTask, lenient bool) (*bpmn.ExternalError, error) {
	a := x.activity()
	for i := range a.ExternalErrors {
		ee := &a.ExternalErrors[i]
		if ee.Expression == "" {
			continue // Camunda's empty expression is never true
		}
		r := c.resolver(x)
		r.vars = map[string]any{"externalTask": externalTaskView{task}}
		v, err := evalWith(ee.Expression, r)
		if err != nil {
			if lenient {
				c.e.log.Warn("external task error event definition failed", "task", task.ID, "activity", a.ID, "expression", ee.Expression, "error", err)
				continue
			}
			return nil, failAt(a, "camunda:errorEventDefinition expression %s: %w", ee.Expression, err)
		}
		if b, ok := v.(bool); ok && b {
			return ee, nil
		}
	}
	return nil, nil
}

// externalTaskView is the externalTask an error event definition's
// expression sees (Camunda's ExternalTask getters).
type externalTaskView struct{ t *persistence.ExternalTask }

func (v externalTaskView) GetId() string                { return v.t.ID }
func (v externalTaskView) GetTopicName() string         { return v.t.Topic }
func (v externalTaskView) GetWorkerId() string          { return v.t.WorkerID }
func (v externalTaskView) GetActivityId() string        { return v.t.ActivityID }
func (v externalTaskView) GetExecutionId() string       { return v.t.ExecutionID }
func (v externalTaskView) GetProcessInstanceId() string { return v.t.ProcessInstanceID }
func (v externalTaskView) GetPriority() int64           { return v.t.Priority }

// GetErrorMessage is null until a failure was reported, as in Camunda.
func (v externalTaskView) GetErrorMessage() any { return nullIfEmpty(v.t.ErrorMessage) }

// GetErrorDetails is null when the failure gave none.
func (v externalTaskView) GetErrorDetails() any { return nullIfEmpty(v.t.ErrorDetails) }

// GetRetries is null until retries were set.
func (v externalTaskView) GetRetries() any {
	if v.t.Retries == nil {
		return nil
	}
	return int64(*v.t.Retries)
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
