package bpmnlite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
)

// env is the shared test harness (internal/harness) with the root's own
// helpers (the acceptance corpus, the job executor helpers of
// executor_helpers_test.go).
type env struct{ *harness.Env }

// eachBackend runs f on SQLite and, when configured, PostgreSQL, each with a
// fresh database and a fake clock. cfg may preset options.
func eachBackend(t *testing.T, cfg bpmnlite.Config, f func(t *testing.T, e *env)) {
	t.Helper()
	harness.EachBackend(t, cfg, func(t *testing.T, e *harness.Env) { f(t, &env{e}) })
}

// openEnv opens an engine on backend b (another handle on the same database
// when called twice with the same backend).
func openEnv(t *testing.T, b testdb.Backend, cfg bpmnlite.Config) *env {
	t.Helper()
	return &env{harness.Open(t, b, cfg)}
}

// deployFiles deploys files of the acceptance corpus, skipping the test when
// the corpus is absent.
func (e *env) deployFiles(paths ...string) *bpmnlite.Deployment {
	e.T.Helper()
	var full []string
	for _, p := range paths {
		full = append(full, corpus(e.T, p))
	}
	d, err := e.Eng.DeployFiles(e.Ctx, "acceptance", full...)
	if err != nil {
		e.T.Fatalf("deploy %v: %v", paths, err)
	}
	return d
}

// corpus returns the path of a file of the shared acceptance corpus.
func corpus(t testing.TB, rel string) string {
	t.Helper()
	dir := os.Getenv("BPMNLITE_ACCEPTANCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "shared", "acceptance")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("acceptance corpus not available (%v); set BPMNLITE_ACCEPTANCE_DIR", err)
	}
	return p
}
