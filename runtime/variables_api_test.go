package runtime_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

const oneTask = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="oneTask" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <userTask id="task"/><sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// Typed values keep their Camunda type through the Go API; the command
// and Variables see the plain value; a type the value cannot have is an
// invalid variable.
func TestTypedVariables(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("one", oneTask)
		pi := e.Start("oneTask", map[string]any{
			"n":    bpmnlite.TypedValue{Type: "Short", Value: int64(3)},
			"xml":  bpmnlite.TypedValue{Type: "xml", Value: "<a/>"},
			"file": bpmnlite.TypedValue{Type: "File", Value: []byte("hi"), Info: map[string]any{"filename": "a.txt", "other": "dropped"}},
			"obj":  bpmnlite.TypedValue{Type: "Object", Value: `{"id":1}`, Info: map[string]any{"objectTypeName": "Order"}},
		})
		vars, err := e.Eng.Variables(e.Ctx, pi)
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "plain values", vars["n"], any(int64(3)))
		wantEq(t, "plain object", vars["obj"], any(map[string]any{"id": int64(1)}))
		typed, err := e.Eng.ScopeVariables(e.Ctx, bpmnlite.VariableScope{ExecutionID: pi})
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{"n": "Short", "xml": "Xml", "file": "File", "obj": "Object"} {
			if typed[name].Type != want {
				t.Errorf("%s: type %s, want %s", name, typed[name].Type, want)
			}
		}
		wantEq(t, "file info", typed["file"].ValueInfo, map[string]any{"filename": "a.txt"})
		wantEq(t, "object info", typed["obj"].ValueInfo, map[string]any{"objectTypeName": "Order", "serializationDataFormat": "application/json"})
		for name, bad := range map[string]bpmnlite.TypedValue{
			"short":   {Type: "Short", Value: int64(1 << 20)},
			"kind":    {Type: "Boolean", Value: "yes"},
			"unknown": {Type: "Rational", Value: 1},
			"nofile":  {Type: "File", Value: []byte("x")},
			"null":    {Type: "Null", Value: 1},
		} {
			err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{name: bad})
			var ve *bpmnlite.VariableError
			if !errors.As(err, &ve) || ve.Name != name {
				t.Errorf("%s %v: %v, want a VariableError naming it", name, bad, err)
			}
		}
	})
}

// The variable conditions of the process instance query see a running
// instance's variables even when history keeps none (level activity).
func TestInstanceVariableConditionsWithoutVariableHistory(t *testing.T) {
	eachBackend(t, bpmnlite.Config{History: bpmnlite.HistoryConfig{Level: bpmnlite.HistoryActivity}}, func(t *testing.T, e *env) {
		e.Deploy("one", oneTask)
		pi := e.Start("oneTask", map[string]any{"amount": 5})
		e.Start("oneTask", map[string]any{"amount": 7})
		got, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{
			Variables: bpmnlite.VariableConditions{{Name: "amount", Operator: "lt", Value: int64(6)}}})
		if err != nil || len(got) != 1 || got[0].ID != pi {
			t.Fatalf("instances with amount < 6: %v %v, want %s", got, err, pi)
		}
		hist, err := e.Eng.HistoricVariableInstances(e.Ctx, bpmnlite.HistoricVariableInstanceQuery{})
		if err != nil || len(hist) != 0 {
			t.Errorf("variable history at level activity: %v %v, want none", hist, err)
		}
	})
}

// Executions filter by their own and their instance's variables; tasks by
// their local and their instance's.
func TestExecutionAndTaskVariableConditions(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("one", oneTask)
		pi := e.Start("oneTask", map[string]any{"region": "eu"})
		e.Start("oneTask", map[string]any{"region": "us"})
		eu := bpmnlite.VariableConditions{{Name: "region", Operator: "eq", Value: "eu"}}
		for what, q := range map[string]bpmnlite.ExecutionQuery{"local": {Variables: eu}, "process": {ProcessVariables: eu}} {
			got, err := e.Eng.Executions(e.Ctx, q)
			if err != nil || len(got) != 1 || got[0].ID != pi {
				t.Errorf("executions with %s region eu: %v %v, want %s", what, got, err, pi)
			}
		}
		task := e.Tasks(pi)[0].ID
		if err := e.Eng.ModifyVariables(e.Ctx, bpmnlite.VariableScope{TaskID: task, Local: true}, map[string]any{"flag": true}, nil); err != nil {
			t.Fatal(err)
		}
		for what, q := range map[string]bpmnlite.TaskQuery{
			"task":    {TaskVariables: bpmnlite.VariableConditions{{Name: "flag", Operator: "eq", Value: true}}},
			"process": {ProcessVariables: bpmnlite.VariableConditions{{Name: "region", Operator: "like", Value: "e%"}}},
		} {
			got, err := e.Eng.Tasks(e.Ctx, q)
			if err != nil || len(got) != 1 || got[0].ID != task {
				t.Errorf("tasks by %s variables: %v %v, want %s", what, got, err, task)
			}
		}
	})
}

// A variable's history keeps when it was created and its last value.
func TestVariableHistory(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("one", oneTask)
		created := e.Clock.Now().UTC().Truncate(time.Microsecond)
		pi := e.Start("oneTask", map[string]any{"n": 1})
		e.Clock.Add(time.Hour)
		if err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"n": 2}); err != nil {
			t.Fatal(err)
		}
		hist, err := e.Eng.HistoricVariableInstances(e.Ctx, bpmnlite.HistoricVariableInstanceQuery{Name: "n"})
		if err != nil || len(hist) != 1 {
			t.Fatalf("history of n: %v %v", hist, err)
		}
		if hist[0].CreateTime == nil || !hist[0].CreateTime.Equal(created) || hist[0].Value != int64(2) || hist[0].State != "CREATED" {
			t.Errorf("history of n: created %v, value %v, state %s; want created %v, value 2", hist[0].CreateTime, hist[0].Value, hist[0].State, created)
		}
	})
}

// A removed variable no longer matches, though its history stays.
func TestRemovedVariableDoesNotMatch(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("one", oneTask)
		pi := e.Start("oneTask", map[string]any{"gone": "x"})
		if err := e.Eng.ModifyVariables(e.Ctx, bpmnlite.VariableScope{ExecutionID: pi}, nil, []string{"gone"}); err != nil {
			t.Fatal(err)
		}
		got, err := e.Eng.HistoricProcessInstances(e.Ctx, bpmnlite.HistoricProcessInstanceQuery{
			Variables: bpmnlite.VariableConditions{{Name: "gone", Operator: "eq", Value: "x"}}})
		if err != nil || len(got) != 0 {
			t.Errorf("instances with a removed variable: %v %v, want none", got, err)
		}
	})
}
