package runtime_test

import (
	"log/slog"
	"testing"

	"github.com/bpmnlite/bpmnlite"
)

// BenchmarkStartScriptDecision starts a process that computes a value and
// takes a decision on it before its user task, on embedded SQLite: once
// with expressions only, once with a JavaScript script task and a DMN
// decision table (business rule task), and once with each of them alone
// (issue 24's figure: what a script and a decision cost beside
// expressions).
func BenchmarkStartScriptDecision(b *testing.B) {
	const (
		exprCalc   = `<serviceTask id="calc" camunda:expression="${amount * 2}" camunda:resultVariable="total"/>`
		scriptCalc = `<scriptTask id="calc" scriptFormat="javascript" camunda:resultVariable="total"><script>amount * 2</script></scriptTask>`
		exprDecide = `<serviceTask id="decide" camunda:expression="${total > 40 ? 'big' : 'small'}" camunda:resultVariable="size"/>`
		dmnDecide  = `<businessRuleTask id="decide" camunda:decisionRef="size" camunda:mapDecisionResult="singleEntry" camunda:resultVariable="size"/>`
	)
	const table = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="d" namespace="t">
  <decision id="size" name="Size">
    <decisionTable id="t" hitPolicy="UNIQUE">
      <input id="i"><inputExpression id="ie" typeRef="integer"><text>total</text></inputExpression></input>
      <output id="o" name="size" typeRef="string"/>
      <rule id="r1"><inputEntry id="e1"><text>&gt; 40</text></inputEntry><outputEntry id="o1"><text>"big"</text></outputEntry></rule>
      <rule id="r2"><inputEntry id="e2"><text>&lt;= 40</text></inputEntry><outputEntry id="o2"><text>"small"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`
	for _, c := range []struct{ name, calc, decide string }{
		{"expressions", exprCalc, exprDecide},
		{"script", scriptCalc, exprDecide},
		{"decision", exprCalc, dmnDecide},
		{"script and decision", scriptCalc, dmnDecide},
	} {
		b.Run(c.name, func(b *testing.B) {
			eng, err := bpmnlite.Open(b.Context(), bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: b.TempDir() + "/bench.db"}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			model := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="p" isExecutable="true"><startEvent id="start"/>` + c.calc + c.decide + `<userTask id="wait"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="calc"/><sequenceFlow id="f2" sourceRef="calc" targetRef="decide"/>
    <sequenceFlow id="f3" sourceRef="decide" targetRef="wait"/>
  </process></definitions>`
			if _, err := eng.Deploy(b.Context(), bpmnlite.DeployRequest{Name: "p", Resources: []bpmnlite.Resource{
				{Name: "p.bpmn", Bytes: []byte(model)}, {Name: "size.dmn", Bytes: []byte(table)}}}); err != nil {
				b.Fatal(err)
			}
			pi, err := eng.Start(b.Context(), bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"amount": 21}})
			if err != nil {
				b.Fatal(err)
			}
			if vars, err := eng.Variables(b.Context(), pi); err != nil || vars["size"] != "big" || vars["total"] != int64(42) {
				b.Fatalf("variables %v (%v), want total 42 and size big", vars, err)
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
