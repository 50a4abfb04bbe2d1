// Package enginetest holds what the engine's tests share across packages:
// a clock tests move by hand and builders of BPMN XML. The database
// backends loop is internal/testdb.
//
//   - [Clock] (NewClock, ClockAt; Now, Add, Set) is the engine's time in a
//     test; bpmntest's Clock is this type, and `bpmnlite run` drives its
//     timers with it.
//   - [Process], [AsyncService] and [Header] build BPMN documents;
//     [LargeModel] builds a file of a given size as Camunda Modeler writes
//     it (bpmnbench's memory suite deploys it).
//   - [LogBuffer] is a log sink a test reads while the engine writes.
//
// It imports only the standard library and must not import testing or
// any package of bpmnlite: bpmntest and the commands use it outside tests.
package enginetest
