// Package acceptance holds the replays of Camunda's engine tests: the
// scenarios of SCENARIOS.md on Camunda's own test BPMN files, the corpus
// deployed whole, the conformance and coverage of Camunda's behaviour and
// the side-by-side runs of slow delegates. The corpus is read in place
// from ../shared/acceptance beside the module root (or
// BPMNLITE_ACCEPTANCE_DIR); without it the corpus tests skip. Every test
// runs on SQLite and, when configured, PostgreSQL. The package has tests
// only.
package acceptance
