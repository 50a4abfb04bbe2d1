package footprint_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/footprint"
)

func TestOfCountsOnce(t *testing.T) {
	type node struct {
		Name string
		Next *node
		Kids []*node
	}
	a := &node{Name: "abcd"}
	b := &node{Name: "efgh", Next: a}
	a.Next = b // a cycle
	a.Kids = []*node{b, b}
	size := int64(2*(16+8+24) + 8 + 2*8)
	if got := footprint.Of(a); got != size {
		t.Errorf("Of = %d, want %d", got, size)
	}
	if got := footprint.Of(map[string]int{"ab": 1}); got < 2+16+8 {
		t.Errorf("Of(map) = %d, want at least its key and value", got)
	}
}

// denseModel is a process of at least size bytes with as little XML per
// activity as a valid model allows: the worst case of memory per file byte.
func denseModel(size int) string {
	var b strings.Builder
	b.WriteString(enginetest.Header + `<process id="big" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="t0"/>`)
	i := 0
	for ; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<serviceTask id="t%d" camunda:type="external" camunda:topic="x"/><sequenceFlow id="f%d" sourceRef="t%d" targetRef="t%d"/>`, i, i, i, i+1)
	}
	fmt.Fprintf(&b, `<endEvent id="t%d"/></process></definitions>`, i)
	return b.String()
}

func heap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// The estimate of a parsed process is honest: within 25% below and 50%
// above the heap it holds, for a model as Camunda Modeler writes it and for
// the densest one. It also reports the memory a 1 MB model keeps.
func TestOfParsedProcess(t *testing.T) {
	for name, src := range map[string]string{"modeler": enginetest.LargeModel("big", 1<<20), "dense": denseModel(1 << 20)} {
		t.Run(name, func(t *testing.T) {
			const n = 3
			var keep []*bpmn.Process
			before := heap()
			start := time.Now()
			for range n {
				d, err := bpmn.Parse([]byte(src), bpmn.ParseOptions{File: "big.bpmn"})
				if err != nil {
					t.Fatal(err)
				}
				keep = append(keep, d.Process("big"))
			}
			parse := time.Since(start) / n
			held := (heap() - before) / n
			start = time.Now()
			est := footprint.Of(keep[0])
			took := time.Since(start)
			t.Logf("%d bytes of XML, %d activities: %d bytes held (%.1f×), estimated %d (%.2f of held) in %v (parsing took %v)",
				len(src), len(keep[0].AllActivities()), held, float64(held)/float64(len(src)), est, float64(est)/float64(held), took, parse)
			if float64(est) < 0.75*float64(held) || float64(est) > 1.5*float64(held) {
				t.Errorf("estimate %d, held %d: off by more than the bounds", est, held)
			}
			runtime.KeepAlive(keep)
		})
	}
}
