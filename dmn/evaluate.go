package dmn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite/expression"
)

// Entry is one output of a result: its name and value.
type Entry struct {
	Name  string
	Value any
}

// Entries are one result of a decision (a matched rule's output entries,
// in output order, or a literal expression's value).
type Entries []Entry

// Map returns the entries as a map.
func (e Entries) Map() map[string]any {
	m := make(map[string]any, len(e))
	for _, x := range e {
		m[x.Name] = x.Value
	}
	return m
}

// Result is a decision's result: Camunda's DmnDecisionResult, a list of
// entries.
type Result []Entries

// List returns the result as a list of maps (DmnDecisionResult.getResultList).
func (r Result) List() []map[string]any {
	out := make([]map[string]any, len(r))
	for i, e := range r {
		out[i] = e.Map()
	}
	return out
}

// SingleResult is the one result, nil when there is none; more than one
// is an error (DmnDecisionResult.getSingleResult).
func (r Result) SingleResult() (Entries, error) {
	switch len(r) {
	case 0:
		return nil, nil
	case 1:
		return r[0], nil
	}
	return nil, fmt.Errorf("DMN-01011 Unable to get single decision result as it has more than one result '%s'", r)
}

// SingleEntry is the one entry of the one result, nil when there is none
// (DmnDecisionResult.getSingleEntry).
func (r Result) SingleEntry() (any, error) {
	one, err := r.SingleResult()
	if err != nil || one == nil {
		return nil, err
	}
	switch len(one) {
	case 0:
		return nil, nil
	case 1:
		return one[0].Value, nil
	}
	return nil, fmt.Errorf("DMN-01010 Unable to get single decision result entry as it has more than one entry '%s'", one)
}

// CollectEntries are the values of the entries named name, one per result
// that has one (DmnDecisionResult.collectEntries).
func (r Result) CollectEntries(name string) []any {
	out := []any{}
	for _, e := range r {
		for _, x := range e {
			if x.Name == name {
				out = append(out, x.Value)
			}
		}
	}
	return out
}

// OutputNames are the names of the entries of every result, in order of
// first appearance.
func (r Result) OutputNames() []string {
	var out []string
	for _, e := range r {
		for _, x := range e {
			if !slices.Contains(out, x.Name) {
				out = append(out, x.Name)
			}
		}
	}
	return out
}

// String prints entries as Camunda prints them, {name=value, ...}.
func (e Entries) String() string {
	parts := make([]string, len(e))
	for i, x := range e {
		parts[i] = fmt.Sprintf("%s=%v", x.Name, x.Value)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (r Result) String() string {
	parts := make([]string, len(r))
	for i, e := range r {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Evaluation is the record of one evaluation: each decision evaluated,
// required ones first, the one asked for last.
type Evaluation struct {
	Decisions []*DecisionEvaluation
}

// Result is the result of the decision asked for.
func (ev *Evaluation) Result() Result {
	return ev.Decisions[len(ev.Decisions)-1].Result
}

// DecisionEvaluation is what evaluating one decision found: its inputs,
// matched rules and result (Camunda's history of a decision instance).
type DecisionEvaluation struct {
	Decision *Decision
	Inputs   []EvaluatedInput
	Matched  []MatchedRule
	// Collect is the aggregated value of COLLECT with an aggregator
	// (HasCollect set).
	Collect    any
	HasCollect bool
	Result     Result
}

// EvaluatedInput is an input's value.
type EvaluatedInput struct {
	Input *Input
	Value any
}

// MatchedRule is a rule that matched, with its outputs.
type MatchedRule struct {
	Rule    *Rule
	Order   int // 1-based position in the table
	Outputs []EvaluatedOutput
}

// EvaluatedOutput is an output entry's value.
type EvaluatedOutput struct {
	Output *Output
	Value  any
}

// Evaluate evaluates decision d with the variables vars resolves: the
// decisions it requires first (each once, depth first), whose results
// become variables of the ones that require them.
func Evaluate(d *Decision, vars expression.Resolver) (*Evaluation, error) {
	var order []*Decision
	var visit func(x *Decision)
	visit = func(x *Decision) {
		if slices.Contains(order, x) {
			return
		}
		for _, r := range x.Requires {
			visit(r)
		}
		order = append(order, x)
	}
	visit(d)
	ev := &Evaluation{}
	var extra expression.Vars
	for _, x := range order {
		res := vars
		if extra != nil {
			res = overlay{extra, vars}
		}
		de, err := evaluateOne(x, res)
		if err != nil {
			return nil, err
		}
		ev.Decisions = append(ev.Decisions, de)
		if x != d {
			if extra == nil {
				extra = expression.Vars{}
			}
			addResult(extra, x, de.Result)
		}
	}
	return ev, nil
}

// addResult makes a required decision's result variables, as Camunda's
// DefaultDmnDecisionContext does: one result's entries as they are (but
// of COLLECT and RULE ORDER tables), else each output's list of values.
func addResult(vars expression.Vars, d *Decision, r Result) {
	if len(r) == 0 {
		return
	}
	if len(r) == 1 && (d.Table == nil || d.Table.HitPolicy != Collect && d.Table.HitPolicy != RuleOrder) {
		for _, e := range r[0] {
			vars[e.Name] = e.Value
		}
		return
	}
	for _, name := range r.OutputNames() {
		vars[name] = r.CollectEntries(name)
	}
}

type overlay struct {
	top  expression.Vars
	rest expression.Resolver
}

func (o overlay) Resolve(name string) (any, bool) {
	if v, ok := o.top[name]; ok {
		return v, true
	}
	return o.rest.Resolve(name)
}

func evaluateOne(d *Decision, vars expression.Resolver) (*DecisionEvaluation, error) {
	de := &DecisionEvaluation{Decision: d}
	if l := d.Literal; l != nil {
		v, err := l.Value.eval(vars)
		if err == nil {
			v, err = transform(l.TypeRef, v)
		}
		if err != nil {
			return nil, &Error{DecisionID: d.ID, Pos: l.Value.Pos, Message: "literal expression '" + l.Value.Text + "'", Err: err}
		}
		de.Result = Result{{{Name: l.VariableName, Value: v}}}
		return de, nil
	}
	t := d.Table
	for _, in := range t.Inputs {
		var v any
		if in.Expr != nil {
			var err error
			if v, err = in.Expr.Eval(vars); err == nil {
				v, err = transform(in.TypeRef, v)
			}
			if err != nil {
				return nil, &Error{DecisionID: d.ID, InputID: in.ID, Pos: in.Pos, Message: "input expression '" + in.Expr.Source() + "'", Err: err}
			}
		}
		de.Inputs = append(de.Inputs, EvaluatedInput{Input: in, Value: v})
	}
	for n, r := range t.Rules {
		ok, err := matches(d, r, de.Inputs, vars)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		m := MatchedRule{Rule: r, Order: n + 1}
		for i, o := range r.Outputs {
			if o == nil || i >= len(t.Outputs) {
				continue // an empty output entry gives no entry
			}
			v, err := o.eval(vars)
			if err == nil {
				v, err = transform(t.Outputs[i].TypeRef, v)
			}
			if err != nil {
				return nil, &Error{DecisionID: d.ID, RuleID: r.ID, OutputID: t.Outputs[i].ID, Pos: o.Pos, Message: "output entry '" + o.Text + "'", Err: err}
			}
			m.Outputs = append(m.Outputs, EvaluatedOutput{Output: t.Outputs[i], Value: v})
		}
		de.Matched = append(de.Matched, m)
		if t.HitPolicy == First {
			break
		}
	}
	if err := applyHitPolicy(de); err != nil {
		return nil, err
	}
	return de, nil
}

func matches(d *Decision, r *Rule, inputs []EvaluatedInput, vars expression.Resolver) (bool, error) {
	for i, ut := range r.Entries {
		if i >= len(inputs) {
			break
		}
		in := inputs[i]
		ok, err := ut.Match(in.Value, in.Input.Variable, vars)
		if err != nil {
			return false, &Error{DecisionID: d.ID, RuleID: r.ID, InputID: in.Input.ID, Pos: r.Pos, Message: "input entry '" + ut.Text + "'", Err: err}
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

func (v *Value) eval(vars expression.Resolver) (any, error) {
	if v.isLit {
		return v.literal, nil
	}
	return v.expr.Eval(vars)
}

func entries(m MatchedRule) Entries {
	e := make(Entries, len(m.Outputs))
	for i, o := range m.Outputs {
		e[i] = Entry{Name: o.Output.Name, Value: o.Value}
	}
	return e
}

func ruleIDs(ms []MatchedRule) string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.Rule.ID
	}
	return "[" + strings.Join(ids, ", ") + "]"
}

// applyHitPolicy turns the matched rules into the result, as Camunda's hit
// policy handlers do (PRIORITY and OUTPUT ORDER as DMN defines them).
func applyHitPolicy(de *DecisionEvaluation) error {
	d, t := de.Decision, de.Decision.Table
	fail := func(format string, args ...any) error {
		return &Error{DecisionID: d.ID, Pos: d.Pos, Message: fmt.Sprintf(format, args...)}
	}
	ms := de.Matched
	switch t.HitPolicy {
	case Unique:
		if len(ms) > 1 {
			return fail("DMN-03001 Hit policy 'UNIQUE' only allows a single rule to match. Actually match rules: '%s'.", ruleIDs(ms))
		}
	case Any:
		for _, m := range ms[min(1, len(ms)):] {
			if !sameOutputs(m, ms[0]) {
				return fail("DMN-03002 Hit policy 'ANY' only allows multiple matching rules with equal output. Matching rules: '%s'.", ruleIDs(ms))
			}
		}
		ms = ms[:min(1, len(ms))]
	case Priority, OutputOrder:
		sorted := slices.Clone(ms)
		slices.SortStableFunc(sorted, func(a, b MatchedRule) int { return comparePriority(t, a, b) })
		ms = sorted
		if t.HitPolicy == Priority {
			ms = ms[:min(1, len(ms))]
		}
		de.Matched = ms
	case Collect:
		if t.Aggregation != "" {
			return aggregate(de)
		}
	}
	for _, m := range ms {
		de.Result = append(de.Result, entries(m))
	}
	return nil
}

func sameOutputs(a, b MatchedRule) bool {
	if len(a.Outputs) != len(b.Outputs) {
		return false
	}
	for i := range a.Outputs {
		if a.Outputs[i].Output != b.Outputs[i].Output || !equal(a.Outputs[i].Value, b.Outputs[i].Value) {
			return false
		}
	}
	return true
}

// comparePriority orders rules by their outputs' places in the outputs'
// value lists, the first output first; a value not in the list comes last.
func comparePriority(t *DecisionTable, a, b MatchedRule) int {
	for _, o := range t.Outputs {
		if o.Values == nil {
			continue
		}
		if c := rank(o, a) - rank(o, b); c != 0 {
			return c
		}
	}
	return 0
}

func rank(o *Output, m MatchedRule) int {
	for _, e := range m.Outputs {
		if e.Output == o {
			for i, v := range o.Values {
				if equal(v, e.Value) {
					return i
				}
			}
		}
	}
	return len(o.Values)
}

// aggregate is COLLECT with SUM, MIN, MAX or COUNT: one entry named after
// the output, with the aggregate of the matched rules' values (none: no
// result, but COUNT's 0).
func aggregate(de *DecisionEvaluation) error {
	t := de.Decision.Table
	var values []any
	name := ""
	for _, m := range de.Matched {
		switch len(m.Outputs) {
		case 0: // an empty output entry is left out
		case 1:
			if values == nil {
				name = m.Outputs[0].Output.Name
			}
			values = append(values, m.Outputs[0].Value)
		default:
			return &Error{DecisionID: de.Decision.ID, RuleID: m.Rule.ID, Pos: m.Rule.Pos, Message: fmt.Sprintf(
				"DMN-03003 Unable to execute aggregation '%s' on compound decision output '%s'. Only one output entry allowed.", t.Aggregation, entries(m))}
		}
	}
	if name == "" {
		name = t.Outputs[0].Name
	}
	var v any
	switch {
	case t.Aggregation == "COUNT":
		v = int64(len(values))
	case len(values) == 0:
		return nil
	default:
		var err error
		if v, err = aggregateNumbers(t.Aggregation, t.Outputs[0].TypeRef, values); err != nil {
			return &Error{DecisionID: de.Decision.ID, Pos: de.Decision.Pos, Message: err.Error()}
		}
	}
	de.Collect, de.HasCollect = v, true
	de.Result = Result{{{Name: name, Value: v}}}
	return nil
}

// aggregateNumbers sums or picks the least or greatest of values: as
// integers when all are (and the output is not a double), else as doubles.
func aggregateNumbers(agg, typeRef string, values []any) (any, error) {
	allInt := typeRef != "double"
	fs := make([]float64, len(values))
	is := make([]int64, len(values))
	for i, v := range values {
		if s, ok := v.(string); ok {
			if n, ok, _ := literal(strings.TrimSpace(s)); ok {
				v = n
			}
		}
		f, n, isInt, ok := number(v)
		if !ok {
			return nil, fmt.Errorf("DMN-03004 Unable to convert value '%v' to a support aggregatable type '[Integer, Long, Double]'.", values)
		}
		fs[i], is[i] = f, n
		allInt = allInt && isInt
	}
	if allInt {
		return pick(agg, is), nil
	}
	return pick(agg, fs), nil
}

func pick[N int64 | float64](agg string, xs []N) N {
	switch agg {
	case "MIN":
		return slices.Min(xs)
	case "MAX":
		return slices.Max(xs)
	}
	var sum N
	for _, x := range xs {
		sum += x
	}
	return sum
}
