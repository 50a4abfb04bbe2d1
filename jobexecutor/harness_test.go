package jobexecutor_test

import "github.com/bpmnlite/bpmnlite/internal/harness"

// env is the engine harness (internal/harness) with the job executor
// tests' own helpers (prefixed je, helpers_test.go) as methods; the tests
// run the executor through the root package's public API.
type env struct{ *harness.Env }

// eachBackend runs a test on each backend with a fake clock the test moves
// by hand; eachBackendRealTime with the wall clock, for the tests that let
// the executor run by itself and measure when jobs ran. openEnv opens
// another node on a backend's database.
var (
	eachBackend         = harness.EachBackendAs[env]
	eachBackendRealTime = harness.EachBackendRealTimeAs[env]
	openEnv             = harness.OpenAs[env]
)
