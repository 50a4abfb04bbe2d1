package rest

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Query parameters. The public query types declare the REST parameter of
// each field in a tag (see persistence/filters.go): bindQuery sets the
// fields from the parameters given.

// bindQuery sets the fields of *query from the parameters of q that their
// key tags name (key "param", or "runtimeParam" where a resource names them
// otherwise). A tag "a=x|b=y" names boolean parameters: the first true one
// sets the field to its value. A malformed value is a 400 naming the
// parameter.
func bindQuery(q url.Values, query any, key string) error {
	v := reflect.ValueOf(query).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		name, ok := f.Tag.Lookup(key)
		if !ok || f.Anonymous {
			continue
		}
		if err := setParam(q, name, v.FieldByIndex(f.Index)); err != nil {
			return err
		}
	}
	return nil
}

func setParam(q url.Values, name string, dst reflect.Value) error {
	if strings.Contains(name, "=") {
		for _, choice := range strings.Split(name, "|") {
			flag, value, _ := strings.Cut(choice, "=")
			var on bool
			if err := setParam(q, flag, reflect.ValueOf(&on).Elem()); err != nil {
				return err
			}
			if on {
				dst.SetString(value)
				return nil
			}
		}
		return nil
	}
	s := q.Get(name)
	if s == "" {
		return nil
	}
	switch dst.Interface().(type) {
	case string:
		dst.SetString(s)
	case bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return badRequest("query parameter %s: %q is not a boolean", name, s)
		}
		dst.SetBool(b)
	case *time.Time:
		t, err := parseTime(s)
		if err != nil {
			return badRequest("%s: %v", name, err)
		}
		dst.Set(reflect.ValueOf(&t))
	case *int, *int64:
		n, err := strconv.ParseInt(s, 10, dst.Type().Elem().Bits())
		if err != nil {
			return badRequest("%s: %q is not an integer", name, s)
		}
		p := reflect.New(dst.Type().Elem())
		p.Elem().SetInt(n)
		dst.Set(p)
	default:
		panic("rest: no parameter of type " + dst.Type().String())
	}
	return nil
}
