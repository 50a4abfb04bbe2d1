package bpmn

import (
	"errors"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, and that it returns
// either definitions or a ParseError whose problems all have a position.
func FuzzParse(f *testing.F) {
	for _, seed := range [][]byte{
		simple(`<serviceTask id="x" camunda:class="C" camunda:asyncAfter="true"/>`),
		simple(`<subProcess id="x"><startEvent id="a"/><sequenceFlow sourceRef="a" targetRef="b"/><endEvent id="b"/></subProcess>`),
		simple(`<userTask id="x"><multiInstanceLoopCharacteristics camunda:collection="${c}"/></userTask><boundaryEvent id="b" attachedToRef="x"><timerEventDefinition><timeDuration>PT5M</timeDuration></timerEventDefinition></boundaryEvent>`),
		simple(`<exclusiveGateway id="x" default="f2"/><sequenceFlow id="f3" sourceRef="x" targetRef="e"><conditionExpression>${a</conditionExpression></sequenceFlow>`),
		doc(`<message id="m"/><process id="p" isExecutable="true"><startEvent id="s"><messageEventDefinition messageRef="m"/></startEvent></process>`),
		[]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p" isExecutable="true"><task/></process></definitions>`),
		[]byte(`<?xml version="1.0"?><a><b></a>`),
		[]byte("\x00\xff<<<>>>"),
		[]byte(""),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data, ParseOptions{File: "fuzz", ForceExecutable: true, CheckExpression: checkBalanced})
		if err == nil {
			if d == nil {
				t.Fatal("nil definitions without error")
			}
			return
		}
		var pe *ParseError
		if !errors.As(err, &pe) || len(pe.Problems) == 0 {
			t.Fatalf("error %v is not a ParseError with problems", err)
		}
		for _, p := range pe.Problems {
			if p.Pos.Line < 1 || p.Pos.Column < 1 {
				t.Fatalf("problem without position: %v", p)
			}
		}
	})
}
