// Package config holds the engine's configuration: one Config, nested by
// concern (Database, History, Jobs, Limits, JobExecutor), each field
// documented with its default, WithDefaults to spell the defaults out and
// Validate to refuse what cannot work. The root package, the runtime and
// the job executor all take these types; none copies them.
//
// It must stay a leaf: it imports nothing of the engine but the expression
// package's limits (and OpenTelemetry's trace API), so that every other
// package may import it.
package config
