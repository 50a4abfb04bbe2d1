// Package tx runs commands: one database transaction per command, an entity
// cache (identity map) in front of it, a flush that writes every change in
// one batch in foreign-key order with optimistic-lock checks, savepoints,
// and hooks that run only after a successful commit.
//
// An [Executor] runs a function as one command: Run in a new transaction,
// RunDeferred in one that takes SQLite's write lock only for its flush,
// RunIn inside a transaction the caller owns. The function gets a
// [Context]: Get, Insert, Update and Delete go through the cache,
// [Select] and [Read] run persistence queries in the command's
// transaction, Savepoint and RollbackTo bound a job's work, AfterCommit
// registers a hook.
//
// It holds a command's transaction: nothing above it begins, commits or
// rolls one back. It knows nothing of BPMN or executions: it imports only
// persistence, and it builds no SQL, leaving every statement to
// persistence's flush and queries.
package tx
