package persistence

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// The filters' fields declare their conditions in struct tags; one
// where-builder turns a filter value into its WHERE clause. A field's
// `where` tag is one of:
//
//	column            column = value
//	column OP         column OP value, OP one of = < > <= >=
//	column member     value is one entry of the comma-separated column
//	                  (AND further conditions may follow)
//	column in         column is one of the values (a []string field)
//	column not in     column is none of them
//	column like       column LIKE value (the caller's % and _ are wildcards)
//	column bounds     column > or < each bound (a []TimeBound field)
//	expression        an SQL condition: ? stands for the value, @now for
//	                  the time the query is judged at, {name} for a
//	                  fragment below; a bool field's expression is the
//	                  condition that holds when the field is true
//	variables         (a VariableConditions field) each condition holds
//	                  for the row itself, a variable (see varfilter.go)
//	variables FROM table alias WHERE correlation
//	                  (a VariableConditions field) for each condition, a
//	                  variable of table (variable, hist_variable, or a
//	                  {fragment} such as allVariables) that
//	                  correlation (SQL on alias and the filter's table)
//	                  picks meets it: an EXISTS subquery. Bool fields
//	                  VariableNamesIgnoreCase and VariableValuesIgnoreCase
//	                  of the filter, when true, compare names and text
//	                  values of every such condition in lower case.
//
// A field at its zero value (empty string, 0, nil, false) adds nothing.
// Times are compared in UTC, pointers are compared by what they point to.
// Its `param` tag names it in Camunda's REST API (rest reads it); a
// `name=value|...` param lists boolean parameters of which the first true
// one sets the field to its value.

// fragments are the SQL too long or too shared to repeat in a tag.
var fragments = map[string]string{
	"executionHasChild": executionHasChild,
	"jobLogCreated":     "'" + JobLogCreated + "'",
	// the key of a row's process definition
	"definitionKey": "(SELECT pd.key FROM process_definition pd WHERE pd.id = process_definition_id)",
	// the variables of running instances and those history keeps of
	// ended ones (both, with history on: the same values)
	"allVariables": "(SELECT name, type, execution_id, process_instance_id, task_id, text_value, long_value, double_value, time_value FROM variable" +
		" UNION ALL SELECT name, type, execution_id, process_instance_id, task_id, text_value, long_value, double_value, time_value FROM hist_variable WHERE state = 'CREATED')",
	// a sort key: when a definition's deployment was made
	"definitionDeployTime": "(SELECT deploy_time FROM deployment WHERE deployment.id = process_definition.deployment_id)",
	// a task's process instance and definition, to be closed by ")"
	"taskInstance":   "process_instance_id IN (SELECT pi.id FROM execution pi WHERE pi.",
	"taskDefinition": "process_definition_id IN (SELECT d.id FROM process_definition d WHERE d.",
	// a task's candidate groups or users, one entry a row, to be followed
	// by a condition on entry (see candidateEntries)
	"candidateGroupEntries": candidateEntries("candidate_groups"),
	"candidateUserEntries":  candidateEntries("candidate_users"),
}

// candidateEntries is a query of the entries of a task's comma-separated
// column, one a row: "SELECT 1 ... WHERE entry", for a condition on the
// entry to follow. It splits the list in SQL both backends run (PostgreSQL
// has SQLite's instr from migration 0014).
func candidateEntries(column string) string {
	return "WITH RECURSIVE entries(entry, rest) AS (SELECT CAST(NULL AS TEXT), task." + column + " || ','" +
		" UNION ALL SELECT substr(rest, 1, instr(rest, ',') - 1), substr(rest, instr(rest, ',') + 1) FROM entries WHERE rest <> '')" +
		" SELECT 1 FROM entries WHERE entry"
}

// condition is one field's compiled `where` tag.
type condition struct {
	name  string // the field's REST parameter, or its name
	index []int  // the field, through embedded structs
	sql   string // with ? for the value, @now for the time
	value func(reflect.Value) any
	// expand, for the variables and bounds forms, makes the SQL from the
	// field's value and the whole filter, adding its arguments with arg.
	expand func(field, filter reflect.Value, arg func(any) string) (string, error)
}

var conditionsOf sync.Map // reflect.Type: []condition

// filterConditions compiles the `where` tags of filter type t (once).
func filterConditions(t reflect.Type) []condition {
	if cs, ok := conditionsOf.Load(t); ok {
		return cs.([]condition)
	}
	var cs []condition
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("where")
		if !ok || f.Anonymous {
			continue
		}
		c, err := compileCondition(f, tag)
		if err != nil {
			panic(fmt.Sprintf("persistence: %s.%s: %v", t.Name(), f.Name, err))
		}
		cs = append(cs, c)
	}
	conditionsOf.Store(t, cs)
	return cs
}

func compileCondition(f reflect.StructField, tag string) (condition, error) {
	c := condition{name: f.Name, index: f.Index, value: plainValue}
	if param, ok := f.Tag.Lookup("param"); ok && !strings.Contains(param, "=") {
		c.name = param
	}
	words := strings.Fields(tag)
	switch {
	case f.Type == reflect.TypeFor[VariableConditions]():
		var err error
		c.expand, err = compileVariables(tag)
		return c, err
	case f.Type.Kind() == reflect.Bool:
		c.sql = tag
	case len(words) == 1:
		c.sql = tag + " = ?"
	case len(words) == 2 && words[1] == "in" && f.Type == reflect.TypeFor[[]string]():
		c.sql = words[0] + " IN (?)" // ? expands to one argument per value
	case len(words) == 3 && words[1] == "not" && words[2] == "in" && f.Type == reflect.TypeFor[[]string]():
		c.sql = words[0] + " NOT IN (?)"
	case len(words) == 2 && words[1] == "bounds" && f.Type == reflect.TypeFor[[]TimeBound]():
		c.expand = boundsOf(words[0])
	case len(words) == 2 && words[1] == "like":
		c.sql = words[0] + " LIKE ?"
	case len(words) >= 2 && words[1] == "member":
		// column member [AND more conditions]
		c.sql = "(',' || " + words[0] + " || ',') LIKE ? ESCAPE '\\'" + strings.TrimPrefix(tag, words[0]+" member")
		c.value = func(v reflect.Value) any { return "%," + escapeLike(v.String()) + ",%" }
	case len(words) == 2 && slices.Contains([]string{"=", "<", ">", "<=", ">="}, words[1]):
		c.sql = tag + " ?"
	case strings.Contains(tag, "?") || strings.Contains(tag, "@now"):
		c.sql = tag
	default:
		return c, fmt.Errorf("where %q: want a column, a column and an operator, or an expression with ?", tag)
	}
	c.sql = withFragments(c.sql)
	if strings.ContainsAny(c.sql, "{}") {
		return c, fmt.Errorf("where %q: unknown fragment", tag)
	}
	return c, nil
}

// withFragments is sql with its {name}s replaced by their fragments.
func withFragments(sql string) string {
	for name, f := range fragments {
		sql = strings.ReplaceAll(sql, "{"+name+"}", f)
	}
	return sql
}

// storableValue reports whether a string or []string field's text is
// text the database stores (StorableText).
func storableValue(v reflect.Value) bool {
	switch {
	case v.Kind() == reflect.String:
		return StorableText(v.String())
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		for i := range v.Len() {
			if !StorableText(v.Index(i).String()) {
				return false
			}
		}
	}
	return true
}

// plainValue is the argument of a field: times in UTC, pointers followed.
func plainValue(v reflect.Value) any {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() == reflect.String {
		return v.String() // unexported fields too (set by a Query method)
	}
	if t, ok := v.Interface().(time.Time); ok {
		return t.UTC()
	}
	return v.Interface()
}

// filterQuery is the query of the rows filter selects, judged at now, in
// the order given.
func filterQuery[T Entity](filter any, now time.Time, order string) Query[T] {
	// An addressable copy: unexported fields (conditions a filter's Query
	// derives from its public ones) are read through their addresses.
	v := reflect.New(reflect.TypeOf(filter)).Elem()
	v.Set(reflect.ValueOf(filter))
	var terms []string
	var args []any
	arg := func(a any) string {
		args = append(args, a)
		return fmt.Sprintf("$%d", len(args))
	}
	var badText string
	for _, c := range filterConditions(v.Type()) {
		fv := v.FieldByIndex(c.index)
		if fv.IsZero() {
			continue
		}
		if !storableValue(fv) {
			badText = c.name
		}
		if !fv.CanInterface() {
			fv = reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem()
		}
		sql := c.sql
		if c.expand != nil {
			var err error
			if sql, err = c.expand(fv, v, arg); err != nil {
				return Query[T]{err: err, filter: true}
			}
		} else if fv.Kind() == reflect.Slice { // a list: ? is one argument per value
			ps := make([]string, fv.Len())
			for i := range ps {
				ps[i] = arg(fv.Index(i).String())
			}
			sql = strings.ReplaceAll(sql, "?", strings.Join(ps, ", "))
		} else if strings.Contains(sql, "?") {
			sql = strings.ReplaceAll(sql, "?", arg(c.value(fv)))
		}
		if strings.Contains(sql, "@now") {
			sql = strings.ReplaceAll(sql, "@now", arg(now.UTC()))
		}
		terms = append(terms, sql)
	}
	conds := ""
	if len(terms) > 0 {
		conds = "WHERE " + strings.Join(terms, " AND ")
	}
	q := newQuery[T](conds, args...)
	q.conds, q.filter = conds, true
	if badText != "" { // no row has it; PostgreSQL would refuse to look
		q.err = invalidQueryError(badText + ": not text the database stores (a NUL character, or bytes that are not UTF-8)")
		return q
	}
	page, sortable, ok := pageOf(v)
	if !ok {
		q.where += " ORDER BY " + order
		return q
	}
	by, err := sortOrder(tableOf[T](), page.Sort, sortable, order)
	if err != nil {
		q.err = err
		return q
	}
	q.where += " ORDER BY " + by
	if page.MaxResults > 0 || page.FirstResult > 0 {
		limit := strconv.Itoa(math.MaxInt64) // no LIMIT ALL in SQLite
		if page.MaxResults > 0 {
			limit = strconv.Itoa(page.MaxResults)
		}
		q.where += " LIMIT " + limit + " OFFSET " + strconv.Itoa(max(page.FirstResult, 0))
	}
	return q
}

// boundsOf is the bounds form of column: each bound's operator and time.
func boundsOf(column string) func(field, _ reflect.Value, arg func(any) string) (string, error) {
	return func(field, _ reflect.Value, arg func(any) string) (string, error) {
		bounds := field.Interface().([]TimeBound)
		ps := make([]string, len(bounds))
		for i, b := range bounds {
			ps[i] = column + " " + b.operator() + " " + arg(b.Time.UTC())
		}
		return strings.Join(ps, " AND "), nil
	}
}

// TimeBound is one bound of a time column, Camunda's gt_ and lt_ forms
// of dueDates and createTimes: the column after (or before) Time,
// strictly.
type TimeBound struct {
	After bool // after Time; false: before it
	Time  time.Time
}

func (b TimeBound) operator() string {
	if b.After {
		return ">"
	}
	return "<"
}

// Page selects which rows of a list come back, and in which order. The
// filters embed it; the embedded field's `sort` tag names the keys they
// sort by (Camunda's sortBy values): a camelCase key sorts by its column
// in snake case, key=column by the column named.
type Page struct {
	FirstResult int // the rows skipped
	MaxResults  int // at most this many rows; 0: all
	// Sort orders the rows, the first key first; the filter's own order
	// breaks ties.
	Sort []SortKey
}

// SortKey is one sorting criterion of a list.
type SortKey struct {
	By   string // a key the filter's sort tag names
	Desc bool   // descending; nulls come first then, last when ascending
}

// ErrInvalidQuery is a query the filter cannot run: a sort key it does
// not know.
var ErrInvalidQuery = errors.New("invalid query")

var sortKeysOf sync.Map // reflect.Type: map[string]string, key to column

// pageOf is the Page filter v embeds and its sort keys (to columns).
func pageOf(v reflect.Value) (Page, map[string]string, bool) {
	if v.Kind() != reflect.Struct {
		return Page{}, nil, false
	}
	f, ok := v.Type().FieldByName("Page")
	if !ok || !f.Anonymous || f.Type != reflect.TypeFor[Page]() {
		return Page{}, nil, false
	}
	keys, ok := sortKeysOf.Load(v.Type())
	if !ok {
		m := map[string]string{}
		for _, k := range strings.Fields(f.Tag.Get("sort")) {
			key, col, ok := strings.Cut(k, "=")
			if !ok {
				col = snakeCase(key)
			}
			m[key] = withFragments(col)
		}
		keys, _ = sortKeysOf.LoadOrStore(v.Type(), m)
	}
	return v.FieldByIndex(f.Index).Interface().(Page), keys.(map[string]string), true
}

// SortKeys are the keys filter (a filter type's value) sorts by, to
// their columns; none when it embeds no Page.
func SortKeys(filter any) map[string]string {
	_, keys, _ := pageOf(reflect.Indirect(reflect.ValueOf(filter)))
	return keys
}

// sortOrder is the ORDER BY list of keys, then the filter's own order in
// the first key's direction (so that an index on a key and the order's
// columns serves both directions). Nulls sort as PostgreSQL sorts them
// (last ascending, first descending) on both backends; a column that is
// never NULL says nothing of them, which leaves SQLite free to use an
// index for the order.
func sortOrder(t *Table, keys []SortKey, columns map[string]string, order string) (string, error) {
	var by, cols []string
	dir := ""
	for i, k := range keys {
		col, ok := columns[k.By]
		if !ok {
			return "", fmt.Errorf("%w: cannot sort by %q (sort keys: %s)", ErrInvalidQuery, k.By, strings.Join(slices.Sorted(maps.Keys(columns)), ", "))
		}
		d, nulls := " ASC", " NULLS LAST"
		if k.Desc {
			d, nulls = " DESC", " NULLS FIRST"
		}
		if t.neverNull(col) {
			nulls = ""
		}
		if i == 0 && k.Desc {
			dir = " DESC"
		}
		by, cols = append(by, col+d+nulls), append(cols, col)
	}
	for _, col := range strings.Split(order, ",") {
		if col = strings.TrimSpace(col); !slices.Contains(cols, col) {
			by = append(by, col+dir)
		}
	}
	return strings.Join(by, ", "), nil
}

// likeEscaper makes a string match itself only in a LIKE pattern with
// ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

func escapeLike(s string) string { return likeEscaper.Replace(s) }
