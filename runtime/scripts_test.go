package runtime_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// JavaScript where Camunda runs scripts, on both backends: script tasks
// (inline and from a deployment resource), script conditions, script
// parameters, execution and task listeners, conditional events; and the
// failures: a script error rolls the command back with the script's
// position, a job's fails the job, an endless script is stopped.

// js is a script element of format javascript.
func js(src string) string {
	return `<camunda:script scriptFormat="javascript"><![CDATA[` + src + `]]></camunda:script>`
}

func TestScriptTask(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", `<startEvent id="s"/>
<scriptTask id="calc" scriptFormat="JavaScript" camunda:resultVariable="total"><script><![CDATA[
var sum = 0;
for (var i = 0; i < items.length; i++) { sum += items[i].price * items[i].qty; }
execution.setVariable('info', {pi: execution.getProcessInstanceId(), key: execution.getBusinessKey(),
  activity: execution.getActivityId(), has: execution.hasVariable('items'), hasNot: execution.hasVariable('nope')});
execution.setVariable('half', sum / 8);
execution.setVariable('when', new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
execution.setVariable('list', [1, 'two', true, null]);
execution.setVariable('copy', execution.getVariable('customer') + '!');
sum;
]]></script></scriptTask>
<userTask id="wait"/>`+enginetest.Chain("s", "calc", "wait")))
		pi, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", BusinessKey: "order-7", Variables: map[string]any{
			"customer": "Ada",
			"items":    []any{map[string]any{"price": 2.5, "qty": 4}, map[string]any{"price": 10, "qty": 1}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "total", e.Var(pi, "total"), int64(20))
		wantEq(t, "half", e.Var(pi, "half"), 2.5)
		wantEq(t, "copy", e.Var(pi, "copy"), "Ada!")
		wantEq(t, "list", e.Var(pi, "list"), []any{int64(1), "two", true, nil})
		wantEq(t, "info", e.Var(pi, "info"), map[string]any{"pi": pi, "key": "order-7", "activity": "calc", "has": true, "hasNot": false})
		if w, ok := e.Var(pi, "when").(time.Time); !ok || !w.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
			t.Errorf("when = %#v", e.Var(pi, "when"))
		}
		// A script's own var is not stored (Camunda's autoStoreScriptVariables is off).
		wantEq(t, "sum", e.Var(pi, "sum"), nil)
	})
}

// A script from the deployment: deployment://name and a plain
// (classpath-like) name, resolved against the process's deployment.
func TestScriptTaskResource(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		model := enginetest.Process("p", `<startEvent id="s"/>
<scriptTask id="a" scriptFormat="js" camunda:resource="deployment://scripts/double.js" camunda:resultVariable="a"/>
<scriptTask id="b" scriptFormat="js" camunda:resource="scripts/double.js" camunda:resultVariable="b"/>
<scriptTask id="c" scriptFormat="js" camunda:resource="${'scripts/' + which}" camunda:resultVariable="c"/>
<userTask id="wait"/>`+enginetest.Chain("s", "a", "b", "c", "wait"))
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "d", Resources: []bpmnlite.Resource{
			{Name: "p.bpmn", Bytes: []byte(model)},
			{Name: "scripts/double.js", Bytes: []byte("n * 2")},
			{Name: "scripts/triple.js", Bytes: []byte("n * 3")},
		}})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second run takes the compiled resources from the cache
			pi := e.Start("p", map[string]any{"n": 21, "which": "triple.js"})
			wantEq(t, "a", e.Var(pi, "a"), int64(42))
			wantEq(t, "b", e.Var(pi, "b"), int64(42))
			wantEq(t, "c", e.Var(pi, "c"), int64(63))
		}
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"n": 1, "which": "missing.js"}})
		if err == nil || !strings.Contains(err.Error(), `has no resource "scripts/missing.js"`) {
			t.Errorf("missing resource: %v", err)
		}
	})
}

// Camunda's testScriptInDeploymentAfterCacheWasCleaned: a definition
// parsed again from its stored file (none fits the cache here) reads its
// script resource from its deployment when it runs.
func TestScriptResourceAfterCacheWasCleaned(t *testing.T) {
	eachBackend(t, bpmnlite.Config{Limits: bpmnlite.LimitsConfig{DefinitionCacheBytes: 1}}, func(t *testing.T, e *env) {
		model := enginetest.Process("p", `<startEvent id="s"/>
<scriptTask id="greet" scriptFormat="javascript" camunda:resource="deployment://greeting.js" camunda:resultVariable="greeting"/>
<userTask id="wait"/>`+enginetest.Chain("s", "greet", "wait"))
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "d", Resources: []bpmnlite.Resource{
			{Name: "p.bpmn", Bytes: []byte(model)},
			{Name: "greeting.js", Bytes: []byte("'Greetings ' + who + ' speaking'")},
		}})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			pi := e.Start("p", map[string]any{"who": "bpmnlite"})
			wantEq(t, "greeting", e.Var(pi, "greeting"), "Greetings bpmnlite speaking")
		}
		if s := e.Eng.Stats(); s.DefinitionsCached != 0 {
			t.Fatalf("%d definitions cached, want none", s.DefinitionsCached)
		}
	})
}

// An exclusive gateway choosing by script conditions, inline and from a
// resource; a condition that returns no boolean fails.
func TestScriptCondition(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		model := enginetest.Process("p", `<startEvent id="s"/><sequenceFlow id="s-g" sourceRef="s" targetRef="g"/>
<exclusiveGateway id="g"/>
<sequenceFlow id="toBig" sourceRef="g" targetRef="big"><conditionExpression language="javascript">amount &gt; 100</conditionExpression></sequenceFlow>
<sequenceFlow id="toOdd" sourceRef="g" targetRef="odd"><conditionExpression language="javascript" camunda:resource="odd.js"/></sequenceFlow>
<sequenceFlow id="toSmall" sourceRef="g" targetRef="small"><conditionExpression language="ecmascript">execution.getVariable('amount') &lt;= 100</conditionExpression></sequenceFlow>
<userTask id="big"/><userTask id="odd"/><userTask id="small"/>`)
		_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "d", Resources: []bpmnlite.Resource{
			{Name: "p.bpmn", Bytes: []byte(model)},
			{Name: "odd.js", Bytes: []byte("if (amount === 7) 'seven'; else amount % 2 === 1 && amount < 100")},
		}})
		if err != nil {
			t.Fatal(err)
		}
		for amount, want := range map[int]string{500: "big", 3: "odd", 50: "small"} {
			pi := e.Start("p", map[string]any{"amount": amount})
			wantEq(t, "task", e.TaskKeys(pi), want)
		}
		_, err = e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p", Variables: map[string]any{"amount": 7}})
		if err == nil || !strings.Contains(err.Error(), "sequenceFlow 'toOdd': condition script returns string seven, not a boolean") {
			t.Errorf("non-boolean condition: %v", err)
		}
		if n := len(e.Instances("p")); n != 3 {
			t.Errorf("%d instances, want the 3 started", n)
		}
	})
}

// camunda:script as input and output parameters, in lists and maps too.
func TestScriptParameters(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", `<startEvent id="s"/>
<userTask id="work">`+ioMapping(`<camunda:inputParameter name="doubled">`+js(`price * 2`)+`</camunda:inputParameter>
<camunda:inputParameter name="parts"><camunda:list><camunda:value>a</camunda:value>`+js(`'b' + price`)+`</camunda:list></camunda:inputParameter>
<camunda:outputParameter name="result">`+js(`execution.getVariableLocal('doubled') + (typeof approved !== 'undefined' && approved ? 1 : 0)`)+`</camunda:outputParameter>
<camunda:outputParameter name="locals">`+js(`[execution.hasVariableLocal('doubled'), execution.hasVariableLocal('price'),
  (execution.removeVariableLocal('price'), execution.hasVariable('price')),
  (execution.removeVariableLocal('doubled'), execution.hasVariableLocal('doubled'))].join()`)+`</camunda:outputParameter>`)+`</userTask>
<userTask id="after"/>`+enginetest.Chain("s", "work", "after")))
		pi := e.Start("p", map[string]any{"price": 21})
		x := e.ioScope(pi, "work")
		local := e.VarsOf(x.ID)
		wantEq(t, "doubled", local["doubled"], int64(42))
		wantEq(t, "parts", local["parts"], []any{"a", "b21"})
		wantEq(t, "process doubled", e.Var(pi, "doubled"), nil)
		e.Complete(pi, "work", map[string]any{"approved": true})
		wantEq(t, "result", e.Var(pi, "result"), int64(43))
		// Local means the activity's own scope: removing a local that is
		// not there leaves the process's variable alone.
		wantEq(t, "locals", e.Var(pi, "locals"), "true,false,true,false")
		wantEq(t, "price", e.Var(pi, "price"), int64(21))
	})
}

// Script execution listeners (start, end, take) and task listeners with
// `task`.
func TestScriptListeners(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		listener := func(event, src string) string {
			return `<camunda:executionListener event="` + event + `">` + js(src) + `</camunda:executionListener>`
		}
		e.Deploy("p", enginetest.Process("p", `<extensionElements>`+listener("start", `execution.setVariable('log', 'process:' + execution.getEventName())`)+`</extensionElements>
<startEvent id="s"/>
<sequenceFlow id="s-t" sourceRef="s" targetRef="t"><extensionElements>`+listener("take", `execution.setVariable('log', log + ',take:' + execution.getEventName())`)+`</extensionElements></sequenceFlow>
<task id="t"><extensionElements>`+listener("start", `execution.setVariable('log', log + ',' + execution.getActivityId() + ':start')`)+
			listener("end", `execution.setVariable('log', log + ',t:end'); execution.setVariableLocal('gone', 1)`)+`</extensionElements></task>
<userTask id="review" name="Review"><extensionElements>
<camunda:taskListener event="create">`+js(`task.setAssignee('user-' + owner); task.setVariable('seen', task.getName() + '/' + task.getTaskDefinitionKey() + '/' + task.getEventName() + '/' + (task.getId() !== ''))`)+`</camunda:taskListener>
<camunda:taskListener event="complete">`+js(`task.getExecution().setVariable('completedBy', task.getAssignee())`)+`</camunda:taskListener>
</extensionElements></userTask><userTask id="done"/>`+enginetest.Chain("t", "review", "done")))
		pi := e.Start("p", map[string]any{"owner": "ada"})
		wantEq(t, "log", e.Var(pi, "log"), "process:start,take:take,t:start,t:end")
		tasks := e.Tasks(pi)
		if len(tasks) != 1 || tasks[0].Assignee != "user-ada" {
			t.Fatalf("tasks %+v, want review assigned to user-ada", tasks)
		}
		wantEq(t, "seen", e.Var(pi, "seen"), "Review/review/create/true")
		if err := e.Eng.CompleteTask(e.Ctx, tasks[0].ID, nil); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "completedBy", e.Var(pi, "completedBy"), "user-ada")
	})
}

// A conditional event with a script condition: it fires when a variable
// change makes the script true; a script that fails (a variable not set
// yet) does not hold, as Camunda's tryEvaluate.
func TestScriptConditionalEvent(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", `<startEvent id="s"/>
<intermediateCatchEvent id="cond"><conditionalEventDefinition><condition language="javascript">level &gt; 3</condition></conditionalEventDefinition></intermediateCatchEvent>
<userTask id="after"/>`+enginetest.Chain("s", "cond", "after")))
		pi := e.Start("p", nil)
		wantEq(t, "tasks", e.TaskKeys(pi), "")
		if err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"level": 2}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks at level 2", e.TaskKeys(pi), "")
		if err := e.Eng.SetVariables(e.Ctx, pi, map[string]any{"level": 5}); err != nil {
			t.Fatal(err)
		}
		wantEq(t, "tasks at level 5", e.TaskKeys(pi), "after")
	})
}

// A conditional start event with a script condition sees the request's
// variables (there is no execution yet); one that fails does not start.
func TestScriptConditionalStart(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("hot", enginetest.Process("hot", `<startEvent id="s"><conditionalEventDefinition><condition language="javascript">temperature &gt; 30</condition></conditionalEventDefinition></startEvent>
<userTask id="cool"/>`+enginetest.Chain("s", "cool")))
		for temp, want := range map[int]int{20: 0, 35: 1} {
			ids, err := e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{Variables: map[string]any{"temperature": temp}})
			if err != nil || len(ids) != want {
				t.Fatalf("temperature %d: started %v (%v), want %d", temp, ids, err, want)
			}
		}
		ids, err := e.Eng.EvaluateStartConditions(e.Ctx, bpmnlite.ConditionEvaluation{Variables: map[string]any{"other": 1}})
		if err != nil || len(ids) != 0 {
			t.Fatalf("without temperature: started %v (%v)", ids, err)
		}
	})
}

// A runtime error names the element, the script's line and column and
// the message, and rolls the start back: nothing is stored.
func TestScriptErrorRollsBack(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", `<startEvent id="s"/>
<scriptTask id="calc" scriptFormat="javascript"><script>execution.setVariable('partial', 1);
var total = 0;
total = missing + 1;</script></scriptTask><endEvent id="end"/>`+enginetest.Chain("s", "calc", "end")))
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p"})
		if err == nil || !strings.Contains(err.Error(), "scriptTask 'calc': javascript line 3:9: ReferenceError: missing is not defined") {
			t.Fatalf("start: %v", err)
		}
		e.NothingStored("p")
	})
}

// require is not there: the sandbox has no modules, files or network.
func TestScriptSandbox(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", `<startEvent id="s"/>
<scriptTask id="calc" scriptFormat="javascript" camunda:resultVariable="kinds"><script>
[typeof load, typeof Java, typeof java, typeof console, typeof process].join(',');
</script></scriptTask>
<scriptTask id="fs" scriptFormat="javascript"><script>var fs = require('fs');</script></scriptTask><endEvent id="end"/>`+enginetest.Chain("s", "calc", "fs", "end")))
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p"})
		if err == nil || !strings.Contains(err.Error(), "scriptTask 'fs': javascript line 1:17: ReferenceError: require is not defined") {
			t.Fatalf("start: %v", err)
		}
		e.NothingStored("p")
		e.Deploy("q", enginetest.Process("q", `<startEvent id="s"/>
<scriptTask id="calc" scriptFormat="javascript" camunda:resultVariable="kinds"><script>
[typeof require, typeof load, typeof Java, typeof java, typeof console, typeof process].join(',');
</script></scriptTask><userTask id="wait"/>`+enginetest.Chain("s", "calc", "wait")))
		pi := e.Start("q", nil)
		wantEq(t, "kinds", e.Var(pi, "kinds"), "undefined,undefined,undefined,undefined,undefined,undefined")
	})
}

// An endless script is stopped at its time limit; the start fails and
// stores nothing.
func TestScriptTimeLimit(t *testing.T) {
	eachBackend(t, bpmnlite.Config{Limits: bpmnlite.LimitsConfig{ScriptTimeout: 100 * time.Millisecond}}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", `<startEvent id="s"/>
<scriptTask id="loop" scriptFormat="javascript"><script>execution.setVariable('before', 1);
while (true) {}</script></scriptTask><endEvent id="end"/>`+enginetest.Chain("s", "loop", "end")))
		_, err := e.Eng.Start(e.Ctx, bpmnlite.StartRequest{Key: "p"})
		if err == nil || !strings.Contains(err.Error(), "scriptTask 'loop': javascript line ") || !strings.Contains(err.Error(), "ran longer than its time limit of 100ms and was stopped") {
			t.Fatalf("start: %v", err)
		}
		e.NothingStored("p")
	})
}

// A script failing in a job spends a retry each time; at 0 an incident
// names the script's error.
func TestScriptErrorInJob(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.Process("p", `<startEvent id="s"/>
<scriptTask id="calc" scriptFormat="javascript" camunda:asyncBefore="true"><script>throw new Error('no stock for ' + item);</script></scriptTask>
<endEvent id="end"/>`+enginetest.Chain("s", "calc", "end")))
		pi := e.Start("p", map[string]any{"item": "pen"})
		job := e.OneJob(pi)
		for want := job.Retries - 1; want >= 0; want-- {
			e.FailJob(job.ID)
			j := e.OneJob(pi)
			wantEq(t, "retries", j.Retries, want)
			if !strings.Contains(j.ExceptionMessage, "javascript line 1:7: Error: no stock for pen") {
				t.Errorf("exception message %q", j.ExceptionMessage)
			}
		}
		ins := e.IncidentsOf(job.ID)
		if len(ins) != 1 || !strings.Contains(ins[0].Message, "Error: no stock for pen") {
			t.Fatalf("incidents %+v", ins)
		}
	})
}

// Scripts that cannot run are refused at deployment, at their line and
// column: a syntax error, another language.
func TestScriptDeploymentErrors(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for _, c := range []struct{ body, want string }{
			{`<scriptTask id="x" scriptFormat="javascript"><script>var a = 1;
var b = ;</script></scriptTask>`, "p.bpmn:3:1: scriptTask 'x': script (javascript) line 2:9 of the script: SyntaxError: Unexpected token ;"},
			{`<scriptTask id="x" scriptFormat="groovy"><script>a = 1</script></scriptTask>`,
				"p.bpmn:3:1: scriptTask 'x': script: scriptFormat 'groovy' is not supported: use javascript, an expression, or a delegate"},
			{`<scriptTask id="x" scriptFormat="js" camunda:resource="deployment://missing.js"/>`,
				"p.bpmn:3:1: scriptTask 'x': script: camunda:resource 'deployment://missing.js': the deployment has no resource 'missing.js'"},
			{`<scriptTask id="x" scriptFormat="js" camunda:resource="bad.js"/>`,
				"p.bpmn:3:1: scriptTask 'x': script (js) resource 'bad.js' line 2:1 of the script: SyntaxError: Unexpected end of input"},
		} {
			_, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "p", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(enginetest.Process("p", `<startEvent id="s"/>
`+c.body+enginetest.Chain("s", "x")))}, {Name: "bad.js", Bytes: []byte("if (a) {\n")}}})
			var pe *bpmnlite.ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("deploy: %v\nwant %s", err, c.want)
			}
		}
	})
}

// Camunda's ScriptTaskGraalJsTest, with host access as Camunda Run
// configures it: a script's own var shadows a variable of the same name
// without changing it, and is not stored; functions are called.
func TestScriptCamundaJavaScript(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		for name, src := range map[string]string{
			// testJavascriptProcessVarVisibility
			"visibility": `execution.setVariable('foo', 'a');
if (typeof foo !== 'undefined') { throw 'Variable foo should be defined as script variable.'; }
var foo = 'b';
if (execution.getVariable('foo') != 'a') { throw 'Execution should contain variable foo'; }
if (foo != 'b') { throw 'Script variable must override the visibiltity of the execution variable.'; }`,
			// testJavascriptFunctionInvocation
			"function": `function sum(a,b){ return a+b; }; var result = sum(1,2); execution.setVariable('foo', result);`,
			// testJsVariable
			"var": `var foo = 1;`,
		} {
			e.Deploy(name, enginetest.Process(name, `<startEvent id="s"/>
<scriptTask id="script" scriptFormat="javascript"><script><![CDATA[`+src+`]]></script></scriptTask>
<userTask id="wait"/>`+enginetest.Chain("s", "script", "wait")))
			pi := e.Start(name, nil)
			want := map[string]any{"visibility": "a", "function": int64(3), "var": nil}[name]
			wantEq(t, name+": foo", e.Var(pi, "foo"), want)
		}
	})
}
