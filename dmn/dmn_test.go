package dmn_test

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/dmn"
	"github.com/bpmnlite/bpmnlite/expression"
)

// table builds a DMN file with one decision table "d": inputs as
// "expression:typeRef", outputs as "name:typeRef", rules as their cells
// (inputs then outputs).
func table(hitPolicy, aggregation string, inputs, outputs []string, rules [][]string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" xmlns:camunda="http://camunda.org/schema/1.0/dmn" id="defs" name="D" namespace="test">
  <decision id="d" name="Decision" camunda:versionTag="v1" camunda:historyTimeToLive="5">
    <decisionTable id="t"`)
	if hitPolicy != "" {
		fmt.Fprintf(&b, ` hitPolicy="%s"`, hitPolicy)
	}
	if aggregation != "" {
		fmt.Fprintf(&b, ` aggregation="%s"`, aggregation)
	}
	b.WriteString(">\n")
	for i, in := range inputs {
		expr, typ, _ := strings.Cut(in, ":")
		fmt.Fprintf(&b, `<input id="in%d" label="In %d"><inputExpression typeRef="%s"><text>%s</text></inputExpression></input>`+"\n", i+1, i+1, typ, xmlEsc(expr))
	}
	for i, out := range outputs {
		name, typ, _ := strings.Cut(out, ":")
		typ, values, _ := strings.Cut(typ, ":")
		fmt.Fprintf(&b, `<output id="out%d" name="%s" typeRef="%s">`, i+1, name, typ)
		if values != "" {
			fmt.Fprintf(&b, `<outputValues><text>%s</text></outputValues>`, xmlEsc(values))
		}
		b.WriteString("</output>\n")
	}
	for i, r := range rules {
		fmt.Fprintf(&b, `<rule id="r%d"><description>rule %d</description>`, i+1, i+1)
		for j, cell := range r {
			tag := "inputEntry"
			if j >= len(inputs) {
				tag = "outputEntry"
			}
			fmt.Fprintf(&b, `<%s><text>%s</text></%s>`, tag, xmlEsc(cell), tag)
		}
		b.WriteString("</rule>\n")
	}
	b.WriteString("</decisionTable></decision></definitions>")
	return b.String()
}

func xmlEsc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func evaluate(t *testing.T, src string, vars map[string]any) (dmn.Result, error) {
	t.Helper()
	defs, err := dmn.Parse([]byte(src), "test.dmn")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	ev, err := dmn.Evaluate(defs.Decisions[len(defs.Decisions)-1], expression.Vars(vars))
	if err != nil {
		return nil, err
	}
	return ev.Result(), nil
}

// Input entries as Camunda's FEEL simple unary tests (feel-juel's
// FeelEngineTest and feel-scala's cases): whether input x passes entry.
func TestUnaryTests(t *testing.T) {
	date := func(s string) time.Time { d, _ := time.ParseInLocation("2006-01-02T15:04:05", s, time.Local); return d }
	cases := []struct {
		entry, typ string
		input      any
		vars       map[string]any
		want       bool
	}{
		{"-", "integer", int64(1), nil, true},
		{"", "integer", nil, nil, true},
		{"1", "integer", int64(1), nil, true},
		{"1", "integer", int64(2), nil, false},
		{"1", "double", 1.0, nil, true},
		{"-1", "integer", int64(-1), nil, true},
		{"1.5", "double", 1.5, nil, true},
		{"< 10", "integer", int64(9), nil, true},
		{"< 10", "integer", int64(10), nil, false},
		{"<= 10", "integer", int64(10), nil, true},
		{"> 10", "integer", int64(10), nil, false},
		{">= 10", "integer", int64(10), nil, true},
		{">= 10", "double", 10.5, nil, true},
		{"[1..5]", "integer", int64(1), nil, true},
		{"[1..5]", "integer", int64(5), nil, true},
		{"[1..5]", "integer", int64(6), nil, false},
		{"(1..5]", "integer", int64(1), nil, false},
		{"]1..5]", "integer", int64(1), nil, false},
		{"[1..5)", "integer", int64(5), nil, false},
		{"[1..5[", "integer", int64(5), nil, false},
		{"]1..5[", "integer", int64(3), nil, true},
		{"1,2,3", "integer", int64(2), nil, true},
		{"1,2,3", "integer", int64(4), nil, false},
		{"< 0, [10..20], 42", "integer", int64(15), nil, true},
		{"not(1,2)", "integer", int64(3), nil, true},
		{"not(1,2)", "integer", int64(2), nil, false},
		{"not([1..5])", "integer", int64(7), nil, true},
		{`"gold"`, "string", "gold", nil, true},
		{`"gold"`, "string", "silver", nil, false},
		{`"gold","silver"`, "string", "silver", nil, true},
		{`not("gold")`, "string", "silver", nil, true},
		{`"a,b"`, "string", "a,b", nil, true},
		{"true", "boolean", true, nil, true},
		{"false", "boolean", true, nil, false},
		{"null", "", nil, nil, true},
		{"null", "integer", int64(1), nil, false},
		{"< 10", "integer", nil, nil, false},
		{`date and time("2015-11-30T12:00:00")`, "date", date("2015-11-30T12:00:00"), nil, true},
		{`< date and time("2015-11-30T12:00:00")`, "date", date("2015-11-29T12:00:00"), nil, true},
		{`[date and time("2015-01-01T00:00:00")..date and time("2015-12-31T23:59:59")]`, "date", date("2016-01-01T00:00:00"), nil, false},
		{"limit", "integer", int64(7), map[string]any{"limit": int64(7)}, true},
		{"< limit", "integer", int64(7), map[string]any{"limit": int64(8)}, true},
		{"[low..high]", "integer", int64(7), map[string]any{"low": int64(1), "high": int64(9)}, true},
		{"customer.status", "string", "gold", map[string]any{"customer": map[string]any{"status": "gold"}}, true},
		{"cellInput > 5 && cellInput < 8", "integer", int64(6), nil, true},
		{"${cellInput == 6}", "integer", int64(6), nil, true},
		{"${cellInput == 6}", "integer", int64(7), nil, false},
		{"? > 5", "integer", int64(6), nil, true},
		// From feel-juel's FeelEngineTest.
		{`"Why.not?"`, "string", "Why.not?", nil, true},
		{`""`, "string", "", nil, true},
		{".37", "double", 0.37, nil, true},
		{"<.37", "double", 0.337, nil, true},
		{"<y", "double", 12.0, map[string]any{"y": 13.37}, true},
		{">=y", "double", 13.37, map[string]any{"y": 13.37}, true},
		{"[.12...37]", "double", 0.23, nil, true},
		{"].12...37[", "double", 13.37, nil, false},
		{"(a..b]", "double", 13.37, map[string]any{"a": 0.37, "b": 13.37}, true},
		{"(a..b)", "double", 13.37, map[string]any{"a": 0.37, "b": 13.37}, false},
		{`date and time(y)`, "date", date("2015-12-12T22:12:53"), map[string]any{"y": "2015-12-12T22:12:53"}, true},
		{`not("Hello World")`, "string", "Hello camunda", nil, true},
		{"not(<y)", "double", 0.37, map[string]any{"y": 13.37}, false},
		{`a,"Hello World"`, "string", "Hello camunda", map[string]any{"a": "Hello camunda"}, true},
		{"y,12,13.37,.37", "double", 0.23, map[string]any{"y": 0.0}, false},
		{"<y,>13.37,>=.37", "double", -1.0, map[string]any{"y": 0.0}, true},
		{"(1..5],7", "integer", int64(7), nil, true},
		{"not(>=a,13.37,].37...42),<.37)", "double", 0.37, map[string]any{"a": 13.37}, true},
		{"not(>=a,13.37,].37...42),<.37)", "double", 0.4, map[string]any{"a": 13.37}, false},
	}
	for _, c := range cases {
		t.Run(c.entry+"/"+fmt.Sprint(c.input), func(t *testing.T) {
			vars := map[string]any{"x": c.input}
			for k, v := range c.vars {
				vars[k] = v
			}
			src := table("", "", []string{"x:" + c.typ}, []string{"out:string"}, [][]string{{c.entry, `"hit"`}})
			res, err := evaluate(t, src, vars)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res) == 1; got != c.want {
				t.Errorf("%q with %v: matched %v, want %v", c.entry, c.input, got, c.want)
			}
		})
	}
}

// Entries that cannot be evaluated fail, naming the decision, rule and
// input; a malformed one fails at parse time with its position.
func TestUnaryTestErrors(t *testing.T) {
	src := table("", "", []string{"x:string"}, []string{"out:string"}, [][]string{{"< 5", `"hit"`}})
	_, err := evaluate(t, src, map[string]any{"x": "abc"})
	var de *dmn.Error
	if !errors.As(err, &de) || de.DecisionID != "d" || de.RuleID != "r1" || de.InputID != "in1" || de.Pos.Line == 0 {
		t.Fatalf("err = %v, want a dmn.Error naming d, r1, in1 and a line", err)
	}
	if !strings.Contains(err.Error(), "cannot compare") {
		t.Errorf("err = %v", err)
	}
	src = table("", "", []string{"x:string"}, []string{"out:string"}, [][]string{{"unknownVar", `"hit"`}})
	if _, err := evaluate(t, src, map[string]any{"x": "abc"}); err == nil || !strings.Contains(err.Error(), "unknownVar") {
		t.Errorf("unknown variable: err = %v", err)
	}
	// A value that is not of the input's type.
	src = table("", "", []string{"x:integer"}, []string{"out:string"}, [][]string{{"1", `"hit"`}})
	if _, err := evaluate(t, src, map[string]any{"x": "one"}); err == nil || !strings.Contains(err.Error(), "DMN-01005") {
		t.Errorf("bad integer: err = %v", err)
	}
	bad := table("", "", []string{"x:integer"}, []string{"out:string"}, [][]string{{"[1..", `"hit"`}})
	_, err = dmn.Parse([]byte(bad), "bad.dmn")
	var pe *dmn.ParseError
	if !errors.As(err, &pe) || pe.Problems[0].Pos.Line == 0 || !strings.Contains(err.Error(), "bad.dmn:") || !strings.Contains(err.Error(), "'d'") {
		t.Errorf("malformed entry: err = %v", err)
	}
}

// Hit policies as Camunda's HitPolicyTest: inputs a, b, c each matching
// rule i when set to true.
func TestHitPolicies(t *testing.T) {
	rules := func(outs ...string) [][]string {
		var r [][]string
		for i, o := range outs {
			cells := []string{"-", "-", "-", o}
			cells[i] = "true"
			r = append(r, cells)
		}
		return r
	}
	in := []string{"a:boolean", "b:boolean", "c:boolean"}
	vars := func(a, b, c bool) map[string]any { return map[string]any{"a": a, "b": b, "c": c} }
	type want struct {
		values []any
		err    string
	}
	cases := []struct {
		name, hp, agg string
		out           string
		outs          []string
		a, b, c       bool
		want          want
	}{
		{"unique none", "UNIQUE", "", "o:string", []string{`"a"`, `"b"`, `"c"`}, false, false, false, want{values: []any{}}},
		{"unique one", "UNIQUE", "", "o:string", []string{`"a"`, `"b"`, `"c"`}, false, true, false, want{values: []any{"b"}}},
		{"unique two", "UNIQUE", "", "o:string", []string{`"a"`, `"b"`, `"c"`}, true, true, false, want{err: "DMN-03001 Hit policy 'UNIQUE' only allows a single rule to match. Actually match rules: '[r1, r2]'."}},
		{"default is unique", "", "", "o:string", []string{`"a"`, `"b"`, `"c"`}, true, true, false, want{err: "DMN-03001"}},
		{"first", "FIRST", "", "o:string", []string{`"a"`, `"b"`, `"c"`}, false, true, true, want{values: []any{"b"}}},
		{"any equal", "ANY", "", "o:string", []string{`"x"`, `"x"`, `"c"`}, true, true, false, want{values: []any{"x"}}},
		{"any differing", "ANY", "", "o:string", []string{`"a"`, `"b"`, `"c"`}, true, true, false, want{err: "DMN-03002 Hit policy 'ANY' only allows multiple matching rules with equal output. Matching rules: '[r1, r2]'."}},
		{"rule order", "RULE ORDER", "", "o:string", []string{`"a"`, `"b"`, `"c"`}, true, false, true, want{values: []any{"a", "c"}}},
		{"collect", "COLLECT", "", "o:string", []string{`"a"`, `"b"`, `"c"`}, true, true, true, want{values: []any{"a", "b", "c"}}},
		{"collect sum", "COLLECT", "SUM", "o:integer", []string{"10", "20", "30"}, true, true, false, want{values: []any{int64(30)}}},
		{"collect sum doubles", "COLLECT", "SUM", "o:double", []string{"1.5", "2", "30"}, true, true, false, want{values: []any{3.5}}},
		{"collect sum none", "COLLECT", "SUM", "o:integer", []string{"10", "20", "30"}, false, false, false, want{values: []any{}}},
		{"collect min", "COLLECT", "MIN", "o:integer", []string{"10", "20", "30"}, false, true, true, want{values: []any{int64(20)}}},
		{"collect max", "COLLECT", "MAX", "o:integer", []string{"10", "20", "30"}, true, true, false, want{values: []any{int64(20)}}},
		{"collect count", "COLLECT", "COUNT", "o:string", []string{`"a"`, `"b"`, `"c"`}, true, true, true, want{values: []any{int64(3)}}},
		{"collect count none", "COLLECT", "COUNT", "o:string", []string{`"a"`, `"b"`, `"c"`}, false, false, false, want{values: []any{int64(0)}}},
		{"collect sum of strings", "COLLECT", "SUM", "o:string", []string{`"a"`, `"b"`, `"c"`}, true, true, false, want{err: "DMN-03004"}},
		{"priority", "PRIORITY", "", `o:string:"high","medium","low"`, []string{`"low"`, `"high"`, `"medium"`}, true, true, true, want{values: []any{"high"}}},
		{"output order", "OUTPUT ORDER", "", `o:string:"high","medium","low"`, []string{`"low"`, `"high"`, `"medium"`}, true, true, true, want{values: []any{"high", "medium", "low"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := table(c.hp, c.agg, in, []string{c.out}, rules(c.outs...))
			res, err := evaluate(t, src, vars(c.a, c.b, c.c))
			if c.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.want.err) || !strings.Contains(err.Error(), "decision 'd'") {
					t.Fatalf("err = %v, want %q naming the decision", err, c.want.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := res.CollectEntries("o")
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", c.want.values) {
				t.Errorf("result %v, want %v", got, c.want.values)
			}
		})
	}
}

// Refusals at parse time.
func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		table("BOGUS", "", []string{"x:string"}, []string{"o:string"}, nil):                                                             "hitPolicy 'BOGUS'",
		table("FIRST", "SUM", []string{"x:string"}, []string{"o:string"}, nil):                                                          "only allowed with hit policy COLLECT",
		table("PRIORITY", "", []string{"x:string"}, []string{"o:string"}, nil):                                                          "outputValues",
		table("", "", []string{"x:string"}, []string{"o:string"}, [][]string{{"-"}}):                                                    "has 0 output entries for 1 outputs",
		`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>`:                                                            "DMN definitions",
		`<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="x"><decision id="d"/></definitions>`:                     "neither a decision table nor a literal expression",
		`<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="x"><decision id="d"><context/></decision></definitions>`: "boxed contexts",
		`<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="x"><decision id="d"><informationRequirement><requiredDecision href="#e"/></informationRequirement><literalExpression><text>1</text></literalExpression></decision><decision id="e"><informationRequirement><requiredDecision href="#d"/></informationRequirement><literalExpression><text>1</text></literalExpression></decision></definitions>`: "requires itself",
		`<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="x"><decision id="d"><literalExpression expressionLanguage="groovy"><text>1</text></literalExpression></decision></definitions>`:                                                                                                                                                                                                                  "expressionLanguage 'groovy'",
		`<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="x"><decision`: "malformed XML",
	}
	for src, want := range cases {
		_, err := dmn.Parse([]byte(src), "m.dmn")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.80s…: err = %v, want %q", src, err, want)
		}
	}
	// The engine's bounds: the file's size, each expression's check.
	src := table("", "", []string{"x:string"}, []string{"o:string"}, [][]string{{`"a"`, `"long output"`}})
	if _, err := dmn.ParseWith([]byte(src), dmn.Options{File: "m.dmn", MaxBytes: 100}); err == nil || !strings.Contains(err.Error(), "more than the limit of 100") {
		t.Errorf("max bytes: %v", err)
	}
	check := func(s string) error {
		if len(s) > 5 {
			return errors.New("expression too long")
		}
		return nil
	}
	if _, err := dmn.ParseWith([]byte(src), dmn.Options{File: "m.dmn", CheckExpression: check}); err == nil || !strings.Contains(err.Error(), "m.dmn:") || !strings.Contains(err.Error(), "expression too long") {
		t.Errorf("check: %v", err)
	}
}

const drg = `<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="dish" name="Dish" namespace="test">
  <decision id="season" name="Season">
    <decisionTable id="st">
      <input id="month"><inputExpression typeRef="integer"><text>month</text></inputExpression></input>
      <output id="so" name="season" typeRef="string"/>
      <rule id="winter"><inputEntry><text>12,1,2</text></inputEntry><outputEntry><text>"Winter"</text></outputEntry></rule>
      <rule id="summer"><inputEntry><text>[6..8]</text></inputEntry><outputEntry><text>"Summer"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="guests" name="Guests">
    <literalExpression><text>${adults + children}</text></literalExpression>
    <variable name="guestCount" typeRef="integer"/>
  </decision>
  <decision id="dish" name="Dish">
    <informationRequirement><requiredDecision href="#season"/></informationRequirement>
    <informationRequirement><requiredDecision href="#guests"/></informationRequirement>
    <decisionTable id="dt" hitPolicy="FIRST">
      <input id="s"><inputExpression typeRef="string"><text>season</text></inputExpression></input>
      <input id="g"><inputExpression typeRef="integer"><text>guestCount</text></inputExpression></input>
      <output id="dish" name="dish" typeRef="string"/>
      <output id="note" name="note" typeRef="string"/>
      <rule id="r1"><inputEntry><text>"Winter"</text></inputEntry><inputEntry><text>&lt;= 8</text></inputEntry><outputEntry><text>"Spareribs"</text></outputEntry><outputEntry><text></text></outputEntry></rule>
      <rule id="r2"><inputEntry><text>"Summer"</text></inputEntry><inputEntry><text>-</text></inputEntry><outputEntry><text>"Salad"</text></outputEntry><outputEntry><text>guestCount * 10</text></outputEntry></rule>
      <rule id="r3"><inputEntry><text>-</text></inputEntry><inputEntry><text>-</text></inputEntry><outputEntry><text>"Stew"</text></outputEntry><outputEntry><text>"default"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`

// A decision requirements graph: the required decisions' results are the
// variables of the one that requires them; empty output entries give no
// entry; the literal expression decision yields its variable.
func TestRequirementsGraph(t *testing.T) {
	defs, err := dmn.Parse([]byte(drg), "dish.dmn")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		month, adults int64
		want          string
	}{
		{1, 4, "[{dish=Spareribs}]"},
		{7, 2, "[{dish=Salad, note=20}]"},
		{1, 9, "[{dish=Stew, note=default}]"},
	}
	for _, c := range cases {
		ev, err := dmn.Evaluate(defs.Decision("dish"), expression.Vars{"month": c.month, "adults": c.adults, "children": int64(0)})
		if err != nil {
			t.Fatal(err)
		}
		if got := ev.Result().String(); got != c.want {
			t.Errorf("month %d, %d adults: %s, want %s", c.month, c.adults, got, c.want)
		}
		if len(ev.Decisions) != 3 || ev.Decisions[0].Decision.ID != "season" || ev.Decisions[2].Decision.ID != "dish" {
			t.Errorf("evaluated %d decisions, want season, guests, dish", len(ev.Decisions))
		}
	}
	ev, err := dmn.Evaluate(defs.Decision("guests"), expression.Vars{"adults": int64(2), "children": int64(3)})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := ev.Result().SingleEntry(); err != nil || v != int64(5) {
		t.Errorf("literal expression: %v, %v", v, err)
	}
}

// The result accessors the business rule task's mappings use.
func TestResultAccessors(t *testing.T) {
	two := dmn.Result{{{Name: "a", Value: 1}}, {{Name: "a", Value: 2}}}
	if _, err := two.SingleResult(); err == nil || !strings.Contains(err.Error(), "DMN-01011") {
		t.Errorf("SingleResult of two: %v", err)
	}
	wide := dmn.Result{{{Name: "a", Value: 1}, {Name: "b", Value: 2}}}
	if _, err := wide.SingleEntry(); err == nil || !strings.Contains(err.Error(), "DMN-01010") {
		t.Errorf("SingleEntry of two entries: %v", err)
	}
	if v, err := (dmn.Result{}).SingleEntry(); v != nil || err != nil {
		t.Errorf("SingleEntry of none: %v, %v", v, err)
	}
	if got := two.CollectEntries("a"); len(got) != 2 || got[1] != 2 {
		t.Errorf("CollectEntries: %v", got)
	}
}

// Typical DMN models of Camunda's own tests parse (when the Camunda
// mirror is on this machine).
func TestCamundaModelsParse(t *testing.T) {
	repo := "/work/.mirror/camunda+camunda-bpm-platform/repo"
	out, err := exec.Command("git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", "engine/src/test/resources/").Output()
	if err != nil {
		t.Skip("the Camunda mirror is not here")
	}
	var ok, refused int
	var reasons []string
	for _, name := range strings.Split(string(out), "\n") {
		if !strings.HasSuffix(name, ".dmn") && !strings.HasSuffix(name, ".dmn11.xml") {
			continue
		}
		data, err := exec.Command("git", "-C", repo, "show", "HEAD:"+name).Output()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dmn.Parse(data, name); err != nil {
			refused++
			reasons = append(reasons, err.Error())
			continue
		}
		ok++
	}
	t.Logf("%d parse, %d refused", ok, refused)
	for _, r := range reasons {
		t.Log(r)
	}
	if ok < 9*(ok+refused)/10 {
		t.Errorf("only %d of %d Camunda DMN models parse", ok, ok+refused)
	}
}

// BenchmarkDecisionEvaluation is one evaluation of a decision table of
// three inputs and ten rules (go test -bench DecisionEvaluation ./dmn).
func BenchmarkDecisionEvaluation(b *testing.B) {
	var rules [][]string
	for i := range 10 {
		rules = append(rules, []string{fmt.Sprintf("[%d..%d]", i*10, i*10+9), `"gold","silver"`, "-", fmt.Sprintf(`"r%d"`, i)})
	}
	src := table("FIRST", "", []string{"amount:integer", "status:string", "flag:boolean"}, []string{"o:string"}, rules)
	defs, err := dmn.Parse([]byte(src), "bench.dmn")
	if err != nil {
		b.Fatal(err)
	}
	vars := expression.Vars{"amount": int64(95), "status": "silver", "flag": true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dmn.Evaluate(defs.Decisions[0], vars); err != nil {
			b.Fatal(err)
		}
	}
}
