// Package testdb runs tests on every database backend: SQLite always, and
// PostgreSQL when BPMNLITE_TEST_DATABASE_URL is set, which it must be under
// CI=true. Each test gets an empty database of its own: SQLite in memory or
// in the test's temporary directory, PostgreSQL in a schema of its own.
//
// [Run] runs a test once per backend as subtests "sqlite" and "postgres";
// [Backends], [SQLiteFile] and [Postgres] give a [Backend] to open several
// handles on one database; [Proxy] stands between an engine and
// PostgreSQL so that a test can cut the connection and restore it.
//
// It imports testing, so only _test files may import it. It opens
// databases through persistence.Open; the only SQL it runs itself empties,
// lists and drops PostgreSQL test schemas (the engine's statements stay in
// persistence).
package testdb
