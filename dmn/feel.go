package dmn

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/expression"
)

// FEEL simple unary tests, the grammar of input entries:
//
//	tests    = "-" | "not(" positive ")" | positive
//	positive = test ("," test)*
//	test     = ("<" | "<=" | ">" | ">=") endpoint | interval | endpoint
//	interval = ("[" | "(" | "]") endpoint ".." endpoint ("]" | ")" | "[")
//	endpoint = literal | name ("a" or "a.b")
//
// An entry that is not one (an expression, or expressionLanguage juel) is
// evaluated as an expression: a boolean is whether it matches, another
// value must equal the input.

// UnaryTests is a parsed input entry.
type UnaryTests struct {
	Text  string
	any   bool // "-" or empty: matches every input
	not   bool
	tests []test
	expr  *expression.Expr // an expression entry
}

type test struct {
	op        string // "=", "<", "<=", ">", ">=", ".."
	a, b      endpoint
	openLow   bool
	openHigh  bool
	intervals bool
}

type endpoint struct {
	lit  any
	name *expression.Expr // a variable (path) instead of a literal
	date bool             // date and time(name): name's value as a date
}

func parseUnaryTests(src string, juel bool) (*UnaryTests, error) {
	u := &UnaryTests{Text: src}
	s := strings.TrimSpace(src)
	if s == "" || s == "-" {
		u.any = true
		return u, nil
	}
	if !juel && !expression.IsExpression(s) {
		inner := s
		if strings.HasPrefix(s, "not(") && strings.HasSuffix(s, ")") {
			inner = strings.TrimSpace(s[len("not(") : len(s)-1])
		}
		if tests, ok := parsePositive(inner); ok {
			u.not, u.tests = inner != s, tests
			return u, nil
		}
	}
	x, err := compile(strings.ReplaceAll(s, "?", "cellInput"))
	if err != nil {
		return u, err
	}
	u.expr = x
	return u, nil
}

// parsePositive parses a disjunction of simple positive unary tests;
// false when s is not one.
func parsePositive(s string) ([]test, bool) {
	var out []test
	for _, part := range splitTopLevel(s) {
		part = strings.TrimSpace(part)
		var t test
		switch {
		case strings.HasPrefix(part, "<=") || strings.HasPrefix(part, ">="):
			t.op, part = part[:2], part[2:]
		case strings.HasPrefix(part, "<") || strings.HasPrefix(part, ">"):
			t.op, part = part[:1], part[1:]
		case len(part) > 1 && strings.ContainsRune("[(]", rune(part[0])) && strings.ContainsRune("[)]", rune(part[len(part)-1])) && strings.Contains(part, ".."):
			t.op = ".."
			t.openLow = part[0] != '['
			t.openHigh = part[len(part)-1] != ']'
			lo, hi, _ := strings.Cut(part[1:len(part)-1], "..")
			var ok1, ok2 bool
			t.a, ok1 = parseEndpoint(lo)
			t.b, ok2 = parseEndpoint(hi)
			if !ok1 || !ok2 {
				return nil, false
			}
			out = append(out, t)
			continue
		default:
			t.op = "="
		}
		var ok bool
		if t.a, ok = parseEndpoint(part); !ok {
			return nil, false
		}
		out = append(out, t)
	}
	return out, len(out) > 0
}

func parseEndpoint(s string) (endpoint, bool) {
	s = strings.TrimSpace(s)
	if v, ok, err := literal(s); ok && err == nil {
		return endpoint{lit: v}, true
	}
	date := false
	for _, fn := range []string{"date and time(", "date("} {
		if arg, ok := strings.CutPrefix(s, fn); ok && strings.HasSuffix(arg, ")") {
			s, date = strings.TrimSpace(strings.TrimSuffix(arg, ")")), true
			break
		}
	}
	if !isName(s) {
		return endpoint{}, false
	}
	x, err := expression.Compile("${" + s + "}")
	if err != nil {
		return endpoint{}, false
	}
	return endpoint{name: x, date: date}, true
}

// isName reports whether s is a name or a path of names (a.b).
func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" || part[0] >= '0' && part[0] <= '9' {
			return false
		}
		for _, r := range part {
			if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
	}
	switch s {
	case "not", "and", "or", "true", "false", "null":
		return false
	}
	return true
}

// splitTopLevel splits s at the commas outside quotes and parentheses
// (intervals hold no commas: "]1..5[" closes with an opening bracket).
func splitTopLevel(s string) []string {
	var out []string
	depth, start, quoted := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(' && i > 0 && isLetter(s[i-1]):
			depth++ // a call: not(...), date and time(...)
		case c == ')' && depth > 0:
			depth-- // (or an interval's end, "[1..5)", outside calls)
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// literal reads a FEEL literal: a string, a number, true, false, null,
// date and time("...") or date("..."); ok is false for anything else.
func literal(s string) (v any, ok bool, err error) {
	switch s {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	case "null":
		return nil, true, nil
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		body := s[1 : len(s)-1]
		if strings.Contains(strings.ReplaceAll(body, `\"`, ""), `"`) {
			return nil, false, nil // "a","b" is two literals, not one
		}
		u, err := strconv.Unquote(s)
		if err != nil {
			return strings.ReplaceAll(body, `\"`, `"`), true, nil
		}
		return u, true, nil
	}
	for _, fn := range []string{"date and time(", "date("} {
		if strings.HasPrefix(s, fn) && strings.HasSuffix(s, ")") {
			arg, ok, _ := literal(strings.TrimSpace(s[len(fn) : len(s)-1]))
			str, isStr := arg.(string)
			if !ok || !isStr {
				return nil, false, fmt.Errorf("%s) takes a string", fn)
			}
			t, err := parseDate(str)
			return t, true, err
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true, nil
	}
	if s != "" && (s[0] == '-' || s[0] == '.' || s[0] >= '0' && s[0] <= '9') {
		if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "eEnNiI") {
			return f, true, nil
		}
	}
	return nil, false, nil
}

// dateLayouts are the forms of a date: Camunda's yyyy-MM-dd'T'HH:mm:ss in
// the local zone, with a zone, or a day.
var dateLayouts = []string{"2006-01-02T15:04:05", time.RFC3339Nano, "2006-01-02"}

func parseDate(s string) (time.Time, error) {
	for _, l := range dateLayouts {
		if t, err := time.ParseInLocation(l, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("'%s' is not a date and time (yyyy-MM-ddTHH:mm:ss)", s)
}

// scope resolves an input entry's names: the input variable, then the
// decision's variables.
type scope struct {
	name  string
	value any
	vars  expression.Resolver
}

func (s *scope) Resolve(name string) (any, bool) {
	if name == s.name {
		return s.value, true
	}
	if name == "inputVariableName" {
		return s.name, true
	}
	return s.vars.Resolve(name)
}

// Match reports whether input, the value of the entry's input, passes the
// tests; vars resolves the other names.
func (u *UnaryTests) Match(input any, name string, vars expression.Resolver) (bool, error) {
	if u == nil || u.any {
		return true, nil
	}
	sc := &scope{name: name, value: input, vars: vars}
	if u.expr != nil {
		v, err := u.expr.Eval(sc)
		if err != nil {
			return false, err
		}
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return equal(input, v), nil
	}
	for _, t := range u.tests {
		ok, err := t.match(input, sc)
		if err != nil {
			return false, err
		}
		if ok {
			return !u.not, nil
		}
	}
	return u.not, nil
}

func (e endpoint) value(sc *scope) (any, error) {
	if e.name == nil {
		return e.lit, nil
	}
	v, err := e.name.Eval(sc)
	if err != nil || !e.date {
		return v, err
	}
	switch d := v.(type) {
	case string:
		return parseDate(d)
	case time.Time:
		return d, nil
	}
	return nil, fmt.Errorf("date and time(...) takes a string or a date, not %s", describe(v))
}

func (t test) match(input any, sc *scope) (bool, error) {
	a, err := t.a.value(sc)
	if err != nil {
		return false, err
	}
	if t.op == "=" {
		return equal(input, a), nil
	}
	if input == nil || a == nil {
		return false, nil // FEEL: a comparison with null is null, which does not match
	}
	c, err := compare(input, a)
	if err != nil {
		return false, err
	}
	switch t.op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	// an interval
	if c < 0 || c == 0 && t.openLow {
		return false, nil
	}
	b, err := t.b.value(sc)
	if err != nil || b == nil {
		return false, err
	}
	if c, err = compare(input, b); err != nil {
		return false, err
	}
	return c < 0 || c == 0 && !t.openHigh, nil
}

// number reads a Go number.
func number(v any) (f float64, i int64, isInt, ok bool) {
	switch n := v.(type) {
	case int:
		return float64(n), int64(n), true, true
	case int8:
		return float64(n), int64(n), true, true
	case int16:
		return float64(n), int64(n), true, true
	case int32:
		return float64(n), int64(n), true, true
	case int64:
		return float64(n), n, true, true
	case uint8:
		return float64(n), int64(n), true, true
	case uint16:
		return float64(n), int64(n), true, true
	case uint32:
		return float64(n), int64(n), true, true
	case float32:
		return float64(n), 0, false, true
	case float64:
		return n, 0, false, true
	}
	return 0, 0, false, false
}

func equal(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	c, err := compare(a, b)
	if err == nil {
		return c == 0
	}
	x, ok1 := a.(bool)
	y, ok2 := b.(bool)
	return ok1 && ok2 && x == y
}

var errIncomparable = errors.New("incomparable")

// compare orders two numbers, strings or dates.
func compare(a, b any) (int, error) {
	if fa, ia, aInt, ok := number(a); ok {
		if fb, ib, bInt, ok := number(b); ok {
			if aInt && bInt {
				return cmp3(ia < ib, ia > ib), nil
			}
			return cmp3(fa < fb, fa > fb), nil
		}
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), nil
		}
	case time.Time:
		if y, ok := b.(time.Time); ok {
			return x.Compare(y), nil
		}
	}
	return 0, fmt.Errorf("%w: cannot compare %s with %s", errIncomparable, describe(a), describe(b))
}

func cmp3(less, more bool) int {
	switch {
	case less:
		return -1
	case more:
		return 1
	}
	return 0
}

func describe(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%v (%T)", v, v)
}
