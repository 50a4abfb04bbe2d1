package persistence_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// BenchmarkCommand measures a command's typical database work: read an
// execution, then flush one update, two inserts and a delete, and commit.
// Parallel, as the job executor's workers run.
func BenchmarkCommand(b *testing.B) {
	backends := []testdb.Backend{testdb.SQLiteFile(b)}
	if testdb.URL(b) != "" {
		backends = append(backends, testdb.Postgres(b))
	}
	for _, be := range backends {
		var seq atomic.Int64 // ids stay unique across the benchmark's runs
		b.Run(be.Name, func(b *testing.B) {
			db := be.Open(b)
			ctx := context.Background()
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := command(ctx, db, seq.Add(1)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func command(ctx context.Context, db persistence.DB, n int64) error {
	tx, err := db.Begin(ctx, false)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	id := fmt.Sprint("e", n)
	if err := persistence.Insert(ctx, tx, execution(id)); err != nil {
		return err
	}
	e, err := persistence.GetAs[*persistence.Execution](ctx, tx, id)
	if err != nil {
		return err
	}
	e.ActivityID = "next"
	job := &persistence.Job{ID: "j" + id, Type: persistence.JobMessage, HandlerType: "h", Suspension: 1, CreateTime: at(0, 0)}
	if err := persistence.Insert(ctx, tx, job); err != nil {
		return err
	}
	if err := persistence.Flush(ctx, tx, []persistence.Op{
		upd(e),
		ins(&persistence.Variable{ID: "v" + id, Name: "x", Type: persistence.VarLong, ExecutionID: id, Long: n}),
		ins(&persistence.HistoricActivityInstance{ID: "a" + id, ProcessInstanceID: id, ActivityID: "next", StartTime: at(0, 0)}),
		del(job),
	}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// The column values and scan targets of a row: every insert and update
// binds the values, every row read scans into the targets (job
// acquisition reads Job rows), so they are on the hot path.
var benchSink []any

func BenchmarkValues(b *testing.B) {
	for _, tab := range []*persistence.Table{persistence.JobTable, persistence.ExecutionTable} {
		e := samples[tab].full()
		b.Run(tab.EntityName, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink = persistence.Values(e)
			}
		})
	}
}

func BenchmarkTargets(b *testing.B) {
	for _, tab := range []*persistence.Table{persistence.JobTable, persistence.ExecutionTable} {
		e := tab.New()
		b.Run(tab.EntityName, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink = persistence.Targets(e)
			}
		})
	}
}

// BenchmarkScanJobs reads 100 jobs with every column set from an SQLite
// database in memory: the row reads of job acquisition, end to end.
func BenchmarkScanJobs(b *testing.B) {
	db := testdb.Backend{Name: "sqlite", Dialect: persistence.SQLite, URL: ":memory:"}.Open(b)
	ctx := context.Background()
	tx, err := db.Begin(ctx, false)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for i := range 100 {
		j := samples[persistence.JobTable].full().(*persistence.Job)
		j.ID = fmt.Sprint("j", i)
		if err := persistence.Insert(ctx, tx, j); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		rows, err := persistence.SelectWhere(ctx, tx, persistence.JobTable, "ORDER BY id")
		if err != nil || len(rows) != 100 {
			b.Fatal(err, len(rows))
		}
	}
}
