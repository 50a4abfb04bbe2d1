package bpmnlite_test

import (
	"log/slog"
	"testing"

	"github.com/bpmnlite/bpmnlite"
)

// BenchmarkStartScript starts instances of start → task → user task on
// SQLite, where the task computes a value with an expression (a service
// task) or with JavaScript (a script task): what a script costs a start.
// script.BenchmarkScriptEvaluation measures one evaluation alone.
func BenchmarkStartScript(b *testing.B) {
	for name, task := range map[string]string{
		"expression": `<serviceTask id="calc" camunda:expression="${amount * 2}" camunda:resultVariable="total"/>`,
		"script":     `<scriptTask id="calc" scriptFormat="javascript" camunda:resultVariable="total"><script>amount * 2</script></scriptTask>`,
	} {
		b.Run(name, func(b *testing.B) {
			eng, err := bpmnlite.Open(b.Context(), bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: b.TempDir() + "/bench.db"}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			model := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="p" isExecutable="true"><startEvent id="start"/>` + task + `<userTask id="wait"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="calc"/><sequenceFlow id="f2" sourceRef="calc" targetRef="wait"/>
  </process></definitions>`
			if _, err := eng.Deploy(b.Context(), bpmnlite.DeployRequest{Name: "p", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(model)}}}); err != nil {
				b.Fatal(err)
			}
			vars := map[string]any{"amount": 21}
			for b.Loop() {
				if _, err := eng.Start(b.Context(), bpmnlite.StartRequest{Key: "p", Variables: vars}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
