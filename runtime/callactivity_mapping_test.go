package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// varMapping is Camunda's DelegatedVarMapping: it adds TestInputVar to the
// called instance and sets TestOutputVar on the caller; failIn/failOut
// make it fail there.
type varMapping struct {
	failIn, failOut error
	sawSub          map[string]any
}

func (m *varMapping) MapInputVariables(_ context.Context, caller *bpmnlite.Execution, vars map[string]any) error {
	if m.failIn != nil {
		return m.failIn
	}
	vars["TestInputVar"] = "inValue"
	return nil
}

func (m *varMapping) MapOutputVariables(_ context.Context, caller *bpmnlite.Execution, sub map[string]any) error {
	if m.failOut != nil {
		return m.failOut
	}
	m.sawSub = sub
	return caller.SetVariable("TestOutputVar", "outValue")
}

// mappingCaller is CallActivityDelegateMappingTest's model: a task before
// the call activity (with attr), an error boundary event on it, and a task
// after; the called process waits in "taskInSub".
func mappingCaller(attr string) string {
	return enginetest.Process("caller", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="before" />
    <userTask id="before" />
    <sequenceFlow id="f2" sourceRef="before" targetRef="call" />
    <callActivity id="call" calledElement="sub" `+attr+`>
      <extensionElements><camunda:in source="given" target="given" /></extensionElements>
    </callActivity>
    <boundaryEvent id="caught" attachedToRef="call"><errorEventDefinition /></boundaryEvent>
    <sequenceFlow id="f4" sourceRef="caught" targetRef="errorTask" />
    <userTask id="errorTask" />
    <sequenceFlow id="f3" sourceRef="call" targetRef="after" />
    <userTask id="after" />`)
}

// As CallActivityDelegateMappingTest: the mapping adds input variables
// after camunda:in and sets output variables on the caller when the
// called instance ends; by class (a registered bean) or by delegate
// expression. Not found, or failing (a BPMN error too: no boundary event
// catches it), the command fails and nothing changes.
func TestCallActivityVariableMapping(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("sub", enginetest.Process("sub", `
    <startEvent id="s" /><sequenceFlow id="s1" sourceRef="s" targetRef="taskInSub" /><userTask id="taskInSub" />`))
		m := &varMapping{}
		e.Eng.RegisterBean("mapping", m)
		for _, attr := range []string{`camunda:variableMappingClass="mapping"`, `camunda:variableMappingDelegateExpression="${mapping}"`} {
			e.Deploy("caller", mappingCaller(attr))
			pi := e.Start("caller", map[string]any{"given": 1})
			e.Complete(pi, "before", nil)
			sub := calledBy(e, pi)
			if sub == "" || e.Var(sub, "TestInputVar") != "inValue" || e.Var(sub, "given") != int64(1) {
				t.Fatalf("%s: called instance %q variables %v", attr, sub, e.VarsOf(sub))
			}
			if err := e.Eng.SetVariables(e.Ctx, sub, map[string]any{"result": "r"}); err != nil {
				t.Fatal(err)
			}
			e.Complete(sub, "taskInSub", nil)
			if got := e.TaskKeys(pi); got != "after" || e.Var(pi, "TestOutputVar") != "outValue" {
				t.Fatalf("%s: waiting at %q, TestOutputVar %v", attr, got, e.Var(pi, "TestOutputVar"))
			}
			if m.sawSub["result"] != "r" || m.sawSub["TestInputVar"] != "inValue" {
				t.Fatalf("%s: the output mapping saw %v", attr, m.sawSub)
			}
		}

		for _, c := range []struct {
			attr, want string
			failIn     error
		}{
			{`camunda:variableMappingClass="nowhere"`, "camunda:variableMappingClass 'nowhere': no bean of that name is registered", nil},
			{`camunda:variableMappingDelegateExpression="${nowhere}"`, "nowhere", nil},
			{`camunda:variableMappingClass="mapping"`, "New process engine exception.", errors.New("New process engine exception.")},
			{`camunda:variableMappingClass="mapping"`, "1234", &bpmnlite.BpmnError{Code: "1234"}},
		} {
			m.failIn = c.failIn
			e.Deploy("caller", mappingCaller(c.attr))
			pi := e.Start("caller", nil)
			task := e.Tasks(pi)[0]
			err := e.Eng.CompleteTask(e.Ctx, task.ID, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %q", c.attr, err, c.want)
			}
			if got := e.TaskKeys(pi); got != "before" {
				t.Errorf("%s: after the failure waiting at %q, want before (rolled back, not caught)", c.attr, got)
			}
		}
		m.failIn = nil

		// Failing on output: completing the called task fails, it stays.
		m.failOut = errors.New("New process engine exception.")
		e.Deploy("caller", mappingCaller(`camunda:variableMappingClass="mapping"`))
		pi := e.Start("caller", nil)
		e.Complete(pi, "before", nil)
		sub := calledBy(e, pi)
		subTasks := e.Tasks(sub)
		if len(subTasks) != 1 {
			t.Fatalf("called instance %q has %d tasks", sub, len(subTasks))
		}
		if err := e.Eng.CompleteTask(e.Ctx, subTasks[0].ID, nil); err == nil || !strings.Contains(err.Error(), "New process engine exception.") {
			t.Fatalf("completing with a failing output mapping: %v", err)
		}
		if got := e.TaskKeys(pi); got != "" || e.TaskKeys(sub) != "taskInSub" {
			t.Fatalf("caller waiting at %q, called at %q: want the call and its task still there", got, e.TaskKeys(sub))
		}
	})
}

// calledBy returns the running instance pi called ("" without one).
func calledBy(e *env, pi string) string {
	for _, s := range e.Instances("sub") {
		if s.SuperProcessInstanceID == pi && s.EndTime == nil {
			return s.ID
		}
	}
	return ""
}

// Both attributes at once is a deployment error.
func TestCallActivityVariableMappingDeploymentError(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn",
			Bytes: []byte(mappingCaller(`camunda:variableMappingClass="m" camunda:variableMappingDelegateExpression="${m}"`))}}})
		if err == nil || !strings.Contains(err.Error(), "callActivity 'call': only one of camunda:variableMappingClass and camunda:variableMappingDelegateExpression may be set") {
			t.Fatalf("deploy: %v", err)
		}
	})
}
