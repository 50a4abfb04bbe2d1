package tx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// Clock returns the engine's current time.
type Clock func() time.Time

// Executor runs commands against one database.
type Executor struct {
	DB    persistence.DB
	Clock Clock
	Log   *slog.Logger
}

// Context is the state of one command: its transaction, its entity cache
// and its pending changes. It is used by one goroutine at a time.
type Context struct {
	context.Context
	Clock Clock

	tx persistence.Tx

	cache   map[cacheKey]persistence.Entity
	loaded  map[cacheKey][]any // rows as read or last flushed: updates write what changed
	pending []pendingOp
	index   map[cacheKey]int // position in pending of the entity's insert/update
	deleted map[cacheKey]bool
	writes  []persistence.Write

	afterCommit []func()
	hooksAt     map[string]int // len(afterCommit) at each savepoint
	committed   bool
	// InCallerTx: the command runs in a transaction the caller commits
	// (RunIn), so after-commit hooks run before that commit is visible.
	InCallerTx bool
}

type cacheKey struct {
	table *persistence.Table
	id    string
}

type pendingOp struct {
	kind   persistence.OpKind
	entity persistence.Entity
}

func keyOf(e persistence.Entity) cacheKey {
	return cacheKey{persistence.TableOf(e), persistence.EntityID(e)}
}

// Run executes fn as one command in a new transaction: flush and commit when
// fn returns nil, roll back otherwise. A panic in fn is turned into an error
// carrying its stack, and rolls back. After-commit hooks run after a
// successful commit.
func (x *Executor) Run(ctx context.Context, fn func(cc *Context) error) error {
	t, err := x.DB.Begin(ctx, false)
	if err != nil {
		return err
	}
	return x.run(ctx, t, fn)
}

// RunDeferred is Run in a transaction that takes the database's write lock
// only for its flush where the database allows it (persistence.DeferredWriter):
// fn's reads and the code it calls do not hold up other writers.
func (x *Executor) RunDeferred(ctx context.Context, fn func(cc *Context) error) error {
	d, ok := x.DB.(persistence.DeferredWriter)
	if !ok || !x.DB.Capabilities().DeferredWriter {
		return x.Run(ctx, fn)
	}
	t, err := d.BeginDeferred(ctx)
	if err != nil {
		return err
	}
	return x.run(ctx, t, fn)
}

func (x *Executor) run(ctx context.Context, t persistence.Tx, fn func(cc *Context) error) error {
	cc := x.newContext(ctx, t)
	err := cc.call(fn)
	if err == nil && !cc.committed {
		err = cc.Commit()
	}
	if err != nil {
		_ = t.Rollback(context.WithoutCancel(ctx))
		return err
	}
	cc.runAfterCommit()
	return nil
}

// RunIn executes fn inside a transaction the caller owns (a ...Tx API call):
// changes are flushed into it, nothing is committed, and after-commit hooks
// run right after the flush, since the caller's commit cannot be observed.
// In an *Outer transaction, whose commit the engine sees, they run after it.
func (x *Executor) RunIn(ctx context.Context, t persistence.Tx, fn func(cc *Context) error) error {
	cc := x.newContext(ctx, t)
	outer, owned := t.(*Outer)
	cc.InCallerTx = !owned
	if err := t.Savepoint(ctx, "bpmnlite_cmd"); err != nil {
		return err
	}
	err := cc.call(fn)
	if err == nil {
		err = cc.Flush()
	}
	if err != nil {
		_ = t.RollbackTo(context.WithoutCancel(ctx), "bpmnlite_cmd")
		return err
	}
	if err := t.Release(ctx, "bpmnlite_cmd"); err != nil {
		return err
	}
	if owned {
		outer.afterCommit = append(outer.afterCommit, cc.afterCommit...)
		return nil
	}
	cc.runAfterCommit()
	return nil
}

// Outer is a transaction the engine begins and commits for several commands
// that must commit together (Engine.InTx): each runs in it through RunIn,
// behind a savepoint of its own, and the after-commit hooks of all of them
// (waking job executors and long polls, notifying other nodes) run once it
// has committed.
type Outer struct {
	persistence.Tx
	afterCommit []func()
}

// Plain runs fn in a transaction of its own, without a command's entity
// cache and flush: for the job executor's and long polls' short
// statements on rows no command holds (locks, wake-ups, reports). It
// commits when fn returns nil and rolls back otherwise; a read-only
// transaction is always rolled back.
func (x *Executor) Plain(ctx context.Context, readOnly bool, fn func(t persistence.Tx) error) error {
	t, err := x.DB.Begin(ctx, readOnly)
	if err != nil {
		return err
	}
	if err := fn(t); err != nil || readOnly {
		_ = t.Rollback(context.WithoutCancel(ctx))
		return err
	}
	return t.Commit(ctx)
}

// AcquireJobs locks jobs in a transaction of its own (see
// persistence.AcquireJobsAndCommit, which commits with its statement).
func (x *Executor) AcquireJobs(ctx context.Context, p persistence.AcquireParams) ([]*persistence.Job, error) {
	t, err := x.DB.Begin(ctx, false)
	if err != nil {
		return nil, err
	}
	jobs, err := persistence.AcquireJobsAndCommit(ctx, t, p)
	if err != nil {
		_ = t.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	return jobs, nil
}

// Begin starts an Outer transaction on x's database.
func (x *Executor) Begin(ctx context.Context) (*Outer, error) {
	t, err := x.DB.Begin(ctx, false)
	if err != nil {
		return nil, err
	}
	return &Outer{Tx: t}, nil
}

// Commit commits the transaction and runs the hooks of its commands.
func (o *Outer) Commit(ctx context.Context) error {
	if err := o.Tx.Commit(ctx); err != nil {
		return err
	}
	for _, fn := range o.afterCommit {
		fn()
	}
	o.afterCommit = nil
	return nil
}

// Rollback rolls the transaction back; its commands' hooks never run.
func (o *Outer) Rollback(ctx context.Context) error {
	o.afterCommit = nil
	return o.Tx.Rollback(ctx)
}

func (x *Executor) newContext(ctx context.Context, t persistence.Tx) *Context {
	clock := x.Clock
	if clock == nil {
		clock = time.Now
	}
	return &Context{
		Context: ctx,
		tx:      t,
		Clock:   clock,
		cache:   make(map[cacheKey]persistence.Entity),
		loaded:  make(map[cacheKey][]any),
		index:   make(map[cacheKey]int),
		deleted: make(map[cacheKey]bool),
	}
}

// call calls fn, turning a panic into an error.
func (cc *Context) call(fn func(cc *Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: string(debug.Stack())}
		}
	}()
	return fn(cc)
}

// Commit writes the pending changes and commits, in one round trip on
// PostgreSQL. Run commits by itself; a command calls Commit to handle a
// failed flush in the same transaction (a job rolling back to its
// savepoint). After an error the transaction is still open.
func (cc *Context) Commit() error {
	if cc.committed {
		return errors.New("tx: command already committed")
	}
	if err := persistence.FlushCommit(cc, cc.tx, cc.pendingOps(), cc.writes...); err != nil {
		return err
	}
	cc.committed = true
	cc.clearPending()
	return nil
}

// PanicError is a panic recovered while running a command.
type PanicError struct {
	Value any
	Stack string
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v\n%s", e.Value, e.Stack) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// Now returns the engine clock's current time.
func (cc *Context) Now() time.Time { return cc.Clock() }

// Insert schedules e for insertion and caches it.
func (cc *Context) Insert(e persistence.Entity) {
	k := keyOf(e)
	cc.cache[k] = e
	delete(cc.deleted, k)
	cc.index[k] = len(cc.pending)
	cc.pending = append(cc.pending, pendingOp{persistence.OpInsert, e})
}

// Update schedules e for an update with a revision check. Updating an entity
// inserted by this command is a no-op: the insert writes its final state.
func (cc *Context) Update(e persistence.Entity) {
	k := keyOf(e)
	if _, ok := cc.index[k]; ok {
		return
	}
	cc.cache[k] = e
	cc.index[k] = len(cc.pending)
	cc.pending = append(cc.pending, pendingOp{persistence.OpUpdate, e})
}

// Delete schedules e for deletion. An entity inserted by this command is
// simply never written.
func (cc *Context) Delete(e persistence.Entity) {
	k := keyOf(e)
	if cc.deleted[k] {
		return
	}
	cc.deleted[k] = true
	if i, ok := cc.index[k]; ok {
		op := cc.pending[i]
		cc.pending[i].entity = nil
		delete(cc.index, k)
		if op.kind == persistence.OpInsert {
			return
		}
	}
	cc.pending = append(cc.pending, pendingOp{persistence.OpDelete, e})
}

// IsDeleted reports whether e was deleted in this command.
func (cc *Context) IsDeleted(e persistence.Entity) bool { return cc.deleted[keyOf(e)] }

// Write schedules a write that needs no revision check (history end
// times, bulk deletes); it runs after the entity changes at flush.
func (cc *Context) Write(w ...persistence.Write) {
	cc.writes = append(cc.writes, w...)
}

// Cache puts an entity read elsewhere (an acquired job) into the cache as
// if this command had read it.
func (cc *Context) Cache(e persistence.Entity) { cc.remember(e) }

// remember caches e as read from the database.
func (cc *Context) remember(e persistence.Entity) {
	k := keyOf(e)
	cc.cache[k] = e
	cc.keepLoaded(k, e)
}

// keepLoaded records e's row as in the database, for a later update to
// write only what changed. Rows of insert-only tables (the job log, three
// rows per job) are never updated, so none is kept for them.
func (cc *Context) keepLoaded(k cacheKey, e persistence.Entity) {
	if !k.table.Immutable {
		cc.loaded[k] = persistence.Snapshot(e)
	}
}

// Get returns the entity of table with id, from the cache or the database.
// An entity deleted in this command is not found.
func (cc *Context) Get(table *persistence.Table, id string) (persistence.Entity, error) {
	k := cacheKey{table, id}
	if cc.deleted[k] {
		return nil, fmt.Errorf("%s %q: %w", table.Name, id, persistence.ErrNotFound)
	}
	if e, ok := cc.cache[k]; ok {
		return e, nil
	}
	e, err := persistence.Get(cc, cc.tx, table, id)
	if err != nil {
		return nil, err
	}
	cc.remember(e)
	return e, nil
}

// Select runs q in the command's transaction and returns the cached
// instance for every row already known to the command, leaving out rows it
// deleted. Rows inserted by the command and not yet flushed are not seen:
// callers load what they need before changing it.
func Select[T persistence.Entity](cc *Context, q persistence.Query[T]) ([]T, error) {
	rows, err := persistence.Select(cc, cc.tx, q)
	if err != nil {
		return nil, err
	}
	out := rows[:0]
	for _, e := range rows {
		k := keyOf(e)
		if cc.deleted[k] {
			continue
		}
		if c, ok := cc.cache[k]; ok {
			e = c.(T)
		} else {
			cc.remember(e)
		}
		out = append(out, e)
	}
	return out, nil
}

// Read runs q in the command's transaction past the entity cache: for rows
// kept beyond the command (read-only caches), which the command must not
// change.
func Read[T persistence.Entity](cc *Context, q persistence.Query[T]) ([]T, error) {
	return persistence.Select(cc, cc.tx, q)
}

// AcquireJobs locks jobs for a job executor inside the command's
// transaction, so that the locks commit with it (see persistence.AcquireJobs).
func (cc *Context) AcquireJobs(p persistence.AcquireParams) ([]*persistence.Job, error) {
	return persistence.AcquireJobs(cc, cc.tx, p)
}

// LockExternalTasks locks external tasks for a worker inside the command's
// transaction (see persistence.LockExternalTasks) and caches them.
func (cc *Context) LockExternalTasks(f persistence.ExternalTaskFetch) ([]*persistence.ExternalTask, error) {
	tasks, err := persistence.LockExternalTasks(cc, cc.tx, f)
	for _, t := range tasks {
		cc.remember(t)
	}
	return tasks, err
}

// Cached returns every cached entity of table matching keep (including
// entities inserted by this command), for queries that must see this
// command's own changes.
func (cc *Context) Cached(table *persistence.Table, keep func(persistence.Entity) bool) []persistence.Entity {
	var out []persistence.Entity
	for k, e := range cc.cache {
		if k.table == table && !cc.deleted[k] && keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// Flush writes all pending changes in one batch and clears them. An update or
// delete that matches no row fails with persistence.ErrOptimisticLock.
func (cc *Context) Flush() error {
	if len(cc.pending) == 0 && len(cc.writes) == 0 {
		return nil
	}
	if err := persistence.Flush(cc, cc.tx, cc.pendingOps(), cc.writes...); err != nil {
		return err
	}
	cc.clearPending()
	return nil
}

func (cc *Context) pendingOps() []persistence.Op {
	ops := make([]persistence.Op, 0, len(cc.pending))
	for _, p := range cc.pending {
		if p.entity != nil {
			op := persistence.Op{Kind: p.kind, Entity: p.entity}
			if p.kind == persistence.OpUpdate {
				op.Loaded = cc.loaded[keyOf(p.entity)]
			}
			ops = append(ops, op)
		}
	}
	return ops
}

// clearPending forgets the changes just flushed; the rows written become
// what later updates compare with.
func (cc *Context) clearPending() {
	for _, p := range cc.pending {
		if p.entity == nil || cc.committed {
			continue
		}
		k := keyOf(p.entity)
		if p.kind == persistence.OpDelete {
			delete(cc.loaded, k)
		} else {
			cc.keepLoaded(k, p.entity)
		}
	}
	cc.pending = cc.pending[:0]
	cc.writes = cc.writes[:0]
	clear(cc.index)
}

// Savepoint marks a point the command can roll back to.
func (cc *Context) Savepoint(name string) error {
	if err := cc.Flush(); err != nil {
		return err
	}
	if cc.hooksAt == nil {
		cc.hooksAt = make(map[string]int)
	}
	cc.hooksAt[name] = len(cc.afterCommit)
	return cc.tx.Savepoint(cc, name)
}

// RollbackTo undoes everything since the savepoint, in the database and in
// the cache: the cache is emptied, so later reads see the database again.
// After-commit hooks registered before the savepoint stay.
func (cc *Context) RollbackTo(name string) error {
	hooks := cc.afterCommit[:cc.hooksAt[name]]
	cc.Reset()
	cc.afterCommit = hooks
	return cc.tx.RollbackTo(context.WithoutCancel(cc), name)
}

// Release ends a savepoint, flushing what was done since it.
func (cc *Context) Release(name string) error {
	if err := cc.Flush(); err != nil {
		return err
	}
	delete(cc.hooksAt, name)
	return cc.tx.Release(cc, name)
}

// Reset drops the cache, pending changes and after-commit hooks.
func (cc *Context) Reset() {
	clear(cc.cache)
	clear(cc.loaded)
	clear(cc.index)
	clear(cc.deleted)
	cc.pending = cc.pending[:0]
	cc.writes = cc.writes[:0]
	cc.afterCommit = nil
}

// AfterCommit registers fn to run once the transaction has committed.
func (cc *Context) AfterCommit(fn func()) { cc.afterCommit = append(cc.afterCommit, fn) }

func (cc *Context) runAfterCommit() {
	for _, fn := range cc.afterCommit {
		fn()
	}
}
