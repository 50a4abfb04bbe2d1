package bpmnlite_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error containing %q, got nil", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not contain %q", err.Error(), p)
		}
	}
}

const badHeader = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">`

// Bad input gets an error naming what and where, and a failed deployment
// leaves what was stored before untouched.
func TestBadDeployments(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", harness.UserTaskProcess)
		cases := []struct {
			name, xml string
			want      []string
		}{
			{"malformed XML", badHeader + `<process id="x" isExecutable="true"><startEvent id="s"></process></definitions>`, []string{"bad.bpmn:1:"}},
			{"unsupported element", badHeader + `<process id="x" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="script"/>
<scriptTask id="script" scriptFormat="groovy"><script>x</script></scriptTask></process></definitions>`, []string{"bad.bpmn:2:", "scriptTask", "'script'"}},
			{"dangling reference", badHeader + `<process id="x" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="nowhere"/></process></definitions>`, []string{"nowhere", "'f'"}},
			{"bad condition", badHeader + `<process id="x" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="e"><conditionExpression>${a &gt;&gt;&gt; }</conditionExpression></sequenceFlow><endEvent id="e"/></process></definitions>`, []string{"'f'", "${a >>> }"}},
			{"bad duration", badHeader + `<process id="x" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="t"/><intermediateCatchEvent id="t"><timerEventDefinition><timeDuration>PT5X</timeDuration></timerEventDefinition></intermediateCatchEvent></process></definitions>`, []string{"'t'", "PT5X"}},
			{"no start event", badHeader + `<process id="x" isExecutable="true"><userTask id="u"/></process></definitions>`, []string{"start event"}},
		}
		for _, c := range cases {
			_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.bpmn", Bytes: []byte(c.xml)}}})
			var pe *bpmnlite.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: want a *ParseError, got %v", c.name, err)
			}
			wantErr(t, err, c.want...)
		}
		defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(defs) != 1 || defs[0].Key != "p" {
			t.Fatalf("definitions after failed deployments: %+v, want only p", defs)
		}
		// The earlier deployment still runs.
		pi := e.Start("p", nil)
		if got := e.TaskKeys(pi); got != "work" {
			t.Fatalf("open tasks %q", got)
		}
	})
}

func TestBadCalls(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("cond", badHeader+`<process id="cond" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="gw"/>
  <exclusiveGateway id="gw"/>
  <sequenceFlow id="big" sourceRef="gw" targetRef="u"><conditionExpression>${amount > 100}</conditionExpression></sequenceFlow>
  <userTask id="u"/>
</process></definitions>`)
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "cond"})
		var xe *bpmnlite.ExpressionError
		if !errors.As(err, &xe) {
			t.Fatalf("unknown variable: want an *ExpressionError, got %v", err)
		}
		wantErr(t, err, "amount", "'big'")
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "cond", Variables: map[string]any{"amount": "lots"}})
		wantErr(t, err, "'big'")
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "cond", Variables: map[string]any{"amount": 5}})
		wantErr(t, err, "exclusiveGateway 'gw'", "no outgoing sequence flow")
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "cond", Variables: map[string]any{"amount": 500, "ch": make(chan int)}})
		wantErr(t, err, `variable "ch"`, "chan int")

		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "nope"})
		if !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("unknown key: %v", err)
		}
		wantErr(t, err, `"nope"`)
		err = e.Eng.CompleteTask(e.Ctx, "no-such-task", nil)
		if !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("unknown task: %v", err)
		}
		wantErr(t, err, "no-such-task")
		err = e.Eng.Trigger(e.Ctx, "no-such-execution", nil)
		if !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("unknown execution: %v", err)
		}
		_, err = e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "unheard"})
		if !errors.Is(err, bpmnlite.ErrNoMatch) {
			t.Fatalf("unknown message: %v", err)
		}
		wantErr(t, err, `"unheard"`)
		if err := e.Eng.ExecuteJob(e.Ctx, "no-such-job"); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("unknown job: %v", err)
		}
		if _, err := e.Eng.Variables(e.Ctx, "no-such-instance"); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Fatalf("unknown instance: %v", err)
		}
		ps, _ := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{})
		if len(ps) != 0 {
			t.Fatalf("failed starts left %d instances", len(ps))
		}
	})
}

// Validate warns about delegates this engine has not registered: the
// deployment itself succeeds, and the task fails only when it runs.
func TestValidateWarnsAboutUnregisteredDelegates(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		warnings, err := e.Eng.Validate("p.bpmn", []byte(harness.UserTaskProcess))
		if err != nil {
			t.Fatal(err)
		}
		if len(warnings) != 1 || warnings[0].ElementID != "after" || !strings.Contains(warnings[0].Message, `"after" is not registered`) {
			t.Fatalf("warnings = %v", warnings)
		}
		e.Deploy("p", harness.UserTaskProcess)
		pi := e.Start("p", nil)
		err = e.Eng.CompleteTask(e.Ctx, e.Tasks(pi)[0].ID, nil)
		wantErr(t, err, `delegate "after" is not registered`, "serviceTask 'after'")
		e.Eng.RegisterDelegate("after", harness.SetVars(nil))
		if warnings, _ := e.Eng.Validate("p.bpmn", []byte(harness.UserTaskProcess)); len(warnings) != 0 {
			t.Fatalf("warnings after registering: %v", warnings)
		}
	})
}
