package bpmn

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseSequence(t *testing.T) {
	d := mustParse(t, simple(`<serviceTask id="x" name="Do it" camunda:class="Delegate"/>`))
	if d.File != "test.bpmn" || len(d.Processes) != 1 || len(d.Skipped) != 0 || len(d.Warnings) != 0 {
		t.Fatalf("definitions = %+v", d)
	}
	p := d.Process("p")
	if p == nil || d.Process("nope") != nil {
		t.Fatal("Process lookup")
	}
	if len(p.Activities) != 3 || len(p.Flows) != 2 {
		t.Fatalf("activities %d, flows %d", len(p.Activities), len(p.Flows))
	}
	x := p.Activity("x")
	if x.Kind != ServiceTask || x.Name != "Do it" || x.Class != "Delegate" || x.Process != p || x.Parent != nil {
		t.Errorf("x = %+v", x)
	}
	if !x.Exclusive || x.AsyncBefore || x.AsyncAfter {
		t.Errorf("defaults: exclusive %v asyncBefore %v asyncAfter %v", x.Exclusive, x.AsyncBefore, x.AsyncAfter)
	}
	f1, f2 := p.Flow("f1"), p.Flow("f2")
	if f1.Source != p.Activity("s") || f1.Target != x || f2.Source != x || f2.Target != p.Activity("e") {
		t.Error("flows not connected")
	}
	if len(x.Incoming) != 1 || x.Incoming[0] != f1 || len(x.Outgoing) != 1 || x.Outgoing[0] != f2 {
		t.Error("incoming/outgoing")
	}
	if s := p.NoneStartEvent(); s == nil || s.ID != "s" {
		t.Errorf("NoneStartEvent = %v", s)
	}
	if p.Activity("nope") != nil || p.Flow("nope") != nil {
		t.Error("lookup of unknown ids")
	}
}

func TestPositions(t *testing.T) {
	src := doc(`<process id="p" isExecutable="true">
  <startEvent id="s"/>
    <userTask id="u"/>
  <sequenceFlow id="f" sourceRef="s" targetRef="u"/>
</process>`)
	d := mustParse(t, src)
	p := d.Process("p")
	// docHead has 6 lines; the process starts on line 7.
	for _, c := range []struct {
		got  Position
		want Position
	}{
		{p.Pos, Position{7, 1}},
		{p.Activity("s").Pos, Position{8, 3}},
		{p.Activity("u").Pos, Position{9, 5}},
		{p.Flow("f").Pos, Position{10, 3}},
	} {
		if c.got != c.want {
			t.Errorf("position %v, want %v", c.got, c.want)
		}
	}

	probs := mustFail(t, doc(`<process id="p" isExecutable="true">
  <startEvent id="s"/>
  <sequenceFlow id="f" sourceRef="s" targetRef="u"/>
      <complexGateway id="st"/>
</process>`))
	if p := findProblem(t, probs, "f", "targetRef 'u' names no flow node of process 'p'"); p.Pos != (Position{9, 3}) {
		t.Errorf("flow problem at %v", p.Pos)
	}
	if p := findProblem(t, probs, "st", "unsupported element type"); p.Pos != (Position{10, 7}) || p.ElementType != "complexGateway" {
		t.Errorf("complexGateway problem = %+v", p)
	}
	// Problems come sorted by position.
	for i := 1; i < len(probs); i++ {
		if a, b := probs[i-1].Pos, probs[i].Pos; a.Line > b.Line || a.Line == b.Line && a.Column > b.Column {
			t.Errorf("problems out of order:\n%s", listProblems(probs))
		}
	}
}

func TestMalformedXML(t *testing.T) {
	for _, c := range []struct {
		name, src string
		pos       Position
		msg       string
	}{
		{"unclosed", "<definitions xmlns=\"http://www.omg.org/spec/BPMN/20100524/MODEL\">\n<process>", Position{2, 10}, "<process> is not closed"},
		{"mismatch", "<a>\n  <b></c>\n</a>", Position{2, 6}, "element <b> closed by </c>"},
		{"syntax", "<a>\n  <b x=1/>\n</a>", Position{2, 8}, "unquoted or missing attribute value"},
		{"empty", "", Position{1, 1}, "no root element"},
		{"two roots", "<a/>\n<b/>", Position{2, 1}, "second root element <b>"},
		{"text after root", "<a/>\ntext", Position{2, 1}, "text outside the root element"},
		{"stray end", "<a/></a>", Position{1, 5}, "unexpected end tag </a>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			probs := mustFail(t, []byte(c.src))
			if len(probs) != 1 || !strings.Contains(probs[0].Message, c.msg) || !strings.HasPrefix(probs[0].Message, "malformed XML: ") {
				t.Fatalf("problems:\n%s", listProblems(probs))
			}
			if probs[0].Pos != c.pos {
				t.Errorf("position %v, want %v", probs[0].Pos, c.pos)
			}
		})
	}
	deep := strings.Repeat("<a>", maxDepth+1) + strings.Repeat("</a>", maxDepth+1)
	probs := mustFail(t, []byte(deep))
	findProblem(t, probs, "", "nested deeper than")
}

func TestRootElement(t *testing.T) {
	probs := mustFail(t, []byte(`<definitions xmlns="http://example.com/other"><process id="p"/></definitions>`))
	findProblem(t, probs, "", "the root element must be a BPMN definitions element")
}

func TestNamespacesByURI(t *testing.T) {
	// Trisotech: BPMN under a prefix and another default namespace; ADONIS:
	// several prefixes for the BPMN namespace; Camunda under another prefix.
	src := `<?xml version="1.0"?>
<semantic:definitions xmlns="http://example.com/not-bpmn"
  xmlns:semantic="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:bpmn2="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:cam="http://camunda.org/schema/1.0/bpmn">
  <semantic:process id="p" isExecutable="true">
    <bpmn2:startEvent id="s"/>
    <semantic:sequenceFlow id="f" sourceRef="s" targetRef="t"/>
    <bpmn2:serviceTask id="t" cam:asyncBefore="true" cam:class="C"/>
    <semantic:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
    <endEvent xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="e"/>
    <task id="ignored"/>
  </semantic:process>
</semantic:definitions>`
	d := mustParse(t, []byte(src))
	p := d.Process("p")
	if len(p.Activities) != 3 {
		t.Fatalf("activities: %d", len(p.Activities))
	}
	if a := p.Activity("t"); a == nil || !a.AsyncBefore || a.Class != "C" {
		t.Errorf("t = %+v", a)
	}
	if p.Activity("ignored") != nil {
		t.Error("an element outside the BPMN namespace was read")
	}
}

func TestDecorationIgnored(t *testing.T) {
	src := doc(`<collaboration id="c"><participant id="pa" processRef="p"/><messageFlow id="mf" sourceRef="pa" targetRef="pa"/></collaboration>
<itemDefinition id="i"/>
<dataStore id="ds"/>
<process id="p" isExecutable="true" xmlns:sig="http://www.signavio.com" processType="None" isClosed="false">
  <documentation>doc</documentation>
  <extensionElements>
    <sig:signavioMetaData metaKey="k" metaValue="v"/>
    <Grid xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>
    <scriptTask id="notReally"/>
  </extensionElements>
  <ioSpecification id="io"/>
  <property id="prop"/>
  <laneSet id="ls"><lane id="l1"><flowNodeRef>s</flowNodeRef></lane></laneSet>
  <dataObject id="do"/>
  <dataObjectReference id="dor" dataObjectRef="do"/>
  <dataStoreReference id="dsr"/>
  <textAnnotation id="ta"><text>note</text></textAnnotation>
  <association id="as" sourceRef="ta" targetRef="s"/>
  <group id="g"/>
  <startEvent id="s" sig:odd="1" xml:lang="de"><documentation/><outgoing>f</outgoing></startEvent>
  <sequenceFlow id="f" sourceRef="s" targetRef="t"/>
  <task id="t" completionQuantity="1" startQuantity="1" isForCompensation="false">
    <incoming>f</incoming>
    <ioSpecification><dataInput id="di"/></ioSpecification>
    <dataInputAssociation id="dia"/>
    <potentialOwner id="po"/>
  </task>
  <sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
  <endEvent id="e"/>
</process>
<bpmndi:BPMNDiagram xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" id="d"><bpmndi:BPMNPlane id="pl" bpmnElement="p"/></bpmndi:BPMNDiagram>`)
	d := mustParse(t, src)
	if len(d.Process("p").AllActivities()) != 3 {
		t.Errorf("activities: %d", len(d.Process("p").AllActivities()))
	}
}

func TestEncodingDeclaration(t *testing.T) {
	src := strings.Replace(string(simple(`<task id="x"/>`)), `encoding="UTF-8"`, `encoding="ISO-8859-1"`, 1)
	mustParse(t, []byte(src))
}

func TestByteOrderMark(t *testing.T) {
	d := mustParse(t, append([]byte("\xef\xbb\xbf"), simple(`<task id="x"/>`)...))
	if d.Process("p").Activity("x").Pos != (Position{9, 1}) {
		t.Errorf("position %v", d.Process("p").Activity("x").Pos)
	}
}

func TestExecutable(t *testing.T) {
	src := doc(`<process id="a" isExecutable="false"><startEvent id="s1"/></process>
<process id="b"><startEvent id="s2"/></process>
<process id="c" isExecutable="true"><startEvent id="s3"/></process>`)
	d := mustParse(t, src)
	if len(d.Processes) != 1 || d.Processes[0].ID != "c" {
		t.Fatalf("processes: %v", d.Processes)
	}
	want := []SkippedProcess{{"a", `isExecutable="false"`, Position{7, 1}}, {"b", "isExecutable is not set", Position{8, 1}}}
	if len(d.Skipped) != 2 || d.Skipped[0] != want[0] || d.Skipped[1] != want[1] {
		t.Errorf("skipped = %+v", d.Skipped)
	}

	// Nothing executable: not an error, but noted.
	d = mustParse(t, doc(`<process id="a" isExecutable="false"><scriptTask id="ignored"/></process>`))
	if len(d.Processes) != 0 || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0].Message, "no executable process") {
		t.Errorf("processes %d, warnings %v", len(d.Processes), d.Warnings)
	}

	// ForceExecutable reads (and checks) every process.
	opts := testOpts
	opts.ForceExecutable = true
	d, err := Parse(src, opts)
	if err != nil || len(d.Processes) != 3 || len(d.Skipped) != 0 {
		t.Fatalf("forced: %v, %+v", err, d)
	}
	_, err = Parse(doc(`<process id="a" isExecutable="false"><scriptTask id="st"/></process>`), opts)
	if err == nil {
		t.Error("forced parse accepted a scriptTask")
	}

	// An empty process (Bizagi adds one per pool) is skipped even when forced.
	d, err = Parse(doc(`<process id="empty" isExecutable="true"><documentation/><laneSet id="ls"/></process>`), opts)
	if err != nil || len(d.Processes) != 0 || len(d.Skipped) != 1 || d.Skipped[0].Reason != "the process has no flow elements" {
		t.Errorf("empty process: %v, %+v", err, d)
	}

	probs := mustFail(t, doc(`<process id="a" isExecutable="maybe"><startEvent id="s"/></process>`))
	findProblem(t, probs, "a", "attribute 'isExecutable' must be true or false, not 'maybe'")
}

func TestEvents(t *testing.T) {
	d := mustParse(t, doc(`
<message id="m1" name="order"/>
<message id="m2"/>
<signal id="sig" name="alarm"/>
<error id="err" errorCode="E42" name="Broken"/>
<process id="p" isExecutable="true">
  <startEvent id="none"/>
  <startEvent id="msgStart"><messageEventDefinition messageRef="m1"/></startEvent>
  <startEvent id="msgStart2"><messageEventDefinition messageRef="tns:m2"/></startEvent>
  <sequenceFlow id="f0" sourceRef="msgStart" targetRef="task"/>
  <sequenceFlow id="f0b" sourceRef="msgStart2" targetRef="task"/>
  <sequenceFlow id="f1" sourceRef="none" targetRef="task"/>
  <userTask id="task"/>
  <boundaryEvent id="bt" attachedToRef="task" cancelActivity="false"><timerEventDefinition><timeCycle>${cycle}</timeCycle></timerEventDefinition></boundaryEvent>
  <boundaryEvent id="bm" attachedToRef="task"><messageEventDefinition messageRef="m1"/></boundaryEvent>
  <boundaryEvent id="be" attachedToRef="task"><errorEventDefinition errorRef="err"/></boundaryEvent>
  <boundaryEvent id="beAll" attachedToRef="task"><errorEventDefinition/></boundaryEvent>
  <sequenceFlow id="f2" sourceRef="task" targetRef="catchTimer"/>
  <intermediateCatchEvent id="catchTimer"><timerEventDefinition><timeDate>${date}</timeDate></timerEventDefinition></intermediateCatchEvent>
  <sequenceFlow id="f3" sourceRef="catchTimer" targetRef="catchMsg"/>
  <intermediateCatchEvent id="catchMsg"><messageEventDefinition messageRef="m2"/></intermediateCatchEvent>
  <sequenceFlow id="f4" sourceRef="catchMsg" targetRef="catchSig"/>
  <intermediateCatchEvent id="catchSig"><signalEventDefinition signalRef="sig"/></intermediateCatchEvent>
  <sequenceFlow id="f5" sourceRef="catchSig" targetRef="throwNone"/>
  <intermediateThrowEvent id="throwNone"/>
  <sequenceFlow id="f6" sourceRef="throwNone" targetRef="throwSig"/>
  <intermediateThrowEvent id="throwSig"><signalEventDefinition signalRef="sig"/></intermediateThrowEvent>
  <sequenceFlow id="f7" sourceRef="throwSig" targetRef="endErr"/>
  <endEvent id="endErr"><errorEventDefinition errorRef="err"/></endEvent>
  <endEvent id="endUnknownErr"><errorEventDefinition errorRef="NOT_DECLARED"/></endEvent>
  <sequenceFlow id="f8" sourceRef="bt" targetRef="term"/>
  <endEvent id="term"><terminateEventDefinition/></endEvent>
  <sequenceFlow id="f9" sourceRef="be" targetRef="plainEnd"/>
  <endEvent id="plainEnd"/>
</process>`))
	p := d.Process("p")
	if d.Messages["m1"].Name != "order" || d.Signals["sig"].Name != "alarm" || d.Errors["err"].Code != "E42" || d.Errors["err"].Name != "Broken" {
		t.Errorf("root elements: %v %v %v", d.Messages, d.Signals, d.Errors)
	}
	check := func(id string, kind Kind, ev EventType) *Activity {
		t.Helper()
		a := p.Activity(id)
		if a == nil {
			t.Fatalf("no activity %s", id)
		}
		if a.Kind != kind || a.Event != ev {
			t.Errorf("%s: kind %s event %s, want %s %s", id, a.Kind, a.Event, kind, ev)
		}
		return a
	}
	check("none", StartEvent, NoEvent)
	if a := check("msgStart", StartEvent, MessageEvent); a.MessageName != "order" {
		t.Errorf("message name %q", a.MessageName)
	}
	if a := check("msgStart2", StartEvent, MessageEvent); a.MessageName != "m2" {
		t.Errorf("message without name: %q, want its id", a.MessageName)
	}
	task := check("task", UserTask, NoEvent)
	bt := check("bt", BoundaryEvent, TimerEvent)
	if bt.CancelActivity || bt.AttachedTo != task || bt.Timer == nil || bt.Timer.Type != TimeCycle || bt.Timer.Value != "${cycle}" {
		t.Errorf("bt = %+v timer %+v", bt, bt.Timer)
	}
	if bm := check("bm", BoundaryEvent, MessageEvent); !bm.CancelActivity || bm.MessageName != "order" {
		t.Errorf("bm = %+v", bm)
	}
	if be := check("be", BoundaryEvent, ErrorEvent); be.ErrorCode != "E42" {
		t.Errorf("be code %q", be.ErrorCode)
	}
	if be := check("beAll", BoundaryEvent, ErrorEvent); be.ErrorCode != "" {
		t.Errorf("catch-all code %q", be.ErrorCode)
	}
	if len(task.Boundaries) != 4 || task.Boundaries[0] != bt || !task.IsScope() {
		t.Errorf("boundaries %v", task.Boundaries)
	}
	if ct := check("catchTimer", IntermediateCatchEvent, TimerEvent); ct.Timer.Type != TimeDate || ct.Timer.Type.String() != "DATE" {
		t.Errorf("timer %+v", ct.Timer)
	}
	if a := check("catchMsg", IntermediateCatchEvent, MessageEvent); a.MessageName != "m2" {
		t.Errorf("catchMsg name %q", a.MessageName)
	}
	if a := check("catchSig", IntermediateCatchEvent, SignalEvent); a.SignalName != "alarm" {
		t.Errorf("catchSig name %q", a.SignalName)
	}
	check("throwNone", IntermediateThrowEvent, NoEvent)
	if a := check("throwSig", IntermediateThrowEvent, SignalEvent); a.SignalName != "alarm" {
		t.Errorf("throwSig name %q", a.SignalName)
	}
	if a := check("endErr", EndEvent, ErrorEvent); a.ErrorCode != "E42" {
		t.Errorf("endErr code %q", a.ErrorCode)
	}
	if a := check("endUnknownErr", EndEvent, ErrorEvent); a.ErrorCode != "NOT_DECLARED" {
		t.Errorf("an errorRef naming no error is the code itself; got %q", a.ErrorCode)
	}
	check("term", EndEvent, TerminateEvent)
	check("plainEnd", EndEvent, NoEvent)
	if len(p.StartEvents()) != 3 {
		t.Errorf("start events: %d", len(p.StartEvents()))
	}
}

func TestErrorBoundaryAlwaysInterrupts(t *testing.T) {
	d := mustParse(t, simple(`<userTask id="x"/>
<boundaryEvent id="b" attachedToRef="x" cancelActivity="false"><errorEventDefinition/></boundaryEvent>`))
	if !d.Process("p").Activity("b").CancelActivity {
		t.Error("error boundary event not interrupting")
	}
	if len(d.Warnings) != 1 || d.Warnings[0].ElementID != "b" || !strings.Contains(d.Warnings[0].Message, "always interrupt") {
		t.Errorf("warnings: %v", d.Warnings)
	}
}

func TestTasks(t *testing.T) {
	d := mustParse(t, proc(`
<startEvent id="s"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="svc"/>
<serviceTask id="svc" camunda:expression="${a.b()}" camunda:resultVariable="r"/>
<sequenceFlow id="f2" sourceRef="svc" targetRef="del"/>
<serviceTask id="del" camunda:delegateExpression="${myDelegate}"/>
<sequenceFlow id="f3" sourceRef="del" targetRef="ext"/>
<serviceTask id="ext" camunda:type="external" camunda:topic="work" camunda:taskPriority="${prio}"/>
<sequenceFlow id="f4" sourceRef="ext" targetRef="send"/>
<sendTask id="send" camunda:class="Sender"/>
<sequenceFlow id="f5" sourceRef="send" targetRef="user"/>
<userTask id="user" camunda:assignee="${initiator}" camunda:candidateGroups="a,b" camunda:candidateUsers="kermit"/>
<sequenceFlow id="f6" sourceRef="user" targetRef="recv"/>
<receiveTask id="recv"/>
<sequenceFlow id="f7" sourceRef="recv" targetRef="manual"/>
<manualTask id="manual"/>
<sequenceFlow id="f8" sourceRef="manual" targetRef="plain"/>
<task id="plain"/>
<sequenceFlow id="f9" sourceRef="plain" targetRef="e"/>
<endEvent id="e"/>`))
	p := d.Process("p")
	if a := p.Activity("svc"); a.Expression != "${a.b()}" || a.ResultVariable != "r" {
		t.Errorf("svc = %+v", a)
	}
	if a := p.Activity("del"); a.DelegateExpression != "${myDelegate}" {
		t.Errorf("del = %+v", a)
	}
	if a := p.Activity("ext"); !a.External || a.Topic != "work" || a.TaskPriority != "${prio}" {
		t.Errorf("ext = %+v", a)
	}
	if a := p.Activity("send"); a.Kind != SendTask || a.Class != "Sender" {
		t.Errorf("send = %+v", a)
	}
	if a := p.Activity("user"); a.User == nil || a.User.Assignee != "${initiator}" || a.User.CandidateGroups != "a,b" || a.User.CandidateUsers != "kermit" {
		t.Errorf("user = %+v", a)
	}
	if a := p.Activity("send"); a.User != nil || a.Call != nil {
		t.Errorf("a send task with user task or call activity details: %+v", a)
	}
	for id, k := range map[string]Kind{"recv": ReceiveTask, "manual": ManualTask, "plain": Task} {
		if a := p.Activity(id); a.Kind != k {
			t.Errorf("%s kind %s", id, a.Kind)
		}
	}
}

func TestReceiveTaskMessage(t *testing.T) {
	d := mustParse(t, doc(`<message id="m" name="answer"/>
<process id="p" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="r"/><receiveTask id="r" messageRef="m"/></process>`))
	if got := d.Process("p").Activity("r").MessageName; got != "answer" {
		t.Errorf("message name %q", got)
	}
}

func TestAsyncAndJobAttributes(t *testing.T) {
	d := mustParse(t, doc(`<process id="p" isExecutable="true" camunda:jobPriority="10" camunda:taskPriority="${p}">
<extensionElements>
  <camunda:executionListener event="start" class="ProcStart"/>
  <camunda:executionListener event="end" expression="${done()}"/>
</extensionElements>
<startEvent id="s" camunda:async="true"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="a"/>
<serviceTask id="a" camunda:class="A" camunda:asyncBefore="true" camunda:asyncAfter="true" camunda:exclusive="false" camunda:jobPriority="${prio}">
  <extensionElements>
    <camunda:failedJobRetryTimeCycle>R5/PT5M</camunda:failedJobRetryTimeCycle>
    <camunda:executionListener event="start" delegateExpression="${listener}"/>
    <camunda:properties><camunda:property name="x" value="y"/></camunda:properties>
  </extensionElements>
</serviceTask>
<sequenceFlow id="f2" sourceRef="a" targetRef="b">
  <extensionElements><camunda:executionListener class="Take"/></extensionElements>
</sequenceFlow>
<serviceTask id="b" camunda:class="B" camunda:jobPriority="-7">
  <extensionElements><fox:failedJobRetryTimeCycle>R1/PT1S</fox:failedJobRetryTimeCycle></extensionElements>
</serviceTask>
<sequenceFlow id="f3" sourceRef="b" targetRef="e"/>
<endEvent id="e" camunda:asyncBefore="false"/>
</process>`))
	p := d.Process("p")
	if p.JobPriority != "10" || p.TaskPriority != "${p}" {
		t.Errorf("process priorities %q %q", p.JobPriority, p.TaskPriority)
	}
	want := []Listener{{Event: "start", Class: "ProcStart"}, {Event: "end", Expression: "${done()}"}}
	if !reflect.DeepEqual(p.Listeners, want) {
		t.Errorf("process listeners %+v", p.Listeners)
	}
	if s := p.Activity("s"); !s.AsyncBefore {
		t.Error("legacy camunda:async not read as asyncBefore")
	}
	a := p.Activity("a")
	if !a.AsyncBefore || !a.AsyncAfter || a.Exclusive || a.JobPriority != "${prio}" || a.RetryTimeCycle != "R5/PT5M" {
		t.Errorf("a = %+v", a)
	}
	if !reflect.DeepEqual(a.Listeners, []Listener{{Event: "start", DelegateExpression: "${listener}"}}) {
		t.Errorf("a listeners %+v", a.Listeners)
	}
	if l := p.Flow("f2").Listeners; !reflect.DeepEqual(l, []Listener{{Event: "take", Class: "Take"}}) {
		t.Errorf("flow listeners %+v", l)
	}
	if b := p.Activity("b"); b.JobPriority != "-7" || b.RetryTimeCycle != "R1/PT1S" || b.AsyncBefore {
		t.Errorf("b = %+v", b)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings: %v", d.Warnings)
	}
}

func TestActivitiNamespaceAlias(t *testing.T) {
	src := strings.Replace(string(simple(`<serviceTask id="x" activiti:class="C" activiti:async="true"/>`)),
		`targetNamespace="test"`, `targetNamespace="test" xmlns:activiti="http://activiti.org/bpmn"`, 1)
	a := mustParse(t, []byte(src)).Process("p").Activity("x")
	if a.Class != "C" || !a.AsyncBefore {
		t.Errorf("a = %+v", a)
	}
}

func TestRetryCycleMalformedIsAWarning(t *testing.T) {
	d := mustParse(t, simple(`<serviceTask id="x" camunda:class="C">
<extensionElements><fox:failedJobRetryTimeCycle>RASDASDAD5/PT5M</fox:failedJobRetryTimeCycle></extensionElements>
</serviceTask>`))
	if got := d.Process("p").Activity("x").RetryTimeCycle; got != "RASDASDAD5/PT5M" {
		t.Errorf("retry cycle %q", got)
	}
	if len(d.Warnings) != 1 || d.Warnings[0].ElementID != "x" || !strings.Contains(d.Warnings[0].Message, "failedJobRetryTimeCycle 'RASDASDAD5/PT5M' is malformed") {
		t.Errorf("warnings: %v", d.Warnings)
	}
}

// Camunda extension elements bpmnlite does not implement are errors at
// their position; form metadata and other vendors' elements are ignored.
func TestUnsupportedCamundaExtensionsRefused(t *testing.T) {
	probs := mustFail(t, simple(`<serviceTask id="x" camunda:class="C">
<extensionElements>
  <camunda:connector><camunda:connectorId>mail-send</camunda:connectorId></camunda:connector>
  <camunda:taskListener event="create" class="L"/>
</extensionElements>
</serviceTask>`))
	if len(probs) != 2 || !strings.Contains(probs[0].Message, "camunda:connector is not supported here: Camunda Connect") ||
		!strings.Contains(probs[1].Message, "camunda:taskListener is not supported here: task listeners belong to user tasks") {
		t.Fatalf("problems: %v", probs)
	}
	if probs[0].Pos.Line == 0 || probs[0].ElementID != "x" {
		t.Errorf("problem without position or element: %+v", probs[0])
	}
	d := mustParse(t, simple(`<userTask id="x" camunda:modelerTemplate="t" camunda:isStartableInTasklist="true">
<extensionElements>
  <camunda:formData/>
  <camunda:properties><camunda:property name="a" value="b"/></camunda:properties>
  <zeebe:taskDefinition xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" type="t"/>
</extensionElements>
</userTask>`))
	if len(d.Warnings) != 0 {
		t.Fatalf("warnings for metadata: %v", d.Warnings)
	}
}

// Camunda attributes bpmnlite does not implement are errors with a hint.
func TestUnsupportedCamundaAttributesRefused(t *testing.T) {
	probs := mustFail(t, simple(`<callActivity id="x" calledElement="p" camunda:caseTenantId="c" camunda:calledElementTenantId="t"/>`))
	if len(probs) != 2 {
		t.Fatalf("problems: %v", probs)
	}
	for i, want := range []string{"camunda:caseTenantId is not supported: CMMN cases are not supported", "camunda:calledElementTenantId is not supported: bpmnlite calls the process of the calling process's tenant"} {
		if !strings.Contains(probs[i].Message, want) || probs[i].ElementID != "x" || probs[i].Pos.Line == 0 {
			t.Errorf("problem %d: %+v, want %q at the element", i, probs[i], want)
		}
	}
}

func TestCallActivity(t *testing.T) {
	d := mustParse(t, simple(`<callActivity id="x" calledElement="sub">
<extensionElements>
  <camunda:in source="a" target="b"/>
  <camunda:in sourceExpression="${x + 1}" target="c" local="true"/>
  <camunda:in variables="all"/>
  <camunda:in businessKey="${execution.processBusinessKey}"/>
  <camunda:out source="r" target="result"/>
  <camunda:out variables="all" local="true"/>
</extensionElements>
</callActivity>`))
	a := d.Process("p").Activity("x").Call
	if a == nil || a.CalledElement != "sub" {
		t.Fatalf("call = %+v", a)
	}
	wantIn := []VariableMapping{
		{Source: "a", Target: "b"},
		{SourceExpression: "${x + 1}", Target: "c", Local: true},
		{All: true},
		{BusinessKey: "${execution.processBusinessKey}"},
	}
	wantOut := []VariableMapping{{Source: "r", Target: "result"}, {All: true, Local: true}}
	if len(a.In) != len(wantIn) || len(a.Out) != len(wantOut) {
		t.Fatalf("in %+v out %+v", a.In, a.Out)
	}
	for i := range wantIn {
		if a.In[i] != wantIn[i] {
			t.Errorf("in[%d] = %+v, want %+v", i, a.In[i], wantIn[i])
		}
	}
	for i := range wantOut {
		if a.Out[i] != wantOut[i] {
			t.Errorf("out[%d] = %+v, want %+v", i, a.Out[i], wantOut[i])
		}
	}
}

func TestMultiInstance(t *testing.T) {
	d := mustParse(t, proc(`<startEvent id="s"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="a"/>
<userTask id="a" camunda:asyncBefore="true">
  <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="${list}" camunda:elementVariable="item"
      camunda:asyncBefore="true" camunda:asyncAfter="true" camunda:exclusive="false">
    <extensionElements><camunda:failedJobRetryTimeCycle>R2/PT1M</camunda:failedJobRetryTimeCycle></extensionElements>
    <completionCondition>${nrOfCompletedInstances == 2}</completionCondition>
  </multiInstanceLoopCharacteristics>
</userTask>
<sequenceFlow id="f2" sourceRef="a" targetRef="b"/>
<subProcess id="b">
  <multiInstanceLoopCharacteristics><loopCardinality> 3 </loopCardinality></multiInstanceLoopCharacteristics>
  <startEvent id="bs"/>
</subProcess>
<sequenceFlow id="f3" sourceRef="b" targetRef="c"/>
<callActivity id="c" calledElement="x">
  <multiInstanceLoopCharacteristics>
    <loopDataInputRef>items</loopDataInputRef>
    <inputDataItem name="it"/>
  </multiInstanceLoopCharacteristics>
</callActivity>`))
	p := d.Process("p")
	mi := p.Activity("a").MultiInstance
	want := MultiInstance{Sequential: true, Collection: "${list}", ElementVariable: "item", CompletionCondition: "${nrOfCompletedInstances == 2}",
		AsyncBefore: true, AsyncAfter: true, RetryTimeCycle: "R2/PT1M"}
	if mi == nil || *mi != want {
		t.Errorf("mi = %+v", mi)
	}
	if !p.Activity("a").AsyncBefore {
		t.Error("activity asyncBefore")
	}
	if mi := p.Activity("b").MultiInstance; mi == nil || mi.LoopCardinality != "3" || mi.Sequential || !mi.Exclusive {
		t.Errorf("b mi = %+v", mi)
	}
	if mi := p.Activity("c").MultiInstance; mi == nil || mi.Collection != "items" || mi.ElementVariable != "it" {
		t.Errorf("c mi = %+v", mi)
	}
	if got := p.Activity("a").MultiInstanceBodyID(); got != "a#multiInstanceBody" {
		t.Errorf("body id %q", got)
	}
}

func TestSubProcesses(t *testing.T) {
	// The message is declared after the process that refers to it.
	d := mustParse(t, doc(`<process id="p" isExecutable="true">
<startEvent id="s"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
<subProcess id="sub">
  <startEvent id="s1"/>
  <sequenceFlow id="g1" sourceRef="s1" targetRef="inner"/>
  <subProcess id="inner">
    <startEvent id="s2"/>
    <sequenceFlow id="h1" sourceRef="s2" targetRef="t"/>
    <userTask id="t"/>
    <boundaryEvent id="bt" attachedToRef="t"><timerEventDefinition><timeDuration>${d}</timeDuration></timerEventDefinition></boundaryEvent>
  </subProcess>
  <sequenceFlow id="g2" sourceRef="inner" targetRef="e1"/>
  <endEvent id="e1"/>
</subProcess>
<boundaryEvent id="bsub" attachedToRef="sub"><messageEventDefinition messageRef="m"/></boundaryEvent>
<sequenceFlow id="f2" sourceRef="sub" targetRef="e"/>
<endEvent id="e"/>
</process>
<message id="m" name="cancel"/>`))
	p := d.Process("p")
	sub, inner, tk := p.Activity("sub"), p.Activity("inner"), p.Activity("t")
	if sub == nil || inner == nil || tk == nil {
		t.Fatal("nested activities not found")
	}
	if inner.Parent != sub || tk.Parent != inner || sub.Parent != nil || tk.Process != p {
		t.Error("parents")
	}
	if len(p.Activities) != 4 || len(sub.Activities) != 3 || len(inner.Activities) != 3 || len(sub.Flows) != 2 || len(inner.Flows) != 1 {
		t.Errorf("levels: %d %d %d", len(p.Activities), len(sub.Activities), len(inner.Activities))
	}
	if sub.NoneStartEvent().ID != "s1" || !sub.IsScope() {
		t.Error("subprocess start event")
	}
	var ids []string
	for _, a := range p.AllActivities() {
		ids = append(ids, a.ID)
	}
	if got := strings.Join(ids, ","); got != "s,sub,s1,inner,s2,t,bt,e1,bsub,e" {
		t.Errorf("AllActivities order: %s", got)
	}
	if p.Flow("h1").Source != p.Activity("s2") {
		t.Error("nested flow lookup")
	}
}

func TestGeneratedFlowIDs(t *testing.T) {
	d := mustParse(t, proc(`<startEvent id="s"/>
<sequenceFlow sourceRef="s" targetRef="a"/>
<parallelGateway id="a"/>
<sequenceFlow sourceRef="a" targetRef="b"/>
<sequenceFlow sourceRef="a" targetRef="b"/>
<parallelGateway id="b"/>
<sequenceFlow sourceRef="b" targetRef="e" name="out"/>
<endEvent id="e"/>
<textAnnotation id="_flow_b_e_1"/>`))
	p := d.Process("p")
	var ids []string
	for _, f := range p.Flows {
		if !f.Generated {
			t.Errorf("flow %s not marked generated", f.ID)
		}
		if p.Flow(f.ID) != f {
			t.Errorf("flow %s not indexed", f.ID)
		}
		ids = append(ids, f.ID)
	}
	if got := strings.Join(ids, " "); got != "_flow_s_a_1 _flow_a_b_1 _flow_a_b_2 _flow_b_e_2" {
		t.Errorf("generated ids: %s", got)
	}
	if len(p.Activity("b").Incoming) != 2 || p.Flow("_flow_b_e_2").Name != "out" {
		t.Error("generated flows not connected")
	}
	// The same file gives the same ids.
	d2 := mustParse(t, proc(`<startEvent id="s"/><sequenceFlow sourceRef="s" targetRef="e"/><endEvent id="e"/>`))
	if d2.Process("p").Flows[0].ID != "_flow_s_e_1" {
		t.Errorf("id %s", d2.Process("p").Flows[0].ID)
	}
}

func TestGatewaysAndDefaults(t *testing.T) {
	d := mustParse(t, doc(`<process id="p" isExecutable="true">
<startEvent id="s"/>
<sequenceFlow id="f0" sourceRef="s" targetRef="x"/>
<exclusiveGateway id="x" default="xd"/>
<sequenceFlow id="xc" sourceRef="x" targetRef="i"><conditionExpression xsi:type="tFormalExpression"><![CDATA[ ${a > 1} ]]></conditionExpression></sequenceFlow>
<sequenceFlow id="xd" sourceRef="x" targetRef="i"/>
<inclusiveGateway id="i" default="id"/>
<sequenceFlow id="ic" sourceRef="i" targetRef="t"><conditionExpression>${b}</conditionExpression></sequenceFlow>
<sequenceFlow id="id" sourceRef="i" targetRef="t"/>
<serviceTask id="t" camunda:class="T" default="td"/>
<sequenceFlow id="tc" sourceRef="t" targetRef="eb"><conditionExpression>${c}</conditionExpression></sequenceFlow>
<sequenceFlow id="td" sourceRef="t" targetRef="eb"/>
<eventBasedGateway id="eb"/>
<sequenceFlow id="e1" sourceRef="eb" targetRef="c1"/>
<sequenceFlow id="e2" sourceRef="eb" targetRef="c2"/>
<intermediateCatchEvent id="c1"><timerEventDefinition><timeDuration>${x}</timeDuration></timerEventDefinition></intermediateCatchEvent>
<intermediateCatchEvent id="c2"><signalEventDefinition signalRef="sig"/></intermediateCatchEvent>
<sequenceFlow id="j1" sourceRef="c1" targetRef="pg"/>
<sequenceFlow id="j2" sourceRef="c2" targetRef="pg"/>
<parallelGateway id="pg"/>
<sequenceFlow id="end" sourceRef="pg" targetRef="e"/>
<endEvent id="e"/>
</process>
<signal id="sig" name="go"/>`))
	p := d.Process("p")
	if p.Activity("x").DefaultFlow != p.Flow("xd") || p.Activity("i").DefaultFlow != p.Flow("id") || p.Activity("t").DefaultFlow != p.Flow("td") {
		t.Error("default flows")
	}
	if got := p.Flow("xc").Condition; got != "${a > 1}" {
		t.Errorf("condition %q", got)
	}
	if p.Activity("eb").Kind != EventBasedGateway || len(p.Activity("eb").Outgoing) != 2 {
		t.Error("event-based gateway")
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings: %v", d.Warnings)
	}
}

func TestParallelJoinWithoutOutgoingFlow(t *testing.T) {
	// Such a join ends its branch: Camunda deploys it (ParallelGatewayTest.testAsyncParallelGateway).
	mustParse(t, proc(`<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="j"/><parallelGateway id="j"/>`))
}

func TestGatewayWarnings(t *testing.T) {
	d := mustParse(t, proc(`<startEvent id="s"/>
<sequenceFlow id="f0" sourceRef="s" targetRef="x"/>
<exclusiveGateway id="x" default="xd"/>
<sequenceFlow id="xa" sourceRef="x" targetRef="pg"/>
<sequenceFlow id="xd" sourceRef="x" targetRef="pg"><conditionExpression>${never}</conditionExpression></sequenceFlow>
<parallelGateway id="pg" default="pc"/>
<sequenceFlow id="pc" sourceRef="pg" targetRef="e"><conditionExpression language="http://www.w3.org/1999/XPath">${ignored}</conditionExpression></sequenceFlow>
<endEvent id="e"/>`))
	w := d.Warnings
	for _, want := range []struct{ id, msg string }{
		{"x", "outgoing sequence flow 'xa' has no condition and is not the default flow"},
		{"x", "default flow 'xd' has a condition; the condition is ignored"},
		{"pc", "conditions on the outgoing flows of a parallelGateway are ignored"},
		{"pc", "condition language 'http://www.w3.org/1999/XPath' is ignored"},
		{"pg", "a default flow has no meaning on a parallelGateway"},
	} {
		findProblem(t, w, want.id, want.msg)
	}
	if len(w) != 5 {
		t.Errorf("warnings:\n%s", listProblems(w))
	}
}

func TestMoreWarnings(t *testing.T) {
	d := mustParse(t, proc(`<startEvent id="s"/>
<sequenceFlow id="f0" sourceRef="s" targetRef="x"/>
<exclusiveGateway id="x"/>
<sequenceFlow id="xa" sourceRef="x" targetRef="i"><conditionExpression>${a}</conditionExpression></sequenceFlow>
<inclusiveGateway id="i" default="id"/>
<sequenceFlow id="id" sourceRef="i" targetRef="t"><conditionExpression>${b}</conditionExpression></sequenceFlow>
<serviceTask id="t" camunda:class="C">
  <extensionElements>
    <camunda:failedJobRetryTimeCycle/>
    <camunda:executionListener event="end" class="L"><camunda:field name="f" stringValue="v"/></camunda:executionListener>
  </extensionElements>
</serviceTask>`))
	if l := d.Process("p").Activity("t").Listeners; len(l) != 1 || !reflect.DeepEqual(l[0].Fields, []Field{{Name: "f", Value: "v"}}) {
		t.Errorf("listener fields %+v", l)
	}
	for _, want := range []struct{ id, msg string }{
		{"x", "the only outgoing sequence flow 'xa' has a condition: when it is false the gateway fails"},
		{"i", "default flow 'id' has a condition; the condition is ignored"},
		{"t", "failedJobRetryTimeCycle is empty; jobs get the default retries"},
	} {
		findProblem(t, d.Warnings, want.id, want.msg)
	}
	if len(d.Warnings) != 3 {
		t.Errorf("warnings:\n%s", listProblems(d.Warnings))
	}
}

func TestProblemString(t *testing.T) {
	p := Problem{File: "f.bpmn", Pos: Position{3, 7}, ElementID: "svc", ElementType: "serviceTask", Message: "broken"}
	if got := p.String(); got != "f.bpmn:3:7: serviceTask 'svc': broken" {
		t.Errorf("String() = %q", got)
	}
	p = Problem{Pos: Position{1, 2}, ElementType: "sequenceFlow", Message: "m"}
	if got := p.String(); got != "1:2: sequenceFlow: m" {
		t.Errorf("String() = %q", got)
	}
	one := &ParseError{File: "f.bpmn", Problems: []Problem{{File: "f.bpmn", Pos: Position{1, 1}, Message: "a"}}}
	if got := one.Error(); got != "bpmn: f.bpmn:1:1: a" {
		t.Errorf("Error() = %q", got)
	}
	two := &ParseError{File: "f.bpmn", Problems: []Problem{{File: "f.bpmn", Pos: Position{1, 1}, Message: "a"}, {File: "f.bpmn", Pos: Position{2, 1}, Message: "b"}}}
	if got := two.Error(); got != "bpmn: f.bpmn: 2 problems\n\tf.bpmn:1:1: a\n\tf.bpmn:2:1: b" {
		t.Errorf("Error() = %q", got)
	}
}

func TestAllProblemsReported(t *testing.T) {
	_, err := Parse(proc(`<startEvent id="s"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="a"/>
<serviceTask id="a"/>
<sequenceFlow id="f2" sourceRef="a" targetRef="nowhere"/>
<scriptTask id="b"/>`), testOpts)
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v", err)
	}
	if len(pe.Problems) != 3 || pe.File != "test.bpmn" {
		t.Fatalf("problems:\n%s", listProblems(pe.Problems))
	}
	msg := err.Error()
	for _, want := range []string{"3 problems", "serviceTask 'a': One of the attributes", "sequenceFlow 'f2': targetRef 'nowhere'", "scriptTask 'b': script: scriptFormat 'juel' is not supported: use javascript"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error text lacks %q:\n%s", want, msg)
		}
	}
}

// camunda:field in its four notations; a field without a name or with two
// values is a problem.
func TestFields(t *testing.T) {
	d := mustParse(t, simple(`<serviceTask id="x" camunda:class="C"><extensionElements>
  <camunda:field name="a" stringValue="plain"/>
  <camunda:field name="b" expression="${amount * 2}"/>
  <camunda:field name="c"><camunda:string>  spaced  </camunda:string></camunda:field>
  <camunda:field name="d"><camunda:expression>${customer.name}</camunda:expression></camunda:field>
</extensionElements></serviceTask>`))
	want := []Field{{"a", "plain", false}, {"b", "${amount * 2}", true}, {"c", "  spaced  ", false}, {"d", "${customer.name}", true}}
	if got := d.Process("p").Activity("x").Fields; !reflect.DeepEqual(got, want) {
		t.Errorf("fields %+v", got)
	}
	probs := mustFail(t, simple(`<serviceTask id="x" camunda:class="C"><extensionElements>
  <camunda:field stringValue="v"/>
  <camunda:field name="two" stringValue="v"><camunda:string>w</camunda:string></camunda:field>
</extensionElements></serviceTask>`))
	findProblem(t, probs, "x", "camunda:field has no name")
	findProblem(t, probs, "x", "camunda:field 'two' needs exactly one value")
}

// camunda:taskListener on user tasks: the six events of Camunda; a
// timeout listener needs an id and a timer.
func TestTaskListenerParsing(t *testing.T) {
	d := mustParse(t, simple(`<userTask id="x"><extensionElements>
  <camunda:taskListener event="create" delegateExpression="${onCreate}"><camunda:field name="f" stringValue="v"/></camunda:taskListener>
  <camunda:taskListener event="delete" expression="${log.deleted(task)}"/>
</extensionElements></userTask>`))
	want := []Listener{{Event: "create", DelegateExpression: "${onCreate}", Fields: []Field{{Name: "f", Value: "v"}}}, {Event: "delete", Expression: "${log.deleted(task)}"}}
	if got := d.Process("p").Activity("x").User.TaskListeners; !reflect.DeepEqual(got, want) {
		t.Errorf("task listeners %+v", got)
	}
	probs := mustFail(t, simple(`<userTask id="x"><extensionElements>
  <camunda:taskListener event="timeout" class="C"/>
  <camunda:taskListener event="create"/>
</extensionElements></userTask>`))
	findProblem(t, probs, "x", "Element 'id' is mandatory on taskListener of type 'timeout'")
	d = mustParse(t, simple(`<userTask id="x"><extensionElements>
  <camunda:taskListener event="timeout" id="t" class="C"><timerEventDefinition><timeCycle>R3/PT1H</timeCycle></timerEventDefinition></camunda:taskListener>
</extensionElements></userTask>`))
	want = []Listener{{Event: "timeout", Class: "C", ID: "t", Timer: &TimerDefinition{Type: TimeCycle, Value: "R3/PT1H"}}}
	if got := d.Process("p").Activity("x").User.TaskListeners; !reflect.DeepEqual(got, want) {
		t.Errorf("timeout listener %+v", got)
	}
	findProblem(t, probs, "x", "Element 'class', 'expression', 'delegateExpression' or 'script' is mandatory on taskListener")
}

// A process that is not deployed (not executable) is not checked for
// Camunda attributes bpmnlite lacks; a deployed one is.
func TestUnsupportedAttributesOfSkippedProcesses(t *testing.T) {
	doc := []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="run" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/><endEvent id="e"/></process>
  <process id="pool" isExecutable="false"><startEvent id="ps" camunda:tenantId="t"/></process>
</definitions>`)
	d := mustParse(t, doc)
	if len(d.Processes) != 1 || len(d.Skipped) != 1 {
		t.Fatalf("processes %d, skipped %d", len(d.Processes), len(d.Skipped))
	}
}

// Diagrams are checked for well-formedness but not read: problems after
// one keep their positions, and a BPMNDiagram of another namespace stays.
func TestDiagramsSkipped(t *testing.T) {
	src := doc(`<bpmndi:BPMNDiagram xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" id="d1"><bpmndi:BPMNPlane id="pl" bpmnElement="p">
  <bpmndi:BPMNShape id="s_di" bpmnElement="s"/></bpmndi:BPMNPlane></bpmndi:BPMNDiagram>
<process id="p" isExecutable="true">
  <startEvent id="s"/>
  <sequenceFlow id="f" sourceRef="s" targetRef="u"/>
</process>
<x:BPMNDiagram xmlns:x="urn:other"/>
<di:BPMNDiagram xmlns:di="http://www.omg.org/spec/BPMN/20100524/DI"/>`)
	probs := mustFail(t, src)
	if p := findProblem(t, probs, "f", "targetRef 'u'"); p.Pos != (Position{11, 3}) {
		t.Errorf("problem after a diagram at %v, want 11:3", p.Pos)
	}
	_, spans, prob := scanPositions(src)
	if prob != nil || len(spans) != 2 {
		t.Fatalf("spans %v (%v), want the two DI diagrams", spans, prob)
	}
	if rest := string(without(src, spans)); strings.Contains(rest, "bpmndi:") || strings.Contains(rest, "<di:") || !strings.Contains(rest, "<x:BPMNDiagram") {
		t.Errorf("without the diagrams:\n%s", rest)
	}
	if _, _, prob := scanPositions(doc(`<bpmndi:BPMNDiagram xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI"><a></b></bpmndi:BPMNDiagram>`)); prob == nil {
		t.Error("a malformed diagram passed")
	}
}

// A message throw event's messageRef is not resolved by Camunda (its
// delegate sends whatever it sends): one naming no message is a warning;
// a catching event's is an error.
func TestThrowEventUnknownMessageRef(t *testing.T) {
	d := mustParse(t, simple(`<intermediateThrowEvent id="x"><messageEventDefinition messageRef="nowhere"/></intermediateThrowEvent>`))
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0].Message, "messageRef 'nowhere' names no message of this file") {
		t.Errorf("warnings %v", d.Warnings)
	}
	probs := mustFail(t, simple(`<receiveTask id="x" messageRef="nowhere"/>`))
	findProblem(t, probs, "x", "messageRef 'nowhere' names no message of this file")
}

// camunda:potentialStarter adds to the candidate starters as Camunda reads
// it: user(id), group(id), and plain ids as groups.
func TestPotentialStarter(t *testing.T) {
	d := mustParse(t, []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="p" camunda:candidateStarterUsers="user1, user2" camunda:candidateStarterGroups="group1" isExecutable="true">
    <extensionElements><camunda:potentialStarter><resourceAssignmentExpression>
      <formalExpression>group2, group(group3), user(user3)</formalExpression>
    </resourceAssignmentExpression></camunda:potentialStarter></extensionElements>
    <startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>`))
	p := d.Process("p")
	if p.CandidateStarterGroups != "group1,group2,group3" || p.CandidateStarterUsers != "user1, user2,user3" {
		t.Errorf("groups %q, users %q", p.CandidateStarterGroups, p.CandidateStarterUsers)
	}
}
