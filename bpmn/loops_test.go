package bpmn

import (
	"strings"
	"testing"
)

// loop is a process whose gateway's default flow leads back to activity
// "a" (declared by first); "done" leaves when its condition holds.
func loop(first, extra string) []byte {
	return proc(`
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="a" />
    ` + first + `
    <sequenceFlow id="f2" sourceRef="a" targetRef="g" />
    <exclusiveGateway id="g" default="back" />
    <sequenceFlow id="back" sourceRef="g" targetRef="a" />
    <sequenceFlow id="done" sourceRef="g" targetRef="e"><conditionExpression>${false}</conditionExpression></sequenceFlow>
    <endEvent id="e" />` + extra)
}

func loopWarnings(d *Definitions) []Problem {
	var out []Problem
	for _, w := range d.Warnings {
		if strings.Contains(w.Message, "form a loop") {
			out = append(out, w)
		}
	}
	return out
}

func TestLoopWithoutWaitStateWarns(t *testing.T) {
	d := mustParse(t, loop(`<manualTask id="a" />`, ""))
	ws := loopWarnings(d)
	if len(ws) != 1 || ws[0].ElementID != "a" || !strings.Contains(ws[0].Message, "'a', 'g'") || ws[0].Pos.Line == 0 {
		t.Fatalf("warnings %v, want one naming 'a', 'g' at a's position", d.Warnings)
	}
}

func TestLoopInsideSubprocessWarns(t *testing.T) {
	d := mustParse(t, proc(`
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="ss" />
      <sequenceFlow id="g1" sourceRef="ss" targetRef="t" />
      <task id="t" />
      <sequenceFlow id="g2" sourceRef="t" targetRef="t" />
    </subProcess>
    <sequenceFlow id="f2" sourceRef="sub" targetRef="e" />
    <endEvent id="e" />`))
	if ws := loopWarnings(d); len(ws) != 1 || ws[0].ElementID != "t" {
		t.Fatalf("warnings %v, want one for the self-loop of t", d.Warnings)
	}
}

// A loop that stops somewhere on each round is no runaway.
func TestLoopWithABreakDoesNotWarn(t *testing.T) {
	for name, first := range map[string]string{
		"user task":       `<userTask id="a" />`,
		"receive task":    `<receiveTask id="a" />`,
		"async before":    `<manualTask id="a" camunda:asyncBefore="true" />`,
		"async after":     `<serviceTask id="a" camunda:expression="${1}" camunda:asyncAfter="true" />`,
		"external task":   `<serviceTask id="a" camunda:type="external" camunda:topic="t" />`,
		"call activity":   `<callActivity id="a" calledElement="other" />`,
		"timer catch":     `<intermediateCatchEvent id="a"><timerEventDefinition><timeDuration>PT1M</timeDuration></timerEventDefinition></intermediateCatchEvent>`,
		"waiting subproc": `<subProcess id="a"><startEvent id="ss" /><sequenceFlow id="x1" sourceRef="ss" targetRef="u" /><userTask id="u" /></subProcess>`,
	} {
		d := mustParse(t, loop(first, ""))
		if ws := loopWarnings(d); len(ws) != 0 {
			t.Errorf("%s: warnings %v, want none", name, ws)
		}
	}
}

// A parallel join in the loop waits for its other paths.
func TestLoopThroughAJoinDoesNotWarn(t *testing.T) {
	d := mustParse(t, proc(`
    <startEvent id="s" />
    <sequenceFlow id="f1" sourceRef="s" targetRef="fork" />
    <parallelGateway id="fork" />
    <sequenceFlow id="f2" sourceRef="fork" targetRef="join" />
    <sequenceFlow id="f3" sourceRef="fork" targetRef="u" />
    <userTask id="u" />
    <sequenceFlow id="f4" sourceRef="u" targetRef="join" />
    <parallelGateway id="join" />
    <sequenceFlow id="f5" sourceRef="join" targetRef="g" />
    <exclusiveGateway id="g" default="f6" />
    <sequenceFlow id="f6" sourceRef="g" targetRef="join" />
    <sequenceFlow id="f7" sourceRef="g" targetRef="e"><conditionExpression>${false}</conditionExpression></sequenceFlow>
    <endEvent id="e" />`))
	if ws := loopWarnings(d); len(ws) != 0 {
		t.Fatalf("warnings %v, want none", ws)
	}
}
