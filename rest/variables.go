package rest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// Variables in Camunda's typed form: {"name": {"value": ..., "type":
// "String", "valueInfo": {...}}}. Type names are read in any case. A value
// decodes to the plain Go value when that comes back as its type (String,
// Integer, Double, Boolean, Date, Bytes, Json, Null), else to a
// bpmnlite.TypedValue that keeps the type and its valueInfo (Short, Long
// within 32 bits, Xml, Object, File). Plain values encode by their Go
// type: integral numbers as Integer (or Long beyond 32 bits), JSON objects
// and arrays as Json with the document in a string, byte slices as Bytes
// in base64, dates in Camunda's format; stored variables encode with
// their stored type (encodeInstance). "valueInfo": {"transient": true}
// marks a transient variable, both ways (bpmnlite.Transient).

// TypedValue is one variable on the wire.
type TypedValue struct {
	Value     json.RawMessage `json:"value"`
	Type      string          `json:"type"`
	ValueInfo map[string]any  `json:"valueInfo"`
}

// DecodeVariables turns typed variables into engine values; the error of
// a bad one names it.
func DecodeVariables(in map[string]TypedValue) (map[string]any, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]any, len(in))
	for name, tv := range in {
		v, err := decodeValue(tv)
		if err == nil {
			v, err = markTransient(v, tv.ValueInfo)
		}
		if err != nil {
			return nil, badRequest("Cannot convert value of variable '%s': %v", name, err)
		}
		out[name] = v
	}
	return out, nil
}

// DecodePlainVariables turns typed variables into plain Go values, as a
// client reads them: declared types dropped (Short, Long and Integer as
// int64, Xml as a string, File as its bytes, Object as its decoded JSON
// document); transient ones stay marked.
func DecodePlainVariables(in map[string]TypedValue) (map[string]any, error) {
	vars, err := DecodeVariables(in)
	for name, v := range vars {
		t, transient := v.(bpmnlite.TransientValue)
		if transient {
			v = t.Value
		}
		typed, ok := v.(bpmnlite.TypedValue)
		if !ok {
			continue
		}
		v = typed.Value
		if doc, isDoc := v.(json.RawMessage); isDoc {
			v, _ = untyped(doc, true) // valid: checked when decoded
		}
		if transient {
			v = bpmnlite.Transient(v)
		}
		vars[name] = v
	}
	return vars, err
}

// markTransient wraps v with bpmnlite.Transient when valueInfo says
// "transient": true; like Camunda, a transient that is no boolean is refused.
func markTransient(v any, valueInfo map[string]any) (any, error) {
	t, ok := valueInfo["transient"]
	if !ok {
		return v, nil
	}
	transient, ok := t.(bool)
	if !ok {
		return nil, fmt.Errorf("the property 'transient' should have a value of type 'boolean', not %v", t)
	}
	if transient {
		return bpmnlite.Transient(v), nil
	}
	return v, nil
}

// decodeValue is tv's engine value: a bpmnlite.TypedValue of its declared
// type (which the engine stores with it), a plain value when it has none.
func decodeValue(tv TypedValue) (any, error) {
	raw := bytes.TrimSpace(tv.Value)
	if tv.Type == "" {
		return untyped(raw, false)
	}
	if bpmnlite.ValueTypeName(tv.Type) == "" {
		return nil, fmt.Errorf("unsupported value type '%s'", tv.Type)
	}
	v, err := typedValue(strings.ToLower(tv.Type), raw)
	if err != nil {
		return nil, err
	}
	name := bpmnlite.ValueTypeName(tv.Type)
	if doc, ok := v.(json.RawMessage); ok && name == "Json" {
		return untyped(doc, true) // a Go value, as before typed values
	}
	if encodeValue(v).Type == name && name != "Object" && name != "File" {
		return v, nil // the plain value comes back as this type
	}
	return bpmnlite.TypedValue{Type: name, Value: v, Info: tv.ValueInfo}, nil
}

// typedValue is the Go value of raw as a value of type typ (lower case).
func typedValue(typ string, raw []byte) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch typ {
	case "null":
		return nil, nil
	case "string", "xml":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			// Clients send numbers for String variables too; keep their text.
			return strings.Trim(string(raw), `"`), nil
		}
		return s, nil
	case "integer", "long", "short":
		return integral(raw)
	case "double":
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			s, serr := unquote(raw)
			if serr != nil {
				return nil, fmt.Errorf("%s is not a number", raw)
			}
			if _, err := fmt.Sscan(s, &f); err != nil {
				return nil, fmt.Errorf("%q is not a number", s)
			}
		}
		return f, nil
	case "boolean":
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			s, _ := unquote(raw)
			switch strings.ToLower(s) {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
			return nil, fmt.Errorf("%s is not a boolean", raw)
		}
		return b, nil
	case "date":
		s, err := unquote(raw)
		if err != nil {
			return nil, err
		}
		return parseTime(s)
	case "json", "object":
		doc := raw
		if s, err := unquote(raw); err == nil {
			doc = []byte(s) // the document as a string, as Camunda sends it
		} else if typ == "object" {
			return nil, fmt.Errorf("Must provide 'null' or String value for value of SerializableValue type 'Object'.")
		}
		if !json.Valid(doc) {
			return nil, fmt.Errorf("the value is not a JSON document")
		}
		return json.RawMessage(doc), nil // stored as written
	case "bytes", "file":
		s, err := unquote(raw)
		if err != nil {
			return nil, err
		}
		return base64.StdEncoding.DecodeString(s)
	}
	return nil, fmt.Errorf("unsupported value type '%s'", typ)
}

// untyped reads a value without a type as Camunda does: by its JSON kind
// (an object or array only as a document).
func untyped(raw []byte, document bool) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case map[string]any, []any:
		if document {
			return v, nil // numbers inside stay json.Number: stored as written
		}
		return nil, fmt.Errorf("an object or array needs a type (Json)")
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		return x.Float64()
	}
	return v, nil
}

func integral(raw []byte) (int64, error) {
	s := string(raw)
	if u, err := unquote(raw); err == nil {
		s = u
	}
	var n json.Number = json.Number(strings.TrimSpace(s))
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return int64(f), nil
	}
	return 0, fmt.Errorf("%s is not an integer", raw)
}

func unquote(raw []byte) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s is not a string", raw)
	}
	return s, nil
}

// EncodeVariables turns engine values into typed variables.
func EncodeVariables(vars map[string]any) map[string]TypedValue {
	out := make(map[string]TypedValue, len(vars))
	for name, v := range vars {
		out[name] = encodeValue(v)
	}
	return out
}

func encodeValue(v any) TypedValue {
	typed := func(value any, typ string) TypedValue {
		raw, err := json.Marshal(value)
		if err != nil {
			raw, _ = json.Marshal(fmt.Sprint(value))
		}
		return TypedValue{Value: raw, Type: typ, ValueInfo: map[string]any{}}
	}
	switch x := v.(type) {
	case bpmnlite.TransientValue:
		tv := encodeValue(x.Value)
		tv.ValueInfo["transient"] = true
		return tv
	case *bpmnlite.TransientValue:
		if x == nil {
			return encodeValue(bpmnlite.Transient(nil))
		}
		return encodeValue(*x)
	case bpmnlite.TypedValue:
		tv := encodeValue(x.Value)
		if name := bpmnlite.ValueTypeName(x.Type); name != "" {
			tv.Type = name
		}
		for k, v := range x.Info {
			tv.ValueInfo[k] = v
		}
		return tv
	case nil:
		return typed(nil, "Null")
	case string:
		return typed(x, "String")
	case bool:
		return typed(x, "Boolean")
	case int64:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return typed(x, "Integer")
		}
		return typed(x, "Long")
	case int:
		return encodeValue(int64(x))
	case int32:
		return encodeValue(int64(x))
	case float64:
		return typed(x, "Double")
	case float32:
		return typed(float64(x), "Double")
	case time.Time:
		return typed(formatTime(x), "Date")
	case []byte:
		return typed(base64.StdEncoding.EncodeToString(x), "Bytes")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return typed(fmt.Sprint(v), "String")
	}
	return typed(string(b), "Json")
}

// encodeInstance is a stored variable as Camunda shows it: a File without
// its content, an Object as its document (deserialized) or the document's
// text, a Json as its text.
func encodeInstance(v *bpmnlite.VariableInstance, deserialize bool) TypedValue {
	info := v.ValueInfo
	if info == nil {
		info = map[string]any{}
	}
	tv := TypedValue{Type: v.Type, ValueInfo: info, Value: json.RawMessage("null")}
	if v.Value == nil || v.Type == "File" {
		return tv
	}
	switch {
	case v.Type == "Object" && deserialize:
		tv.Value = json.RawMessage(v.Serialized)
	case v.Serialized != "":
		tv.Value, _ = json.Marshal(v.Serialized)
	default:
		tv.Value = encodeValue(v.Value).Value
	}
	return tv
}
