package runtime

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// ErrInvalidVariable: a variable's name or value cannot be stored so that
// it reads back equal on every backend.
var ErrInvalidVariable = errors.New("invalid variable")

// VariableError names a variable that cannot be stored, and why.
type VariableError struct {
	Name   string
	Reason string
}

func (e *VariableError) Error() string {
	return fmt.Sprintf("variable %q: %s", strings.ToValidUTF8(e.Name, "\uFFFD"), e.Reason)
}

func (e *VariableError) Unwrap() error { return ErrInvalidVariable }

func invalid(name, format string, args ...any) error {
	return &VariableError{Name: name, Reason: fmt.Sprintf(format, args...)}
}

// maxJSONDepth bounds the nesting of map, slice and struct values, well
// below what the JSON decoder reads back (10,000 levels).
const maxJSONDepth = 1000

// checkText rejects text PostgreSQL cannot store (NUL) and bytes that are
// not UTF-8, which would not read back equal.
func checkText(what, s string) string {
	switch {
	case !utf8.ValidString(s):
		return what + " is not valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return what + " contains a NUL character"
	}
	return ""
}

// encodeVariable stores the Go value v in variable row r, choosing the type
// column from v's dynamic type. Values that would not read back equal on
// both backends, and values that store more than limit bytes (negative: no
// limit), are rejected with a *VariableError, before anything is written.
func encodeVariable(r *persistence.Variable, v any, limit int) error {
	if r.Name == "" {
		return invalid("", "the name is empty")
	}
	if why := checkText("the name", r.Name); why != "" {
		return invalid(r.Name, "%s", why)
	}
	if err := encodeValue(r, v); err != nil {
		return err
	}
	if n := len(r.Text) + len(r.Bytes); limit >= 0 && n > limit {
		return invalid(r.Name, "the value stores %d bytes, more than the limit of %d (MaxVariableBytes)", n, limit)
	}
	// Copied only now, within the limit: the caller may change its slice.
	r.Bytes = append([]byte(nil), r.Bytes...)
	return nil
}

// encodeValue is encodeVariable's choice of type column and its checks of
// the value; r.Bytes may still be the caller's.
func encodeValue(r *persistence.Variable, v any) error {
	r.Text, r.Long, r.Double, r.Time, r.Bytes = "", 0, 0, time.Time{}, nil
	r.ValueType, r.ValueInfo = "", ""
	switch x := v.(type) {
	case TypedValue:
		return encodeTyped(r, x)
	case nil:
		r.Type = persistence.VarNull
	case string:
		if why := checkText("the value", x); why != "" {
			return invalid(r.Name, "%s", why)
		}
		r.Type, r.Text = persistence.VarString, x
	case bool:
		r.Type = persistence.VarBoolean
		if x {
			r.Long = 1
		}
	case int64:
		r.Type, r.Long = persistence.VarLong, x
	case int, int8, int16, int32:
		r.Type, r.Long = persistence.VarLong, reflect.ValueOf(x).Int()
	case uint, uint8, uint16, uint32, uint64:
		u := reflect.ValueOf(x).Uint()
		if u > math.MaxInt64 {
			return invalid(r.Name, "value %d does not fit int64", x)
		}
		r.Type, r.Long = persistence.VarLong, int64(u)
	case float32:
		return encodeFloat(r, float64(x))
	case float64:
		return encodeFloat(r, x)
	case time.Time:
		return encodeTime(r, x)
	case *time.Time:
		if x == nil {
			r.Type = persistence.VarNull
			return nil
		}
		return encodeTime(r, *x)
	case []byte:
		r.Type, r.Bytes = persistence.VarBytes, x
	case json.RawMessage:
		if !json.Valid(x) {
			return invalid(r.Name, "invalid JSON")
		}
		return encodeJSON(r, x)
	default:
		switch reflect.ValueOf(v).Kind() {
		case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct, reflect.Pointer:
			b, err := json.Marshal(v)
			if err != nil {
				return invalid(r.Name, "cannot store %T as JSON: %v", v, err)
			}
			// Marshal writes invalid UTF-8 as \ufffd and a struct without
			// exported fields as {}, losing what they held: look for them
			// only when the output has one of these.
			if bytes.Contains(b, []byte(`\ufffd`)) || bytes.ContainsRune(b, utf8.RuneError) || bytes.Contains(b, []byte("{}")) {
				if why := lostInJSON(reflect.ValueOf(v), "", 0); why != "" {
					return invalid(r.Name, "%s", why)
				}
			}
			return encodeJSON(r, b)
		default:
			return invalid(r.Name, "unsupported type %T (use string, integers, float64, bool, time.Time, []byte, or a JSON-encodable map, slice or struct)", v)
		}
	}
	return nil
}

func encodeFloat(r *persistence.Variable, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return invalid(r.Name, "%v is not a number that can be stored", f)
	}
	r.Type, r.Double = persistence.VarDouble, f
	return nil
}

// encodeTime stores t to the microsecond; both backends hold years from
// 4713 BC to 294276 AD.
func encodeTime(r *persistence.Variable, t time.Time) error {
	if y := t.UTC().Year(); y < -4712 || y > 294275 {
		return invalid(r.Name, "year %d is out of the range a date can be stored in", y)
	}
	r.Type, r.Time = persistence.VarDate, t.UTC().Truncate(time.Microsecond)
	return nil
}

func encodeJSON(r *persistence.Variable, b []byte) error {
	// Marshal keeps the invalid UTF-8 of a MarshalJSON method.
	if !utf8.Valid(b) {
		return invalid(r.Name, "the JSON is not valid UTF-8")
	}
	if d := jsonDepth(b); d > maxJSONDepth {
		return invalid(r.Name, "nested %d levels deep; at most %d can be read back", d, maxJSONDepth)
	}
	r.Type, r.Text = persistence.VarJSON, string(b)
	return nil
}

// jsonDepth is the deepest nesting of objects and arrays in valid JSON.
func jsonDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// lostInJSON describes the first part of v that JSON would not give back,
// with its path, or returns "": text that is not valid UTF-8, or a struct
// with fields but none exported (stored as {}). Types with a MarshalJSON
// or MarshalText method are theirs to encode.
func lostInJSON(v reflect.Value, path string, depth int) string {
	if depth > maxJSONDepth || !v.IsValid() {
		return ""
	}
	if v.Kind() != reflect.Interface && marshalsItself(v.Type()) {
		return ""
	}
	switch v.Kind() {
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return "the text at " + orRoot(path) + " is not valid UTF-8"
		}
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			return lostInJSON(v.Elem(), path, depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return "" // []byte: base64 in JSON
		}
		for i := 0; i < v.Len(); i++ {
			if why := lostInJSON(v.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1); why != "" {
				return why
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := keyText(iter.Key())
			if !utf8.ValidString(k) {
				return "the text at " + orRoot(path) + " (a key) is not valid UTF-8"
			}
			if why := lostInJSON(iter.Value(), path+"."+k, depth+1); why != "" {
				return why
			}
		}
	case reflect.Struct:
		fields := jsonFields(v.Type())
		if len(fields) == 0 && v.NumField() > 0 {
			what := "the value"
			if path != "" {
				what += " at " + orRoot(path)
			}
			return fmt.Sprintf("%s is of type %s, which has no exported fields JSON encodes: it would be stored as {}", what, v.Type())
		}
		for _, f := range fields {
			fv, err := v.FieldByIndexErr(f.Index)
			if err != nil {
				continue // in a nil embedded pointer: JSON skips it too
			}
			if why := lostInJSON(fv, path+"."+f.Name, depth+1); why != "" {
				return why
			}
		}
	}
	return ""
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// marshalsItself reports whether JSON encodes t with t's own method.
func marshalsItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || p.Implements(jsonMarshaler) || t.Implements(textMarshaler) || p.Implements(textMarshaler)
}

// jsonFields returns the fields of struct type t that JSON encodes: the
// exported ones, those promoted from embedded structs included (an
// embedded struct is not a field itself).
func jsonFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		embedded := f.Anonymous && (f.Type.Kind() == reflect.Struct || f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct)
		if f.IsExported() && !embedded && f.Tag.Get("json") != "-" {
			out = append(out, f)
		}
	}
	return out
}

// keyText is a map key as JSON writes it, near enough for a path.
func keyText(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return k.String()
	}
	if k.CanInterface() {
		return fmt.Sprint(k.Interface())
	}
	return "?"
}

func orRoot(path string) string {
	if path == "" {
		return "the top"
	}
	return strings.TrimPrefix(path, ".")
}

// decodeVariable returns the Go value stored in r. JSON objects and arrays
// come back as map[string]any and []any, integral numbers as int64.
func decodeVariable(r *persistence.Variable) (any, error) {
	switch r.Type {
	case persistence.VarNull:
		return nil, nil
	case persistence.VarString:
		return r.Text, nil
	case persistence.VarBoolean:
		return r.Long != 0, nil
	case persistence.VarLong:
		return r.Long, nil
	case persistence.VarDouble:
		return r.Double, nil
	case persistence.VarDate:
		return r.Time, nil
	case persistence.VarBytes:
		return r.Bytes, nil
	case persistence.VarJSON:
		dec := json.NewDecoder(bytes.NewReader([]byte(r.Text)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("variable %q: stored JSON is invalid: %w", r.Name, err)
		}
		return normalizeJSON(v), nil
	}
	return nil, fmt.Errorf("variable %q: unknown stored type %q", r.Name, r.Type)
}

func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
	}
	return v
}

// loadVariables reads every variable of the instance once per command.
func (in *instance) loadVariables() error {
	if in.varsLoaded {
		return nil
	}
	rows, err := tx.Select(in.c.cc, persistence.VariablesOfInstance(in.root.ID))
	if err != nil {
		return err
	}
	in.vars = make(map[string]map[string]*persistence.Variable)
	for _, move := range in.movedVars {
		// Variables this command moved by a pending write (compaction)
		// replace those of the same name at the target.
		moved := make(map[string]bool)
		for _, v := range rows {
			if v.ExecutionID == move[0] {
				moved[v.Name] = true
			}
		}
		for _, v := range rows {
			switch {
			case v.ExecutionID == move[0]:
				v.ExecutionID = move[1]
			case v.ExecutionID == move[1] && moved[v.Name]:
				in.c.cc.Delete(v)
				v.ExecutionID = "" // replaced: skipped below
			}
		}
	}
	for _, v := range rows {
		if v.TaskID != "" || v.ExecutionID == "" {
			continue
		}
		m := in.vars[v.ExecutionID]
		if m == nil {
			m = make(map[string]*persistence.Variable)
			in.vars[v.ExecutionID] = m
		}
		m[v.Name] = v
	}
	in.varsLoaded = true
	return nil
}

// local returns the row of name in the scope of execution id: a stored one
// (in.vars) or a transient one (in.transient, never written). A scope never
// has both (setLocal refuses).
func (in *instance) local(id, name string) (r *persistence.Variable, transient bool) {
	if r := in.vars[id][name]; r != nil {
		return r, false
	}
	if r := in.transient[id][name]; r != nil {
		return r, true
	}
	return nil, false
}

// visible is a variable as seen from an execution: the scope that defines
// it, its row, and whether it is transient.
type visible struct {
	scope     *execution // nil: no scope defines it
	row       *persistence.Variable
	transient bool
}

// lookup finds name in the nearest scope from x, x's own first.
func (x *execution) lookup(name string) (visible, error) {
	if err := x.inst.loadVariables(); err != nil {
		return visible{}, err
	}
	for s := x; s != nil; s = s.parent {
		if r, transient := x.inst.local(s.ID, name); r != nil {
			return visible{s, r, transient}, nil
		}
	}
	return visible{}, nil
}

// variable returns the value of name visible from x.
func (x *execution) variable(name string) (any, bool, error) {
	return x.variableMarked(name, false)
}

// variableMarked returns the value of name visible from x; with mark, a
// transient one as a TransientValue, so that a copy of it (camunda:in and
// camunda:out of a call activity) stays transient, as in Camunda.
func (x *execution) variableMarked(name string, mark bool) (any, bool, error) {
	found, err := x.lookup(name)
	if err != nil || found.scope == nil {
		return nil, false, err
	}
	v, err := decodeVariable(found.row)
	if err != nil {
		return nil, false, err
	}
	if mark && found.transient {
		v = Transient(v)
	}
	return v, true, nil
}

// isTransient reports whether name, as visible from x, is transient.
func (x *execution) isTransient(name string) (bool, error) {
	found, err := x.lookup(name)
	return found.transient, err
}

// decodeScope adds the variables of scope id to out, transient ones too
// (as TransientValue with mark).
func (in *instance) decodeScope(id string, out map[string]any, mark bool) error {
	for i, m := range [2]map[string]*persistence.Variable{in.vars[id], in.transient[id]} {
		for name, r := range m {
			v, err := decodeVariable(r)
			if err != nil {
				return err
			}
			if mark && i == 1 {
				v = Transient(v)
			}
			out[name] = v
		}
	}
	return nil
}

// localVariables returns x's own variables.
func (x *execution) localVariables() (map[string]any, error) {
	if err := x.inst.loadVariables(); err != nil {
		return nil, err
	}
	out := make(map[string]any)
	return out, x.inst.decodeScope(x.ID, out, false)
}

// storedVariables returns the stored variables visible from x (only x's
// own with local), inner scopes hiding outer ones.
func (x *execution) storedVariables(local bool) (map[string]*persistence.Variable, error) {
	if err := x.inst.loadVariables(); err != nil {
		return nil, err
	}
	var chain []*execution
	for s := x; s != nil && (!local || s == x); s = s.parent {
		chain = append(chain, s)
	}
	out := make(map[string]*persistence.Variable)
	for i := len(chain) - 1; i >= 0; i-- {
		maps.Copy(out, x.inst.vars[chain[i].ID])
	}
	return out, nil
}

// variables returns every variable visible from x, inner scopes hiding outer ones.
func (x *execution) variables() (map[string]any, error) {
	return x.variablesMarked(false)
}

// variablesMarked is variables, transient ones as TransientValue with mark.
func (x *execution) variablesMarked(mark bool) (map[string]any, error) {
	if err := x.inst.loadVariables(); err != nil {
		return nil, err
	}
	var chain []*execution
	for s := x; s != nil; s = s.parent {
		chain = append(chain, s)
	}
	out := make(map[string]any)
	for i := len(chain) - 1; i >= 0; i-- {
		if err := x.inst.decodeScope(chain[i].ID, out, mark); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// setVariable writes name where it is already defined in x's scope chain,
// else on the process instance, as Camunda's setVariable does.
func (x *execution) setVariable(name string, v any) error {
	found, err := x.lookup(name)
	if err != nil {
		return err
	}
	if found.scope == nil {
		return x.inst.root.setLocal(name, v)
	}
	return found.scope.setLocal(name, v)
}

// setLocal writes name in x's own scope. It is the one place a variable is
// written: a TransientValue is kept in memory for this command only, in
// in.transient, and never reaches the database. As in Camunda, a scope's
// variable cannot switch between transient and stored, not even after it
// was removed in the same command.
func (x *execution) setLocal(name string, v any) error {
	value, transient := unwrapTransient(v)
	if err := x.inst.loadVariables(); err != nil {
		return err
	}
	in := x.inst
	limit := in.c.e.Config.Limits.MaxVariableBytes
	r, was := in.local(x.ID, name)
	removed := false
	if r == nil {
		if was, removed = in.removed[x.ID][name]; !removed {
			was = transient
		}
	}
	if was != transient {
		return transientConflict(x, name, transient, removed)
	}
	if r != nil {
		if err := encodeVariable(r, value, limit); err != nil {
			return err
		}
		if !transient {
			in.c.cc.Update(r)
			x.historyVariableUpdate(r, false)
			in.c.recordVariable(r)
		}
		x.changed(x.ID, name, "update")
		return nil
	}
	r = &persistence.Variable{Name: name, ExecutionID: x.ID, ProcessInstanceID: in.root.ID}
	if err := encodeVariable(r, value, limit); err != nil {
		return err
	}
	if transient {
		putIn(&in.transient, x.ID, name, r) // no id: never inserted
	} else {
		r.ID, r.Rev = newID(), 1
		in.c.cc.Insert(r)
		x.historyVariableUpdate(r, true)
		in.c.recordVariable(r)
		putIn(&in.vars, x.ID, name, r)
	}
	x.changed(x.ID, name, "create")
	return nil
}

// removeVariable deletes name from the nearest scope that defines it.
func (x *execution) removeVariable(name string) error {
	found, err := x.lookup(name)
	if err != nil || found.scope == nil {
		return err
	}
	in, s := x.inst, found.scope
	if found.transient {
		delete(in.transient[s.ID], name)
	} else {
		delete(in.vars[s.ID], name)
		in.c.cc.Delete(found.row)
		in.c.forgetVariable(found.row)
	}
	putIn(&in.removed, s.ID, name, found.transient)
	x.changed(s.ID, name, "delete")
	return nil
}

// recordVariable keeps stored variable r's value in history (when
// history is on), as Camunda's historic variable instances: written as it
// changes, kept when its scope ends.
func (c *command) recordVariable(r *persistence.Variable) {
	if c.e.history(config.HistoryAudit) {
		c.cc.Write(persistence.RecordVariable(r, c.cc.Now().UTC()))
	}
}

// forgetVariable marks the history of a removed variable deleted.
func (c *command) forgetVariable(r *persistence.Variable) {
	if c.e.history(config.HistoryAudit) {
		c.cc.Write(persistence.MarkVariableDeleted(r.ID))
	}
}

// putIn sets (*m)[scope][name] = v, making the maps as needed.
func putIn[V any](m *map[string]map[string]V, scope, name string, v V) {
	if *m == nil {
		*m = make(map[string]map[string]V)
	}
	if (*m)[scope] == nil {
		(*m)[scope] = make(map[string]V)
	}
	(*m)[scope][name] = v
}

// deleteVariablesOf deletes in's variables of id: an execution's, or a
// snapshot kept for compensation.
func (c *command) deleteVariablesOf(in *instance, id string) {
	delete(in.transient, id)
	if in.varsLoaded {
		for _, r := range in.vars[id] {
			c.cc.Delete(r)
		}
		delete(in.vars, id)
		return
	}
	// Not loaded: delete without reading; nothing else in this command holds them.
	c.cc.Write(persistence.DeleteVariablesOfExecution(id))
}

// setVariables writes each variable with setVariable, in name order.
func (x *execution) setVariables(vars map[string]any, local bool) error {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		var err error
		if local {
			err = x.setLocal(k, vars[k])
		} else {
			err = x.setVariable(k, vars[k])
		}
		if err != nil {
			return err
		}
	}
	return nil
}
