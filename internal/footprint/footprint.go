package footprint

import "reflect"

// mapEntryOverhead is what a map spends per entry beyond its keys and
// values (control bytes and the free slots kept at its load factor).
const mapEntryOverhead = 16

// Of returns the bytes held by v and everything it reaches through
// pointers, slices, maps, strings and interfaces, each counted once. It
// counts what the values occupy, not the allocator's rounding, so it is a
// little below what the heap holds; values shared with others (a string
// also held elsewhere) are counted as if v owned them.
func Of(v any) int64 {
	w := walker{seen: map[uintptr]struct{}{}, refs: map[reflect.Type][]int{}}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return 0
	}
	if rv.Kind() != reflect.Pointer {
		w.size += int64(rv.Type().Size())
	}
	w.walk(rv)
	return w.size
}

type walker struct {
	seen map[uintptr]struct{} // the addresses of the memory counted
	size int64
	refs map[reflect.Type][]int // by struct type: the fields that may reach memory
}

// refFields returns the fields of struct type t that may reach memory
// beyond their own bytes: the others need no walk.
func (w *walker) refFields(t reflect.Type) []int {
	if f, ok := w.refs[t]; ok {
		return f
	}
	var f []int
	for i := range t.NumField() {
		if reaches(t.Field(i).Type) {
			f = append(f, i)
		}
	}
	w.refs[t] = f
	return f
}

// reaches reports whether a value of type t may reach memory beyond its
// own bytes.
func reaches(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.String, reflect.Slice, reflect.Map:
		return true
	case reflect.Array:
		return t.Len() > 0 && reaches(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if reaches(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// first reports whether the memory at p is met for the first time. Models
// hold no pointers into the middle of what they hold, so an address
// stands for one allocation.
func (w *walker) first(p uintptr) bool {
	if _, ok := w.seen[p]; ok || p == 0 {
		return false
	}
	w.seen[p] = struct{}{}
	return true
}

// walk adds what v reaches beyond its own bytes (counted by its holder).
func (w *walker) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || !w.first(v.Pointer()) {
			return
		}
		w.size += int64(v.Type().Elem().Size())
		w.walk(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() != reflect.Pointer {
			w.size += int64(e.Type().Size()) // boxed
		}
		w.walk(e)
	case reflect.String:
		w.size += int64(v.Len())
	case reflect.Struct:
		for _, i := range w.refFields(v.Type()) {
			w.walk(v.Field(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	case reflect.Slice:
		if v.IsNil() || !w.first(v.Pointer()) {
			return
		}
		w.size += int64(v.Cap()) * int64(v.Type().Elem().Size())
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || !w.first(v.Pointer()) {
			return
		}
		t := v.Type()
		w.size += int64(v.Len()) * int64(t.Key().Size()+t.Elem().Size()+mapEntryOverhead)
		for it := v.MapRange(); it.Next(); {
			w.walk(it.Key())
			w.walk(it.Value())
		}
	}
}
