package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"

	"github.com/bpmnlite/bpmnlite"
)

// Transient variables, after Camunda's TransientVariableTest and the
// transient cases of its task, message, signal, condition, call activity
// and external task tests: the command that sets them sees them, nothing
// stores them (no variable row, no history), the next wait state ends them,
// and a name cannot switch between transient and stored in one scope.

// probed is process key whose body leads to "probe": a service task that
// copies what it sees of variable v into the stored variables seen and
// sawTransient, then the user task "wait". defs are extra definitions
// (messages, signals).
func probed(key, defs string, body ...string) string {
	return enginetest.Defs(defs, enginetest.Executable(key, append(body,
		`<serviceTask id="probe" camunda:class="probe"/><userTask id="wait"/><endEvent id="end"/>`,
		enginetest.Chain("probe", "wait", "end"))...))
}

// registerProbe registers the delegate of probed.
func registerProbe(e *harness.Env) {
	e.Eng.RegisterDelegate("probe", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
		v, ok, err := ex.Variable("v")
		if err != nil {
			return err
		}
		transient, err := ex.IsTransient("v")
		if err != nil {
			return err
		}
		if ok {
			if err := ex.SetVariable("seen", v); err != nil {
				return err
			}
		}
		return ex.SetVariable("sawTransient", transient)
	}))
}

// rows counts the variable rows (runtime and history) of process instance
// pi named name.
func rows(e *harness.Env, pi, name string) (runtime, history int) {
	e.T.Helper()
	where := " WHERE process_instance_id = '" + pi + "' AND name = '" + name + "'"
	return harness.CountRows(e.T, e.DB(), "SELECT count(*) FROM variable"+where), harness.CountRows(e.T, e.DB(), "SELECT count(*) FROM hist_variable"+where)
}

// noVariableRows checks that no variable was stored, nor kept in history.
func noVariableRows(e *harness.Env) {
	e.T.Helper()
	for _, table := range []string{"variable", "hist_variable"} {
		if n := harness.CountRows(e.T, e.DB(), "SELECT count(*) FROM "+table); n != 0 {
			e.T.Errorf("%d rows in %s, want none", n, table)
		}
	}
}

// probeSaw checks that pi's probe saw v as the transient value want, that v
// was not stored, and, after completing "wait", that history has seen but
// not v.
func probeSaw(e *harness.Env, pi string, want any) {
	e.T.Helper()
	vars := e.VarsOf(pi)
	if vars["seen"] != want || vars["sawTransient"] != true {
		e.T.Errorf("the probe saw v = %#v (transient %v), want %#v, transient", vars["seen"], vars["sawTransient"], want)
	}
	if v, ok := vars["v"]; ok {
		e.T.Errorf("v is visible after the command: %#v", v)
	}
	e.Complete(pi, "wait", nil)
	if e.State(pi) != "COMPLETED" {
		e.T.Fatalf("instance %s: %s, want COMPLETED", pi, e.State(pi))
	}
	if rt, hist := rows(e, pi, "v"); rt != 0 || hist != 0 {
		e.T.Errorf("v has %d variable rows and %d history rows, want none", rt, hist)
	}
	if _, hist := rows(e, pi, "seen"); hist != 1 {
		e.T.Errorf("seen has %d history rows, want 1", hist)
	}
}

// Camunda's testExclusiveGateway and createTransientVariablesUsingVariableMap:
// a condition and a delegate of the starting command see the value,
// converted as a stored one would be; nothing is stored.
func TestTransientConditionAndDelegate(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		registerProbe(e)
		e.Deploy("p", probed("p", "",
			`<startEvent id="start"/><exclusiveGateway id="gw" default="toSmall"/><userTask id="small"/>`,
			enginetest.Chain("start", "gw"), enginetest.Cond("big", "gw", "probe", "${v > 10}"),
			`<sequenceFlow id="toSmall" sourceRef="gw" targetRef="small"/>`))
		pi := e.Start("p", map[string]any{"v": bpmnlite.Transient(int32(20))})
		if keys := e.TaskKeys(pi); keys != "wait" {
			t.Fatalf("open tasks %q, want wait (the condition saw v)", keys)
		}
		probeSaw(e, pi, int64(20))
	})
}

// Camunda's ReadTransientVariablesOfAllTypesDelegate: every kind of value,
// null too, is visible as the same value stored and read back would be,
// and no row of any is written.
func TestTransientAllTypes(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		when := time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.FixedZone("x", 3600))
		in := map[string]any{
			"a": "bar", "b": true, "c": []byte("test"), "d": when, "e": 20.5, "f": 10, "g": uint16(7),
			"h": struct{ N int }{3}, "i": map[string]any{"k": []any{1, "x"}}, "j": nil,
		}
		want := map[string]any{
			"a": "bar", "b": true, "c": "[116 101 115 116]", "d": when.UTC().Truncate(time.Microsecond), "e": 20.5,
			"f": int64(10), "g": int64(7), "h": "map[N:3]", "i": "map[k:[1 x]]", "j": nil,
		}
		got := map[string]any{}
		e.Eng.RegisterDelegate("readAll", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			vars, err := ex.Variables()
			for k, v := range vars {
				switch v.(type) {
				case []byte, map[string]any:
					got[k] = fmt.Sprint(v)
				default:
					got[k] = v
				}
			}
			return err
		}))
		e.Deploy("p", enginetest.Defs(enginetest.Executable("p", `<startEvent id="start"/><serviceTask id="read" camunda:class="readAll"/><userTask id="wait"/><endEvent id="end"/>`,
			enginetest.Chain("start", "read", "wait", "end"))))
		vars := map[string]any{}
		for k, v := range in {
			vars[k] = bpmnlite.Transient(v)
		}
		pi := e.Start("p", vars)
		for k, w := range want {
			if g, ok := got[k]; !ok || g != w {
				t.Errorf("%s: the delegate saw %#v (present %v), want %#v", k, g, ok, w)
			}
		}
		e.Complete(pi, "wait", nil)
		noVariableRows(e)
	})
}

// A transient variable ends with its command: a user task or an
// asynchronous continuation later, the next command does not see it;
// paths of the same command do (Camunda's testParallelExecutions).
func TestTransientGoneAtWaitState(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		registerProbe(e)
		notSeen := func(pi string) {
			t.Helper()
			vars := e.VarsOf(pi)
			if _, ok := vars["seen"]; ok || vars["sawTransient"] != false {
				t.Errorf("the next command saw v: %v", vars)
			}
			if rt, _ := rows(e, pi, "v"); rt != 0 {
				t.Errorf("v has %d variable rows", rt)
			}
		}
		e.Deploy("task", probed("task", "", `<startEvent id="start"/><userTask id="first"/>`, enginetest.Chain("start", "first", "probe")))
		pi := e.Start("task", map[string]any{"v": bpmnlite.Transient("x")})
		e.Complete(pi, "first", nil)
		notSeen(pi)

		e.Deploy("async", enginetest.Defs(enginetest.Executable("async", `<startEvent id="start"/><serviceTask id="probe" camunda:class="probe" camunda:asyncBefore="true"/><userTask id="wait"/><endEvent id="end"/>`,
			enginetest.Chain("start", "probe", "wait", "end"))))
		pi = e.Start("async", map[string]any{"v": bpmnlite.Transient("x")})
		if n := e.Drain(10); n != 1 {
			t.Fatalf("%d jobs ran, want 1", n)
		}
		notSeen(pi)

		var mu sync.Mutex
		seen := 0
		e.Eng.RegisterDelegate("count", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			if v, ok, err := ex.Variable("v"); err != nil || !ok || v != "x" {
				return err
			}
			mu.Lock()
			seen++
			mu.Unlock()
			return nil
		}))
		e.Deploy("forked", enginetest.Defs(enginetest.Executable("forked", `<startEvent id="start"/><parallelGateway id="fork"/>
			<serviceTask id="a" camunda:class="count"/><serviceTask id="b" camunda:class="count"/><endEvent id="endA"/><endEvent id="endB"/>`,
			enginetest.Chain("start", "fork", "a", "endA"), enginetest.Chain("fork", "b", "endB"))))
		pi = e.Start("forked", map[string]any{"v": bpmnlite.Transient("x")})
		if seen != 2 || e.State(pi) != "COMPLETED" {
			t.Errorf("%d paths saw v (instance %s), want 2", seen, e.State(pi))
		}
		if rt, hist := rows(e, pi, "v"); rt != 0 || hist != 0 {
			t.Errorf("v has %d variable rows and %d history rows", rt, hist)
		}
	})
}

// sub runs f as subtest name of e's test, on e's engine.
func sub(t *testing.T, e *harness.Env, name string, f func(t *testing.T, e *harness.Env)) {
	t.Run(name, func(t *testing.T) {
		f(t, e.For(t))
	})
}

// A transient variable local to a concurrent path moves with the path when
// the path is compacted onto its scope, as stored ones do.
func TestTransientCompaction(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		registerProbe(e)
		e.Eng.RegisterDelegate("setLocal", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			return ex.SetVariableLocal("v", bpmnlite.Transient("x"))
		}))
		e.Deploy("compact", probed("compact", "", `<startEvent id="start"/><parallelGateway id="fork"/><serviceTask id="set" camunda:class="setLocal"/><endEvent id="endB"/>`,
			enginetest.Chain("start", "fork", "set", "probe"), enginetest.Chain("fork", "endB")))
		pi := e.Start("compact", nil)
		if xs := e.Executions(pi, ""); len(xs) != 1 {
			t.Fatalf("%d executions, want the compacted instance only", len(xs))
		}
		probeSaw(e, pi, "x")
	})
}

// Every API call that takes variables takes transient ones.
func TestTransientEntryPoints(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		registerProbe(e)
		tv := map[string]any{"v": bpmnlite.Transient("x")}
		check := func(t *testing.T, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}

		sub(t, e, "start", func(t *testing.T, e *harness.Env) {
			e.Deploy("viaStart", probed("viaStart", "", `<startEvent id="start"/>`, enginetest.Chain("start", "probe")))
			probeSaw(e, e.Start("viaStart", tv), "x")
		})
		sub(t, e, "start before", func(t *testing.T, e *harness.Env) {
			e.Deploy("before", probed("before", "", `<startEvent id="start"/><userTask id="first"/>`, enginetest.Chain("start", "first", "probe")))
			pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "before",
				Instructions: []bpmnlite.StartInstruction{{ActivityID: "probe", Variables: tv}}})
			check(t, err)
			probeSaw(e, pi, "x")
			pi, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "before", StartBefore: "probe", Variables: tv})
			check(t, err)
			probeSaw(e, pi, "x")
		})
		sub(t, e, "complete task", func(t *testing.T, e *harness.Env) {
			e.Deploy("task", probed("task", "", `<startEvent id="start"/><userTask id="first"/>`, enginetest.Chain("start", "first", "probe")))
			pi := e.Start("task", nil)
			e.Complete(pi, "first", tv)
			probeSaw(e, pi, "x")
		})
		msg := `<message id="msg" name="go"/>`
		sub(t, e, "correlate", func(t *testing.T, e *harness.Env) {
			e.Deploy("catch", probed("catch", msg, `<startEvent id="start"/><intermediateCatchEvent id="c"><messageEventDefinition messageRef="msg"/></intermediateCatchEvent>`,
				enginetest.Chain("start", "c", "probe")))
			pi := e.Start("catch", map[string]any{"key": "k1"})
			// A transient correlation key matches as its value (Camunda's
			// testMessageCorrelationWithTransientVariable).
			_, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "go", Variables: tv,
				CorrelationKeys: map[string]any{"key": bpmnlite.Transient("k1")}})
			check(t, err)
			probeSaw(e, pi, "x")
		})
		sub(t, e, "correlate start", func(t *testing.T, e *harness.Env) {
			e.Deploy("mstart", probed("mstart", `<message id="m2" name="begin"/>`,
				`<startEvent id="start"><messageEventDefinition messageRef="m2"/></startEvent>`, enginetest.Chain("start", "probe")))
			ids, err := e.Eng.Correlate(e.Ctx, bpmnlite.CorrelateRequest{MessageName: "begin", Variables: tv})
			check(t, err)
			probeSaw(e, ids[0], "x")
		})
		sub(t, e, "signal", func(t *testing.T, e *harness.Env) {
			e.Deploy("sig", probed("sig", `<signal id="s" name="alarm"/>`,
				`<startEvent id="start"/><intermediateCatchEvent id="c"><signalEventDefinition signalRef="s"/></intermediateCatchEvent>`,
				enginetest.Chain("start", "c", "probe")))
			pi := e.Start("sig", nil)
			check(t, e.Eng.Signal(e.Ctx, "alarm", tv))
			probeSaw(e, pi, "x")
		})
		sub(t, e, "trigger", func(t *testing.T, e *harness.Env) {
			e.Deploy("recv", probed("recv", "", `<startEvent id="start"/><receiveTask id="r"/>`, enginetest.Chain("start", "r", "probe")))
			pi := e.Start("recv", nil)
			check(t, e.Eng.Trigger(e.Ctx, e.Executions(pi, "r")[0].ID, tv))
			probeSaw(e, pi, "x")
		})
		external := `<startEvent id="start"/><serviceTask id="ext" camunda:type="external" camunda:topic="t"/>
			<boundaryEvent id="failed" attachedToRef="ext"><errorEventDefinition/></boundaryEvent>`
		sub(t, e, "complete external task", func(t *testing.T, e *harness.Env) {
			e.Deploy("viaExt", probed("viaExt", "", external, enginetest.Chain("start", "ext", "probe"), enginetest.Chain("failed", "probe")))
			pi := e.Start("viaExt", nil)
			locked := e.Fetch("w", 1, harness.Topic("t", time.Minute))
			check(t, e.Eng.CompleteExternalTask(e.Ctx, locked[0].ID, "w", tv, nil))
			probeSaw(e, pi, "x")
			pi = e.Start("viaExt", nil)
			locked = e.Fetch("w", 1, harness.Topic("t", time.Minute))
			check(t, e.Eng.CompleteExternalTask(e.Ctx, locked[0].ID, "w", nil, tv))
			probeSaw(e, pi, "x")
		})
		sub(t, e, "external task BPMN error", func(t *testing.T, e *harness.Env) {
			pi := e.Start("viaExt", nil)
			locked := e.Fetch("w", 1, harness.Topic("t", time.Minute))
			check(t, e.Eng.HandleExternalTaskBpmnError(e.Ctx, locked[0].ID, "w", "E1", "", map[string]any{"v": bpmnlite.Transient("x"), "foo": "bar"}))
			if got := e.Path(pi); got != "start,ext,failed,probe,wait" {
				t.Errorf("path %s, want through the error boundary event", got)
			}
			if e.VarsOf(pi)["foo"] != "bar" {
				t.Error("the stored variable given with the transient one is missing")
			}
			probeSaw(e, pi, "x")
		})
		cond := `<startEvent id="start"/><intermediateCatchEvent id="c"><conditionalEventDefinition><condition>${execution.getVariable('v') == 'x'}</condition></conditionalEventDefinition></intermediateCatchEvent>`
		sub(t, e, "set variables", func(t *testing.T, e *harness.Env) {
			// Camunda's setVariableTransientInRunningProcessInstance and
			// triggerConditionalEventWithTransientVariable.
			e.Deploy("cond", probed("cond", "", cond, enginetest.Chain("start", "c", "probe")))
			pi := e.Start("cond", map[string]any{"v": "no"})
			check(t, e.Eng.SetVariables(e.Ctx, pi, map[string]any{"other": bpmnlite.Transient(1)}))
			if e.TaskKeys(pi) != "" || e.VarsOf(pi)["other"] != nil {
				t.Fatalf("a transient set alone fired the condition or was stored: %v", e.VarsOf(pi))
			}
			check(t, e.Eng.SetVariablesLocal(e.Ctx, pi, map[string]any{"w": bpmnlite.Transient(1)}))
			if rt, _ := rows(e, pi, "w"); rt != 0 {
				t.Error("a local transient was stored")
			}
			e.Deploy("cond2", probed("cond2", "", cond, enginetest.Chain("start", "c", "probe")))
			pi = e.Start("cond2", nil)
			check(t, e.Eng.SetVariables(e.Ctx, pi, tv))
			probeSaw(e, pi, "x")
		})
		sub(t, e, "evaluate start conditions", func(t *testing.T, e *harness.Env) {
			// Camunda's testStartInstanceWithTransientVariableCondition.
			e.Deploy("cstart", probed("cstart", "",
				`<startEvent id="start"><conditionalEventDefinition><condition>${v == 'x'}</condition></conditionalEventDefinition></startEvent>`,
				enginetest.Chain("start", "probe")))
			d, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: "cstart"})
			check(t, err)
			ids, err := e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{Variables: tv, ProcessDefinitionID: d[0].ID})
			check(t, err)
			if len(ids) != 1 {
				t.Fatalf("%d instances started, want 1", len(ids))
			}
			probeSaw(e, ids[0], "x")
		})
	})
}

// Camunda's call activity tests: a transient variable mapped by name into
// the called instance (camunda:in variables="all") and back out
// (camunda:out source) stays transient.
func TestTransientCallActivity(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		var inner, outer []bool
		e.Eng.RegisterDelegate("inner", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			tr, err := ex.IsTransient("v")
			inner = append(inner, tr)
			if err != nil {
				return err
			}
			return ex.SetVariable("r", bpmnlite.Transient("back"))
		}))
		e.Eng.RegisterDelegate("outer", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			v, _, err := ex.Variable("r")
			tr, err2 := ex.IsTransient("r")
			outer = append(outer, tr && v == "back")
			return errors.Join(err, err2)
		}))
		e.Deploy("sub", enginetest.Defs(enginetest.Executable("sub", `<startEvent id="s"/><serviceTask id="i" camunda:class="inner"/><endEvent id="e"/>`, enginetest.Chain("s", "i", "e"))))
		e.Deploy("super", enginetest.Defs(enginetest.Executable("super", `<startEvent id="start"/>
			<callActivity id="call" calledElement="sub"><extensionElements><camunda:in variables="all"/><camunda:out source="r" target="r"/></extensionElements></callActivity>
			<serviceTask id="o" camunda:class="outer"/><userTask id="wait"/><endEvent id="end"/>`,
			enginetest.Chain("start", "call", "o", "wait", "end"))))
		e.Start("super", map[string]any{"v": bpmnlite.Transient("x")})
		if len(inner) != 1 || !inner[0] || len(outer) != 1 || !outer[0] {
			t.Errorf("transient inside %v, outside %v; want [true] both", inner, outer)
		}
		noVariableRows(e) // the called instance ended: none in its history either
	})
}

// The rules where transient and stored variables meet, as Camunda's
// AbstractVariableScope has them: in one scope a name is either, and stays
// so for the command even when removed; an outer scope's stored variable
// is what setVariable finds first.
func TestTransientConflicts(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		conflict := func(t *testing.T, err error) {
			t.Helper()
			if !errors.Is(err, bpmnlite.ErrTransientConflict) {
				t.Fatalf("err = %v, want ErrTransientConflict", err)
			}
		}
		sub(t, e, "transient over stored", func(t *testing.T, e *harness.Env) {
			// testTransientVariableOvewritesPersistedVariableInSameScope
			e.Deploy("one", enginetest.Defs(enginetest.Executable("one", `<startEvent id="start"/><userTask id="wait"/><endEvent id="end"/>`, enginetest.Chain("start", "wait", "end"))))
			pi := e.Start("one", map[string]any{"foo": "bar"})
			err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"foo": bpmnlite.Transient("xyz")})
			conflict(t, err)
			if want := `cannot set transient variable "foo": the scope of execution ` + pi; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
			if e.VarsOf(pi)["foo"] != "bar" {
				t.Error("the stored variable changed")
			}
			conflict(t, e.Eng.SetVariablesLocal(e.Ctx, pi, map[string]any{"foo": bpmnlite.Transient("xyz")}))
		})
		sub(t, e, "outer scope", func(t *testing.T, e *harness.Env) {
			// testSameNamesDifferentScopes: setVariable reaches the stored
			// variable of the instance; a local transient in the inner
			// scope is another variable.
			e.Deploy("sub", enginetest.Defs(enginetest.Executable("sub", `<startEvent id="start"/>
				<subProcess id="sp"><startEvent id="ss"/><userTask id="inner"/><endEvent id="se"/>`+enginetest.Chain("ss", "inner", "se")+`</subProcess><endEvent id="end"/>`,
				enginetest.Chain("start", "sp", "end"))))
			pi := e.Start("sub", map[string]any{"foo": "bar"})
			inner := e.Executions(pi, "inner")[0].ID
			conflict(t, e.Eng.SetVariables(e.Ctx, inner, map[string]any{"foo": bpmnlite.Transient("xyz")}))
			if err := e.Eng.SetVariablesLocal(e.Ctx, inner, map[string]any{"foo": bpmnlite.Transient("xyz")}); err != nil {
				t.Fatalf("a local transient over an outer stored variable: %v", err)
			}
			if e.VarsOf(pi)["foo"] != "bar" {
				t.Error("the stored variable changed")
			}
		})

		// Delegates setting v twice, or setting, removing and setting it,
		// each time transient or not as the start variables t1 and t2 say.
		set := func(ex *bpmnlite.Execution, local bool, n int, transient bool) error {
			var v any = n
			if transient {
				v = bpmnlite.Transient(n)
			}
			if local {
				return ex.SetVariableLocal("v", v)
			}
			return ex.SetVariable("v", v)
		}
		flags := func(ex *bpmnlite.Execution) (t1, t2 bool) {
			a, _, _ := ex.Variable("t1")
			b, _, _ := ex.Variable("t2")
			return a == true, b == true
		}
		e.Eng.RegisterDelegate("switch", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			t1, t2 := flags(ex)
			if err := set(ex, false, 1, t1); err != nil {
				return err
			}
			if err := set(ex, false, 2, t2); err != nil {
				return err
			}
			// testChangeTransientVariable: the last value is what is seen.
			v, _, err := ex.Variable("v")
			if err != nil {
				return err
			}
			return ex.SetVariable("out", v)
		}))
		e.Eng.RegisterDelegate("removeAndSet", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			t1, t2 := flags(ex)
			if err := set(ex, false, 1, t1); err != nil {
				return err
			}
			if err := ex.RemoveVariable("v"); err != nil {
				return err
			}
			return set(ex, false, 2, t2)
		}))
		e.Eng.RegisterDelegate("setLocal", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			return set(ex, true, 1, true)
		}))
		for _, class := range []string{"switch", "removeAndSet", "setLocal"} {
			e.Deploy(class, enginetest.Defs(enginetest.Executable(class, `<startEvent id="start"/><serviceTask id="d" camunda:class="`+class+`"/><userTask id="wait"/><endEvent id="end"/>`,
				enginetest.Chain("start", "d", "wait", "end"))))
		}
		for _, c := range []struct {
			class   string
			t1, t2  bool
			allowed bool
			stored  bool   // v is stored after the command
			says    string // the conflict's message
		}{
			{"switch", true, true, true, false, ""},
			{"switch", false, false, true, true, ""},
			{"switch", true, false, false, false, `cannot store variable "v": the scope of execution`}, // testSwitchTransientToNonVariable
			{"switch", false, true, false, false, `cannot set transient variable "v"`},                 // testSwitchNonToTransientVariable
			{"removeAndSet", false, false, true, true, ""},
			{"removeAndSet", true, true, true, false, ""},
			{"removeAndSet", true, false, false, false, "had a transient variable of that name, removed in this command"},
			{"removeAndSet", false, true, false, false, "had a stored variable of that name, removed in this command"},
		} {
			pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: c.class, Variables: map[string]any{"t1": c.t1, "t2": c.t2}})
			if !c.allowed {
				if !errors.Is(err, bpmnlite.ErrTransientConflict) || !strings.Contains(err.Error(), c.says) {
					t.Errorf("%s t1=%v t2=%v: err = %v, want ErrTransientConflict saying %q", c.class, c.t1, c.t2, err, c.says)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s t1=%v t2=%v: %v", c.class, c.t1, c.t2, err)
				continue
			}
			vars := e.VarsOf(pi)
			if _, stored := vars["v"]; stored != c.stored {
				t.Errorf("%s t1=%v t2=%v: v stored %v, want %v", c.class, c.t1, c.t2, stored, c.stored)
			}
			if c.class == "switch" && vars["out"] != int64(2) {
				t.Errorf("%s t1=%v t2=%v: out = %#v, want 2", c.class, c.t1, c.t2, vars["out"])
			}
		}
		// testSwitchNonToTransientLocalVariable
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "setLocal", Variables: map[string]any{"v": false}})
		conflict(t, err)
		if n := harness.CountRows(t, e.DB(), "SELECT count(*) FROM execution WHERE process_definition_id IN (SELECT id FROM process_definition WHERE key = 'setLocal')"); n != 0 {
			t.Errorf("a failed start left %d executions", n)
		}
	})
}

// The checks and conversions of stored values apply to transient ones,
// and a transient value cannot hide inside a stored one.
func TestTransientValidation(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Deploy("one", enginetest.Defs(enginetest.Executable("one", `<startEvent id="start"/><userTask id="wait"/><endEvent id="end"/>`, enginetest.Chain("start", "wait", "end"))))
		for name, v := range map[string]any{
			"nan":    bpmnlite.Transient(math.NaN()),
			"text":   bpmnlite.Transient("a\x00b"),
			"nested": map[string]any{"a": bpmnlite.Transient(1)},
			"inList": []any{bpmnlite.Transient(1)},
		} {
			_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "one", Variables: map[string]any{name: v}})
			var ve *bpmnlite.VariableError
			if !errors.Is(err, bpmnlite.ErrInvalidVariable) || !errors.As(err, &ve) || ve.Name != name {
				t.Errorf("%s: err = %v, want a VariableError naming it", name, err)
			}
		}
		// Transient(Transient(v)) is Transient(v); a *TransientValue too.
		pi := e.Start("one", map[string]any{"a": bpmnlite.Transient(bpmnlite.Transient(1)), "b": &bpmnlite.TransientValue{Value: 2}})
		if vars := e.VarsOf(pi); len(vars) != 0 {
			t.Errorf("stored %v, want nothing", vars)
		}
	})
}
