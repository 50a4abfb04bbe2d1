package expression

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/expr-lang/expr/vm/runtime"
)

// ErrUnknownName is the cause of the error for a name that is neither a
// variable nor a bean (Camunda: "Cannot resolve identifier"). Test for it
// with errors.Is.
var ErrUnknownName = errors.New("cannot resolve identifier")

// ErrUnknownFunction is the cause of the error for name(args) where the
// Resolver does not know name (JUEL: a function it cannot resolve, which
// is not a PropertyNotFoundException). Test for it with errors.Is.
var ErrUnknownFunction = errors.New("cannot resolve function")

// ErrUnknownProperty is the cause of the error for base.name where base is
// neither a map nor a list and has no such field or getter (Camunda: a
// PropertyNotFoundException, like an unknown name). Test for it with
// errors.Is.
var ErrUnknownProperty = errors.New("cannot resolve property")

// evalError is what the helpers return; Eval turns it into an *Error with
// the same message and cause.
type evalError struct {
	msg   string
	cause error
}

func (e *evalError) Error() string {
	if e.cause != nil {
		return e.msg + ": " + e.cause.Error()
	}
	return e.msg
}

func failf(format string, args ...any) *evalError {
	return &evalError{msg: fmt.Sprintf(format, args...)}
}

// helperVar resolves a top-level name through the Resolver the expression
// is evaluated with (the expr environment).
func helperVar(args ...any) (any, error) {
	name := args[1].(string)
	if r, ok := args[0].(Resolver); ok {
		if v, ok := r.Resolve(name); ok {
			return v, nil
		}
	}
	return nil, &evalError{msg: fmt.Sprintf("unknown name %q (not a variable or bean)", name), cause: ErrUnknownName}
}

// helperFunc resolves the name of a called function. One the Resolver
// does not know is ErrUnknownFunction, not ErrUnknownName, which a
// conditional event takes for a variable not set yet.
func helperFunc(args ...any) (any, error) {
	if v, err := helperVar(args...); err == nil {
		return v, nil
	}
	return nil, &evalError{msg: fmt.Sprintf("unknown function %q (not a variable or bean)", args[1].(string)), cause: ErrUnknownFunction}
}

func helperGet(args ...any) (any, error) { return property(args[0], args[1]) }

func helperEmpty(args ...any) (any, error) { return isEmpty(args[0]), nil }

func helperNum(args ...any) (any, error) {
	if args[0] == nil {
		return 0, nil
	}
	return args[0], nil
}

func helperInvoke(args ...any) (any, error) {
	fn, name := args[0], args[1].(string)
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func {
		return nil, failf("%q is not a function (it is %s)", name, typeOf(fn))
	}
	return callFunc(v, args[2:], callee{"function", name, nil})
}

func helperCall(args ...any) (any, error) {
	base, name := args[0], args[1].(string)
	if base == nil {
		return nil, failf("cannot call method %q on null", name)
	}
	v := reflect.ValueOf(base)
	if m, ok := lookupMethod(v.Type(), name); ok {
		return callFunc(v.Method(m), args[2:], callee{"method", name, v.Type()})
	}
	if out, ok, err := collectionMethod(base, name, args[2:]); ok {
		return out, err
	}
	return nil, failf("unknown method %q on %s", name, v.Type())
}

// goNames lists the Go spellings of a JUEL name: capitalized, and with a
// trailing or inner "Id" written "ID" (processInstanceId → ProcessInstanceID).
func goNames(name string) []string {
	r, w := utf8.DecodeRuneInString(name)
	if r == utf8.RuneError {
		return nil
	}
	up := string(unicode.ToUpper(r)) + name[w:]
	names := []string{up}
	if id := idToID(up); id != up {
		names = append(names, id)
	}
	return names
}

func idToID(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 'I' && i+1 < len(s) && s[i+1] == 'd' && (i+2 == len(s) || 'A' <= s[i+2] && s[i+2] <= 'Z') {
			b.WriteString("ID")
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

type memberKey struct {
	t    reflect.Type
	name string
}

// accessor reads a property of a struct (or pointer to one): a field, or
// failing that a getter method.
type accessor struct {
	field  []int // field index path, nil when method is used
	method int   // method index on the base's type, -1 when field is used
}

var (
	accessors sync.Map // memberKey → accessor (method -2: no such property)
	methods   sync.Map // memberKey → method index (-1: no such method)
)

// lookupMethod finds the exported method a JUEL method name stands for:
// getVariable → GetVariable, then Variable (Go getters drop the "Get").
func lookupMethod(t reflect.Type, name string) (int, bool) {
	key := memberKey{t, name}
	if idx, ok := methods.Load(key); ok {
		return idx.(int), idx.(int) >= 0
	}
	candidates := goNames(name)
	if rest, ok := strings.CutPrefix(name, "get"); ok && rest != "" {
		candidates = append(candidates, goNames(rest)...)
	}
	idx := -1
	for _, c := range candidates {
		if m, ok := t.MethodByName(c); ok {
			idx = m.Index
			break
		}
	}
	methods.Store(key, idx)
	return idx, idx >= 0
}

func lookupAccessor(t reflect.Type, name string) (accessor, bool) {
	key := memberKey{t, name}
	if a, ok := accessors.Load(key); ok {
		return a.(accessor), a.(accessor).method != -2
	}
	a := findAccessor(t, name)
	accessors.Store(key, a)
	return a, a.method != -2
}

func findAccessor(t reflect.Type, name string) accessor {
	st := t
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	names := goNames(name)
	if st.Kind() == reflect.Struct {
		for _, n := range names {
			if f, ok := st.FieldByName(n); ok && f.IsExported() {
				return accessor{field: f.Index, method: -1}
			}
		}
	}
	for _, prefix := range []string{"", "Get", "Is"} {
		for _, n := range names {
			m, ok := t.MethodByName(prefix + n)
			if ok && m.Type.NumIn() == 1 && returnsValue(m.Type) {
				return accessor{method: m.Index}
			}
		}
	}
	return accessor{method: -2}
}

var errorType = reflect.TypeFor[error]()

// returnsValue reports whether a func type returns one value, optionally
// followed by an error.
func returnsValue(t reflect.Type) bool {
	return t.NumOut() == 1 || t.NumOut() == 2 && t.Out(1) == errorType
}

// property implements base.name and base[key]: map entries, struct fields
// and getters, list elements. A null base, a missing map key and an index
// out of range give null, as in JUEL.
func property(base, key any) (any, error) {
	if base == nil {
		return nil, nil
	}
	if m, ok := base.(map[string]any); ok { // the usual variable: skip reflection
		if k, ok := key.(string); ok {
			return m[k], nil
		}
	}
	v := reflect.ValueOf(base)
	d := v
	for d.Kind() == reflect.Pointer || d.Kind() == reflect.Interface {
		if d.IsNil() {
			return nil, nil
		}
		d = d.Elem()
	}
	name, isName := key.(string)
	switch d.Kind() {
	case reflect.Map:
		k, err := convertValue(key, d.Type().Key())
		if err != nil {
			return nil, nil // no key of another type can be in the map
		}
		if e := d.MapIndex(k); e.IsValid() {
			return e.Interface(), nil
		}
		return nil, nil
	case reflect.Slice, reflect.Array:
		i, ok := toIndex(key)
		if !ok {
			return nil, failf("index of %s must be an integer, got %s", v.Type(), describe(key))
		}
		if i < 0 || i >= int64(d.Len()) {
			return nil, nil
		}
		return d.Index(int(i)).Interface(), nil
	}
	if isName {
		if a, ok := lookupAccessor(v.Type(), name); ok {
			return a.get(v, d, name)
		}
		return nil, &evalError{msg: fmt.Sprintf("no property %q on %s", name, v.Type()), cause: ErrUnknownProperty}
	}
	return nil, failf("cannot index %s with %s", v.Type(), describe(key))
}

func (a accessor) get(v, d reflect.Value, name string) (any, error) {
	if a.method < 0 {
		f, err := d.FieldByIndexErr(a.field)
		if err != nil { // through a nil embedded pointer
			return nil, nil
		}
		return f.Interface(), nil
	}
	return callFunc(v.Method(a.method), nil, callee{"getter for", name, v.Type()})
}

// toIndex converts a list index: integers, whole floats and numeric strings.
func toIndex(key any) (int64, bool) {
	if s, ok := key.(string); ok {
		i, err := strconv.ParseInt(s, 10, 64)
		return i, err == nil
	}
	if key == nil {
		return 0, false
	}
	i, problem := int64Of(reflect.ValueOf(key))
	return i, problem == ""
}

// isEmpty implements JUEL's empty: null, "" and empty lists and maps.
func isEmpty(x any) bool {
	if x == nil {
		return true
	}
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// collectionMethod provides the Java methods JUEL users call on strings,
// lists and maps (list.size(), name.equals('x'), map.get('k')) for Go
// values that have no such method.
func collectionMethod(base any, name string, args []any) (any, bool, error) {
	v := reflect.ValueOf(base)
	kind := v.Kind()
	sized := kind == reflect.String || kind == reflect.Slice || kind == reflect.Array || kind == reflect.Map
	switch {
	case name == "equals" && len(args) == 1:
		return runtime.Equal(base, args[0]), true, nil
	case name == "toString" && len(args) == 0:
		return text(base), true, nil
	case !sized:
		return nil, false, nil
	case (name == "size" || name == "length") && len(args) == 0:
		if kind == reflect.String {
			return utf8.RuneCountInString(v.String()), true, nil
		}
		return v.Len(), true, nil
	case name == "isEmpty" && len(args) == 0:
		return v.Len() == 0, true, nil
	case name == "get" && len(args) == 1 && kind != reflect.String:
		out, err := property(base, args[0])
		return out, true, err
	case name == "containsKey" && len(args) == 1 && kind == reflect.Map:
		k, err := convertValue(args[0], v.Type().Key())
		return err == nil && v.MapIndex(k).IsValid(), true, nil
	case name == "contains" && len(args) == 1 && kind == reflect.String:
		s, ok := args[0].(string)
		if !ok {
			return nil, true, failf("contains on a string needs a string, got %s", describe(args[0]))
		}
		return strings.Contains(v.String(), s), true, nil
	case name == "contains" && len(args) == 1 && kind != reflect.Map:
		for i := range v.Len() {
			if runtime.Equal(v.Index(i).Interface(), args[0]) {
				return true, true, nil
			}
		}
		return false, true, nil
	}
	return nil, false, nil
}

// callee names what callFunc calls, for messages; it is formatted only when
// a call fails.
type callee struct {
	kind, name string
	owner      reflect.Type // nil for functions
}

func (c callee) String() string {
	if c.owner == nil {
		return fmt.Sprintf("%s %q", c.kind, c.name)
	}
	return fmt.Sprintf("%s %q of %s", c.kind, c.name, c.owner)
}

// callFunc calls fn with args converted to its parameter types and returns
// its value; a returned error becomes the cause of the evaluation error.
func callFunc(fn reflect.Value, args []any, what callee) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, failf("%s panicked: %v", what, r)
		}
	}()
	t := fn.Type()
	n := t.NumIn()
	if t.IsVariadic() && len(args) < n-1 {
		return nil, failf("%s takes at least %d arguments, got %d", what, n-1, len(args))
	}
	if !t.IsVariadic() && len(args) != n {
		return nil, failf("%s takes %d arguments, got %d", what, n, len(args))
	}
	if !returnsValue(t) && t.NumOut() > 1 {
		return nil, failf("%s returns %d values; want at most a value and an error", what, t.NumOut())
	}
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		pt := t.In(min(i, n-1))
		if t.IsVariadic() && i >= n-1 {
			pt = pt.Elem()
		}
		if in[i], err = convertValue(a, pt); err != nil {
			return nil, failf("%s: argument %d: %v", what, i+1, err)
		}
	}
	res := fn.Call(in)
	if len(res) == 0 {
		return nil, nil
	}
	last := res[len(res)-1]
	if t.Out(len(res)-1) == errorType && !last.IsNil() {
		return nil, &evalError{msg: what.String() + " failed", cause: last.Interface().(error)}
	}
	if len(res) == 1 && t.Out(0) == errorType {
		return nil, nil
	}
	return res[0].Interface(), nil
}

// convertValue converts an expression value to a Go parameter type: numbers
// between numeric types when the value fits exactly, null to nil-able
// types, lists element by element.
func convertValue(a any, t reflect.Type) (reflect.Value, error) {
	if a == nil {
		switch t.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
			return reflect.Zero(t), nil
		}
		return reflect.Value{}, fmt.Errorf("cannot use null as %s", t)
	}
	v := reflect.ValueOf(a)
	if v.Type().AssignableTo(t) {
		return v, nil
	}
	out := reflect.New(t).Elem()
	switch k := t.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		if i, problem := int64Of(v); problem == "" && !out.OverflowInt(i) {
			out.SetInt(i)
			return out, nil
		}
	case k >= reflect.Uint && k <= reflect.Uintptr:
		if i, problem := int64Of(v); problem == "" && i >= 0 && !out.OverflowUint(uint64(i)) {
			out.SetUint(uint64(i))
			return out, nil
		}
		if isUint(v.Kind()) && !out.OverflowUint(v.Uint()) {
			out.SetUint(v.Uint())
			return out, nil
		}
	case k == reflect.Float32 || k == reflect.Float64:
		if f, ok := floatOf(v); ok && !out.OverflowFloat(f) {
			out.SetFloat(f)
			return out, nil
		}
	case k == reflect.String && v.Kind() == reflect.String, k == reflect.Bool && v.Kind() == reflect.Bool:
		return v.Convert(t), nil
	case k == reflect.Slice && (v.Kind() == reflect.Slice || v.Kind() == reflect.Array):
		s := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := range v.Len() {
			e, err := convertValue(v.Index(i).Interface(), t.Elem())
			if err != nil {
				return reflect.Value{}, fmt.Errorf("element %d: %w", i, err)
			}
			s.Index(i).Set(e)
		}
		return s, nil
	}
	return reflect.Value{}, fmt.Errorf("cannot use %s as %s", describe(a), t)
}

func isUint(k reflect.Kind) bool { return k >= reflect.Uint && k <= reflect.Uintptr }

func floatOf(v reflect.Value) (float64, bool) {
	switch k := v.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		return float64(v.Int()), true
	case isUint(k):
		return float64(v.Uint()), true
	case k == reflect.Float32 || k == reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}
