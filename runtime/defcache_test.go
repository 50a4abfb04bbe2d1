package runtime

import (
	"testing"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/persistence"
)

func cacheTestDef(t *testing.T, id string) *Definition {
	t.Helper()
	m, err := bpmn.Parse([]byte(enginetest.AsyncService("p", "work", "")), bpmn.ParseOptions{File: "p.bpmn"})
	if err != nil {
		t.Fatal(err)
	}
	return &Definition{ProcessDefinition: &persistence.ProcessDefinition{ID: id, Key: "p"}, Process: m.Process("p")}
}

// The cache drops the least recently used definitions beyond its bound,
// counts job definitions with theirs, keeps the first of two parses of one
// definition, and keeps none larger than the whole bound.
func TestDefCacheLRU(t *testing.T) {
	one := newDefCache(-1)
	one.add(cacheTestDef(t, "x"))
	_, size := one.stats()
	c := newDefCache(3 * size)
	a, b := c.add(cacheTestDef(t, "a")), c.add(cacheTestDef(t, "b"))
	c.add(cacheTestDef(t, "c"))
	if c.add(cacheTestDef(t, "a")) != a {
		t.Error("a second parse of a cached definition replaced the first")
	}
	if c.get("a") != a || c.get("b") != b {
		t.Error("cached definitions not found")
	}
	c.add(cacheTestDef(t, "d")) // c is the least recently used
	if n, bytes := c.stats(); n != 3 || bytes != 3*size || c.get("c") != nil || c.get("a") == nil {
		t.Errorf("after a fourth: %d cached, %d bytes (bound %d), c cached: %v", n, bytes, 3*size, c.get("c") != nil)
	}
	c.setJobDefs("b", &jobDefSet{byKey: map[jobDefKey]*persistence.JobDefinition{{"work", kindTimer}: {ID: "jd"}}})
	if c.jobDefs("b") == nil {
		t.Error("job definitions of a cached definition not kept")
	}
	if n, bytes := c.stats(); n != 2 || bytes <= 2*size || c.get("b") == nil {
		t.Errorf("with b's job definitions: %d cached, %d bytes, b cached: %v; want a definition less", n, bytes, c.get("b") != nil)
	}
	c.remove("b")
	if c.jobDefs("b") != nil || c.get("b") != nil {
		t.Error("b's entry survived its removal")
	}
	small := newDefCache(size - 1)
	if d := cacheTestDef(t, "big"); small.add(d) != d || small.get("big") != nil {
		t.Error("a definition larger than the bound was cached")
	}
}
