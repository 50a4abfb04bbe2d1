// Package enginestore hands an engine's database to the project's own
// tests in any package (internal/harness: locking jobs as another node
// would, sending a raw notification, reading rows the public API does not
// show), without an exported method on bpmnlite.Engine. The root package
// sets Of when it is loaded; nothing else may use it.
package enginestore

import "github.com/bpmnlite/bpmnlite/persistence"

// Of returns the database of a *bpmnlite.Engine (any: this package cannot
// import the root package, which imports it).
var Of func(engine any) persistence.DB
