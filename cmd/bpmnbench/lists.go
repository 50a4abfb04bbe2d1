package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/rest"
)

// The lists suite: REST list and count requests at a small and a large
// table (history's process instances: 1,000 and 1,000,000; open user
// tasks: 1,000 and 100,000), p50 and p99 of each over listRequests
// requests, on each backend. Pages and counts run in the database, so a
// page should cost about the same at any size.

const listRequests = 300

// listQueries are the requests measured: a first page in the default
// order, a page in another order, and the counts.
var listQueries = []struct{ table, path string }{
	{"hist_process_instance", "/history/process-instance?maxResults=50"},
	{"hist_process_instance", "/history/process-instance?maxResults=50&firstResult=500"},
	{"hist_process_instance", "/history/process-instance/count"},
	{"hist_process_instance", "/history/process-instance/count?processDefinitionKey=bench&finished=true"},
	{"task", "/task?maxResults=50"},
	{"task", "/task?maxResults=50&sortBy=created&sortOrder=desc"},
	{"task", "/task/count"},
	{"task", "/task/count?taskDefinitionKey=work"},
}

// listSizes are the rows of each table at the small and the large size.
var listSizes = map[string][2]int{"hist_process_instance": {1_000, 1_000_000}, "task": {1_000, 100_000}}

func listsSuite(ctx context.Context, o options, w io.Writer) error {
	fmt.Fprintf(w, "Lists over REST: p50 and p99 of %d requests each, at the small and the large table\n\n", listRequests)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "request\tbackend\trows\tp50\tp99\tp99 large/small\tnote\n")
	backends := []string{"sqlite"}
	if !o.skipPG {
		backends = append(backends, "postgres")
	}
	for _, backend := range backends {
		url := ""
		if backend == "postgres" {
			var err error
			if url, err = freshDatabase(ctx, o.pgURL, "bpmnlite_bench_lists"); err != nil {
				return err
			}
		} else {
			dir, err := os.MkdirTemp("", "bpmnbench")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			url = filepath.Join(dir, "lists.db")
		}
		if err := measureLists(ctx, url, backend, tw); err != nil {
			return fmt.Errorf("lists on %s: %w", backend, err)
		}
	}
	return tw.Flush()
}

func measureLists(ctx context.Context, url, backend string, tw io.Writer) error {
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: url}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer eng.Close()
	db, err := persistence.Open(ctx, url, persistence.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer db.Close()
	srv := httptest.NewServer(rest.New(eng, rest.Options{}))
	defer srv.Close()
	small := map[string]time.Duration{}
	for size := range 2 {
		for table, sizes := range listSizes {
			if err := seedRows(ctx, db, table, sizes[size]); err != nil {
				return err
			}
		}
		note := loadNote()
		for _, q := range listQueries {
			p50, p99, err := latencies(srv.URL+"/engine-rest"+q.path, listRequests)
			if err != nil {
				return err
			}
			ratio := ""
			if size == 0 {
				small[q.path] = p99
			} else {
				ratio = fmt.Sprintf("%.2f×", float64(p99)/float64(small[q.path]))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", q.path, backend, listSizes[q.table][size],
				p50.Round(time.Microsecond), p99.Round(time.Microsecond), ratio, note)
		}
	}
	return nil
}

// latencies sends GET url n times (after a few unmeasured ones) and
// returns the median and 99th percentile.
func latencies(url string, n int) (time.Duration, time.Duration, error) {
	var ds []time.Duration
	for i := range n + 10 {
		start := time.Now()
		resp, err := http.Get(url)
		if err != nil {
			return 0, 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, 0, fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		if i >= 10 {
			ds = append(ds, time.Since(start))
		}
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*99/100], nil
}

// seedRows fills table up to n rows, a tenth of the process instances
// finished, in statements of the database's own (generate_series on
// PostgreSQL, a recursive CTE on SQLite).
func seedRows(ctx context.Context, db persistence.DB, table string, n int) error {
	return seed(ctx, db, []string{table}, func(tx persistence.Tx, s seedSQL) error {
		var sql string
		switch table {
		case "hist_process_instance":
			sql = s.insert(table, "id, rev, process_definition_id, process_definition_key, business_key, start_time, end_time, state",
				"'pi-' || "+s.text("x")+", 1, 'bench:1:x', 'bench', 'order-' || "+s.text("x")+", "+s.at("x")+
					", CASE WHEN x % 10 = 0 THEN "+s.at("x + 5")+" END, CASE WHEN x % 10 = 0 THEN 'COMPLETED' ELSE 'ACTIVE' END")
		case "task":
			sql = s.insert(table, "id, rev, name, process_instance_id, process_definition_id, task_definition_key, priority, create_time, suspension",
				"'task-' || "+s.text("x")+", 1, 'Work', 'pi-' || "+s.text("x")+", 'bench:1:x', CASE WHEN x % 2 = 0 THEN 'work' ELSE 'check' END, 50, "+s.at("x")+", 1")
		}
		have, err := rowCount(ctx, tx, table)
		if err != nil || have >= n {
			return err
		}
		_, err = tx.Exec(ctx, sql, have+1, n)
		return err
	})
}
