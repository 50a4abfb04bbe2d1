// Package rest serves a bpmnlite engine over HTTP with Camunda 7's REST
// paths and JSON payloads (under /engine-rest), so that existing clients,
// such as Camunda's external task clients, need only the base URL.
//
//	h := rest.New(eng, rest.Options{Auth: "Bearer " + token})
//	err := http.ListenAndServe("127.0.0.1:8080", h)
//
// [New] returns the [Handler] of one engine, an http.Handler; [Options]
// set the base path, authentication (basic or bearer, checked by
// [CheckAuth]), body and deployment bounds, and the longest long poll.
// routes.go registers the resources, one file each, named as Camunda's
// REST services: deployment.go, process_definition.go,
// process_instance.go, message.go, signal.go, condition.go, task.go,
// external_task.go (fetch and lock with long polling), job.go, incident.go,
// history*.go, migration.go; variables.go Camunda's typed variables ([TypedValue],
// [EncodeVariables], [DecodeVariables], which the worker package's HTTP
// client uses too); limits.go the deployment limits.
//
// It maps requests onto the public bpmnlite API and Camunda's JSON onto
// its types, and nothing else: it imports no package of bpmnlite but the
// root, runs no BPMN behaviour and writes no SQL. `bpmnlite serve` mounts
// it.
package rest
