package runtime_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// mappingDMN is a COLLECT table whose input picks the shape of the result,
// as the decision of Camunda's DmnBusinessRuleTaskResultMappingTest.
const mappingDMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="defs" name="Mapping" namespace="test">
  <decision id="mapping" name="Mapping">
    <decisionTable id="t" hitPolicy="COLLECT">
      <input id="in" label="Input"><inputExpression typeRef="string"><text>input</text></inputExpression></input>
      <output id="o1" label="Result 1" name="result1" typeRef="string"/>
      <output id="o2" label="Result 2" name="result2" typeRef="string"/>
      <rule id="r1"><inputEntry><text>"single entry","multiple entries"</text></inputEntry><outputEntry><text>"foo"</text></outputEntry><outputEntry><text></text></outputEntry></rule>
      <rule id="r2"><inputEntry><text>"multiple entries"</text></inputEntry><outputEntry><text>"bar"</text></outputEntry><outputEntry><text></text></outputEntry></rule>
      <rule id="r3"><inputEntry><text>"single result","multiple results"</text></inputEntry><outputEntry><text>"foo"</text></outputEntry><outputEntry><text>"bar"</text></outputEntry></rule>
      <rule id="r4"><inputEntry><text>"multiple results"</text></inputEntry><outputEntry><text>"foo2"</text></outputEntry><outputEntry><text>"bar2"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`

// ruleTask is a process whose business rule task (attributes attrs, body
// inside it) is followed by a user task "wait".
func ruleTask(id, attrs, body string) string {
	return enginetest.Process(id, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="rule" />
    <businessRuleTask id="rule" `+attrs+`>`+body+`</businessRuleTask>
    <sequenceFlow id="f2" sourceRef="rule" targetRef="wait" />
    <userTask id="wait" />
    <sequenceFlow id="f3" sourceRef="wait" targetRef="end" />
    <endEvent id="end" />`)
}

func deployDecision(t *testing.T, e *env, name string, resources map[string]string) *bpmnlite.Deployment {
	t.Helper()
	req := bpmnlite.DeployRequest{Name: name}
	for n, xml := range resources {
		req.Resources = append(req.Resources, bpmnlite.Resource{Name: n, Bytes: []byte(xml)})
	}
	d, err := e.Eng.Deploy(e.Ctx, req)
	if err != nil {
		t.Fatalf("deploy %s: %v", name, err)
	}
	return d
}

// camunda:mapDecisionResult maps the result into the result variable as
// Camunda's mappers do, and fails as they fail.
func TestBusinessRuleTaskResultMapping(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		deployDecision(t, e, "mapping", map[string]string{"mapping.dmn": mappingDMN})
		cases := []struct {
			mapper, input string
			want          string // the variable's value, %v
			err           string
		}{
			{"singleEntry", "single entry", "foo", ""},
			{"singleEntry", "nothing", "<nil>", ""},
			{"singleEntry", "single result", "", "ENGINE-22001 The decision result mapper 'SingleEntryDecisionResultMapper{}' failed to process '[{result1=foo, result2=bar}]': DMN-01010 Unable to get single decision result entry as it has more than one entry '{result1=foo, result2=bar}'"},
			{"singleEntry", "multiple entries", "", "DMN-01011 Unable to get single decision result as it has more than one result"},
			{"singleResult", "single result", "map[result1:foo result2:bar]", ""},
			{"singleResult", "nothing", "<nil>", ""},
			{"singleResult", "multiple results", "", "ENGINE-22001 The decision result mapper 'SingleResultDecisionResultMapper{}' failed to process"},
			{"collectEntries", "multiple entries", "[foo bar]", ""},
			{"collectEntries", "nothing", "[]", ""},
			{"collectEntries", "multiple results", "", "ENGINE-22002 The decision result mapper 'CollectEntriesDecisionResultMapper{}' failed to process '[{result1=foo, result2=bar}, {result1=foo2, result2=bar2}]'. The decision outputs should only contains values for one output name but found '[result1 result2]'."},
			{"resultList", "multiple results", "[map[result1:foo result2:bar] map[result1:foo2 result2:bar2]]", ""},
			{"", "multiple results", "[map[result1:foo result2:bar] map[result1:foo2 result2:bar2]]", ""},
		}
		for i, c := range cases {
			key := fmt.Sprintf("p%d", i)
			attrs := `camunda:decisionRef="mapping" camunda:resultVariable="result"`
			if c.mapper != "" {
				attrs += ` camunda:mapDecisionResult="` + c.mapper + `"`
			}
			e.Deploy(key, ruleTask(key, attrs, ""))
			pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: key, Variables: map[string]any{"input": c.input}})
			if c.err != "" {
				var ae *bpmnlite.ActivityError
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &ae) || ae.ActivityID != "rule" {
					t.Errorf("%s of %q: err = %v, want %q at rule", c.mapper, c.input, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s of %q: %v", c.mapper, c.input, err)
			}
			vars := e.VarsOf(pi)
			if got := fmt.Sprint(vars["result"]); got != c.want {
				t.Errorf("%s of %q: result = %s, want %s", c.mapper, c.input, got, c.want)
			}
		}
		// Without a result variable nothing is stored; the transient
		// decisionResult serves output mappings.
		e.Deploy("transient", ruleTask("transient", `camunda:decisionRef="mapping"`, `<extensionElements><camunda:inputOutput>
          <camunda:outputParameter name="first">${decisionResult[0].result1}</camunda:outputParameter>
          <camunda:outputParameter name="size">${decisionResult.size()}</camunda:outputParameter>
        </camunda:inputOutput></extensionElements>`))
		pi := e.Start("transient", map[string]any{"input": "multiple results"})
		vars := e.VarsOf(pi)
		if vars["first"] != "foo" || fmt.Sprint(vars["size"]) != "2" {
			t.Errorf("output mappings of decisionResult: %v", vars)
		}
		if _, ok := vars["decisionResult"]; ok {
			t.Errorf("decisionResult was stored: %v", vars)
		}
	})
}

func versioned(out, tag string) string {
	attr := ""
	if tag != "" {
		attr = ` camunda:versionTag="` + tag + `"`
	}
	return `<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" xmlns:camunda="http://camunda.org/schema/1.0/dmn" id="defs" name="V" namespace="test">
  <decision id="versioned" name="Versioned"` + attr + `>
    <literalExpression><text>"` + out + `"</text></literalExpression>
    <variable name="out" typeRef="string"/>
  </decision>
</definitions>`
}

// camunda:decisionRefBinding picks the version evaluated: the latest, the
// one deployed with the process, a version (from an expression), the latest
// with a version tag; an unknown key fails the task.
func TestBusinessRuleTaskBinding(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		single := `camunda:resultVariable="out" camunda:mapDecisionResult="singleEntry"`
		deployDecision(t, e, "procs", map[string]string{
			"v.dmn":          versioned("one", ""),
			"latest.bpmn":    ruleTask("latest", `camunda:decisionRef="versioned" `+single, ""),
			"deployed.bpmn":  ruleTask("deployed", `camunda:decisionRef="${name}" camunda:decisionRefBinding="deployment" `+single, ""),
			"version.bpmn":   ruleTask("version", `camunda:decisionRef="versioned" camunda:decisionRefBinding="version" camunda:decisionRefVersion="${wanted}" `+single, ""),
			"tagged.bpmn":    ruleTask("tagged", `camunda:decisionRef="versioned" camunda:decisionRefBinding="versionTag" camunda:decisionRefVersionTag="stable" `+single, ""),
			"unknown.bpmn":   ruleTask("unknown", `camunda:decisionRef="nope" `+single, ""),
			"noversion.bpmn": ruleTask("noversion", `camunda:decisionRef="versioned" camunda:decisionRefBinding="version" camunda:decisionRefVersion="9" `+single, ""),
		})
		deployDecision(t, e, "v", map[string]string{"v.dmn": versioned("two", "stable")})
		deployDecision(t, e, "v", map[string]string{"v.dmn": versioned("three", "")})
		for key, want := range map[string]string{"latest": "three", "deployed": "one", "version": "two", "tagged": "two"} {
			pi := e.Start(key, map[string]any{"name": "versioned", "wanted": int64(2)})
			if got := e.VarsOf(pi)["out"]; got != want {
				t.Errorf("%s: out = %v, want %s", key, got, want)
			}
		}
		for key, want := range map[string]string{"unknown": "no decision definition deployed with key 'nope'",
			"noversion": "no decision definition deployed with key = 'versioned', version = '9' and tenant-id 'null'"} {
			_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: key})
			if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, bpmnlite.ErrNotFound) {
				t.Errorf("%s: err = %v, want %q", key, err, want)
			}
		}
		// Two versions with the tag: Camunda's error.
		deployDecision(t, e, "v", map[string]string{"v.dmn": versioned("four", "stable")})
		if _, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "tagged"}); err == nil ||
			!strings.Contains(err.Error(), "Found more than one decision definition for key 'versioned' and versionTag 'stable'") {
			t.Errorf("two tagged versions: %v", err)
		}
		defs, err := e.Eng.DecisionDefinitions(e.Ctx, bpmnlite.DecisionDefinitionQuery{Key: "versioned", Version: ptrInt(3)})
		if err != nil || len(defs) != 1 || defs[0].VersionTag != "" || defs[0].ResourceName != "v.dmn" {
			t.Fatalf("versions: %v %+v", err, defs)
		}
	})
}

// A decision requirements graph deploys a requirements definition; the
// Go API evaluates by key and id; history (level full) keeps each
// evaluated decision with its inputs and outputs, the required ones under
// the root; a failing evaluation names the decision and rule.
func TestEvaluateDecisionAndHistory(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		d := deployDecision(t, e, "dish", map[string]string{"dish.dmn": enginetest.DishDMN})
		if len(d.DecisionDefinitions) != 2 || len(d.DecisionRequirementsDefinitions) != 1 || d.DecisionDefinitions[0].DecisionRequirementsDefinitionKey != "dishes" {
			t.Fatalf("deployment: %+v", d)
		}
		res, err := e.Eng.EvaluateDecisionByKey(e.Ctx, "dish", map[string]any{"month": int64(1), "guests": int64(4)})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(res.List()); got != "[map[dish:Spareribs]]" {
			t.Errorf("result %s", got)
		}
		byID, err := e.Eng.EvaluateDecisionByID(e.Ctx, d.DecisionDefinitions[1].ID, map[string]any{"month": int64(7), "guests": int64(4)})
		if err != nil || fmt.Sprint(byID.List()) != "[map[dish:Salad]]" {
			t.Errorf("by id: %v %v", byID, err)
		}
		all, err := e.Eng.HistoricDecisionInstances(e.Ctx, bpmnlite.HistoricDecisionInstanceQuery{})
		if err != nil || len(all) != 4 {
			t.Fatalf("history: %v, %d instances", err, len(all))
		}
		roots, err := e.Eng.HistoricDecisionInstances(e.Ctx, bpmnlite.HistoricDecisionInstanceQuery{RootDecisionInstancesOnly: true})
		if err != nil || len(roots) != 2 || roots[0].DecisionDefinitionKey != "dish" {
			t.Fatalf("roots: %v %+v", err, roots)
		}
		tree, err := e.Eng.HistoricDecisionInstances(e.Ctx, bpmnlite.HistoricDecisionInstanceQuery{RootDecisionInstanceID: roots[0].ID})
		if err != nil || len(tree) != 2 {
			t.Fatalf("tree of %s: %v %d", roots[0].ID, err, len(tree))
		}
		ins, err := e.Eng.HistoricDecisionInputs(e.Ctx, []string{roots[0].ID})
		if err != nil || len(ins) != 2 || ins[0].ClauseID != "s" || ins[0].ClauseName != "Season" || ins[0].Value.Value != "Winter" {
			t.Errorf("inputs: %v %+v", err, ins)
		}
		outs, err := e.Eng.HistoricDecisionOutputs(e.Ctx, []string{roots[0].ID})
		if err != nil || len(outs) != 1 || outs[0].RuleID != "r1" || outs[0].RuleOrder != 1 || outs[0].VariableName != "dish" || outs[0].ClauseName != "Dish" || outs[0].Value.Value != "Spareribs" {
			t.Errorf("outputs: %v %+v", err, outs)
		}
		_, err = e.Eng.EvaluateDecisionByKey(e.Ctx, "dish", map[string]any{"month": "January", "guests": int64(4)})
		if err == nil || !strings.Contains(err.Error(), "decision 'season'") || !strings.Contains(err.Error(), "DMN-01005") {
			t.Errorf("bad input: %v", err)
		}
		if _, err := e.Eng.EvaluateDecisionByKey(e.Ctx, "nope", nil); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("unknown key: %v", err)
		}
		// A malformed DMN file is refused with its position.
		_, err = e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "bad", Resources: []bpmnlite.Resource{{Name: "bad.dmn", Bytes: []byte(strings.Replace(enginetest.DishDMN, `hitPolicy="FIRST"`, `hitPolicy="SOME"`, 1))}}})
		if err == nil || !strings.Contains(err.Error(), "bad.dmn:") || !strings.Contains(err.Error(), "hitPolicy 'SOME'") {
			t.Errorf("bad model: %v", err)
		}
	})
}

// History of standalone evaluations goes with the decision's history time
// to live; the history of one in a process goes with the process's.
func TestDecisionHistoryCleanup(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		deployDecision(t, e, "dish", map[string]string{"dish.dmn": strings.Replace(enginetest.DishDMN, `<decision id="dish"`, `<decision id="dish" camunda:historyTimeToLive="P2D"`, 1)})
		if _, err := e.Eng.EvaluateDecisionByKey(e.Ctx, "dish", map[string]any{"month": int64(1), "guests": int64(2)}); err != nil {
			t.Fatal(err)
		}
		count := func() int {
			n, err := e.Eng.Count(e.Ctx, bpmnlite.HistoricDecisionInstanceQuery{})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(); n != 2 {
			t.Fatalf("%d evaluations in history, want 2", n)
		}
		e.Clock.Add(24 * time.Hour)
		if _, err := e.Eng.CleanUpHistory(e.Ctx); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 2 {
			t.Fatalf("after one day: %d, want 2 (kept for 2 days)", n)
		}
		e.Clock.Add(2 * 24 * time.Hour)
		report, err := e.Eng.CleanableDecisionInstanceReport(e.Ctx, bpmnlite.CleanableDecisionReportQuery{DecisionDefinitionKeys: []string{"dish", "season"}})
		if err != nil || len(report) != 2 {
			t.Fatalf("cleanable report: %v %+v", err, report)
		}
		for _, r := range report {
			if r.Finished != 1 || r.Cleanable != 1 {
				t.Errorf("cleanable report of %s: %+v, want 1 finished and cleanable", r.DecisionDefinitionKey, r)
			}
		}
		if _, err := e.Eng.CleanUpHistory(e.Ctx); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 0 {
			t.Errorf("after three days: %d evaluations, want 0", n)
		}
		if n := harness.CountRows(t, e.DB(), "SELECT count(*) FROM hist_decision_input"); n != 0 {
			t.Errorf("%d inputs left", n)
		}
		// The meters: one evaluation of dish and season, (2 + 1) × 3 and
		// (1 + 1) × 2 elements; both removed by the cleanup.
		if err := e.Eng.ReportMetrics(e.Ctx); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]int64{"decision-instances": 2, bpmnlite.MetricDecisionElements: 13, bpmnlite.MetricHistoryCleanupRemovedDecisions: 2} {
			if n, err := e.Eng.MetricsSum(e.Ctx, bpmnlite.MetricsQuery{Name: name}); err != nil || n != want {
				t.Errorf("%s: %d, %v; want %d", name, n, err, want)
			}
		}
	})
}

func ptrInt(n int) *int { return &n }
