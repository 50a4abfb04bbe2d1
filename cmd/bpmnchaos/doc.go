// Command bpmnchaos is the fault suite: engine processes running a
// workload of asynchronous steps with a parallel join are killed, frozen
// past their locks' expiry, and cut off by a database stop, and then every
// acknowledged instance must complete with each step's effect committed
// exactly once.
//
//	bpmnchaos [-sqlite-only] [-instances n]
//
// PostgreSQL runs in a private cluster made with initdb and pg_ctl in a
// temporary directory on a free port; the machine's own is never touched.
// It prints one summary line per backend and exits non-zero when an
// instance was lost or an effect duplicated.
//
// The suite (main.go, cluster.go) starts node processes of this same
// binary (`bpmnchaos node`, node.go): each opens an engine with a job
// executor, and one given -start also starts instances. It ends only the
// processes it started, by their PID, and stops only the PostgreSQL
// cluster it made. It uses the public bpmnlite API, and persistence only
// to create its database; it writes no SQL of its own.
package main
