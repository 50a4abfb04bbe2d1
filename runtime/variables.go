package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// encodeVariable stores the Go value v in variable row r, choosing the type
// column from v's dynamic type.
func encodeVariable(r *persistence.Variable, v any) error {
	r.Text, r.Long, r.Double, r.Time, r.Bytes = "", 0, 0, time.Time{}, nil
	switch x := v.(type) {
	case nil:
		r.Type = persistence.VarNull
	case string:
		r.Type, r.Text = persistence.VarString, x
	case bool:
		r.Type = persistence.VarBoolean
		if x {
			r.Long = 1
		}
	case int:
		r.Type, r.Long = persistence.VarLong, int64(x)
	case int8:
		r.Type, r.Long = persistence.VarLong, int64(x)
	case int16:
		r.Type, r.Long = persistence.VarLong, int64(x)
	case int32:
		r.Type, r.Long = persistence.VarLong, int64(x)
	case int64:
		r.Type, r.Long = persistence.VarLong, x
	case uint8:
		r.Type, r.Long = persistence.VarLong, int64(x)
	case uint16:
		r.Type, r.Long = persistence.VarLong, int64(x)
	case uint32:
		r.Type, r.Long = persistence.VarLong, int64(x)
	case uint:
		if uint64(x) > math.MaxInt64 {
			return fmt.Errorf("variable %q: value %d does not fit int64", r.Name, x)
		}
		r.Type, r.Long = persistence.VarLong, int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return fmt.Errorf("variable %q: value %d does not fit int64", r.Name, x)
		}
		r.Type, r.Long = persistence.VarLong, int64(x)
	case float32:
		r.Type, r.Double = persistence.VarDouble, float64(x)
	case float64:
		r.Type, r.Double = persistence.VarDouble, x
	case time.Time:
		r.Type, r.Time = persistence.VarDate, x.UTC().Truncate(time.Microsecond)
	case *time.Time:
		if x == nil {
			r.Type = persistence.VarNull
		} else {
			r.Type, r.Time = persistence.VarDate, x.UTC().Truncate(time.Microsecond)
		}
	case []byte:
		r.Type, r.Bytes = persistence.VarBytes, append([]byte(nil), x...)
	case json.RawMessage:
		if !json.Valid(x) {
			return fmt.Errorf("variable %q: invalid JSON", r.Name)
		}
		r.Type, r.Text = persistence.VarJSON, string(x)
	default:
		switch reflect.ValueOf(v).Kind() {
		case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct, reflect.Pointer:
			b, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("variable %q: cannot store %T as JSON: %w", r.Name, v, err)
			}
			r.Type, r.Text = persistence.VarJSON, string(b)
		default:
			return fmt.Errorf("variable %q: unsupported type %T (use string, integers, float64, bool, time.Time, []byte, or a JSON-encodable map, slice or struct)", r.Name, v)
		}
	}
	return nil
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
	for _, v := range rows {
		if v.TaskID != "" {
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

// lookup finds the row of variable name visible from x: x's own scope first,
// then each enclosing one.
func (x *execution) lookup(name string) (*persistence.Variable, error) {
	if err := x.inst.loadVariables(); err != nil {
		return nil, err
	}
	for s := x; s != nil; s = s.parent {
		if v := x.inst.vars[s.ID][name]; v != nil {
			return v, nil
		}
	}
	return nil, nil
}

// variable returns the value of name visible from x.
func (x *execution) variable(name string) (any, bool, error) {
	r, err := x.lookup(name)
	if err != nil || r == nil {
		return nil, false, err
	}
	v, err := decodeVariable(r)
	return v, err == nil, err
}

// variables returns every variable visible from x, inner scopes hiding outer ones.
func (x *execution) variables() (map[string]any, error) {
	if err := x.inst.loadVariables(); err != nil {
		return nil, err
	}
	var chain []*execution
	for s := x; s != nil; s = s.parent {
		chain = append(chain, s)
	}
	out := make(map[string]any)
	for i := len(chain) - 1; i >= 0; i-- {
		for name, r := range x.inst.vars[chain[i].ID] {
			v, err := decodeVariable(r)
			if err != nil {
				return nil, err
			}
			out[name] = v
		}
	}
	return out, nil
}

// setVariable writes name where it is already defined in x's scope chain,
// else on the process instance, as Camunda's setVariable does.
func (x *execution) setVariable(name string, v any) error {
	r, err := x.lookup(name)
	if err != nil {
		return err
	}
	if r != nil {
		return x.inst.c.writeVariable(r, v)
	}
	return x.inst.root.setLocal(name, v)
}

// setLocal writes name in x's own scope.
func (x *execution) setLocal(name string, v any) error {
	if err := x.inst.loadVariables(); err != nil {
		return err
	}
	if r := x.inst.vars[x.ID][name]; r != nil {
		return x.inst.c.writeVariable(r, v)
	}
	if name == "" {
		return fmt.Errorf("variable name must not be empty")
	}
	r := &persistence.Variable{ID: newID(), Rev: 1, Name: name, ExecutionID: x.ID, ProcessInstanceID: x.inst.root.ID}
	if err := encodeVariable(r, v); err != nil {
		return err
	}
	m := x.inst.vars[x.ID]
	if m == nil {
		m = make(map[string]*persistence.Variable)
		x.inst.vars[x.ID] = m
	}
	m[name] = r
	x.inst.c.cc.Insert(r)
	return nil
}

func (c *command) writeVariable(r *persistence.Variable, v any) error {
	if err := encodeVariable(r, v); err != nil {
		return err
	}
	c.cc.Update(r)
	return nil
}

// removeVariable deletes name from the nearest scope that defines it.
func (x *execution) removeVariable(name string) error {
	if err := x.inst.loadVariables(); err != nil {
		return err
	}
	for s := x; s != nil; s = s.parent {
		if r := x.inst.vars[s.ID][name]; r != nil {
			delete(x.inst.vars[s.ID], name)
			x.inst.c.cc.Delete(r)
			return nil
		}
	}
	return nil
}

// deleteLocalVariables removes the variables of x's own scope.
func (c *command) deleteLocalVariables(x *execution) error {
	if x.inst.varsLoaded {
		for _, r := range x.inst.vars[x.ID] {
			c.cc.Delete(r)
		}
		delete(x.inst.vars, x.ID)
		return nil
	}
	// Not loaded: delete without reading; nothing else in this command holds them.
	c.cc.Write(persistence.DeleteVariablesOfExecution(x.ID))
	return nil
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
