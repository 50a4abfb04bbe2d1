// Package worker runs Go handlers for external tasks: it long-polls for
// tasks of the topics it subscribed to, runs each handler with the task's
// lock extended while it runs, and reports the outcome. The same handler
// works in-process against an engine (Engine) and over HTTP against a
// bpmnlite server or any Camunda 7 REST API (HTTP).
//
//	w := worker.New(worker.Engine(eng), worker.Config{})
//	w.Subscribe("charge-card", charge, worker.Subscription{LockDuration: time.Minute})
//	err := w.Run(ctx) // until ctx ends
//
// A [Handler] returns variables to complete the task, a [*BpmnError] to
// throw a business error, or any other error to report a failure, retried
// as the [Subscription] says. [Config] sets the worker id, how many
// handlers run at once and the long poll.
//
// The package reaches tasks only through a [Backend]: [Engine] calls the
// public bpmnlite API, [HTTP] the REST API (with the rest package's typed
// variables). It must not import runtime, persistence or jobexecutor:
// external tasks are not jobs, and a worker never reaches the database
// itself.
package worker
