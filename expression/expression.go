package expression

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// Resolver supplies the values names in an expression refer to: the
// execution's variables (through its scope chain), then registered beans.
// A name whose value is a Go func can be called: ${now()}.
type Resolver interface {
	// Resolve returns the value of a top-level name and whether it exists.
	Resolve(name string) (any, bool)
}

// Vars is a Resolver over a map of names to values.
type Vars map[string]any

// Resolve implements Resolver.
func (v Vars) Resolve(name string) (any, bool) {
	x, ok := v[name]
	return x, ok
}

// Expr is a compiled expression, safe for concurrent use.
type Expr struct {
	src   string
	parts []part
	names []string
}

// part is literal text (prog == nil) or a compiled expression.
type part struct {
	text string
	prog *vm.Program
}

// IsExpression reports whether s contains ${...} or #{...}.
func IsExpression(s string) bool {
	return strings.Contains(s, "${") || strings.Contains(s, "#{")
}

// maxCached bounds the compile cache; sources beyond it are compiled on
// every call. Models hold far fewer distinct expressions.
const maxCached = 10000

var (
	cache     sync.Map // source text → *Expr
	cacheSize atomic.Int64
)

// Compile compiles src, a text that is an expression ("${a > 1}"), contains
// expressions ("Hello ${name}") or is plain text. Results are cached per
// distinct source text. A syntax error is an *Error giving the line and
// column.
func Compile(src string) (*Expr, error) {
	if e, ok := cache.Load(src); ok {
		return e.(*Expr), nil
	}
	e, err := compile(src)
	if err != nil {
		return nil, err
	}
	if cacheSize.Load() < maxCached {
		if prev, loaded := cache.LoadOrStore(src, e); loaded {
			return prev.(*Expr), nil
		}
		cacheSize.Add(1)
	}
	return e, nil
}

// options are the expr settings every translated expression compiles with;
// the rewriter is added per expression.
var options = []expr.Option{
	expr.DisableIfOperator(),
	expr.Function(fnVar, helperVar),
	expr.Function(fnFunc, helperFunc),
	expr.Function(fnGet, helperGet),
	expr.Function(fnCall, helperCall),
	expr.Function(fnInvoke, helperInvoke),
	expr.Function(fnEmpty, helperEmpty),
	expr.Function(fnNum, helperNum),
}

func compile(src string) (e *Expr, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, &Error{Expr: src, Msg: fmt.Sprintf("cannot compile: %v", r)}
		}
	}()
	segs, err := split(src)
	if err != nil {
		var se *syntaxError
		errors.As(err, &se)
		return nil, syntaxErr(src, se.pos, se.msg)
	}
	e = &Expr{src: src}
	seen := map[string]bool{}
	for _, seg := range segs {
		if seg.body == nil {
			e.parts = append(e.parts, part{text: seg.text})
			continue
		}
		tr, err := translate(seg.body)
		if err != nil {
			var se *syntaxError
			errors.As(err, &se)
			return nil, syntaxErr(src, se.pos, se.msg)
		}
		prog, err := expr.Compile(tr.text, append(options[:len(options):len(options)], expr.Patch(&rewriter{renamed: tr.renamed}))...)
		if err != nil {
			return nil, exprCompileErr(src, seg, tr, err)
		}
		e.parts = append(e.parts, part{prog: prog})
		for _, n := range tr.names {
			if !seen[n] {
				seen[n] = true
				e.names = append(e.names, n)
			}
		}
	}
	if len(e.parts) == 0 { // the empty text
		e.parts = []part{{}}
	}
	return e, nil
}

// exprCompileErr reports an error of expr's parser or checker at the
// corresponding place of the JUEL source.
func exprCompileErr(src string, seg segment, tr *translation, err error) error {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return &Error{Expr: src, Msg: "syntax error", Err: err}
	}
	pos := seg.start + len(seg.text) - 1 // the closing brace, for errors at the end
	if fe.From < tr.runes {
		pos = tr.sourcePos(fe.From)
	}
	msg := fe.Message
	for alias, name := range tr.renamed {
		msg = strings.ReplaceAll(msg, alias, name)
	}
	return syntaxErr(src, pos, msg)
}

func syntaxErr(src string, pos int, msg string) *Error {
	line, col := 1, 1
	for _, r := range src[:min(pos, len(src))] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	where := fmt.Sprintf("column %d", col)
	if strings.Contains(src, "\n") {
		where = fmt.Sprintf("line %d, column %d", line, col)
	}
	return &Error{Expr: src, Msg: fmt.Sprintf("syntax error at %s: %s", where, msg)}
}

// Source returns the text the expression was compiled from.
func (e *Expr) Source() string { return e.src }

// Names returns the top-level names the expression uses (variables, beans
// and functions), in order of first use. The caller must not modify it.
func (e *Expr) Names() []string { return e.names }

// IsLiteral reports whether the source is plain text without expressions.
func (e *Expr) IsLiteral() bool { return len(e.parts) == 1 && e.parts[0].prog == nil }

// vms reuses expr's virtual machines, which keep their stacks between runs.
var vms = sync.Pool{New: func() any { return new(vm.VM) }}

// Eval evaluates the expression. A text with embedded expressions evaluates
// to a string.
func (e *Expr) Eval(r Resolver) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &Error{Expr: e.src, Msg: fmt.Sprintf("evaluation panicked: %v", p)}
		}
	}()
	if len(e.parts) == 1 {
		if e.parts[0].prog == nil {
			return e.parts[0].text, nil
		}
		return e.run(e.parts[0].prog, r)
	}
	var b strings.Builder
	for _, p := range e.parts {
		if p.prog == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := e.run(p.prog, r)
		if err != nil {
			return nil, err
		}
		b.WriteString(text(v))
	}
	return b.String(), nil
}

func (e *Expr) run(prog *vm.Program, r Resolver) (any, error) {
	m := vms.Get().(*vm.VM)
	out, err := m.Run(prog, r) // the Resolver is the environment fnVar reads
	vms.Put(m)
	if err == nil {
		return out, nil
	}
	var he *evalError
	if errors.As(err, &he) {
		return nil, &Error{Expr: e.src, Msg: he.msg, Err: he.cause}
	}
	// expr's own runtime errors carry a snippet of the translated text;
	// keep just the message (or the error it wraps).
	var fe *file.Error
	if errors.As(err, &fe) {
		if fe.Prev != nil {
			return nil, &Error{Expr: e.src, Msg: "evaluation failed", Err: fe.Prev}
		}
		return nil, &Error{Expr: e.src, Msg: fe.Message}
	}
	return nil, &Error{Expr: e.src, Msg: "evaluation failed", Err: err}
}

// EvalBool evaluates a condition: the result must be a boolean.
func (e *Expr) EvalBool(r Resolver) (bool, error) {
	v, err := e.Eval(r)
	if err != nil {
		return false, err
	}
	if b, ok := v.(bool); ok {
		return b, nil
	}
	if v != nil && reflect.TypeOf(v).Kind() == reflect.Bool {
		return reflect.ValueOf(v).Bool(), nil
	}
	return false, e.resultErr(v, "want a boolean")
}

// EvalInt64 evaluates to an integer within int64 (priorities,
// cardinalities): an integer of any Go type, or a float without fraction
// within range. Strings are rejected, as Camunda does for priorities.
func (e *Expr) EvalInt64(r Resolver) (int64, error) {
	v, err := e.Eval(r)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, e.resultErr(v, "want an integer")
	}
	i, problem := int64Of(reflect.ValueOf(v))
	switch {
	case problem == "":
		return i, nil
	case problem == "is not a number":
		return 0, e.resultErr(v, "want an integer")
	}
	return 0, &Error{Expr: e.src, Msg: fmt.Sprintf("result %v %s", v, problem)}
}

// EvalString evaluates to a string (timer values, names): a string, a
// time.Time (formatted as RFC 3339, with fractional seconds when present),
// a fmt.Stringer, a number or a boolean. Null is an error.
func (e *Expr) EvalString(r Resolver) (string, error) {
	v, err := e.Eval(r)
	if err != nil {
		return "", err
	}
	if v != nil {
		if s, ok := stringOf(v); ok {
			return s, nil
		}
	}
	return "", e.resultErr(v, "want a string")
}

func (e *Expr) resultErr(v any, want string) *Error {
	return &Error{Expr: e.src, Msg: fmt.Sprintf("result is %s, %s", describe(v), want)}
}

// Error is a compile or evaluation error of an expression.
type Error struct {
	Expr string // the source text
	Msg  string // what went wrong, with the position for syntax errors
	Err  error  // the cause, if any: an error a called method returned, or ErrUnknownName, ErrUnknownProperty, ErrUnknownFunction
	// MaxQuoted is how much of Expr the message quotes (see Quote); the
	// engine whose command failed sets its own.
	MaxQuoted int
}

func (e *Error) Error() string {
	s := "expression " + Quote(e.Expr, e.MaxQuoted) + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
