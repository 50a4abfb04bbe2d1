// Command bpmnlite deploys and runs BPMN processes on the embedded SQLite
// default (or PostgreSQL), serves them over Camunda's REST API, and checks
// BPMN files. `bpmnlite COMMAND -h` prints a command's flags.
//
//	bpmnlite run [-db file] [-var k=v ...] file.bpmn   deploy, start, run to the end (timers on a moved clock), print the path taken
//	bpmnlite serve [-db url] [-pool n] [-http addr] [-auth cred] file.bpmn ...   deploy, serve the REST API and /metrics, run the job executor until interrupted
//	bpmnlite deploy|start|instances|tasks|complete|correlate|incidents|retry|modify ...   work on an existing database (-db, -schema, --json)
//	bpmnlite jobs [-db url] [job-id]                   list jobs and say why each is not running; jobs explain JOB-ID
//	bpmnlite validate file.bpmn ...                    report every problem and warning
//	bpmnlite check -db file                            run SQLite's integrity check on a database file
//
// main.go dispatches the commands and holds validate and check; run.go,
// serve.go, commands.go (the commands on an existing database) and
// modify.go the rest. It is a client of the public packages (bpmnlite, rest, metrics),
// and parses files itself with bpmn and runtime.CheckExpressionDefaults
// (validate, run's -stub-all); run moves internal/enginetest's clock. It
// writes no SQL and calls no runtime command.
package main
