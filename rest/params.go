package rest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// Query parameters. The public query types declare the REST parameter of
// each field in a tag (see persistence/filters.go): bindQuery sets the
// fields from the parameters given, and the Page a query type embeds from
// firstResult, maxResults, sortBy and sortOrder.

// pageParams are the parameters of a query type's Page.
var pageParams = []string{"firstResult", "maxResults", "sortBy", "sortOrder"}

// queryParams are the parameters query type t binds under key (see
// bindQuery), its Page's included.
func queryParams(t reflect.Type, key string) []string {
	var names []string
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous && f.Type == reflect.TypeFor[bpmnlite.Page]() {
			names = append(names, pageParams...)
		}
		name, ok := f.Tag.Lookup(key)
		if !ok || f.Anonymous {
			continue
		}
		for _, choice := range strings.Split(name, "|") {
			flag, _, _ := strings.Cut(choice, "=")
			names = append(names, flag)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// bindQuery sets the fields of *query from the parameters of q that their
// key tags name (key "param", or "runtimeParam" where a resource names them
// otherwise). A tag "a=x|b=y" names boolean parameters: the first true one
// sets the field to its value. A malformed value is a 400 naming the
// parameter. The Page, if query has one, takes firstResult, maxResults and
// a sortBy among op's documented ones, with its sortOrder.
func bindQuery(q url.Values, query any, key string, op *camundaOp) error {
	v := reflect.ValueOf(query).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		if f.Anonymous && f.Type == reflect.TypeFor[bpmnlite.Page]() {
			if top, _ := v.Type().FieldByName("Page"); len(f.Index) > len(top.Index) {
				continue // an embedded filter's, shadowed by the outer one
			}
			if err := bindPage(q, v.FieldByIndex(f.Index).Addr().Interface().(*bpmnlite.Page), query, op); err != nil {
				return err
			}
			continue
		}
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

// bindJSONQuery sets *query (whose filter tags name parameters under key
// "param") from a query object a body member holds, as the POST form of
// list path takes it.
func bindJSONQuery(body map[string]json.RawMessage, query any, path string) error {
	op := camundaAPI[opKey("GET", path)]
	params, err := jsonQuery(body, op, queryParams(reflect.TypeOf(query).Elem(), "param"))
	if err != nil {
		return err
	}
	return bindQuery(params, query, "param", op)
}

// bindPage sets p from the paging and sorting parameters of q, as
// Camunda takes them: sortBy and sortOrder come together (several pairs
// from a POST query's sorting).
func bindPage(q url.Values, p *bpmnlite.Page, query any, op *camundaOp) error {
	for _, name := range []string{"firstResult", "maxResults"} {
		s := q.Get(name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return badRequest("query parameter %s: %q is not a number of rows", name, s)
		}
		if name == "firstResult" {
			p.FirstResult = n
		} else {
			p.MaxResults = n
		}
	}
	bys, orders := q["sortBy"], q["sortOrder"]
	if len(bys) == 0 && len(orders) == 0 {
		return nil
	}
	if len(bys) != len(orders) {
		return badRequest("Only a single sorting parameter specified. sortBy and sortOrder required")
	}
	keys := bpmnlite.SortKeys(query)
	for i, by := range bys {
		order := orders[i]
		switch {
		case by == "" || order == "":
			return badRequest("Only a single sorting parameter specified. sortBy and sortOrder required")
		case order != "asc" && order != "desc":
			return badRequest("Cannot set query parameter 'sortOrder' to value '%s'", order)
		case op != nil && !slices.Contains(op.sortBy, by):
			return badRequest("Cannot set query parameter 'sortBy' to value '%s'", by)
		case !slices.Contains(keys, by):
			return badRequest("bpmnlite does not support sortBy=%s (it sorts by %s)", by, strings.Join(keys, ", "))
		}
		p.Sort = append(p.Sort, bpmnlite.SortKey{By: by, Desc: order == "desc"})
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
	case bpmnlite.VariableConditions:
		conds, err := parseVariableConditions(name, s)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(conds))
	case []string:
		dst.Set(reflect.ValueOf(strings.Split(s, ",")))
	case bool, *bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return badRequest("query parameter %s: %q is not a boolean", name, s)
		}
		if dst.Kind() == reflect.Pointer {
			dst.Set(reflect.ValueOf(&b))
		} else {
			dst.SetBool(b)
		}
	case []bpmnlite.TimeBound:
		bounds, err := parseTimeBounds(s)
		if err != nil {
			return badRequest("%s: %v", name, err)
		}
		dst.Set(reflect.ValueOf(bounds))
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

// parseTimeBounds reads Camunda's list of time bounds, as dueDates and
// createTimes take them: gt_<date> and lt_<date>, separated by commas, or
// (a POST query's) a JSON array of {"operator": "gt", "value": <date>}.
func parseTimeBounds(s string) ([]bpmnlite.TimeBound, error) {
	parts := strings.Split(s, ",")
	if strings.HasPrefix(s, "[") {
		var conds []struct{ Operator, Value string }
		if err := json.Unmarshal([]byte(s), &conds); err != nil {
			return nil, fmt.Errorf("want an array of {\"operator\": \"gt\" or \"lt\", \"value\": <date>}: %v", err)
		}
		parts = make([]string, len(conds))
		for i, c := range conds {
			parts[i] = c.Operator + "_" + c.Value
		}
	}
	var bounds []bpmnlite.TimeBound
	for _, b := range parts {
		op, date, _ := strings.Cut(b, "_")
		if op != "gt" && op != "lt" {
			return nil, fmt.Errorf("%q: want gt_<date> or lt_<date>", b)
		}
		t, err := parseTime(date)
		if err != nil {
			return nil, err
		}
		bounds = append(bounds, bpmnlite.TimeBound{After: op == "gt", Time: t})
	}
	return bounds, nil
}
