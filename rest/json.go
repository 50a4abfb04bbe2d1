package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// A resource's JSON is declared once, as a shape: its members in Camunda's
// order, each read from the public model. A shape's spec lists them,
// separated by white space:
//
//	name              the model's field of that name (processInstanceId:
//	                  ProcessInstanceID); times in Camunda's format, a nil
//	                  pointer as null
//	name=Field        the model's field Field
//	name?, name=F?    the same, its zero value ("", 0) as null
//	name!, name=F!    a pointer field's value; the member is left out
//	                  when the pointer is nil
//	name:JSON         a constant (null, [], true, "text")
//	name()            computed by the function of that name in computed
//	name=fn()         computed by the function fn
//
// A field missing from the model is caught when the shape is made (at
// init), not when a response is written.
type shape[T any] []member[func(reflect.Value) any]

// member is one name of a JSON object and its value (or what makes it).
type member[V any] struct {
	name  string
	value V
}

// object is a JSON object with its members in order.
type object []member[any]

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, m := range o {
		if _, ok := m.value.(omitted); ok {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		name, _ := json.Marshal(m.name)
		b.Write(name)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// omitted is the value of a member left out of its object.
type omitted struct{}

// set replaces the value of member name.
func (o object) set(name string, value any) object {
	for i := range o {
		if o[i].name == name {
			o[i].value = value
		}
	}
	return o
}

// computed are the members no single field holds: each names the model's
// fields it reads, found once when a shape is made, and makes its value
// from them.
var computed = map[string]computedMember{
	"suspended":      {[]string{"Suspension"}, func(f []reflect.Value) any { return f[0].Int() == bpmnlite.SuspensionSuspended }},
	"stateSuspended": {[]string{"State"}, func(f []reflect.Value) any { return f[0].String() == "SUSPENDED" }},
	"ended":          {[]string{"EndTime"}, func(f []reflect.Value) any { return !f[0].IsNil() }},
	"duration": {[]string{"StartTime", "EndTime"}, func(f []reflect.Value) any {
		return duration(f[0].Interface().(time.Time), f[1].Interface().(*time.Time))
	}},
	"open":     stateIs(bpmnlite.IncidentOpen),
	"deleted":  stateIs(bpmnlite.IncidentDeleted),
	"resolved": stateIs(bpmnlite.IncidentResolved),
	"camundaFormRef": {[]string{"FormRef", "FormRefBinding", "FormRefVersion"}, func(f []reflect.Value) any {
		return formRefJSON(f[0].String(), f[1].String(), f[2].Interface().(*int))
	}},
}

// computedMember is a member made from several fields.
type computedMember struct {
	fields []string
	value  func(fields []reflect.Value) any
}

func stateIs(state string) computedMember {
	return computedMember{[]string{"State"}, func(f []reflect.Value) any { return f[0].String() == state }}
}

func duration(start time.Time, end *time.Time) *int64 {
	if end == nil {
		return nil
	}
	ms := end.Sub(start).Milliseconds()
	return &ms
}

// newShape makes the shape spec declares for T; a spec it cannot read
// panics.
func newShape[T any](spec string) shape[T] {
	t := reflect.TypeFor[T]()
	var s shape[T]
	for _, word := range strings.Fields(spec) {
		m, err := shapeMember(t, word)
		if err != nil {
			panic(fmt.Sprintf("rest: shape of %s: %q: %v", t.Name(), word, err))
		}
		s = append(s, m)
	}
	return s
}

func shapeMember(t reflect.Type, word string) (member[func(reflect.Value) any], error) {
	if name, raw, ok := strings.Cut(word, ":"); ok {
		var c any
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			return member[func(reflect.Value) any]{}, err
		}
		return member[func(reflect.Value) any]{name, func(reflect.Value) any { return c }}, nil
	}
	name, source, renamed := strings.Cut(word, "=")
	if !renamed {
		source = name
	}
	if fn, ok := strings.CutSuffix(source, "()"); ok {
		name = strings.TrimSuffix(name, "()")
		c, ok := computed[fn]
		if !ok {
			return member[func(reflect.Value) any]{}, fmt.Errorf("no computed member %s", fn)
		}
		indexes := make([][]int, len(c.fields))
		for i, field := range c.fields {
			f, ok := t.FieldByName(field)
			if !ok {
				return member[func(reflect.Value) any]{}, fmt.Errorf("%s() reads %s, which %s does not have", fn, field, t.Name())
			}
			indexes[i] = f.Index
		}
		return member[func(reflect.Value) any]{name, func(v reflect.Value) any {
			fields := make([]reflect.Value, len(indexes))
			for i, index := range indexes {
				fields[i] = v.FieldByIndex(index)
			}
			return c.value(fields)
		}}, nil
	}
	source, nullIfZero := strings.CutSuffix(source, "?")
	source, omitIfNil := strings.CutSuffix(source, "!")
	name = strings.TrimSuffix(strings.TrimSuffix(name, "?"), "!")
	if !renamed {
		source = strings.ToUpper(source[:1]) + source[1:]
		if base, ok := strings.CutSuffix(source, "Id"); ok {
			source = base + "ID"
		}
	}
	f, ok := t.FieldByName(source)
	if !ok {
		return member[func(reflect.Value) any]{}, fmt.Errorf("%s has no field %s", t.Name(), source)
	}
	index := f.Index
	read := func(v reflect.Value) reflect.Value { return v.FieldByIndex(index) }
	var value func(reflect.Value) any
	switch {
	case f.Type == reflect.TypeFor[time.Time]():
		value = func(v reflect.Value) any { return formatTime(read(v).Interface().(time.Time)) }
	case f.Type == reflect.TypeFor[*time.Time]():
		value = func(v reflect.Value) any { return formatTimePtr(read(v).Interface().(*time.Time)) }
	case omitIfNil:
		if f.Type.Kind() != reflect.Pointer {
			return member[func(reflect.Value) any]{}, fmt.Errorf("%s! needs a pointer field", source)
		}
		value = func(v reflect.Value) any {
			if fv := read(v); !fv.IsNil() {
				return fv.Elem().Interface()
			}
			return omitted{}
		}
	case nullIfZero:
		value = func(v reflect.Value) any {
			if fv := read(v); !fv.IsZero() {
				return fv.Interface()
			}
			return nil
		}
	default:
		value = func(v reflect.Value) any { return read(v).Interface() }
	}
	return member[func(reflect.Value) any]{name, value}, nil
}

// of is x in the shape.
func (s shape[T]) of(x *T) object {
	v := reflect.ValueOf(x).Elem()
	o := make(object, len(s))
	for i, m := range s {
		o[i] = member[any]{m.name, m.value(v)}
	}
	return o
}

// listJSON makes a list's JSON: a shape, or a shapeFunc.
type listJSON[T any] interface{ list(xs []*T) []object }

// shapeFunc is a list's JSON made by a function of each row.
type shapeFunc[T any] func(*T) object

func (f shapeFunc[T]) list(xs []*T) []object {
	out := []object{}
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// list is xs in the shape: [] when there are none.
func (s shape[T]) list(xs []*T) []object { return shapeFunc[T](s.of).list(xs) }
