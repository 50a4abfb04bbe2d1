package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// TransientValue marks a variable's value transient, as Camunda's
// Variables.stringValue("x", true): the command that sets it sees it
// (conditions, delegates, listeners, mappings, expressions), but it is
// never stored, has no history, and is gone when the command ends, at the
// next wait state. Only a variable's whole value is transient: one nested
// inside a map, slice or struct cannot be stored.
type TransientValue struct{ Value any }

// Transient marks v as the value of a transient variable.
func Transient(v any) TransientValue { return TransientValue{Value: v} }

// errNestedTransient keeps a TransientValue inside another value from
// being stored as JSON.
var errNestedTransient = errors.New("a transient value cannot be stored inside another value; only a variable's whole value can be transient")

// MarshalJSON refuses: a TransientValue never reaches the database.
func (TransientValue) MarshalJSON() ([]byte, error) { return nil, errNestedTransient }

// unwrapTransient returns the value v carries and whether it is transient.
// Every variable write goes through it (setLocal).
func unwrapTransient(v any) (any, bool) {
	transient := false
	for {
		switch t := v.(type) {
		case TransientValue:
			v, transient = t.Value, true
		case *TransientValue:
			if t == nil {
				return nil, true
			}
			v, transient = t.Value, true
		default:
			return v, transient
		}
	}
}

// plainValue returns v without a Transient mark or a declared type, for
// code that reads a value given by the caller (condition evaluation,
// correlation keys).
func plainValue(v any) any {
	v, _ = unwrapTransient(v)
	t, ok := v.(TypedValue)
	if !ok {
		return v
	}
	if doc, isDoc := t.Value.(json.RawMessage); isDoc {
		// A Json or Object document: seen as decoded, as when read back.
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) == nil {
			return normalizeJSON(x)
		}
	}
	return t.Value
}

// ErrTransientConflict: a variable was set transient where a stored one of
// the same name exists in that scope, or stored where a transient one
// exists (also when removed earlier in the same command), which Camunda
// refuses too.
var ErrTransientConflict = errors.New("a variable cannot switch between transient and stored in one scope")

// transientConflict is the error of setting name transient (or stored,
// when transient is false) in x's scope, which has (or, removed, had in
// this command) the other kind.
func transientConflict(x *execution, name string, transient, removed bool) error {
	what, kind := "set transient", "stored"
	if !transient {
		what, kind = "store", "transient"
	}
	held := "has a " + kind + " variable of that name"
	if removed {
		held = "had a " + kind + " variable of that name, removed in this command"
	}
	return fmt.Errorf("cannot %s variable %q: the scope of %s %s: %w", what, name, x, held, ErrTransientConflict)
}
