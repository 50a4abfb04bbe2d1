// Command river runs River's own job-queue benchmark (riverbench from
// River's command-line module, continuous insert and work) against a
// PostgreSQL database, so that bpmnbench can print River's throughput beside
// the engine's, measured in the same run on the same server (issue 27).
//
// It lives in a module of its own so that bpmnlite's module does not depend
// on River. bpmnbench builds and runs it; by hand:
//
//	cd bench/river && go run . -db postgres://postgres@127.0.0.1:5432/bpmnlite_bench_river -duration 20s
//
// The database should be empty or River's: River's tables are created in it
// (rivermigrate) and its job table is truncated by the benchmark.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/cmd/river/riverbench"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

func main() {
	db := flag.String("db", "", "PostgreSQL URL of the database River may use")
	duration := flag.Duration("duration", 20*time.Second, "length of the measurement")
	verbose := flag.Bool("v", false, "show River's log")
	flag.Parse()
	if *db == "" {
		fmt.Fprintln(os.Stderr, "river: -db is required")
		os.Exit(2)
	}
	if err := run(context.Background(), *db, *duration, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "river:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url string, duration time.Duration, verbose bool) error {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	driver := riverpgxv5.New(pool)

	migrator, err := rivermigrate.New(driver, nil)
	if err != nil {
		return err
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrating River's tables: %w", err)
	}

	var logTo io.Writer = io.Discard
	if verbose {
		logTo = os.Stderr
	}
	logger := slog.New(slog.NewTextHandler(logTo, nil))
	// Run prints a line every 2 s and a summary line ("overall job/sec")
	// to standard output: bpmnbench reads them from there.
	return riverbench.NewBenchmarker(driver, &riverbench.Config{Logger: logger}).Run(ctx, duration, 0)
}
