package bpmn

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const docHead = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
  xmlns:fox="http://www.camunda.com/fox"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  targetNamespace="test">
`

// doc wraps root elements in a definitions element.
func doc(body string) []byte { return []byte(docHead + body + "\n</definitions>\n") }

// proc wraps flow elements in one executable process "p".
func proc(body string) []byte {
	return doc(`<process id="p" isExecutable="true">` + body + `</process>`)
}

// checkBalanced stands in for the expression compiler: it rejects an
// expression whose "${" or "#{" is not closed.
func checkBalanced(src string) error {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case (c == '$' || c == '#') && i+1 < len(src) && src[i+1] == '{':
			depth++
			i++
		case c == '{' && depth > 0:
			depth++
		case c == '}' && depth > 0:
			depth--
		}
	}
	if depth != 0 {
		return errors.New("unclosed expression")
	}
	return nil
}

var testOpts = ParseOptions{File: "test.bpmn", CheckExpression: checkBalanced}

func mustParse(t *testing.T, data []byte) *Definitions {
	t.Helper()
	d, err := Parse(data, testOpts)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

// mustFail parses data and returns the problems, failing the test when the
// parse succeeds.
func mustFail(t *testing.T, data []byte) []Problem {
	t.Helper()
	d, err := Parse(data, testOpts)
	if err == nil {
		t.Fatalf("Parse succeeded, want a ParseError (processes: %d)", len(d.Processes))
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %T is not a *ParseError: %v", err, err)
	}
	if len(pe.Problems) == 0 {
		t.Fatal("ParseError without problems")
	}
	for _, p := range pe.Problems {
		if p.Pos.Line == 0 || p.Pos.Column == 0 {
			t.Errorf("problem without position: %v", p)
		}
		if p.File != "test.bpmn" {
			t.Errorf("problem without file name: %v", p)
		}
	}
	return pe.Problems
}

// findProblem returns the problem about element id whose message contains
// msg, failing the test when there is none.
func findProblem(t *testing.T, probs []Problem, id, msg string) Problem {
	t.Helper()
	for _, p := range probs {
		if p.ElementID == id && strings.Contains(p.Message, msg) {
			return p
		}
	}
	t.Fatalf("no problem for %q containing %q in:\n%s", id, msg, listProblems(probs))
	return Problem{}
}

func listProblems(probs []Problem) string {
	var b strings.Builder
	for _, p := range probs {
		fmt.Fprintf(&b, "\t%s\n", p)
	}
	return b.String()
}

// simple is start → body → end, with body's id "x".
func simple(task string) []byte {
	return proc(`<startEvent id="s"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="x"/>
` + task + `
<sequenceFlow id="f2" sourceRef="x" targetRef="e"/>
<endEvent id="e"/>`)
}
