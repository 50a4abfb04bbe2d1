package script_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/script"
)

func run(t *testing.T, src string, globals map[string]any) (any, error) {
	t.Helper()
	p, err := script.Compile("test.js", src, 0)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p.Run(context.Background(), globals, script.Options{Timeout: 5 * time.Second})
}

func TestIsJavaScript(t *testing.T) {
	for _, f := range []string{"javascript", "JavaScript", " js", "ECMAScript"} {
		if !script.IsJavaScript(f) {
			t.Errorf("%q is JavaScript", f)
		}
	}
	for _, f := range []string{"groovy", "juel", "python", ""} {
		if script.IsJavaScript(f) {
			t.Errorf("%q is not JavaScript", f)
		}
	}
}

func TestValuesConvertBothWays(t *testing.T) {
	when := time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	globals := map[string]any{
		"n": int64(41), "f": 1.5, "s": "x", "b": true, "nothing": nil, "when": when,
		"list": []any{int64(1), "two"}, "obj": map[string]any{"k": map[string]any{"deep": int64(3)}},
	}
	cases := map[string]any{
		"n + 1":                    int64(42),
		"6 / 2":                    int64(3),
		"f * 2":                    int64(3),
		"f + 1":                    2.5,
		"s + 'y'":                  "xy",
		"!b":                       false,
		"nothing":                  nil,
		"undefined":                nil,
		"when.getTime() + 1000":    when.UnixMilli() + 1000,
		"new Date(when.getTime())": when.Truncate(time.Millisecond).Local(),
		"list.length":              int64(2),
		"list.concat([2.5])":       []any{int64(1), "two", 2.5},
		"obj.k.deep":               int64(3),
		"({a: [1, {b: null}]})":    map[string]any{"a": []any{int64(1), map[string]any{"b": nil}}},
	}
	for src, want := range cases {
		got, err := run(t, src, globals)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if w, ok := want.(time.Time); ok {
			if g, ok := got.(time.Time); !ok || !g.Equal(w) {
				t.Errorf("%s = %#v, want %v", src, got, w)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", src, got, want)
		}
	}
	if _, err := run(t, "(function(){})", nil); err == nil || !strings.Contains(err.Error(), "function") {
		t.Errorf("a function result: %v", err)
	}
}

func TestHostFunctions(t *testing.T) {
	var got []any
	obj := script.Object{
		"set":  func(args []any) (any, error) { got = args; return nil, nil },
		"fail": func(args []any) (any, error) { return nil, errors.New("no such thing") },
		"get":  func(args []any) (any, error) { return map[string]any{"v": int64(7)}, nil },
	}
	if _, err := run(t, "o.set('a', 2, [1.5], {x: true}); o.get().v", map[string]any{"o": obj}); err != nil {
		t.Fatal(err)
	}
	want := []any{"a", int64(2), []any{1.5}, map[string]any{"x": true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("args %#v, want %#v", got, want)
	}
	res, err := run(t, "try { o.fail() } catch (e) { 'caught' }", map[string]any{"o": obj})
	if err != nil || res != "caught" {
		t.Errorf("caught: %v %v", res, err)
	}
	_, err = run(t, "var a = 1;\n  o.fail()", map[string]any{"o": obj})
	var se *script.Error
	if !errors.As(err, &se) || se.Line != 2 || !strings.Contains(err.Error(), "no such thing") {
		t.Errorf("uncaught host error: %v", err)
	}
}

func TestErrorsHavePositions(t *testing.T) {
	_, err := script.Compile("x.js", "var a = 1;\nvar = 2;", 0)
	var se *script.Error
	if !errors.As(err, &se) || se.Line != 2 || se.Column != 5 || !strings.Contains(se.Message, "SyntaxError") {
		t.Errorf("syntax error: %#v", err)
	}
	_, err = run(t, "var a = 1;\nvar b = 2;\n  a + missing", nil)
	if !errors.As(err, &se) || se.Line != 3 || se.Column != 7 || !strings.HasPrefix(se.Message, "ReferenceError: missing is not defined") {
		t.Errorf("runtime error: %#v", err)
	}
	if err.Error() != "line 3:7: ReferenceError: missing is not defined" {
		t.Errorf("message: %s", err)
	}
	_, err = run(t, "throw new Error('boom')", nil)
	if err == nil || err.Error() != "line 1:7: Error: boom" {
		t.Errorf("thrown: %v", err)
	}
	if _, err := script.Compile("x.js", strings.Repeat("1;", 100), 50); err == nil || !strings.Contains(err.Error(), "limit of 50") {
		t.Errorf("size limit: %v", err)
	}
}

func TestSandbox(t *testing.T) {
	for _, name := range []string{"require", "load", "loadWithNewGlobal", "Java", "java", "Packages", "console", "print", "process", "exit", "quit"} {
		res, err := run(t, "typeof "+name, nil)
		if err != nil || res != "undefined" {
			t.Errorf("%s is %v (%v)", name, res, err)
		}
	}
	if _, err := run(t, "require('fs')", nil); err == nil || !strings.Contains(err.Error(), "require is not defined") {
		t.Errorf("require: %v", err)
	}
}

func TestLimits(t *testing.T) {
	p, err := script.Compile("loop.js", "var i = 0;\nwhile (true) { i++ }", 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = p.Run(context.Background(), nil, script.Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, script.ErrTimeout) || !strings.Contains(err.Error(), "time limit of 50ms") {
		t.Errorf("endless loop: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopped after %s", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Run(ctx, nil, script.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := run(t, "function f(n) { return f(n + 1) }\nf(0)", nil); err == nil || !strings.Contains(err.Error(), "call stack") {
		t.Errorf("recursion: %v", err)
	}
}

// TestConcurrentRuns: one program, many goroutines, no shared state (run
// with -race).
func TestConcurrentRuns(t *testing.T) {
	p, err := script.Compile("c.js", "var total = 0; for (var i = 0; i < n; i++) total += i; total", 0)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			n := int64(100 + g)
			res, err := p.Run(context.Background(), map[string]any{"n": n}, script.Options{Timeout: time.Second})
			if err != nil || res != n*(n-1)/2 {
				t.Errorf("n=%d: %v %v", n, res, err)
			}
		})
	}
	wg.Wait()
}

// BenchmarkScriptEvaluation is the cost of one script evaluation as the
// engine makes it: a fresh runtime, a few variables and an execution
// object as globals, a condition run, its result converted back.
func BenchmarkScriptEvaluation(b *testing.B) {
	p, err := script.Compile("cond.js", "amount > 1000 && customer.status === 'VIP' && execution.getVariable('amount') > 0", 0)
	if err != nil {
		b.Fatal(err)
	}
	execution := script.Object{"getVariable": func(args []any) (any, error) { return int64(1500), nil }}
	b.ReportAllocs()
	for b.Loop() {
		globals := map[string]any{"amount": int64(1500), "customer": map[string]any{"status": "VIP"}, "execution": execution}
		if ok, err := p.Run(context.Background(), globals, script.Options{Timeout: 5 * time.Second}); err != nil || ok != true {
			b.Fatal(ok, err)
		}
	}
}

// A host function that panics fails the run; the panic does not escape.
func TestHostPanicIsAnError(t *testing.T) {
	boom := script.Func(func([]any) (any, error) { panic("boom") })
	_, err := run(t, "f()", map[string]any{"f": boom})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("panic: %v", err)
	}
}
