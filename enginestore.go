package bpmnlite

import (
	"github.com/bpmnlite/bpmnlite/internal/enginestore"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// The project's own tests reach an engine's database through
// internal/enginestore (the root package exports nothing for them).
func init() { enginestore.Of = func(e any) persistence.DB { return e.(*Engine).db } }
