package acceptance_test

import (
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// env is the engine harness (internal/harness) with the acceptance tests'
// own helpers (prefixed acc) as methods.
type env struct{ *harness.Env }

// eachBackend runs f on each backend with a fake clock (harness.EachBackend).
func eachBackend(t *testing.T, cfg bpmnlite.Config, f func(*testing.T, *env)) {
	harness.EachBackend(t, cfg, harness.As(f))
}

// eachBackendRealTime runs f on each backend with the wall clock, for the
// job executor's runs.
func eachBackendRealTime(t *testing.T, cfg bpmnlite.Config, f func(*testing.T, *env)) {
	harness.EachBackendRealTime(t, cfg, harness.As(f))
}
