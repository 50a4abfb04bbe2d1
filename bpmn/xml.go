package bpmn

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/beevik/etree"
)

// Namespaces, matched by URI: exporters bind them to any prefix (or several).
const (
	nsBPMN     = "http://www.omg.org/spec/BPMN/20100524/MODEL"
	nsCamunda  = "http://camunda.org/schema/1.0/bpmn"
	nsActiviti = "http://activiti.org/bpmn" // older spelling Camunda 7 still reads
	nsFox      = "http://www.camunda.com/fox"
	nsBPMNDI   = "http://www.omg.org/spec/BPMN/20100524/DI"
)

// maxDepth bounds element nesting; etree refuses 1024 levels without saying
// where, so the position scan stops first and reports the spot.
const maxDepth = 512

// passThroughCharset keeps the bytes of documents that declare another
// encoding (as etree does); BPMN files are UTF-8 in practice.
func passThroughCharset(_ string, r io.Reader) (io.Reader, error) { return r, nil }

// span is a byte range of a document, [from, to).
type span struct{ from, to int64 }

// scanPositions reads data with encoding/xml and returns the start position of
// every element in document order. etree keeps no positions, so readDocument
// maps them onto the etree elements by that order. The scan also performs
// every well-formedness check etree makes, so that a malformed document is
// reported with a position rather than etree's bare error.
//
// The diagrams (bpmndi:BPMNDiagram below the root), often half of a file,
// are checked but left out: their spans are returned, and their elements
// have no positions, so that readDocument can skip them.
func scanPositions(data []byte) ([]Position, []span, *Problem) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.CharsetReader = passThroughCharset
	var (
		out      []Position
		open     []xml.Name
		rootSeen bool
		rootNS   map[string]string // prefix → namespace declared on the root
		diagrams []span
		skipFrom = int64(-1) // the start of the diagram being skipped
	)
	fail := func(line, col int, format string, args ...any) *Problem {
		return &Problem{Pos: Position{line, col}, Message: "malformed XML: " + fmt.Sprintf(format, args...)}
	}
	for {
		// The decoder stands just past the previous token, so this is where
		// the next token starts.
		line, col := dec.InputPos()
		offset := dec.InputOffset()
		tok, err := dec.RawToken()
		if err == io.EOF {
			l, c := dec.InputPos()
			if len(open) > 0 {
				return nil, nil, fail(l, c, "unexpected end of document: <%s> is not closed", qname(open[len(open)-1]))
			}
			if !rootSeen {
				return nil, nil, fail(l, c, "no root element")
			}
			return out, diagrams, nil
		}
		if err != nil {
			// The decoder has consumed the offending byte: point at it.
			l, c := dec.InputPos()
			c = max(c-1, 1)
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, nil, fail(l, c, "%s", se.Msg)
			}
			return nil, nil, fail(l, c, "%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(open) == 0 && rootSeen {
				return nil, nil, fail(line, col, "second root element <%s>", qname(t.Name))
			}
			if len(open) >= maxDepth {
				return nil, nil, fail(line, col, "elements nested deeper than %d levels", maxDepth)
			}
			switch {
			case len(open) == 0:
				rootNS = declarations(t.Attr, nil)
			case len(open) == 1 && t.Name.Local == "BPMNDiagram" && declarations(t.Attr, rootNS)[t.Name.Space] == nsBPMNDI:
				skipFrom = offset
			}
			rootSeen = true
			open = append(open, t.Name)
			if skipFrom < 0 {
				out = append(out, Position{line, col})
			}
		case xml.EndElement:
			if len(open) == 0 {
				return nil, nil, fail(line, col, "unexpected end tag </%s>", qname(t.Name))
			}
			if top := open[len(open)-1]; top != t.Name {
				return nil, nil, fail(line, col, "element <%s> closed by </%s>", qname(top), qname(t.Name))
			}
			open = open[:len(open)-1]
			if len(open) == 1 && skipFrom >= 0 {
				diagrams = append(diagrams, span{skipFrom, dec.InputOffset()})
				skipFrom = -1
			}
		case xml.CharData:
			if len(open) == 0 && len(bytes.TrimSpace(t)) > 0 {
				for _, b := range t[:len(t)-len(bytes.TrimLeft(t, " \t\r\n"))] {
					if col++; b == '\n' {
						line, col = line+1, 1
					}
				}
				return nil, nil, fail(line, col, "text outside the root element")
			}
		}
	}
}

// declarations returns the namespace prefixes attrs declare ("" for the
// default namespace) over those of inherited.
func declarations(attrs []xml.Attr, inherited map[string]string) map[string]string {
	out := make(map[string]string, len(inherited)+1)
	for k, v := range inherited {
		out[k] = v
	}
	for _, a := range attrs {
		switch {
		case a.Name.Space == "xmlns":
			out[a.Name.Local] = a.Value
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			out[""] = a.Value
		}
	}
	return out
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// readDocument parses data into an etree document and the position of each
// of its elements.
func readDocument(data []byte) (*etree.Document, map[*etree.Element]Position, *Problem) {
	// encoding/xml would read a byte order mark as text before the root.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	positions, diagrams, prob := scanPositions(data)
	if prob != nil {
		return nil, nil, prob
	}
	if len(diagrams) > 0 {
		data = without(data, diagrams)
	}
	doc := etree.NewDocument()
	doc.ReadSettings.CharsetReader = passThroughCharset
	if err := doc.ReadFromBytes(data); err != nil {
		// Not expected after a clean scan; report it rather than trust it.
		return nil, nil, &Problem{Pos: Position{1, 1}, Message: "malformed XML: " + err.Error()}
	}
	pos := make(map[*etree.Element]Position, len(positions))
	i := 0
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		for _, c := range e.ChildElements() {
			if i < len(positions) {
				pos[c] = positions[i]
			}
			i++
			walk(c)
		}
	}
	walk(&doc.Element)
	if i != len(positions) {
		return nil, nil, &Problem{Pos: Position{1, 1}, Message: fmt.Sprintf(
			"internal error: %d elements read but %d positions scanned", i, len(positions))}
	}
	return doc, pos, nil
}

// without returns a copy of data without the spans (in order, disjoint).
func without(data []byte, spans []span) []byte {
	n := int64(len(data))
	for _, s := range spans {
		n -= s.to - s.from
	}
	out := make([]byte, 0, n)
	at := int64(0)
	for _, s := range spans {
		out = append(out, data[at:s.from]...)
		at = s.to
	}
	return append(out, data[at:]...)
}

// isBPMN reports whether e is the BPMN model element with the given local name.
func isBPMN(e *etree.Element, tag string) bool {
	return e.Tag == tag && e.NamespaceURI() == nsBPMN
}

// bpmnChildren returns the child elements of e in the BPMN namespace.
func bpmnChildren(e *etree.Element) []*etree.Element {
	var out []*etree.Element
	for _, c := range e.ChildElements() {
		if c.NamespaceURI() == nsBPMN {
			out = append(out, c)
		}
	}
	return out
}

// bpmnChild returns the first BPMN child of e with the given local name.
func bpmnChild(e *etree.Element, tag string) *etree.Element {
	for _, c := range e.ChildElements() {
		if isBPMN(c, tag) {
			return c
		}
	}
	return nil
}

// attr returns an attribute without namespace (the BPMN attributes).
func attr(e *etree.Element, name string) (string, bool) {
	for _, a := range e.Attr {
		if a.Space == "" && a.Key == name {
			return a.Value, true
		}
	}
	return "", false
}

// attrValue is attr without the presence flag.
func attrValue(e *etree.Element, name string) string {
	v, _ := attr(e, name)
	return v
}

// camundaAttr returns a Camunda extension attribute (camunda: or the older
// activiti: namespace).
func camundaAttr(e *etree.Element, name string) (string, bool) {
	for _, a := range e.Attr {
		if a.Space != "" && a.Key == name && isCamundaNS(a.NamespaceURI()) {
			return a.Value, true
		}
	}
	return "", false
}

func camundaValue(e *etree.Element, name string) string {
	v, _ := camundaAttr(e, name)
	return v
}

func isCamundaNS(ns string) bool { return ns == nsCamunda || ns == nsActiviti }

// text returns the character content of e, trimmed.
func text(e *etree.Element) string { return strings.TrimSpace(e.Text()) }
