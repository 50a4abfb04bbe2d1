// Package script runs the JavaScript of BPMN models (script tasks, script
// conditions, camunda:script parameters, script listeners) with goja, a
// JavaScript engine in pure Go.
//
// A script is compiled once ([Compile]) and run by [Program.Run] in a
// runtime of its own, so concurrent runs share no mutable state. The
// sandbox is goja's bare ECMAScript: no require, no load, no Java, no
// console; the script reaches the outside only through the globals its
// caller gives it. A run is interrupted at its time limit (or when its
// context ends), and its call stack is bounded.
package script

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// MaxCallStack bounds a script's call stack, in frames: deep enough for
// any script a model holds, and a runaway recursion stops long before it
// takes the memory of the goroutine that runs it.
const MaxCallStack = 1000

// Languages is what a model may write as scriptFormat (or a condition's
// language) for JavaScript, compared without case, as Camunda finds its
// script engine by name.
var Languages = []string{"javascript", "js", "ecmascript"}

// IsJavaScript reports whether format names JavaScript.
func IsJavaScript(format string) bool {
	f := strings.ToLower(strings.TrimSpace(format))
	for _, l := range Languages {
		if f == l {
			return true
		}
	}
	return false
}

// Program is a compiled script. It holds no state of a run: one Program
// runs in any number of goroutines at once.
type Program struct {
	p    *goja.Program
	name string
}

// Error is a script's syntax or runtime error, at its line and column in
// the script's source (1-based; 0 when unknown).
type Error struct {
	Line, Column int
	Message      string
	// Err is the cause a host function returned, or ErrTimeout.
	Err error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d:%d: %s", e.Line, e.Column, e.Message)
	}
	return e.Message
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// ErrTimeout is the cause of a script stopped at its time limit.
var ErrTimeout = errors.New("script time limit exceeded")

// Compile compiles src; name names it in stack traces. A syntax error is
// an *Error at its line and column. maxBytes, when positive, bounds the
// source's size.
func Compile(name, src string, maxBytes int) (_ *Program, err error) {
	defer recoverTo(&err)
	if maxBytes > 0 && len(src) > maxBytes {
		return nil, &Error{Message: fmt.Sprintf("the script has %d bytes, more than the limit of %d", len(src), maxBytes)}
	}
	ast, err := parser.ParseFile(nil, name, src, 0)
	if err != nil {
		var pe parser.ErrorList
		if errors.As(err, &pe) && len(pe) > 0 {
			return nil, &Error{Line: pe[0].Position.Line, Column: pe[0].Position.Column, Message: "SyntaxError: " + pe[0].Message}
		}
		return nil, &Error{Message: "SyntaxError: " + err.Error()}
	}
	p, err := goja.CompileAST(ast, false)
	if err != nil {
		var se *goja.CompilerSyntaxError
		if errors.As(err, &se) && se.File != nil {
			pos := se.File.Position(se.Offset)
			return nil, &Error{Line: pos.Line, Column: pos.Column, Message: "SyntaxError: " + se.Message}
		}
		return nil, &Error{Message: err.Error()}
	}
	return &Program{p: p, name: name}, nil
}

// Func is a host function a script calls: args are the script's arguments
// as Go values (see [Program.Run]); the result goes back the same way. An
// error is thrown in the script as an exception (which it may catch); not
// caught, it ends the run as an *Error wrapping it.
type Func func(args []any) (any, error)

// Object is a host object: its methods by name.
type Object map[string]Func

// Options are a run's limits.
type Options struct {
	// Timeout stops the script when it runs longer (0: no limit).
	Timeout time.Duration
}

// Run runs the program with globals (Go values, Objects and Funcs) as
// its global names and returns its completion value: the value of the
// last expression statement evaluated (Camunda's script result).
//
// Values cross over as JSON-like values: nil, bool, string, numbers,
// time.Time (a Date), []any and map[string]any (arrays and objects, copied
// both ways). Coming back, a number with an integer value (in the range a
// float64 holds exactly) is an int64 and any other a float64; undefined
// and null are nil.
func (p *Program) Run(ctx context.Context, globals map[string]any, opts Options) (res any, err error) {
	defer recoverTo(&err)
	vm := goja.New()
	vm.SetMaxCallStackSize(MaxCallStack)
	for name, v := range globals {
		jv, err := toJS(vm, v)
		if err != nil {
			return nil, fmt.Errorf("global %q: %w", name, err)
		}
		if err := vm.Set(name, jv); err != nil {
			return nil, err
		}
	}
	if opts.Timeout > 0 {
		t := time.AfterFunc(opts.Timeout, func() { vm.Interrupt(ErrTimeout) })
		defer t.Stop()
	}
	if ctx != nil {
		stop := context.AfterFunc(ctx, func() { vm.Interrupt(ctx.Err()) })
		defer stop()
	}
	v, err := vm.RunProgram(p.p)
	if err != nil {
		return nil, p.runError(err, opts)
	}
	out, err := fromJS(v)
	if err != nil {
		return nil, &Error{Message: "the script's result: " + err.Error()}
	}
	return out, nil
}

// recoverTo turns a panic of goja (which re-panics what it does not
// expect) into an error: a script must not take the engine down.
func recoverTo(err *error) {
	if x := recover(); x != nil {
		*err = &Error{Message: fmt.Sprintf("internal error of the script engine: %v", x)}
	}
}

// runError turns goja's error into an *Error at the innermost position of
// this program's stack.
func (p *Program) runError(err error, opts Options) error {
	out := &Error{Message: err.Error()}
	var stack []goja.StackFrame
	var ie *goja.InterruptedError
	var so *goja.StackOverflowError
	var ex *goja.Exception
	switch {
	case errors.As(err, &ie):
		stack = ie.Stack()
		out.Err, _ = ie.Value().(error)
		out.Message = fmt.Sprint(ie.Value())
		if out.Err == ErrTimeout {
			out.Message = fmt.Sprintf("the script ran longer than its time limit of %s and was stopped", opts.Timeout)
		}
	case errors.As(err, &so):
		stack = so.Stack()
		out.Message = fmt.Sprintf("RangeError: the call stack exceeds %d frames", MaxCallStack)
	case errors.As(err, &ex):
		stack = ex.Stack()
		out.Err = ex.Unwrap()
		if v := ex.Value(); v != nil {
			out.Message = v.String()
		}
		if out.Err != nil {
			out.Message = out.Err.Error()
		}
	}
	for _, f := range stack {
		if pos := f.Position(); pos.Filename == p.name && pos.Line > 0 {
			out.Line, out.Column = pos.Line, pos.Column
			break
		}
	}
	return out
}

// toJS converts a Go value for the script.
func toJS(vm *goja.Runtime, v any) (goja.Value, error) {
	switch x := v.(type) {
	case nil:
		return goja.Null(), nil
	case Func:
		return vm.ToValue(func(call goja.FunctionCall) goja.Value {
			args := make([]any, len(call.Arguments))
			for i, a := range call.Arguments {
				var err error
				if args[i], err = fromJS(a); err != nil {
					panic(vm.NewTypeError("argument %d: %v", i+1, err))
				}
			}
			res, err := x(args)
			if err != nil {
				panic(vm.NewGoError(err))
			}
			jv, err := toJS(vm, res)
			if err != nil {
				panic(vm.NewGoError(err))
			}
			return jv
		}), nil
	case Object:
		o := vm.NewObject()
		for name, f := range x {
			fv, _ := toJS(vm, f)
			if err := o.Set(name, fv); err != nil {
				return nil, err
			}
		}
		return o, nil
	case map[string]any:
		o := vm.NewObject()
		for k, e := range x {
			ev, err := toJS(vm, e)
			if err != nil {
				return nil, err
			}
			if err := o.Set(k, ev); err != nil {
				return nil, err
			}
		}
		return o, nil
	case []any:
		items := make([]any, len(x))
		for i, e := range x {
			ev, err := toJS(vm, e)
			if err != nil {
				return nil, err
			}
			items[i] = ev
		}
		return vm.NewArray(items...), nil
	case time.Time:
		return vm.New(vm.Get("Date"), vm.ToValue(x.UnixMilli()))
	case *time.Time:
		if x == nil {
			return goja.Null(), nil
		}
		return toJS(vm, *x)
	case string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return vm.ToValue(x), nil
	case interface{ Float64() (float64, error) }: // json.Number
		f, err := x.Float64()
		if err != nil {
			return nil, err
		}
		return vm.ToValue(f), nil
	}
	// Other Go values (a []byte, a struct): goja's view of them, read-only
	// in effect, as a Java object is to a Camunda script.
	return vm.ToValue(v), nil
}

// fromJS converts a script's value to Go.
func fromJS(v goja.Value) (any, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	return normalize(v.Export(), 0)
}

// maxDepth bounds the nesting of a value coming back (a cyclic object
// would otherwise never end).
const maxDepth = 100

func normalize(v any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("a value nested deeper than %d levels (a cycle?)", maxDepth)
	}
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 && !(x == 0 && math.Signbit(x)) {
			return int64(x), nil
		}
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = normalize(e, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			var err error
			if out[k], err = normalize(e, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case func(goja.FunctionCall) goja.Value:
		return nil, errors.New("a function is not a value that can be kept")
	}
	return v, nil
}
