package persistence

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ExternalTaskFetch selects external tasks for a worker and locks them.
type ExternalTaskFetch struct {
	Now         time.Time
	WorkerID    string
	MaxTasks    int
	UsePriority bool // accepted for Camunda's API: tasks come highest priority first, then oldest, either way
	Topics      []TopicFetch
}

// TopicFetch is one topic of a fetch, with its lock and filters.
type TopicFetch struct {
	Topic                 string
	LockUntil             time.Time
	BusinessKey           string   // when set, only tasks of instances with this business key
	ProcessDefinitionIDs  []string // when set, only tasks of these definitions
	ProcessDefinitionKeys []string
}

func (f ExternalTaskFetch) validate() error {
	var errs []error
	if f.WorkerID == "" {
		errs = append(errs, errors.New("workerId is empty"))
	}
	if f.MaxTasks <= 0 {
		errs = append(errs, fmt.Errorf("maxTasks is %d, want 1 or more", f.MaxTasks))
	}
	for _, t := range f.Topics {
		if t.Topic == "" {
			errs = append(errs, errors.New("a topic has no name"))
		}
		if !t.LockUntil.After(f.Now) {
			errs = append(errs, fmt.Errorf("topic %q: the lock duration must be positive", t.Topic))
		}
	}
	return errors.Join(errs...)
}

// LockExternalTasks locks up to MaxTasks fetchable external tasks of the
// topics for the worker and returns them: unlocked or with an expired lock,
// retries unset or left, not suspended. On PostgreSQL rows another
// transaction is locking are skipped (SKIP LOCKED), so concurrent fetches
// never hand out one task twice.
func LockExternalTasks(ctx context.Context, tx Tx, f ExternalTaskFetch) ([]*ExternalTask, error) {
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("fetch and lock: %w", err)
	}
	if len(f.Topics) == 0 {
		return nil, nil
	}
	d := dialectOf(tx)
	args := []any{f.WorkerID, f.Now, int64(f.MaxTasks)}
	param := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	in := func(vs []string) string {
		ps := make([]string, len(vs))
		for i, v := range vs {
			ps[i] = param(v)
		}
		return "(" + strings.Join(ps, ", ") + ")"
	}
	var lock strings.Builder
	lock.WriteString("CASE topic")
	var topics []string
	for _, t := range f.Topics {
		name := param(t.Topic)
		lock.WriteString(" WHEN " + name + " THEN CAST(" + param(t.LockUntil.UTC()) + " AS " + d.timeType + ")")
		terms := []string{"topic = " + name}
		if t.BusinessKey != "" {
			terms = append(terms, "business_key = "+param(t.BusinessKey))
		}
		if len(t.ProcessDefinitionIDs) > 0 {
			terms = append(terms, "process_definition_id IN "+in(t.ProcessDefinitionIDs))
		}
		if len(t.ProcessDefinitionKeys) > 0 {
			terms = append(terms, "process_definition_key IN "+in(t.ProcessDefinitionKeys))
		}
		topics = append(topics, "("+strings.Join(terms, " AND ")+")")
	}
	lock.WriteString(" END")
	// Highest priority first, then oldest (ids are time-ordered), the
	// order of the fetch index. Without UsePriority Camunda promises no
	// order; this one serves it too.
	order := "priority DESC, id"
	stmt := "UPDATE external_task SET worker_id = $1, lock_expiration = " + lock.String() + ", rev = rev + 1" +
		" WHERE id IN (SELECT id FROM external_task" +
		" WHERE (lock_expiration IS NULL OR lock_expiration < $2) AND (retries IS NULL OR retries > 0) AND suspension = 1" +
		" AND (" + strings.Join(topics, " OR ") + ")" +
		" ORDER BY " + order + " LIMIT $3" + d.lockRows + ")" +
		" RETURNING " + ExternalTaskTable.statements().columnList
	rows, err := tx.Query(ctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("fetch and lock: %w", err)
	}
	out, err := scanEntities(rows, "fetch and lock", func() *ExternalTask { return new(ExternalTask) })
	if err != nil {
		return nil, err
	}
	// RETURNING keeps no order: give the tasks in the order they were picked.
	slices.SortFunc(out, func(a, b *ExternalTask) int {
		if a.Priority != b.Priority {
			return cmp.Compare(b.Priority, a.Priority)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}

// NextExternalTaskUnlock returns the earliest time after now at which a
// locked task of the topics becomes fetchable by its lock expiring (a lock
// or a failure's retry timeout); nil when there is none.
func NextExternalTaskUnlock(ctx context.Context, tx Tx, now time.Time, topics []string) (*time.Time, error) {
	if len(topics) == 0 {
		return nil, nil
	}
	args := []any{now}
	ps := make([]string, len(topics))
	for i, t := range topics {
		args = append(args, t)
		ps[i] = "$" + strconv.Itoa(len(args))
	}
	rows, err := tx.Query(ctx, "SELECT MIN(lock_expiration) FROM external_task WHERE topic IN ("+strings.Join(ps, ", ")+")"+
		" AND lock_expiration > $1 AND (retries IS NULL OR retries > 0) AND suspension = 1", args...)
	if err != nil {
		return nil, fmt.Errorf("next external task unlock: %w", err)
	}
	defer rows.Close()
	var next *time.Time
	if rows.Next() {
		if err := rows.Scan(&next); err != nil {
			return nil, fmt.Errorf("next external task unlock: %w", err)
		}
	}
	return next, rows.Err()
}

// ExternalTaskChannel returns the NOTIFY channel on which commands that
// make external tasks fetchable wake the long polls of other nodes.
func ExternalTaskChannel(db DB) string { return channelName(db, "bpmnlite_external_tasks") }
