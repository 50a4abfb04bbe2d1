package bpmnlite

import "github.com/bpmnlite/bpmnlite/persistence"

// StoreForTest hands the engine's database to this package's external tests,
// for setups and probes the public API does not offer (locking jobs as
// another node would, sending a raw notification).
func (e *Engine) StoreForTest() persistence.DB { return e.db }
