package persistence

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Migrations are embedded .sql files, one directory per dialect, named
// NNNN_description.sql; each runs once, in version order, recorded in
// bpmnlite_migration.
//
//go:embed migrations
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations(d Dialect) ([]migration, error) {
	dir := path.Join("migrations", string(d))
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations for %s: %w", d, err)
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s/%s: name must start with a positive version and '_'", dir, name)
		}
		b, err := migrationFS.ReadFile(path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s have the same version", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// applyMigrations runs the missing migrations in tx, which the caller holds
// exclusively (an advisory lock on PostgreSQL, BEGIN IMMEDIATE on SQLite).
func applyMigrations(ctx context.Context, tx Tx, d Dialect, log *slog.Logger, existing bool) error {
	ms, err := loadMigrations(d)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS bpmnlite_migration (version INTEGER PRIMARY KEY, applied_at "+dialectOf(tx).timeType+" NOT NULL)"); err != nil {
		return fmt.Errorf("migrate: create bpmnlite_migration: %w", err)
	}
	applied := map[int]bool{}
	rows, err := tx.Query(ctx, "SELECT version FROM bpmnlite_migration")
	if err != nil {
		return fmt.Errorf("migrate: read bpmnlite_migration: %w", err)
	}
	latest := 0
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("migrate: read bpmnlite_migration: %w", err)
		}
		applied[v] = true
		latest = max(latest, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("migrate: read bpmnlite_migration: %w", err)
	}
	if n := len(ms); n > 0 && latest > ms[n-1].version {
		// A newer build migrated this database; it stays compatible with
		// older builds during a rolling upgrade, so go on.
		log.Warn("database schema is newer than this build", "schema_version", latest, "build_version", ms[n-1].version)
	}
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		if existing {
			return fmt.Errorf("%w: migration %s is not applied (open it once with a command that writes, e.g. bpmnlite serve)", ErrSchema, m.name)
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("migrate: %s/%s: %w", d, m.name, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO bpmnlite_migration (version, applied_at) VALUES ($1, $2)", m.version, time.Now().UTC()); err != nil {
			return fmt.Errorf("migrate: record %s: %w", m.name, err)
		}
		log.Info("applied database migration", "dialect", string(d), "migration", m.name)
	}
	return nil
}
