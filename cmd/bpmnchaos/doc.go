// Command bpmnchaos is the fault suite: engine processes running a
// workload of asynchronous steps with a parallel join are killed, frozen
// and cut off by a database stop while instances are being started, and
// then every acknowledged instance must complete with each step's effect
// committed exactly once.
//
//	bpmnchaos [-sqlite-only]
//
// PostgreSQL runs in a private cluster made with initdb and pg_ctl in a
// temporary directory on a free port; the machine's own is never touched.
// It prints one summary per backend and exits non-zero when a bound is
// missed: too few instances acknowledged, a killed node that held too few
// jobs, an instance lost, an effect duplicated, a retry charged where the
// design charges none, a takeover or a recovery too slow (checks.go).
//
// The suite (main.go; postgres.go and sqlite.go per backend, cluster.go)
// starts node processes of this same binary (`bpmnchaos node`, node.go):
// each opens an engine with a job executor, and one given -start also
// starts instances. It ends only the
// processes it started, by their PID, and stops only the PostgreSQL
// cluster it made. It uses the public bpmnlite API, and persistence only
// to create its database; it writes no SQL of its own.
package main
