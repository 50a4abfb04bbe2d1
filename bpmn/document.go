package bpmn

import (
	"fmt"
	"strconv"

	"github.com/beevik/etree"
)

// ReadXML parses an XML document into an etree document and the
// line:column of each element, with the well-formedness checks BPMN files
// get: for the other model parsers (dmn), so their errors have positions too.
func ReadXML(data []byte) (*etree.Document, map[*etree.Element]Position, *Problem) {
	return readDocument(data)
}

// HistoryTimeToLive reads a camunda:historyTimeToLive value: a number of
// days, 30 or P30D.
func HistoryTimeToLive(v string) (int, error) {
	digits := v
	if len(v) > 2 && (v[0] == 'P' || v[0] == 'p') && (v[len(v)-1] == 'D' || v[len(v)-1] == 'd') {
		digits = v[1 : len(v)-1]
	}
	days, err := strconv.Atoi(digits)
	if err != nil || days < 0 {
		return 0, fmt.Errorf("camunda:historyTimeToLive '%s' is not a number of days (write 30 or P30D)", v)
	}
	return days, nil
}
