// Command bpmnbench measures bpmnlite and prints a table. Each figure on
// PostgreSQL is reported beside a reference measured in the same run with
// pgbench (the bare transactions of ../shared/bench), because absolute
// numbers on shared machines drift. The PostgreSQL job figures have a
// second reference: River's own benchmark (continuous insert and work),
// built from bench/river, a module of its own (river.go; an empty -river
// leaves it out).
//
//	go run ./cmd/bpmnbench -pg postgres://postgres@127.0.0.1:5432/postgres -duration 20s
//
// -suite picks what is measured: start, jobs (main.go, throughput.go),
// throughput, external (external tasks, in-process and over REST with the
// worker package: external.go), slow (slow delegates side by side:
// slow.go) and memory (heap and RSS after deployments: memory.go).
// -sqlite-only skips PostgreSQL; on the server -pg names the benchmark
// creates databases of its own (bpmnlite_bench*). -tracing runs the
// throughput figures with tracing on (spans made and batched, then
// dropped; exemplars taken), to compare with a run without it.
//
// It measures the engine through the public bpmnlite, rest and worker
// APIs. What it times below the engine (acquisition on a filled job
// table, the SQLite reference) and its database administration are
// persistence's functions (tooling.go, benchdata.go): it writes no SQL
// itself. The PostgreSQL reference runs pgbench's scripts with psql and
// pgbench.
package main
