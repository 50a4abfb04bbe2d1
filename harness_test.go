package bpmnlite_test

import (
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

// env is the shared test harness (internal/harness), the receiver of this
// package's own helper methods.
type env struct{ *harness.Env }

// eachBackend runs f on SQLite and, when configured, PostgreSQL, each with a
// fresh database and a fake clock. cfg may preset options.
func eachBackend(t *testing.T, cfg bpmnlite.Config, f func(t *testing.T, e *env)) {
	t.Helper()
	harness.EachBackend(t, cfg, harness.As(f))
}

// eachBackendRealTime is eachBackend with the wall clock (env.Clock is nil).
func eachBackendRealTime(t *testing.T, cfg bpmnlite.Config, f func(t *testing.T, e *env)) {
	t.Helper()
	harness.EachBackendRealTime(t, cfg, harness.As(f))
}

// openEnv opens an engine on backend b (another handle on the same database
// when called twice with the same backend).
func openEnv(t *testing.T, b testdb.Backend, cfg bpmnlite.Config) *env {
	t.Helper()
	return &env{harness.Open(t, b, cfg)}
}

// wantEq reports an error when got is not deeply equal to want.
var wantEq = harness.WantEq
