package runtime

import (
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// TypedValue is a variable's value declared with one of Camunda's value
// types, for the types a Go value alone does not tell apart: Short,
// Integer and Long (all int64 in Go), Object and Json (both JSON
// documents), Xml and String, File and Bytes. The type and its valueInfo
// are stored with the value and come back with it (VariableInstance); the
// command sees the plain value.
type TypedValue struct {
	// Type is one of Camunda's type names: String, Integer, Short, Long,
	// Double, Boolean, Date, Bytes, File, Json, Xml, Object, Null (read in
	// any case).
	Type  string
	Value any
	// Info is Camunda's valueInfo: objectTypeName and
	// serializationDataFormat (Object), filename, mimeType and encoding
	// (File). Other keys are not kept.
	Info map[string]any
}

// valueTypes are Camunda's type names, by their lower case, with the
// stored types their values may have (a nil value is always allowed) and
// the valueInfo keys they keep.
var valueTypes = map[string]struct {
	name   string
	stored []string
	info   []string
}{
	"string":  {"String", []string{persistence.VarString}, nil},
	"xml":     {"Xml", []string{persistence.VarString}, nil},
	"integer": {"Integer", []string{persistence.VarLong}, nil},
	"short":   {"Short", []string{persistence.VarLong}, nil},
	"long":    {"Long", []string{persistence.VarLong}, nil},
	"double":  {"Double", []string{persistence.VarDouble, persistence.VarLong}, nil},
	"boolean": {"Boolean", []string{persistence.VarBoolean}, nil},
	"date":    {"Date", []string{persistence.VarDate}, nil},
	"bytes":   {"Bytes", []string{persistence.VarBytes}, nil},
	"file":    {"File", []string{persistence.VarBytes}, []string{"filename", "mimeType", "encoding"}},
	"json":    {"Json", []string{persistence.VarJSON}, nil},
	"object":  {"Object", []string{persistence.VarJSON}, []string{"objectTypeName", "serializationDataFormat"}},
	"null":    {"Null", nil, nil},
}

// ValueTypeName is Camunda's spelling of type name typ (any case), or ""
// when Camunda has no such type.
func ValueTypeName(typ string) string { return valueTypes[strings.ToLower(typ)].name }

// encodeTyped stores t in r: its value as encodeValue does, then its type
// and valueInfo, refusing a value the type cannot hold.
func encodeTyped(r *persistence.Variable, t TypedValue) error {
	vt, ok := valueTypes[strings.ToLower(t.Type)]
	if !ok {
		return invalid(r.Name, "unsupported value type '%s'", t.Type)
	}
	value := t.Value
	if _, nested := value.(TypedValue); nested {
		return invalid(r.Name, "a typed value cannot hold another typed value")
	}
	if s, ok := value.(string); ok && (vt.name == "Json" || vt.name == "Object") {
		if !json.Valid([]byte(s)) {
			return invalid(r.Name, "the value of type %s is not a JSON document", vt.name)
		}
		value = json.RawMessage(s) // the document, serialized
	}
	if vt.name == "Double" {
		if n, ok := value.(int64); ok {
			value = float64(n)
		}
	}
	if err := encodeValue(r, value); err != nil {
		return err
	}
	if vt.name == "Null" && r.Type != persistence.VarNull {
		return invalid(r.Name, "a value of type Null must be null")
	}
	if r.Type != persistence.VarNull && !slices.Contains(vt.stored, r.Type) {
		return invalid(r.Name, "a %T cannot be stored as type %s", value, vt.name)
	}
	switch {
	case vt.name == "Integer" && (r.Long < math.MinInt32 || r.Long > math.MaxInt32):
		return invalid(r.Name, "%d does not fit an Integer", r.Long)
	case vt.name == "Short" && (r.Long < math.MinInt16 || r.Long > math.MaxInt16):
		return invalid(r.Name, "%d does not fit a Short", r.Long)
	case vt.name == "File" && infoString(t.Info, "filename") == "":
		return invalid(r.Name, "a File needs its filename in the valueInfo")
	case vt.name == "Object":
		if f := infoString(t.Info, "serializationDataFormat"); f != "" && f != "application/json" {
			return invalid(r.Name, "serialization data format %q is not supported (only application/json)", f)
		}
	}
	info := map[string]any{}
	for _, k := range vt.info {
		if v, ok := t.Info[k]; ok && v != nil {
			s, isString := v.(string)
			if !isString {
				return invalid(r.Name, "valueInfo %s must be a string, not %v", k, v)
			}
			if why := checkText("valueInfo "+k, s); why != "" {
				return invalid(r.Name, "%s", why)
			}
			info[k] = s
		}
	}
	if vt.name == "Object" && info["serializationDataFormat"] == nil {
		info["serializationDataFormat"] = "application/json"
	}
	r.ValueType = vt.name
	if len(info) > 0 {
		b, _ := json.Marshal(info)
		r.ValueInfo = string(b)
	}
	return nil
}

func infoString(info map[string]any, key string) string {
	s, _ := info[key].(string)
	return s
}

// TypeOf is the Camunda type of stored variable r and its valueInfo: the
// type it was declared with, else the one its value implies (integral
// numbers as Integer, or Long beyond 32 bits; JSON documents as Json).
func TypeOf(r *persistence.Variable) (string, map[string]any) {
	info := map[string]any{}
	if r.ValueInfo != "" {
		_ = json.Unmarshal([]byte(r.ValueInfo), &info) // written by encodeTyped
	}
	if r.ValueType != "" {
		return r.ValueType, info
	}
	switch r.Type {
	case persistence.VarLong:
		if r.Long >= math.MinInt32 && r.Long <= math.MaxInt32 {
			return "Integer", info
		}
		return "Long", info
	case persistence.VarJSON:
		return "Json", info
	}
	if vt, ok := valueTypes[r.Type]; ok {
		return vt.name, info
	}
	return "", info
}

// declaredValue is r's value for a copy of it: a TypedValue with its
// declared type, when it has one.
func declaredValue(r *persistence.Variable) (any, error) {
	v, err := decodeVariable(r)
	if err != nil || r.ValueType == "" {
		return v, err
	}
	_, info := TypeOf(r)
	return TypedValue{Type: r.ValueType, Value: v, Info: info}, nil
}

// DecodeVariable is the Go value stored in r (see decodeVariable).
func DecodeVariable(r *persistence.Variable) (any, error) { return decodeVariable(r) }
