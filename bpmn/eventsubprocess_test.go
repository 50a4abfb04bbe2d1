package bpmn

import (
	"strings"
	"testing"
)

const escalationDefs = `<escalation id="esc" escalationCode="E1"/><escalation id="esc2" escalationCode="E2"/><error id="err" errorCode="boom"/><message id="msg" name="M"/>`

// eventSubprocess is a process with a none start, a task and an end, and
// the event subprocess content body.
func eventSubprocess(attrs, body string) []byte {
	return doc(escalationDefs + `<process id="p" isExecutable="true">
<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="x"/><task id="x"/>
<sequenceFlow id="f2" sourceRef="x" targetRef="e"/><endEvent id="e"/>
<subProcess id="esp" triggeredByEvent="true"` + attrs + `>
` + body + `
</subProcess>
</process>`)
}

func TestEventSubprocessParsed(t *testing.T) {
	d := mustParse(t, doc(escalationDefs+`<process id="p" isExecutable="true">
<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
<subProcess id="sub">
  <startEvent id="ss"/><sequenceFlow id="sf" sourceRef="ss" targetRef="se"/><endEvent id="se"/>
  <subProcess id="inner" triggeredByEvent="true">
    <startEvent id="is" isInterrupting="false"><escalationEventDefinition/></startEvent>
  </subProcess>
</subProcess>
<subProcess id="esp" triggeredByEvent="true" camunda:asyncBefore="true">
  <startEvent id="es"><errorEventDefinition errorRef="err" camunda:errorCodeVariable="code" camunda:errorMessageVariable="msg"/></startEvent>
  <sequenceFlow id="ef" sourceRef="es" targetRef="ee"/><endEvent id="ee"/>
</subProcess>
<subProcess id="timed" triggeredByEvent="true">
  <startEvent id="ts" isInterrupting="false"><timerEventDefinition><timeCycle>R2/PT1H</timeCycle></timerEventDefinition></startEvent>
</subProcess>
</process>`))
	p := d.Processes[0]
	starts := p.EventSubprocessStarts()
	if len(starts) != 2 || starts[0].ID != "es" || starts[1].ID != "ts" {
		t.Fatalf("process-level event subprocess starts = %v", starts)
	}
	es := p.Activity("es")
	if !es.IsEventSubprocessStart() || !es.CancelActivity || es.Event != ErrorEvent || es.ErrorCode != "boom" ||
		es.ErrorCodeVariable != "code" || es.ErrorMessageVariable != "msg" {
		t.Errorf("error start = %+v", es)
	}
	if esp := p.Activity("esp"); !esp.TriggeredByEvent || !esp.AsyncBefore || esp.InitialEvent() != es {
		t.Errorf("event subprocess = %+v", esp)
	}
	if ts := p.Activity("ts"); ts.CancelActivity || ts.Timer == nil || ts.Timer.Type != TimeCycle {
		t.Errorf("timer start = %+v", ts)
	}
	inner := p.Activity("sub").EventSubprocessStarts()
	if len(inner) != 1 || inner[0].ID != "is" || inner[0].CancelActivity || inner[0].EscalationCode != "" {
		t.Errorf("subprocess-level starts = %v", inner)
	}
	if p.Activity("sub").InitialEvent().ID != "ss" {
		t.Error("a plain subprocess starts at its none start event")
	}
	if !p.Activity("ee").IsWithin(p.Activity("esp")) || p.Activity("s").IsWithin(p.Activity("esp")) {
		t.Error("IsWithin")
	}
}

func TestEventSubprocessProblems(t *testing.T) {
	errStart := `<startEvent id="es"><errorEventDefinition errorRef="err"/></startEvent>`
	// line is the problem's line in the document after docHead; 0 leaves
	// the position unchecked.
	for _, c := range []struct {
		name    string
		src     []byte
		id, msg string
		line    int
		typ     string
	}{
		{"non-interrupting error start", eventSubprocess("", `<startEvent id="es" isInterrupting="false"><errorEventDefinition/></startEvent>`),
			"es", "error start event of event subprocess must be interrupting", 5, "startEvent"},
		{"no trigger", eventSubprocess("", `<startEvent id="es"/>`),
			"es", "start event of event subprocess must be of type 'error', 'message', 'timer', 'signal', 'escalation' or 'conditional'", 5, "startEvent"},
		{"no start", eventSubprocess("", `<task id="t"/>`),
			"esp", "event subprocess has no start event", 4, "subProcess"},
		{"two starts", eventSubprocess("", errStart+`<startEvent id="es2"><messageEventDefinition messageRef="msg"/></startEvent>`),
			"es2", "multiple start events not supported for event subprocess", 5, "startEvent"},
		{"multi-instance", eventSubprocess("", errStart+`<multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>`),
			"esp", "an event subprocess cannot be multi-instance", 4, "subProcess"},
		{"error start at process level", proc(`<startEvent id="s"><errorEventDefinition/></startEvent>`),
			"s", "error start events are only allowed in event subprocesses", 0, "startEvent"},
		{"two catch-all escalation event subprocesses", doc(escalationDefs + `<process id="p" isExecutable="true"><startEvent id="s"/>
<subProcess id="a" triggeredByEvent="true"><startEvent id="as"><escalationEventDefinition/></startEvent></subProcess>
<subProcess id="b" triggeredByEvent="true"><startEvent id="bs"><escalationEventDefinition/></startEvent></subProcess></process>`),
			"bs", "more than one escalation event subprocess without escalation code", 3, "startEvent"},
		{"catch-all and coded escalation", doc(escalationDefs + `<process id="p" isExecutable="true"><startEvent id="s"/>
<subProcess id="a" triggeredByEvent="true"><startEvent id="as"><escalationEventDefinition escalationRef="esc"/></startEvent></subProcess>
<subProcess id="b" triggeredByEvent="true"><startEvent id="bs"><escalationEventDefinition/></startEvent></subProcess></process>`),
			"bs", "an escalation event subprocess without escalation code and another one with escalation code", 3, "startEvent"},
		{"same escalation code twice", doc(escalationDefs + `<process id="p" isExecutable="true"><startEvent id="s"/>
<subProcess id="a" triggeredByEvent="true"><startEvent id="as" isInterrupting="false"><escalationEventDefinition escalationRef="esc"/></startEvent></subProcess>
<subProcess id="b" triggeredByEvent="true"><startEvent id="bs"><escalationEventDefinition escalationRef="esc"/></startEvent></subProcess></process>`),
			"bs", "multiple escalation event subprocesses with the same escalationCode 'E1'", 3, "startEvent"},
		{"same message twice in a scope", doc(escalationDefs + `<process id="p" isExecutable="true"><startEvent id="s"/>
<subProcess id="a" triggeredByEvent="true"><startEvent id="as"><messageEventDefinition messageRef="msg"/></startEvent></subProcess>
<subProcess id="b" triggeredByEvent="true"><startEvent id="bs" isInterrupting="false"><messageEventDefinition messageRef="msg"/></startEvent></subProcess></process>`),
			"bs", "Cannot have more than one message event subscription with name 'M' for scope 'p'", 3, "startEvent"},
		{"boundary on an event subprocess", doc(escalationDefs + `<process id="p" isExecutable="true"><startEvent id="s"/>
<subProcess id="a" triggeredByEvent="true"><startEvent id="as"><messageEventDefinition messageRef="msg"/></startEvent></subProcess>
<boundaryEvent id="b" attachedToRef="a"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent></process>`),
			"b", "a boundary event cannot be attached to an event subprocess", 3, "boundaryEvent"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := findProblem(t, mustFail(t, c.src), c.id, c.msg)
			if p.ElementType != c.typ {
				t.Errorf("element type %q, want %q", p.ElementType, c.typ)
			}
			if c.line != 0 && p.Pos.Line != c.line+strings.Count(docHead, "\n") {
				t.Errorf("problem at line %d, want %d: %s", p.Pos.Line, c.line+strings.Count(docHead, "\n"), p)
			}
		})
	}
}

func TestEventSubprocessFlows(t *testing.T) {
	probs := mustFail(t, doc(escalationDefs+`<process id="p" isExecutable="true">
<startEvent id="s"/><sequenceFlow id="in" sourceRef="s" targetRef="esp"/>
<subProcess id="esp" triggeredByEvent="true"><startEvent id="es"><signalEventDefinition signalRef="sig"/></startEvent></subProcess>
<sequenceFlow id="out" sourceRef="esp" targetRef="e"/><endEvent id="e"/>
</process><signal id="sig" name="S"/>`))
	in := findProblem(t, probs, "in", "Invalid incoming sequence flow of event subprocess 'esp'")
	findProblem(t, probs, "out", "Invalid outgoing sequence flow of event subprocess 'esp'")
	if want := 2 + strings.Count(docHead, "\n"); in.Pos.Line != want || in.Pos.Column == 0 {
		t.Errorf("problem at %d:%d, want line %d", in.Pos.Line, in.Pos.Column, want)
	}
	if !strings.Contains(in.String(), "test.bpmn:") {
		t.Errorf("String() = %q", in.String())
	}
}
