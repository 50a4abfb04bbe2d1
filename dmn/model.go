package dmn

import (
	"fmt"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/expression"
)

// Position is an element's line and column in its file.
type Position = bpmn.Position

// Definitions is a parsed DMN file: its decision requirements graph.
type Definitions struct {
	ID, Name  string
	Namespace string
	// Decisions in document order.
	Decisions []*Decision
}

// Decision returns the decision with id, or nil.
func (d *Definitions) Decision(id string) *Decision {
	for _, x := range d.Decisions {
		if x.ID == id {
			return x
		}
	}
	return nil
}

// Decision is a decision: a decision table or a literal expression, with
// the decisions it requires.
type Decision struct {
	ID, Name   string
	Pos        Position
	VersionTag string // camunda:versionTag
	// HistoryTimeToLive is camunda:historyTimeToLive in days (nil: none).
	HistoryTimeToLive *int
	Requires          []*Decision
	Table             *DecisionTable     // nil for a literal expression
	Literal           *LiteralExpression // nil for a decision table
}

// HitPolicy is a decision table's hit policy.
type HitPolicy string

// The hit policies.
const (
	Unique      HitPolicy = "UNIQUE"
	First       HitPolicy = "FIRST"
	Priority    HitPolicy = "PRIORITY"
	Any         HitPolicy = "ANY"
	Collect     HitPolicy = "COLLECT"
	RuleOrder   HitPolicy = "RULE ORDER"
	OutputOrder HitPolicy = "OUTPUT ORDER"
)

// DecisionTable is a decision table.
type DecisionTable struct {
	ID        string
	HitPolicy HitPolicy
	// Aggregation is COLLECT's aggregator: SUM, MIN, MAX, COUNT or "".
	Aggregation string
	Inputs      []*Input
	Outputs     []*Output
	Rules       []*Rule
}

// Input is a decision table's input clause.
type Input struct {
	ID, Label string
	Pos       Position
	// Expr is the input expression (nil: none, the input is null).
	Expr    *expression.Expr
	TypeRef string
	// Variable is camunda:inputVariable: the name the input's value has in
	// its input entries (default cellInput).
	Variable string
}

// Output is a decision table's output clause.
type Output struct {
	ID, Label, Name string
	TypeRef         string
	// Values are the outputValues in priority order (PRIORITY and OUTPUT
	// ORDER), nil when none are given.
	Values []any
}

// Rule is a decision table's rule.
type Rule struct {
	ID          string
	Pos         Position
	Description string // its description or first annotation
	Entries     []*UnaryTests
	// Outputs are its output entries by output; nil where the entry is empty.
	Outputs []*Value
}

// LiteralExpression is a literal expression decision: its variable and
// expression.
type LiteralExpression struct {
	VariableName string
	TypeRef      string
	Value        *Value
}

// Value is an output entry or a literal expression: a FEEL literal or an
// expression.
type Value struct {
	Text    string
	Pos     Position
	literal any
	isLit   bool
	expr    *expression.Expr
}

// String names the decision for messages.
func (d *Decision) String() string { return "decision '" + d.ID + "'" }

// Error is an evaluation error of a decision, naming where it arose.
type Error struct {
	DecisionID string
	RuleID     string // "" when not about a rule
	InputID    string // "" when not about an input
	OutputID   string // "" when not about an output
	Pos        Position
	Message    string
	Err        error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	fmt.Fprintf(&b, " (decision '%s'", e.DecisionID)
	if e.RuleID != "" {
		fmt.Fprintf(&b, ", rule '%s'", e.RuleID)
	}
	if e.InputID != "" {
		fmt.Fprintf(&b, ", input '%s'", e.InputID)
	}
	if e.OutputID != "" {
		fmt.Fprintf(&b, ", output '%s'", e.OutputID)
	}
	if e.Pos.Line > 0 {
		fmt.Fprintf(&b, ", line %d:%d", e.Pos.Line, e.Pos.Column)
	}
	b.WriteString(")")
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ParseError lists the problems that keep a DMN file from deploying.
type ParseError struct {
	File     string
	Problems []bpmn.Problem
}

func (e *ParseError) Error() string {
	if len(e.Problems) == 1 {
		return "dmn: " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "dmn: %s: %d problems", e.File, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p.String())
	}
	return b.String()
}
