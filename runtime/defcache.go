package runtime

import (
	"container/list"
	"sync"

	"github.com/bpmnlite/bpmnlite/internal/footprint"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// defCache holds parsed definitions, and what is read with them, by
// process definition id. It is bounded by the estimated bytes its entries
// hold: the least recently used go first. Definitions are shared and never
// modified, so evicting one only drops the cache's reference; whoever holds
// it keeps using it, and the next lookup parses it again.
type defCache struct {
	mu    sync.Mutex
	max   int64 // negative: no bound
	size  int64
	items map[string]*list.Element // of *cacheEntry
	order list.List                // front: the most recently used
}

type cacheEntry struct {
	def  *Definition
	size int64 // of def's process and its job definitions
	// jobDefs are the definition's job definitions, read on demand; they
	// go with it.
	jobDefs     *jobDefSet
	jobDefsSize int64
}

func newDefCache(max int64) *defCache {
	return &defCache{max: max, items: map[string]*list.Element{}}
}

// get returns the cached definition with id, or nil.
func (c *defCache) get(id string) *Definition {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.items[id]; el != nil {
		c.order.MoveToFront(el)
		return el.Value.(*cacheEntry).def
	}
	return nil
}

// add caches d unless a definition with its id is cached already, and
// returns the cached one. A definition larger than the whole bound is
// returned uncached: it is parsed again at each command that needs it.
func (c *defCache) add(d *Definition) *Definition {
	c.mu.Lock()
	if el := c.items[d.ID]; el != nil {
		c.order.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*cacheEntry).def
	}
	c.mu.Unlock()
	// Outside the lock: the estimate walks the whole model.
	size := footprint.Of(d.Process)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.items[d.ID]; el != nil {
		return el.Value.(*cacheEntry).def
	}
	if c.max >= 0 && size > c.max {
		return d
	}
	el := c.order.PushFront(&cacheEntry{def: d, size: size})
	c.items[d.ID] = el
	c.size += size
	c.evict(el)
	return d
}

// evict removes the least recently used entries but keep until the cache
// is within its bound.
func (c *defCache) evict(keep *list.Element) {
	for el := c.order.Back(); el != nil && c.max >= 0 && c.size > c.max; {
		prev := el.Prev()
		if el != keep {
			c.removeEntry(el)
		}
		el = prev
	}
}

// refresh gives the cached definition with row's id row's suspension
// state (another node may have suspended it). A cached definition is
// shared and never modified: a changed one is replaced, with the same
// process.
func (c *defCache) refresh(row *persistence.ProcessDefinition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.items[row.ID]
	if el == nil {
		return
	}
	ent := el.Value.(*cacheEntry)
	if ent.def.Suspension != row.Suspension {
		fresh := *ent.def.ProcessDefinition
		fresh.Suspension = row.Suspension
		ent.def = &Definition{ProcessDefinition: &fresh, Process: ent.def.Process}
	}
}

// remove drops the definition with id and its job definitions.
func (c *defCache) remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.items[id]; el != nil {
		c.removeEntry(el)
	}
}

func (c *defCache) removeEntry(el *list.Element) {
	ent := c.order.Remove(el).(*cacheEntry)
	delete(c.items, ent.def.ID)
	c.size -= ent.size
}

// jobDefs returns the cached job definitions of definition id, or nil.
func (c *defCache) jobDefs(id string) *jobDefSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.items[id]; el != nil {
		return el.Value.(*cacheEntry).jobDefs
	}
	return nil
}

// setJobDefs keeps the job definitions of definition id while the
// definition is cached, counted in its size; nil drops them.
func (c *defCache) setJobDefs(id string, set *jobDefSet) {
	var size int64
	if set != nil {
		size = footprint.Of(set.byKey)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.items[id]
	if el == nil {
		return
	}
	ent := el.Value.(*cacheEntry)
	if ent.jobDefs != nil {
		ent.size -= ent.jobDefsSize
		c.size -= ent.jobDefsSize
	}
	ent.jobDefs, ent.jobDefsSize = set, size
	ent.size += size
	c.size += size
	c.evict(el)
}

// stats returns the number of cached definitions and their estimated bytes.
func (c *defCache) stats() (n int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.size
}
