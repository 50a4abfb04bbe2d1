package bpmnlite_test

import "github.com/bpmnlite/bpmnlite/internal/harness"

// env is the shared test harness (internal/harness), the receiver of this
// package's own helper methods.
type env struct{ *harness.Env }

// eachBackend runs a test on SQLite and, when configured, PostgreSQL, each
// with a fresh database and a fake clock; openEnv opens an engine on one
// backend (another handle on the same database when called twice with the
// same backend).
var (
	eachBackend = harness.EachBackendAs[env]
	openEnv     = harness.OpenAs[env]
)

// wantEq reports an error when got is not deeply equal to want.
var wantEq = harness.WantEq
