package runtime_test

import (
	"testing"

	"github.com/bpmnlite/bpmnlite/runtime"
)

// A process's diagram is found as Camunda finds it: by suffix (png, jpg,
// gif, svg), the process's own (model.key.ext) before the model's
// (model.ext).
func TestDiagramResourceName(t *testing.T) {
	for _, c := range []struct {
		model string
		names []string
		want  string
	}{
		{"x.bpmn", []string{"x.bpmn", "x.k.svg", "x.png"}, "x.png"},
		{"x.bpmn", []string{"x.png", "x.k.png"}, "x.k.png"},
		{"dir/x.bpmn20.xml", []string{"dir/x.gif"}, "dir/x.gif"},
		{"x.bpmn", []string{"x.form", "y.png"}, ""},
	} {
		if got := runtime.DiagramResourceName(c.model, "k", c.names); got != c.want {
			t.Errorf("DiagramResourceName(%q, k, %v) = %q, want %q", c.model, c.names, got, c.want)
		}
	}
}
