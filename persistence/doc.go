// Package persistence owns the schema (embedded, versioned migrations) and
// every SQL statement of the engine, for two backends: embedded SQLite
// (modernc.org/sqlite, pure Go; the default) and PostgreSQL (pgx/v5).
//
// Upper layers work on entities (entities.go: each a struct whose fields
// are its table's columns, from which record.go derives the statements,
// the values bound and the scan targets) and never write SQL: they insert,
// update (optimistic lock on rev) and delete entities through a flush
// (ops.go), read them by id or through named queries and filters
// (queries.go, filters.go), and call named operations for the rest
// (acquire.go, locks.go). What the backends do differently is written once
// per backend (dialect.go) and shown to upper layers as Capabilities.
//
// [Open] opens a database (postgres:// URLs PostgreSQL, anything else
// SQLite) and applies the embedded migrations (migrate.go, one directory
// per dialect under migrations/); it returns a [DB], whose Begin gives a
// [Tx]. [Insert], [Update], [Delete] and [Flush] write entities; [List]
// and [Select] run [Query] values built by the named queries and filters.
// Errors of both drivers are translated to this package's
// ([ErrOptimisticLock], [ErrNotFound], [ErrSerialization], ...), so upper
// layers never see pgx or database/sql. tooling.go and benchdata.go hold
// the statements of the project's commands, so that they write no SQL
// either.
//
// No other package of the engine writes SQL (internal/testdb empties and
// drops test schemas; bpmnbench runs pgbench's reference scripts). This
// one knows nothing of BPMN, expressions or commands, and imports no
// other package of bpmnlite.
package persistence
