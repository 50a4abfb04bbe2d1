package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

// Limits on what a command may carry: variables that cannot round-trip or
// would lose data are refused, sizes and expression lengths are bounded.

func nested(depth int, leaf any) any {
	v := leaf
	for range depth {
		v = map[string]any{"k": v}
	}
	return v
}

// Values that one backend or the JSON decoder cannot give back are
// rejected on both backends with a *VariableError naming the variable,
// before anything is written; the instance keeps what it had.
func TestVariablesThatCannotRoundTripAreRejected(t *testing.T) {
	bad := map[string]any{
		"nul":         "a\x00b",
		"notUTF8":     "caf\xe9",
		"nan":         math.NaN(),
		"infinite":    math.Inf(-1),
		"tooDeep":     nested(1001, "leaf"),
		"nestedUTF8":  map[string]any{"list": []any{"ok", "\xff"}},
		"farFuture":   time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC),
		"bad\x00name": 1,
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", harness.UserTaskProcess)
		pi := e.Start("p", map[string]any{"kept": "yes"})
		for name, v := range bad {
			_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{name: v}})
			var ve *bpmnlite.VariableError
			if !errors.Is(err, bpmnlite.ErrInvalidVariable) || !errors.As(err, &ve) || ve.Name != name {
				t.Errorf("start with %q: %v, want a *VariableError naming it", name, err)
			}
			err = e.Eng.SetVariables(e.Ctx, pi, map[string]any{"kept": "changed", name: v})
			if !errors.As(err, &ve) || ve.Name != name {
				t.Errorf("set %q: %v, want a *VariableError naming it", name, err)
			}
		}
		if v, _, err := e.Eng.Variable(e.Ctx, pi, "kept"); err != nil || v != "yes" {
			t.Errorf("kept = %v (%v), want yes: a rejected call changed nothing", v, err)
		}
		if is := e.Instances("p"); len(is) != 1 {
			t.Errorf("%d instances, want only the first: rejected starts store nothing", len(is))
		}
	})
}

// What is accepted reads back equal, on both backends.
func TestVariablesAtTheEdgesRoundTrip(t *testing.T) {
	good := map[string]any{
		"replacementChar": "\uFFFD is a real character",
		"emoji":           "🙂 ✓ ü",
		"empty":           "",
		"deep":            nested(500, "leaf"),
		"maxInt":          int64(math.MaxInt64),
		"minInt":          int64(math.MinInt64),
		"bigFloat":        1e308,
		"tinyFloat":       5e-324,
		"bytes":           []byte{0, 1, 0xff},
		"farDate":         time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC),
		"oldDate":         time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		"emptyMap":        map[string]any{},
		"null":            nil,
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", harness.UserTaskProcess)
		pi := e.Start("p", good)
		for name, want := range good {
			got, ok, err := e.Eng.Variable(e.Ctx, pi, name)
			if err != nil || !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("%s = %#v (%v, %v), want %#v", name, got, ok, err, want)
			}
		}
	})
}

// A file over the size limit is refused before it is parsed; an expression
// over the length limit is refused at deployment, and the error quotes only
// the start of it.
func TestSizeLimits(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		small := enginetest.AsyncService("small", "work", "")
		huge := strings.Replace(small, "<process", "<!-- "+strings.Repeat("x", 11<<20)+" --><process", 1)
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "huge", Resources: []bpmnlite.Resource{{Name: "huge.bpmn", Bytes: []byte(huge)}}})
		var pe *bpmnlite.ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "huge.bpmn") || !strings.Contains(err.Error(), "more than the limit of 10485760") {
			t.Errorf("deploying an 11 MiB file: %v, want refused at the default limit", err)
		}
		long := enginetest.Process("long", `
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="g" />
    <exclusiveGateway id="g" default="f3" />
    <sequenceFlow id="f2" sourceRef="g" targetRef="e"><conditionExpression>${x == '`+strings.Repeat("y", 1<<20)+`'}</conditionExpression></sequenceFlow>
    <sequenceFlow id="f3" sourceRef="g" targetRef="e" />
    <endEvent id="e" />`)
		_, err = e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "long", Resources: []bpmnlite.Resource{{Name: "long.bpmn", Bytes: []byte(long)}}})
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "more than the limit of 10000") {
			t.Errorf("deploying a 1 MB expression: %v, want refused at the length limit", err)
		}
		if err != nil && len(err.Error()) > 2000 {
			t.Errorf("the error is %d bytes long; it should quote only the start of the expression", len(err.Error()))
		}
		if d, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{}); err != nil || len(d) != 0 {
			t.Errorf("%d definitions stored (%v), want none", len(d), err)
		}
	})
	eachBackend(t, bpmnlite.Config{Limits: bpmnlite.LimitsConfig{MaxResourceBytes: 1000}}, func(t *testing.T, e *env) {
		file := strings.Replace(enginetest.AsyncService("p", "work", ""), "<process", "<!-- "+strings.Repeat("x", 1000)+" --><process", 1)
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "p", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(file)}}})
		if err == nil || !strings.Contains(err.Error(), "more than the limit of 1000") {
			t.Errorf("deploying over a configured limit of 1000 bytes: %v", err)
		}
	})
}

// onlyUnexported has data JSON cannot see: stored, it would be {}.
type onlyUnexported struct{ secret string }

// Values whose data JSON would drop (a struct with no exported field, also
// inside a map, slice or struct) and empty names are *VariableErrors naming
// the variable (and the type), on every path; what JSON gives back whole
// is stored.
func TestVariablesThatWouldLoseDataAreRejected(t *testing.T) {
	bad := map[string]any{
		"":         1,
		"opaque":   onlyUnexported{"x"},
		"pointer":  &onlyUnexported{"x"},
		"inMap":    map[string]any{"k": onlyUnexported{"x"}},
		"inSlice":  []any{1, onlyUnexported{"x"}},
		"inStruct": struct{ Inner any }{onlyUnexported{}},
		"anError":  errors.New("boom"),
	}
	type mixed struct {
		Shown  int
		hidden string
	}
	good := map[string]any{
		"mixed":    mixed{Shown: 1, hidden: "x"},
		"empty":    struct{}{},
		"withTime": map[string]any{"at": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		"braces":   "{}",
	}
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var set atomic.Value
		e.Eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			kv := set.Load().([2]any)
			return ex.SetVariable(kv[0].(string), kv[1])
		}))
		e.Deploy("wait", harness.UserTaskProcess)
		pi := e.Start("p", map[string]any{"kept": "yes"})
		task := e.Tasks(pi)[0]
		want := func(what, name string, err error) {
			t.Helper()
			var ve *bpmnlite.VariableError
			if !errors.Is(err, bpmnlite.ErrInvalidVariable) || !errors.As(err, &ve) || ve.Name != name {
				t.Errorf("%s %q: %v, want a *VariableError naming it", what, name, err)
			}
			if err != nil && name != "" && name != "anError" && !strings.Contains(err.Error(), "onlyUnexported") {
				t.Errorf("%s %q: %v, want the type named", what, name, err)
			}
		}
		for name, v := range bad {
			_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{name: v}})
			want("start with", name, err)
			_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{name: bpmnlite.Transient(v)}})
			want("start with transient", name, err)
			want("set", name, e.Eng.SetVariables(e.Ctx, pi, map[string]any{"kept": "changed", name: v}))
			set.Store([2]any{name, v})
			want("a delegate setting", name, e.Eng.CompleteTask(e.Ctx, task.ID, nil))
		}
		if v, _, err := e.Eng.Variable(e.Ctx, pi, "kept"); err != nil || v != "yes" {
			t.Errorf("kept = %v (%v), want yes: a rejected call changed nothing", v, err)
		}
		if is := e.Instances("p"); len(is) != 1 {
			t.Errorf("%d instances, want only the first: rejected starts store nothing", len(is))
		}
		if err := e.Eng.SetVariables(e.Ctx, pi, good); err != nil {
			t.Fatalf("set %v: %v", good, err)
		}
		vars := e.VarsOf(pi)
		for name, want := range map[string]any{"mixed": map[string]any{"Shown": int64(1)}, "empty": map[string]any{},
			"withTime": map[string]any{"at": "2026-01-02T03:04:05Z"}, "braces": "{}"} {
			if !reflect.DeepEqual(vars[name], want) {
				t.Errorf("%s = %#v, want %#v", name, vars[name], want)
			}
		}
	})
}

// capped waits once at each place variables come in: a task, a message, a
// signal, a receive task, an external task; then "mapped" copies half
// twice into an input parameter, and its delegate sets a string of length
// size.
var capped = enginetest.Defs(`<message id="m" name="m"/><signal id="s" name="s"/>`, enginetest.Executable("capped",
	`<startEvent id="start"/><userTask id="work"/>
	<intermediateCatchEvent id="msg"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
	<intermediateCatchEvent id="sig"><signalEventDefinition signalRef="s"/></intermediateCatchEvent>
	<receiveTask id="recv"/>
	<serviceTask id="ext" camunda:type="external" camunda:topic="t"/>
	<serviceTask id="mapped" camunda:class="sized"><extensionElements><camunda:inputOutput>
		<camunda:inputParameter name="pair"><camunda:list><camunda:value>${half}</camunda:value><camunda:value>${half}</camunda:value></camunda:list></camunda:inputParameter>
	</camunda:inputOutput></extensionElements></serviceTask>
	<userTask id="wait"/><endEvent id="end"/>`,
	enginetest.Chain("start", "work", "msg", "sig", "recv", "ext", "mapped", "wait", "end")))

// Config.Limits.MaxVariableBytes bounds what one variable stores, on every path
// a variable is written, transient ones too; the error names the variable,
// its size and the limit, and the call changes nothing.
func TestMaxVariableBytes(t *testing.T) {
	eachBackend(t, bpmnlite.Config{Limits: bpmnlite.LimitsConfig{MaxVariableBytes: 1000}}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("sized", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			size, _, err := ex.Variable("size")
			if err != nil {
				return err
			}
			return ex.SetVariable("fromDelegate", strings.Repeat("x", int(size.(int64))))
		}))
		e.Deploy("capped", capped)
		big := map[string]any{"big": strings.Repeat("é", 501)} // 1002 bytes
		tooBig := func(what, name string, size int, err error) {
			t.Helper()
			var ve *bpmnlite.VariableError
			if !errors.As(err, &ve) || ve.Name != name || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes", size)) || !strings.Contains(err.Error(), "limit of 1000") {
				t.Errorf("%s: %v, want a *VariableError naming %s, %d bytes and the limit", what, err, name, size)
			}
		}
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "capped", Variables: big})
		tooBig("start", "big", 1002, err)
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "capped", Variables: map[string]any{"big": bpmnlite.Transient(big["big"])}})
		tooBig("start with a transient", "big", 1002, err)
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "capped", Variables: map[string]any{"big": []byte(strings.Repeat("x", 1001))}})
		tooBig("start with bytes", "big", 1001, err)
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "capped", Variables: map[string]any{"big": []any{strings.Repeat("x", 998)}}})
		tooBig("start with JSON", "big", 1002, err)
		pi := e.Start("capped", map[string]any{"half": strings.Repeat("x", 600), "size": 1001, "exactly": strings.Repeat("x", 1000)})

		tooBig("set", "big", 1002, e.Eng.SetVariables(e.Ctx, pi, big))
		tooBig("complete", "big", 1002, e.Eng.CompleteTask(e.Ctx, e.Tasks(pi)[0].ID, big))
		e.Complete(pi, "work", nil)
		_, err = e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "m", Variables: big})
		tooBig("correlate", "big", 1002, err)
		e.Correlate("m", pi, nil)
		tooBig("signal", "big", 1002, e.Eng.Signal(e.Ctx, "s", big))
		e.Signal("s")
		recv := e.ExecAt(pi, "recv").ID
		tooBig("trigger", "big", 1002, e.Eng.Trigger(e.Ctx, recv, big))
		if err := e.Eng.Trigger(e.Ctx, recv, nil); err != nil {
			t.Fatal(err)
		}
		locked, err := e.Eng.FetchAndLock(e.Ctx, bpmnlite.FetchRequest{WorkerID: "w", MaxTasks: 1, Topics: []bpmnlite.FetchTopic{{Topic: "t", LockDuration: time.Minute}}})
		if err != nil || len(locked) != 1 {
			t.Fatalf("fetched %v, %v", locked, err)
		}
		id := locked[0].ID
		tooBig("external task completion", "big", 1002, e.Eng.CompleteExternalTask(e.Ctx, id, "w", big, nil))
		tooBig("external task completion (local)", "big", 1002, e.Eng.CompleteExternalTask(e.Ctx, id, "w", nil, big))
		tooBig("BPMN error", "big", 1002, e.Eng.HandleExternalTaskBpmnError(e.Ctx, id, "w", "E", "", big))
		tooBig("input mapping", "pair", 1207, e.Eng.CompleteExternalTask(e.Ctx, id, "w", nil, nil))
		tooBig("delegate", "fromDelegate", 1001, e.Eng.CompleteExternalTask(e.Ctx, id, "w", map[string]any{"half": "x"}, nil))
		if err := e.Eng.CompleteExternalTask(e.Ctx, id, "w", map[string]any{"half": "x", "size": 10}, nil); err != nil {
			t.Fatal(err)
		}
		if keys := e.TaskKeys(pi); keys != "wait" {
			t.Fatalf("open tasks %q, want wait", keys)
		}
		if v := e.VarsOf(pi); v["big"] != nil || len(v["exactly"].(string)) != 1000 {
			t.Errorf("variables %v: want exactly (1000 bytes) and no big", v)
		}
	})
	const mib = 1 << 20
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("wait", harness.UserTaskProcess)
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"big": strings.Repeat("x", 4*mib+1)}})
		if !errors.Is(err, bpmnlite.ErrInvalidVariable) || !strings.Contains(err.Error(), "limit of 4194304") {
			t.Errorf("a string of 4 MiB + 1 byte: %v, want refused at the default limit", err)
		}
		e.Start("p", map[string]any{"big": strings.Repeat("x", 4*mib)})
	})
	eachBackend(t, bpmnlite.Config{Limits: bpmnlite.LimitsConfig{MaxVariableBytes: -1}}, func(t *testing.T, e *env) {
		e.Deploy("wait", harness.UserTaskProcess)
		e.Start("p", map[string]any{"big": strings.Repeat("x", 4*mib+1)})
	})
}

// Expression limits are each engine's: two engines in one process, one with
// a small length limit and short quotes, the other with the defaults, each
// applies its own, whichever opened last.
func TestExpressionLimitsPerEngine(t *testing.T) {
	b := testdb.Backends(t)[0]
	strict := openEnv(t, b, bpmnlite.Config{Limits: bpmnlite.LimitsConfig{MaxExpressionLength: 100, MaxQuotedSource: 10}})
	loose := openEnv(t, testdb.Backends(t)[0], bpmnlite.Config{})
	condition := "${x == '" + strings.Repeat("y", 200) + "'}"
	xml := enginetest.Process("p", `
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="g" />
    <exclusiveGateway id="g" default="f3" />
    <sequenceFlow id="f2" sourceRef="g" targetRef="e"><conditionExpression>`+condition+`</conditionExpression></sequenceFlow>
    <sequenceFlow id="f3" sourceRef="g" targetRef="e" />
    <endEvent id="e" />`)
	_, err := strict.Eng.Deploy(strict.Ctx, bpmnlite.DeployRequest{Name: "p", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(xml)}}})
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 100") || !strings.Contains(err.Error(), "${x == 'yy… (210 bytes)") {
		t.Errorf("the strict engine took a 210-byte expression: %v", err)
	}
	loose.Deploy("p", xml) // the defaults: 10,000 bytes
	// A failing expression quotes as much as its engine says.
	loose.Deploy("q", enginetest.Process("q", `
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="t" />
    <serviceTask id="t" camunda:expression="${missing.call('`+strings.Repeat("z", 300)+`')}" />
    <sequenceFlow id="f2" sourceRef="t" targetRef="e" />
    <endEvent id="e" />`))
	_, err = loose.Eng.Start(loose.Ctx, bpmnlite.StartRequest{Key: "q"})
	if err == nil || strings.Contains(err.Error(), strings.Repeat("z", 250)) || !strings.Contains(err.Error(), strings.Repeat("z", 150)) {
		t.Errorf("the loose engine's error quotes %d bytes, want the default 200 characters: %v", len(fmt.Sprint(err)), err)
	}
}
