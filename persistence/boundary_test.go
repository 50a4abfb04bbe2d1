package persistence_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The storage boundary: every SQL statement of the engine is in package
// persistence. The engine's other packages neither hold SQL nor import a
// database driver; the root may name pgx.Tx, the type its ...Tx calls
// take. Test infrastructure (internal/testdb, internal/harness) and the
// benchmarks (bpmnbench, and River's in bench/, a module of its own),
// which make databases of their own, are outside the engine.
func TestStorageBoundary(t *testing.T) {
	outside := []string{"persistence", "internal/testdb", "internal/harness", "cmd/bpmnbench", "bench"}
	drivers := []string{"database/sql", "modernc.org/sqlite", "github.com/jackc/pgx/v5/pgxpool", "github.com/jackc/pgx/v5/pgconn", "github.com/jackc/pgx/v5"}
	sql := regexp.MustCompile(`^\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|CREATE|DROP|ALTER|BEGIN|COMMIT|PRAGMA)\s`)
	root := ".."
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path == root {
				return nil
			}
			if slices.Contains(outside, rel) || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		inRoot := !strings.Contains(rel, "/")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if slices.Contains(drivers, p) && !(inRoot && p == "github.com/jackc/pgx/v5") {
				t.Errorf("%s imports %s: database access belongs in persistence", rel, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && sql.MatchString(s) {
					t.Errorf("%s holds SQL %q: statements belong in persistence", rel, s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files: is the module root at ..?", checked)
	}
}
