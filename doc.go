// Package bpmnlite is a BPMN process engine for Go in the lineage of
// Camunda 7: deploy BPMN 2.0 files, start process instances, complete user
// tasks, correlate messages; every call advances the instance to its next
// wait states inside one database transaction, on an embedded SQLite file
// (the default) or on PostgreSQL.
//
//	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: "orders.db"}})
//	...
//	eng.RegisterDelegate("chargeCard", bpmnlite.DelegateFunc(charge))
//	_, err = eng.DeployFiles(ctx, "orders", "order.bpmn")
//	pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "order", Variables: vars})
//
// This package is the public facade. It owns [Config], [Open] and the
// [Engine]'s methods: commands (api.go: deploy, start, complete, correlate,
// signal, variables), queries (query.go) and the read models they return
// (models.go), management (management.go: retries, priorities, suspension,
// incidents, deployments), running jobs by hand (execute.go), external tasks
// (externaltasks.go), and [NewJobExecutor].
//
// It holds no BPMN behaviour: commands go to the runtime package, and
// queries become persistence filters. It writes no SQL and opens no
// transaction itself (a …Tx method has persistence wrap the caller's
// pgx.Tx and hands that to the runtime). It must not import rest, worker,
// metrics or bpmntest: they are built on this API.
package bpmnlite
