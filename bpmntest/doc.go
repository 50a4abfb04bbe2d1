// Package bpmntest tests BPMN processes end to end: an engine on in-memory
// SQLite (or PostgreSQL) with a clock the test moves, no job executor, calls
// that drive one instance to its next wait state, and assertions whose
// failure messages show where the instance is and the path it took.
//
//	e := bpmntest.New(t)
//	e.Deploy("processes/order.bpmn")
//	e.Stub("checkStock", map[string]any{"stock": 5})
//	pi := e.Start("order", map[string]any{"quantity": 2})
//	pi.AssertWaitingAt("ship").CompleteTask("ship", nil).AssertEnded("shipped")
//
// [New] returns an [Harness] (a *bpmnlite.Engine with the test's [Clock]);
// Deploy, Stub and FailTimes set a test up. [Harness.Start] and the calls
// on an [Instance] (CompleteTask, Correlate, Advance) run the jobs due
// then, so the instance stands at its next wait state; the Assert methods
// fail the test with [Instance.State]. Outside a test (an Example, a small
// program) pass a [Script] instead of t.
//
// This is the users' test kit, so it works through the public bpmnlite
// API only: it must not import runtime, tx or jobexecutor. It uses
// internal/enginetest for the clock and persistence only to drop a
// PostgreSQL test schema at cleanup.
package bpmntest
