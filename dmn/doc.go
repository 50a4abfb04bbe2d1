// Package dmn parses DMN 1.1–1.3 decision models and evaluates their
// decisions as Camunda 7's DMN engine does: decision tables (inputs with
// input expressions, FEEL simple unary tests as input entries, outputs,
// every hit policy and the COLLECT aggregators), literal expression
// decisions and decision requirement graphs, where the required decisions
// are evaluated first and their results become variables of the ones that
// require them.
//
// Expressions (input expressions, output entries, literal expressions and
// input entries that are not simple unary tests) are JUEL as the
// expression package compiles it: "${amount * 2}" or, as Camunda 7 reads a
// plain FEEL or JUEL expression, "amount * 2". Simple unary tests
// ("< 10", "[1..5]", "\"gold\",\"silver\"", "not(\"red\")", "-") and the
// FEEL literals (strings, numbers, true, false, null, date and time("..."))
// are read by this package.
//
// A parsed model is immutable and safe for concurrent evaluation. Every
// failure names the decision, the rule or input, and the element's line
// and column; nothing panics.
package dmn
