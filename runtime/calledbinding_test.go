package runtime_test

import (
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// camunda:calledElementBinding picks the version a call activity starts:
// the latest, the one deployed with the caller, a version number (here
// from an expression), or the latest with a version tag.
func TestCalledElementBinding(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		child := func(tag string) string {
			attr := ""
			if tag != "" {
				attr = ` camunda:versionTag="` + tag + `"`
			}
			return enginetest.Header + `
  <process id="child" isExecutable="true"` + attr + `>
    <startEvent id="cs" /><sequenceFlow id="c1" sourceRef="cs" targetRef="work" />
    <userTask id="work" /><sequenceFlow id="c2" sourceRef="work" targetRef="ce" /><endEvent id="ce" />
  </process>
</definitions>`
		}
		caller := func(id, binding string) string {
			return enginetest.Process(id, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <callActivity id="call" calledElement="child" `+binding+` />
    <sequenceFlow id="f2" sourceRef="call" targetRef="end" />
    <endEvent id="end" />`)
		}
		// Deployment 1: the callers with version 1 of the child.
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "callers", Resources: []bpmnlite.Resource{
			{Name: "child.bpmn", Bytes: []byte(child(""))},
			{Name: "latest.bpmn", Bytes: []byte(caller("latest", ""))},
			{Name: "deployment.bpmn", Bytes: []byte(caller("deployment", `camunda:calledElementBinding="deployment"`))},
			{Name: "version.bpmn", Bytes: []byte(caller("version", `camunda:calledElementBinding="version" camunda:calledElementVersion="${wanted}"`))},
			{Name: "tagged.bpmn", Bytes: []byte(caller("tagged", `camunda:calledElementBinding="versionTag" camunda:calledElementVersionTag="stable"`))},
		}})
		if err != nil {
			t.Fatal(err)
		}
		e.Deploy("child", child(""))       // version 2
		e.Deploy("child", child("stable")) // version 3
		e.Deploy("child", child(""))       // version 4
		calledVersion := func(key string, vars map[string]any) int {
			t.Helper()
			pi := e.Start(key, vars)
			h := e.HistoryAt(pi, "call")
			if len(h) != 1 || h[0].CalledProcessInstanceID == "" {
				t.Fatalf("%s: call activity history %+v", key, h)
			}
			called, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{ID: h[0].CalledProcessInstanceID})
			if err != nil || len(called) != 1 {
				t.Fatalf("%s: called instance: %v %v", key, called, err)
			}
			defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{ID: called[0].ProcessDefinitionID})
			if err != nil || len(defs) != 1 {
				t.Fatalf("%s: called definition: %v %v", key, defs, err)
			}
			return defs[0].Version
		}
		for key, want := range map[string]int{"latest": 4, "deployment": 1, "tagged": 3} {
			if got := calledVersion(key, nil); got != want {
				t.Errorf("%s binding called version %d, want %d", key, got, want)
			}
		}
		if got := calledVersion("version", map[string]any{"wanted": 2}); got != 2 {
			t.Errorf("version binding called version %d, want 2", got)
		}
		// A version that does not exist fails the start, naming it.
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "version", Variables: map[string]any{"wanted": 9}})
		if err == nil || !strings.Contains(err.Error(), `no process definition with key "child" at version 9`) {
			t.Fatalf("start calling a missing version: %v", err)
		}
	})
}
