package persistence

import (
	"context"
	"database/sql"
	"log/slog"
	"time"
)

// SQLite in WAL mode appends each commit's pages to the WAL, and a
// checkpoint copies them back into the database file and syncs it. Left to
// SQLite, the committing writer runs the checkpoint itself each time the
// WAL reaches 1,000 pages: under the job executor's load that was over a quarter
// of the writer's time, spent waiting for writes and fsyncs while no job
// could commit. A checkpointer does this work on a connection of its own
// instead, beside the writer: PASSIVE checkpoints never block the writer or
// readers. It cannot restart the WAL while the writer keeps appending, so
// the writer still checkpoints, less often (walWriterCheckpoint pages), and
// then finds most pages already copied.
const (
	// walCheckpointEvery spaces the checkpointer's runs: each one syncs the
	// WAL and the database file, and copies a page written many times only
	// once.
	walCheckpointEvery = 100 * time.Millisecond
	// walWriterCheckpoint is the WAL size in pages (of 4 KiB) at which the
	// writer checkpoints and the WAL starts over: it bounds the WAL file.
	walWriterCheckpoint = 8000
)

type checkpointer struct {
	db   *sql.DB
	log  *slog.Logger
	kick chan struct{}
	stop context.CancelFunc
	done chan struct{}
}

// startCheckpointer opens the checkpointer's connection to the database at
// dsn and starts it.
func startCheckpointer(dsn string, log *slog.Logger) (*checkpointer, error) {
	db, err := sql.Open(sqliteDriverName, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	ctx, stop := context.WithCancel(context.Background())
	c := &checkpointer{db: db, log: log, kick: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	go c.run(ctx)
	return c, nil
}

// committed tells the checkpointer that the writer committed.
func (c *checkpointer) committed() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run(ctx context.Context) {
	defer close(c.done)
	pause := time.NewTimer(0)
	defer pause.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		if _, err := c.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err != nil && ctx.Err() == nil {
			// The writer's own checkpoints still bound the WAL.
			c.log.Warn("SQLite WAL checkpoint failed", "error", err)
		}
		pause.Reset(walCheckpointEvery)
		select {
		case <-ctx.Done():
			return
		case <-pause.C:
		}
	}
}

// close stops the checkpointer and closes its connection.
func (c *checkpointer) close() error {
	c.stop()
	<-c.done
	return c.db.Close()
}
