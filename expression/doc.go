// Package expression compiles and evaluates the ${...} and #{...}
// expressions of BPMN models (the JUEL dialect Camunda users write) on top of
// expr-lang/expr.
//
// # Forms
//
// A source text is one of:
//   - a whole expression, "${amount > 1000}" or "#{dueDate}": it evaluates
//     to the expression's value, of any type;
//   - text with embedded expressions, "Hello ${name}!": it evaluates to a
//     string, null values printing as "";
//   - plain text without delimiters: it evaluates to itself.
//
// A backslash makes a delimiter literal: "\${x}" is the text "${x}".
//
// # Language
//
// JUEL's operators work as in Camunda: eq ne lt gt le ge and or not div mod
// besides == != < > <= >= && || ! / %, the conditional a ? b : c,
// arithmetic, and empty (true for null, "" and empty lists and maps).
// Literals: numbers, strings in single or double quotes (backslash escapes
// the quote and itself), true, false and null. / and div divide as floats;
// % and mod give the integer remainder. List and map literals ([1, 2],
// {"a": 1}) from expr are accepted too. Unlike JUEL, equality and relational
// operators share one precedence level, and values are not coerced between
// strings and numbers.
//
// Names are resolved through a [Resolver] when evaluation reaches them, so
// "${execution.hasVariable('x') && x > 1}" does not fail when x is unset.
// A name the Resolver does not know is an error wrapping [ErrUnknownName];
// a property a value does not have (below) one wrapping [ErrUnknownProperty];
// a function it does not know (name(args)) one wrapping [ErrUnknownFunction].
//
// base.name and base['key'] read map entries (null when missing), exported
// struct fields and getter methods, where the JUEL lowerCamel name is
// matched to the Go name (status → Status, processInstanceId →
// ProcessInstanceID, or a method Status, GetStatus, IsStatus); list[i] reads
// an element (null when out of range). base.name(args) calls the exported
// method Name (getX also finds X), converting arguments to the parameter
// types where that is exact (int64 → int, whole float64 → int, []any →
// []string). A method may return a value, an error, or both; a returned
// error is the cause of the evaluation error. Strings, lists and maps
// without such a method have Java's size(), length(), isEmpty(),
// contains(x), containsKey(k), get(k), equals(x) and toString(). name(args)
// calls the Go func the Resolver returns for name.
//
// # Errors
//
// Every failure is an [*Error] naming the expression; nothing panics.
//
// # Use and bounds
//
// [Compile] turns a source text into an [Expr] (cached per distinct text,
// safe for concurrent use); Eval, EvalBool, EvalInt64 and EvalString run
// it against a [Resolver]. Compiled expressions are shared by every engine
// of the process, so the limits are each engine's: [CheckLength] bounds
// the length of what an engine deploys, and [Error.MaxQuoted] how much of
// a source the engine's errors quote.
//
// The package knows nothing of executions, variables' storage or the
// database: it imports no other package of bpmnlite, and reaches values
// only through the Resolver the caller gives it (runtime resolves
// variables through the scope chain, then registered beans).
package expression
