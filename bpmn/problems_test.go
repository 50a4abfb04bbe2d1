package bpmn

import (
	"strings"
	"testing"
)

// TestProblems checks each kind of problem: the element it names and its message.
func TestProblems(t *testing.T) {
	start := `<startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="x"/>`
	for _, c := range []struct {
		name    string
		src     []byte
		id, typ string
		msg     string
	}{
		// Unsupported element types.
		{"scriptTask without scriptFormat (juel)", simple(`<scriptTask id="x"><script>1</script></scriptTask>`), "x", "scriptTask", "script: scriptFormat 'juel' is not supported: use javascript, an expression, or a delegate"},
		{"groovy scriptTask", simple(`<scriptTask id="x" scriptFormat="groovy"><script>1</script></scriptTask>`), "x", "scriptTask", "script: scriptFormat 'groovy' is not supported: use javascript, an expression, or a delegate"},
		{"scriptTask without script", simple(`<scriptTask id="x" scriptFormat="javascript"/>`), "x", "scriptTask", "script: No script source or resource was given"},
		{"scriptTask syntax error", simple(`<scriptTask id="x" scriptFormat="javascript"><script>var a = 1;
var = 2;</script></scriptTask>`), "x", "scriptTask", "script (javascript) line 2:5 of the script: SyntaxError: Unexpected token ="},
		{"script source expression", simple(`<scriptTask id="x" scriptFormat="js"><script>${src}</script></scriptTask>`), "x", "scriptTask", "a script source given by an expression is not supported"},
		{"python input parameter", simple(`<task id="x"><extensionElements><camunda:inputOutput><camunda:inputParameter name="v"><camunda:script scriptFormat="python">1</camunda:script></camunda:inputParameter></camunda:inputOutput></extensionElements></task>`),
			"x", "task", "camunda:inputParameter 'v': scriptFormat 'python' is not supported: use javascript"},
		{"script parameter without format", simple(`<task id="x"><extensionElements><camunda:inputOutput><camunda:inputParameter name="v"><camunda:script>1</camunda:script></camunda:inputParameter></camunda:inputOutput></extensionElements></task>`),
			"x", "task", "camunda:inputParameter 'v': Missing attribute 'scriptFormat'"},
		{"ruby conditional event", simple(`<intermediateCatchEvent id="x"><conditionalEventDefinition><condition language="ruby">true</condition></conditionalEventDefinition></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "condition: scriptFormat 'ruby' is not supported"},
		{"businessRuleTask without implementation", simple(`<businessRuleTask id="x"/>`), "x", "businessRuleTask", "One of the attributes 'class', 'delegateExpression', 'type', or 'expression' is mandatory on businessRuleTask."},
		{"businessRuleTask bad mapper", simple(`<businessRuleTask id="x" camunda:decisionRef="d" camunda:mapDecisionResult="first"/>`), "x", "businessRuleTask", "No decision result mapper found for name 'first'"},
		{"businessRuleTask decisionRef and class", simple(`<businessRuleTask id="x" camunda:decisionRef="d" camunda:class="C"/>`), "x", "businessRuleTask", "camunda:decisionRef cannot be combined with camunda:class"},
		{"businessRuleTask version binding", simple(`<businessRuleTask id="x" camunda:decisionRef="d" camunda:decisionRefBinding="version"/>`), "x", "businessRuleTask", "camunda:decisionRefBinding 'version' needs camunda:decisionRefVersion"},
		{"complexGateway", simple(`<complexGateway id="x"/>`), "x", "complexGateway", "unsupported element type"},
		{"transaction without start event", simple(`<transaction id="x"/>`), "x", "transaction", "subprocess has no start event"},
		{"adHocSubProcess", simple(`<adHocSubProcess id="x"/>`), "x", "adHocSubProcess", "unsupported element type"},
		{"unknown BPMN element", simple(`<task id="x"/><choreographyTask id="y"/>`), "y", "choreographyTask", "unsupported element type"},
		{"event subprocess without trigger", simple(`<task id="x"/><subProcess id="y" triggeredByEvent="true"><startEvent id="ys"/></subProcess>`),
			"ys", "startEvent", "start event of event subprocess must be of type"},
		{"standardLoop", simple(`<task id="x"><standardLoopCharacteristics/></task>`), "x", "standardLoopCharacteristics", "unsupported element type"},
		{"compensation handler in the flow", simple(`<task id="x"/><sequenceFlow id="xy" sourceRef="x" targetRef="y"/><serviceTask id="y" isForCompensation="true" camunda:class="C"/>`),
			"y", "serviceTask", "a compensation handler (isForCompensation) has no incoming or outgoing sequence flows"},
		{"escalation boundary of no escalation", simple(`<task id="x"/><boundaryEvent id="b" attachedToRef="x"><escalationEventDefinition escalationRef="nope"/></boundaryEvent>`),
			"b", "boundaryEvent", "escalationRef 'nope' names no escalation of this file"},
		{"signal boundary without signal", simple(`<task id="x"/><boundaryEvent id="b" attachedToRef="x"><signalEventDefinition/></boundaryEvent>`),
			"b", "boundaryEvent", "signalEventDefinition has no signalRef"},
		{"compensate boundary", simple(`<task id="x"/><boundaryEvent id="b" attachedToRef="x"><compensateEventDefinition/></boundaryEvent>`),
			"b", "boundaryEvent", "a compensation boundary event needs an association to its compensation handler"},
		{"link without its catch", simple(`<intermediateThrowEvent id="x"><linkEventDefinition name="l"/></intermediateThrowEvent>`),
			"x", "intermediateThrowEvent", "no intermediate catch event with linkEventDefinition name 'l' in the same scope"},
		{"link without a name", simple(`<intermediateCatchEvent id="x"><linkEventDefinition/></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "linkEventDefinition has no name"},
		{"conditional catch without condition", simple(`<intermediateCatchEvent id="x"><conditionalEventDefinition/></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "conditionalEventDefinition has no condition"},
		{"conditional catch with text", simple(`<intermediateCatchEvent id="x"><conditionalEventDefinition><condition>ready</condition></conditionalEventDefinition></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "condition 'ready' is not an expression"},
		{"conditional variable events", simple(`<intermediateCatchEvent id="x"><conditionalEventDefinition camunda:variableEvents="create,change"><condition>${a}</condition></conditionalEventDefinition></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "camunda:variableEvents 'change': want create, update or delete"},
		{"escalation end without escalation", proc(`<startEvent id="s"/><endEvent id="x"><escalationEventDefinition/></endEvent>`),
			"x", "endEvent", "a throwing escalation event needs an escalationRef"},
		{"signal start without signal", proc(`<startEvent id="x"><signalEventDefinition/></startEvent>`),
			"x", "startEvent", "signalEventDefinition has no signalRef"},
		{"conditional start", proc(`<startEvent id="x"><conditionalEventDefinition/></startEvent>`),
			"x", "startEvent", "conditionalEventDefinition has no condition"},
		{"multiple event definitions", proc(`<startEvent id="x"><messageEventDefinition/><timerEventDefinition/></startEvent>`),
			"x", "startEvent/messageEventDefinition+timerEventDefinition", "several event definitions"},
		{"groovy listener", simple(`<task id="x"><extensionElements><camunda:executionListener event="start"><camunda:script scriptFormat="groovy">1</camunda:script></camunda:executionListener></extensionElements></task>`),
			"x", "task", "executionListener 'start': scriptFormat 'groovy' is not supported: use javascript"},
		{"listener with script and class", simple(`<task id="x"><extensionElements><camunda:executionListener event="start" class="C"><camunda:script scriptFormat="js">1</camunda:script></camunda:executionListener></extensionElements></task>`),
			"x", "task", "executionListener may have only one of 'class', 'expression', 'delegateExpression' and 'script'"},

		// References.
		{"dangling sourceRef", simple(`<task id="x"/><sequenceFlow id="g" sourceRef="ghost" targetRef="x"/>`),
			"g", "sequenceFlow", "sourceRef 'ghost' names no flow node of process 'p'"},
		{"dangling targetRef", simple(`<task id="x"/><sequenceFlow id="g" sourceRef="x" targetRef="ghost"/>`),
			"g", "sequenceFlow", "targetRef 'ghost' names no flow node of process 'p'"},
		{"dangling ref in a subprocess", simple(`<subProcess id="x"><startEvent id="in"/><sequenceFlow id="g" sourceRef="in" targetRef="ghost"/></subProcess>`),
			"g", "sequenceFlow", "targetRef 'ghost' names no flow node of subProcess 'x'"},
		{"missing sourceRef", simple(`<task id="x"/><sequenceFlow id="g" targetRef="x"/>`), "g", "sequenceFlow", "sequence flow has no sourceRef"},
		{"flow into a subprocess", proc(start + `<subProcess id="x"><startEvent id="in"/></subProcess><sequenceFlow id="g" sourceRef="s" targetRef="in"/>`),
			"g", "sequenceFlow", "targetRef 'in' is in another scope: sequence flows cannot cross subprocess boundaries"},
		{"dangling attachedToRef", simple(`<task id="x"/><boundaryEvent id="b" attachedToRef="ghost"><timerEventDefinition><timeDuration>${d}</timeDuration></timerEventDefinition></boundaryEvent>`),
			"b", "boundaryEvent", "attachedToRef 'ghost' names no activity of process 'p'"},
		{"missing attachedToRef", simple(`<task id="x"/><boundaryEvent id="b"><errorEventDefinition/></boundaryEvent>`),
			"b", "boundaryEvent", "boundary event has no attachedToRef"},
		{"boundary in another scope", proc(start + `<subProcess id="x"><startEvent id="in"/><boundaryEvent id="b" attachedToRef="x"><errorEventDefinition/></boundaryEvent></subProcess>`),
			"b", "boundaryEvent", "attachedToRef 'x' is in another scope"},
		{"boundary on a gateway", simple(`<parallelGateway id="x"/><boundaryEvent id="b" attachedToRef="x"><errorEventDefinition/></boundaryEvent>`),
			"b", "boundaryEvent", "a boundary event can only be attached to an activity, not to parallelGateway 'x'"},
		{"dangling default", simple(`<exclusiveGateway id="x" default="ghost"/>`), "x", "exclusiveGateway", "default flow 'ghost' names no sequence flow"},
		{"default not outgoing", simple(`<exclusiveGateway id="x" default="f1"/>`),
			"x", "exclusiveGateway", "default flow 'f1' is not an outgoing sequence flow of exclusiveGateway 'x'"},
		{"unknown message", simple(`<receiveTask id="x" messageRef="ghost"/>`), "x", "receiveTask", "messageRef 'ghost' names no message of this file"},
		{"missing messageRef", simple(`<intermediateCatchEvent id="x"><messageEventDefinition/></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "messageEventDefinition has no messageRef"},
		{"unknown signal", simple(`<intermediateThrowEvent id="x"><signalEventDefinition signalRef="ghost"/></intermediateThrowEvent>`),
			"x", "intermediateThrowEvent", "signalRef 'ghost' names no signal of this file"},
		{"missing signalRef", simple(`<intermediateCatchEvent id="x"><signalEventDefinition/></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "signalEventDefinition has no signalRef"},
		{"error end without errorRef", proc(start + `<endEvent id="x"><errorEventDefinition/></endEvent>`),
			"x", "endEvent", "'errorRef' attribute is mandatory on error end event"},
		{"error end with error without code", doc(`<error id="err"/><process id="p" isExecutable="true">` + start + `<endEvent id="x"><errorEventDefinition errorRef="err"/></endEvent></process>`),
			"x", "endEvent", "'errorCode' is mandatory on errors referenced by throwing error event definitions, but the error 'err' does not define one."},

		// Ids.
		{"duplicate id", simple(`<task id="x"/><userTask id="x"/>`), "x", "userTask", "duplicate id 'x' (already used by the task at "},
		{"duplicate flow id", simple(`<task id="x"/><sequenceFlow id="f1" sourceRef="x" targetRef="e"/>`), "f1", "sequenceFlow", "duplicate id 'f1'"},
		{"missing id", simple(`<task id="x"/><userTask/>`), "", "userTask", "userTask has no id"},
		{"message without id", doc(`<message name="m"/>`), "", "message", "message has no id"},
		{"duplicate message id", doc(`<message id="m"/><signal id="m"/>`), "m", "signal", "duplicate id 'm' (already used by the message at 7:1)"},
		{"missing process id", doc(`<process isExecutable="true"><startEvent id="s"/></process>`), "", "process", "process has no id"},

		// Start events and structure.
		{"no start event", proc(`<task id="x"/>`), "p", "process", "process has no start event"},
		{"two none start events", proc(`<startEvent id="a"/><startEvent id="b"><timerEventDefinition><timeDate>${d}</timeDate></timerEventDefinition></startEvent>`),
			"b", "startEvent", "multiple none start events or timer start events not supported on process definition"},
		{"duplicate message start", doc(`<message id="m" name="go"/><process id="p" isExecutable="true">
<startEvent id="a"><messageEventDefinition messageRef="m"/></startEvent><startEvent id="b"><messageEventDefinition messageRef="m"/></startEvent></process>`),
			"b", "startEvent", "Cannot have more than one message event subscription with name 'go' for scope 'p'"},
		{"subprocess without start", simple(`<subProcess id="x"><task id="in"/></subProcess>`), "x", "subProcess", "subprocess has no start event"},
		{"subprocess with two starts", simple(`<subProcess id="x"><startEvent id="a"/><startEvent id="b"/></subProcess>`),
			"b", "startEvent", "multiple start events not supported for subprocess"},
		{"subprocess timer start", simple(`<subProcess id="x"><startEvent id="a"><timerEventDefinition><timeDuration>${d}</timeDuration></timerEventDefinition></startEvent></subProcess>`),
			"a", "startEvent", "a start event inside a subprocess must be a none start event, not a timer start event"},
		{"start with incoming", simple(`<task id="x"/><sequenceFlow id="back" sourceRef="x" targetRef="s"/>`), "s", "startEvent", "a start event cannot have incoming sequence flows"},
		{"end with outgoing", simple(`<task id="x"/><sequenceFlow id="on" sourceRef="e" targetRef="x"/>`), "e", "endEvent", "an end event cannot have outgoing sequence flows"},
		{"boundary with incoming", simple(`<task id="x"/><boundaryEvent id="b" attachedToRef="x"><errorEventDefinition/></boundaryEvent><sequenceFlow id="in" sourceRef="s" targetRef="b"/>`),
			"b", "boundaryEvent", "a boundary event cannot have incoming sequence flows"},
		{"gateway without outgoing", proc(start + `<exclusiveGateway id="x"/>`), "x", "exclusiveGateway", "gateway has no outgoing sequence flows"},
		{"inclusive gateway without outgoing", proc(start + `<inclusiveGateway id="x"/>`), "x", "inclusiveGateway", "gateway has no outgoing sequence flows"},
		{"event-based gateway without outgoing", proc(start + `<eventBasedGateway id="x"/>`), "x", "eventBasedGateway", "gateway has no outgoing sequence flows"},
		{"catch event without definition", simple(`<intermediateCatchEvent id="x"/>`),
			"x", "intermediateCatchEvent", "intermediateCatchEvent needs an event definition"},
		{"boundary without definition", simple(`<task id="x"/><boundaryEvent id="b" attachedToRef="x"/>`),
			"b", "boundaryEvent", "boundaryEvent needs an event definition"},
		{"event gateway to a task", simple(`<eventBasedGateway id="x"/><sequenceFlow id="g" sourceRef="x" targetRef="t"/><task id="t"/>`),
			"x", "eventBasedGateway", "Event based gateway can only be connected to elements of type intermediateCatchEvent (flow 'g' leads to task 't')"},
		{"event gateway target with two incoming", doc(`<signal id="sig"/><process id="p" isExecutable="true">` + start + `<eventBasedGateway id="x"/>
<sequenceFlow id="g" sourceRef="x" targetRef="c"/><sequenceFlow id="h" sourceRef="s" targetRef="c"/>
<intermediateCatchEvent id="c"><signalEventDefinition signalRef="sig"/></intermediateCatchEvent></process>`),
			"c", "intermediateCatchEvent", "Invalid incoming sequenceflow for intermediateCatchEvent with id 'c' connected to an event-based gateway."},
		{"multi-instance on an event", simple(`<intermediateThrowEvent id="x"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></intermediateThrowEvent>`),
			"x", "intermediateThrowEvent", "multiInstanceLoopCharacteristics are only allowed on tasks, subprocesses and call activities"},

		// Camunda attributes.
		{"asyncAfter without flow ids", proc(`<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="service"/>
<serviceTask id="service" camunda:expression="${true}" camunda:asyncAfter="true"/>
<sequenceFlow sourceRef="service" targetRef="e"/><endEvent id="e"/>`),
			"service", "serviceTask", "Sequence flow with sourceRef='service' must have an id, activity with id 'service' uses 'asyncAfter'."},
		{"jobPriority", simple(`<manualTask id="x" camunda:jobPriority="thisIsNotANumber"/>`),
			"x", "manualTask", "Value 'thisIsNotANumber' for attribute 'jobPriority' is not a valid number"},
		{"jobPriority overflow", simple(`<task id="x" camunda:jobPriority="99999999999999999999"/>`),
			"x", "task", "Value '99999999999999999999' for attribute 'jobPriority' is not a valid number"},
		{"process jobPriority", doc(`<process id="p" isExecutable="true" camunda:jobPriority="1.5"><startEvent id="s"/></process>`),
			"p", "process", "Value '1.5' for attribute 'jobPriority' is not a valid number"},
		{"taskPriority", simple(`<serviceTask id="x" camunda:type="external" camunda:topic="t" camunda:taskPriority="NOTaNumber"/>`),
			"x", "serviceTask", "Value 'NOTaNumber' for attribute 'taskPriority' is not a valid number"},
		{"no implementation", simple(`<serviceTask id="x"/>`),
			"x", "serviceTask", "One of the attributes 'class', 'delegateExpression', 'type', or 'expression' is mandatory on serviceTask."},
		{"send task without implementation", simple(`<sendTask id="x"/>`),
			"x", "sendTask", "One of the attributes 'class', 'delegateExpression', 'type', or 'expression' is mandatory on sendTask."},
		{"two implementations", simple(`<serviceTask id="x" camunda:class="C" camunda:expression="${e}"/>`),
			"x", "serviceTask", "only one of the attributes 'class', 'delegateExpression', 'type' and 'expression' may be set"},
		{"external without topic", simple(`<serviceTask id="x" camunda:type="external"/>`),
			"x", "serviceTask", "External tasks must specify a 'topic' attribute in the camunda namespace"},
		{"other camunda:type", simple(`<serviceTask id="x" camunda:type="mail"/>`), "x", "serviceTask", "camunda:type 'mail' is not supported (only 'external')"},
		{"resultVariable with class", simple(`<serviceTask id="x" camunda:class="C" camunda:resultVariable="r"/>`),
			"x", "serviceTask", "camunda:resultVariable is only supported together with camunda:expression"},
		{"invalid boolean", simple(`<task id="x" camunda:asyncBefore="sometimes"/>`), "x", "task", "attribute 'asyncBefore' must be true or false, not 'sometimes'"},
		{"listener without implementation", simple(`<task id="x"><extensionElements><camunda:executionListener event="start"/></extensionElements></task>`),
			"x", "task", "Element 'class', 'expression', 'delegateExpression' or 'script' is mandatory on executionListener"},
		{"listener event", simple(`<task id="x"><extensionElements><camunda:executionListener event="take" class="L"/></extensionElements></task>`),
			"x", "task", "executionListener event must be 'start' or 'end', not 'take'"},
		{"listener with two implementations", simple(`<task id="x"><extensionElements><camunda:executionListener event="end" class="L" expression="${x}"/></extensionElements></task>`),
			"x", "task", "executionListener may have only one of"},
		{"callActivity without calledElement", simple(`<callActivity id="x"/>`), "x", "callActivity", "callActivity has no calledElement"},
		{"case call activity", simple(`<callActivity id="x" camunda:caseRef="c"/>`), "x", "callActivity", "camunda:caseRef is not supported: CMMN cases are not supported"},
		{"camunda:in without source", simple(`<callActivity id="x" calledElement="c"><extensionElements><camunda:in target="t"/></extensionElements></callActivity>`),
			"x", "callActivity", "Missing parameter 'source' or 'sourceExpression' when passing variables"},
		{"camunda:in without target", simple(`<callActivity id="x" calledElement="c"><extensionElements><camunda:in source="a"/></extensionElements></callActivity>`),
			"x", "callActivity", "Missing attribute 'target' when attribute 'source' or 'sourceExpression' is set"},
		{"camunda:in with source and sourceExpression", simple(`<callActivity id="x" calledElement="c"><extensionElements><camunda:in source="a" sourceExpression="${b}" target="t"/></extensionElements></callActivity>`),
			"x", "callActivity", "camunda:in may have only one of 'source' and 'sourceExpression'"},
		{"camunda:in with empty businessKey", simple(`<callActivity id="x" calledElement="c"><extensionElements><camunda:in businessKey=""/></extensionElements></callActivity>`),
			"x", "callActivity", "camunda:in businessKey is empty"},
		{"camunda:out with businessKey", simple(`<callActivity id="x" calledElement="c"><extensionElements><camunda:out businessKey="k"/></extensionElements></callActivity>`),
			"x", "callActivity", "camunda:out cannot carry a businessKey"},
		{"multi-instance without cardinality", simple(`<userTask id="x"><multiInstanceLoopCharacteristics/></userTask>`),
			"x", "multiInstanceLoopCharacteristics", "multiInstanceLoopCharacteristics needs a loopCardinality or a camunda:collection"},
		{"multi-instance bad cardinality", simple(`<userTask id="x"><multiInstanceLoopCharacteristics><loopCardinality>many</loopCardinality></multiInstanceLoopCharacteristics></userTask>`),
			"x", "multiInstanceLoopCharacteristics", "loopCardinality 'many' is neither a non-negative integer nor an expression"},
		{"script condition", simple(`<task id="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"><conditionExpression language="groovy">a == 1</conditionExpression></sequenceFlow>`),
			"g", "sequenceFlow", "condition: scriptFormat 'groovy' is not supported: use javascript, an expression, or a delegate"},

		// Timers.
		{"timer without value", simple(`<intermediateCatchEvent id="x"><timerEventDefinition/></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "timerEventDefinition needs one of timeDate, timeDuration or timeCycle"},
		{"timer with two values", simple(`<intermediateCatchEvent id="x"><timerEventDefinition><timeDate>${a}</timeDate><timeCycle>${b}</timeCycle></timerEventDefinition></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "timerEventDefinition has more than one of timeDate, timeDuration and timeCycle"},
		{"empty timer value", simple(`<intermediateCatchEvent id="x"><timerEventDefinition><timeDate/></timerEventDefinition></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "timeDate is empty"},
		{"malformed duration", simple(`<intermediateCatchEvent id="x"><timerEventDefinition><timeDuration>PT5X</timeDuration></timerEventDefinition></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "invalid timeDuration 'PT5X'"},
		{"malformed date", simple(`<intermediateCatchEvent id="x"><timerEventDefinition><timeDate>2036-13-45T11:12:22</timeDate></timerEventDefinition></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "invalid timeDate '2036-13-45T11:12:22'"},
		{"malformed cycle", proc(`<startEvent id="x"><timerEventDefinition><timeCycle>R3/PTX</timeCycle></timerEventDefinition></startEvent>`),
			"x", "startEvent", "invalid timeCycle 'R3/PTX'"},
		{"malformed cron", proc(`<startEvent id="x"><timerEventDefinition><timeCycle>0 0/5 * * * ? * * *</timeCycle></timerEventDefinition></startEvent>`),
			"x", "startEvent", "invalid timeCycle '0 0/5 * * * ? * * *'"},

		// Expressions that do not compile.
		{"condition", simple(`<task id="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"><conditionExpression>${a</conditionExpression></sequenceFlow>`),
			"g", "sequenceFlow", `invalid expression in condition "${a": unclosed expression`},
		{"delegateExpression", simple(`<serviceTask id="x" camunda:delegateExpression="${a"/>`), "x", "serviceTask", "invalid expression in camunda:delegateExpression"},
		{"camunda:expression", simple(`<serviceTask id="x" camunda:expression="#{a"/>`), "x", "serviceTask", "invalid expression in camunda:expression"},
		{"jobPriority expression", simple(`<task id="x" camunda:jobPriority="${a"/>`), "x", "task", "invalid expression in camunda:jobPriority"},
		{"timer expression", simple(`<intermediateCatchEvent id="x"><timerEventDefinition><timeDuration>${a</timeDuration></timerEventDefinition></intermediateCatchEvent>`),
			"x", "intermediateCatchEvent", "invalid expression in timeDuration"},
		{"assignee", simple(`<userTask id="x" camunda:assignee="${a"/>`), "x", "userTask", "invalid expression in camunda:assignee"},
		{"loopCardinality", simple(`<userTask id="x"><multiInstanceLoopCharacteristics><loopCardinality>${a</loopCardinality></multiInstanceLoopCharacteristics></userTask>`),
			"x", "multiInstanceLoopCharacteristics", "invalid expression in loopCardinality"},
		{"collection", simple(`<userTask id="x"><multiInstanceLoopCharacteristics camunda:collection="${a"/></userTask>`),
			"x", "multiInstanceLoopCharacteristics", "invalid expression in camunda:collection"},
		{"completionCondition", simple(`<userTask id="x"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality><completionCondition>${a</completionCondition></multiInstanceLoopCharacteristics></userTask>`),
			"x", "multiInstanceLoopCharacteristics", "invalid expression in completionCondition"},
		{"listener expression", simple(`<task id="x"><extensionElements><camunda:executionListener event="end" expression="${a"/></extensionElements></task>`),
			"x", "task", "invalid expression in executionListener expression"},
		{"sourceExpression", simple(`<callActivity id="x" calledElement="c"><extensionElements><camunda:in sourceExpression="${a" target="b"/></extensionElements></callActivity>`),
			"x", "callActivity", "invalid expression in sourceExpression"},
		{"calledElement", simple(`<callActivity id="x" calledElement="${a"/>`), "x", "callActivity", "invalid expression in calledElement"},
		{"retry cycle expression", simple(`<task id="x"><extensionElements><camunda:failedJobRetryTimeCycle>${a</camunda:failedJobRetryTimeCycle></extensionElements></task>`),
			"x", "task", "invalid expression in failedJobRetryTimeCycle"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := findProblem(t, mustFail(t, c.src), c.id, c.msg)
			if p.ElementType != c.typ {
				t.Errorf("element type %q, want %q", p.ElementType, c.typ)
			}
			if !strings.Contains(p.String(), c.msg) {
				t.Errorf("String() = %q", p.String())
			}
		})
	}
}

// TestNoRepeatedProblems checks that references to a rejected element are not
// reported as dangling, and that a rejected start event does not also count
// as a missing one.
func TestNoRepeatedProblems(t *testing.T) {
	probs := mustFail(t, proc(`<startEvent id="s"><signalEventDefinition/></startEvent>
<sequenceFlow id="f1" sourceRef="s" targetRef="x"/>
<scriptTask id="x"/>
<boundaryEvent id="b" attachedToRef="x"><errorEventDefinition/></boundaryEvent>
<sequenceFlow id="f2" sourceRef="x" targetRef="sub"/>
<subProcess id="sub"><startEvent id="ss"><timerEventDefinition/></startEvent><startEvent id="st2"><escalationEventDefinition/></startEvent></subProcess>`))
	if len(probs) != 6 {
		t.Fatalf("want 6 problems (signal start, scriptTask, empty timer, subprocess timer start, subprocess escalation start, two subprocess starts), got:\n%s", listProblems(probs))
	}
}

func TestExpressionCheckerOptional(t *testing.T) {
	_, err := Parse(simple(`<serviceTask id="x" camunda:expression="${unbalanced"/>`), ParseOptions{})
	if err != nil {
		t.Errorf("without CheckExpression expressions are not checked: %v", err)
	}
}
