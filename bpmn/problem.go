package bpmn

import (
	"fmt"
	"strings"
)

// Problem is one finding about a BPMN file: an error that stops the
// deployment (in ParseError) or a warning (in Definitions.Warnings).
type Problem struct {
	File        string
	Pos         Position
	ElementID   string // "" when the element has no id (or the problem concerns the file)
	ElementType string // the element's local name ("serviceTask"), or the unsupported construct ("boundaryEvent/escalationEventDefinition")
	Message     string
}

// String formats the problem as "file:line:col: serviceTask 'id': message".
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		b.WriteByte(':')
	}
	fmt.Fprintf(&b, "%d:%d: ", p.Pos.Line, p.Pos.Column)
	switch {
	case p.ElementType != "" && p.ElementID != "":
		fmt.Fprintf(&b, "%s '%s': ", p.ElementType, p.ElementID)
	case p.ElementType != "":
		fmt.Fprintf(&b, "%s: ", p.ElementType)
	case p.ElementID != "":
		fmt.Fprintf(&b, "'%s': ", p.ElementID)
	}
	b.WriteString(p.Message)
	return b.String()
}

// ParseError is returned by Parse when a file cannot be deployed. It lists
// every problem found, not only the first. Use errors.As to get it.
type ParseError struct {
	File     string
	Problems []Problem
}

// Error lists every problem, one per line.
func (e *ParseError) Error() string {
	if len(e.Problems) == 1 {
		return "bpmn: " + e.Problems[0].String()
	}
	var b strings.Builder
	b.WriteString("bpmn: ")
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%d problems", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p.String())
	}
	return b.String()
}
