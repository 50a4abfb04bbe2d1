// Package bpmn reads BPMN 2.0 XML (with the Camunda 7 extensions bpmnlite
// supports) into an immutable model and validates it.
//
// The model is built once per process definition and shared by every
// execution of it: nothing in it may be modified after Parse returns.
//
// [Parse] is the entry point. It returns the [Definitions] of one file (its
// executable processes, messages, signals, errors, escalations, and the
// warnings), or a [*ParseError] listing every [Problem] found, each with
// its line and column. model.go declares the model; xml.go reads the
// document and the positions; parse.go, activity.go, iomapping.go and
// compensation.go build the model; validate.go resolves references and
// checks it; loops.go warns of loops without a wait state; unsupported.go
// refuses the Camunda attributes bpmnlite does not implement.
//
// The package knows nothing of the database or of execution. It imports
// only bpmn/timer, to check timer values. It does not compile expressions:
// the caller checks their syntax through ParseOptions.CheckExpression (the
// engine passes its runtime.Core.CheckExpression).
package bpmn
