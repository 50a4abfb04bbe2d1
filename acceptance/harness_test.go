package acceptance_test

import "github.com/bpmnlite/bpmnlite/internal/harness"

// env is the engine harness (internal/harness) with the acceptance tests'
// own helpers (prefixed acc) as methods.
type env struct{ *harness.Env }

// eachBackend runs a test on each backend with a fake clock,
// eachBackendRealTime with the wall clock (for the job executor's runs).
var (
	eachBackend         = harness.EachBackendAs[env]
	eachBackendRealTime = harness.EachBackendRealTimeAs[env]
)
