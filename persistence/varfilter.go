package persistence

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// VariableCondition is one condition on a variable, Camunda's {name,
// operator, value} of a `variables`, `processVariables` or
// `taskVariables` query parameter.
type VariableCondition struct {
	Name string
	// Operator: eq, neq, gt, gteq, lt, lteq or like.
	Operator string
	// Value is compared with the stored value of its kind: a string with
	// String (and Xml) values (like: a LIKE pattern, matched against the
	// value's text), an integer or float64 with numbers of either kind, a
	// bool with Booleans (eq and neq only), a time.Time with Dates, nil
	// with Null (eq and neq only). neq holds for a variable of the name
	// whose value is not equal, of whatever kind.
	Value any
}

// VariableConditions are conditions that must all hold (see the
// `variables` where-form in filter.go).
type VariableConditions []VariableCondition

var variableOperators = map[string]string{"eq": "=", "neq": "<>", "gt": ">", "gteq": ">=", "lt": "<", "lteq": "<=", "like": "LIKE"}

// compileVariables compiles a `variables` where tag: "variables" alone is
// conditions on the filter's own rows (a variable table); "variables FROM
// table alias WHERE correlation" is an EXISTS subquery per condition on
// the rows of table (variable or hist_variable) the correlation picks.
func compileVariables(tag string) (func(conds, filter reflect.Value, arg func(any) string) (string, error), error) {
	prefix, from, where := "", "", ""
	if rest, ok := strings.CutPrefix(withFragments(tag), "variables FROM "); ok {
		at := strings.LastIndex(rest, " WHERE ") // the table may be a subquery with a WHERE
		if at < 0 {
			return nil, fmt.Errorf("where %q: want variables FROM table alias WHERE correlation", tag)
		}
		table, correlation := rest[:at], rest[at+len(" WHERE "):]
		words := strings.Fields(table)
		if len(words) < 2 {
			return nil, fmt.Errorf("where %q: want variables FROM table alias WHERE correlation", tag)
		}
		prefix, from, where = words[len(words)-1]+".", table, correlation
	} else if tag != "variables" {
		return nil, fmt.Errorf("where %q: want variables, or variables FROM table alias WHERE correlation", tag)
	}
	return func(conds, filter reflect.Value, arg func(any) string) (string, error) {
		namesIgnoreCase := boolField(filter, "VariableNamesIgnoreCase")
		valuesIgnoreCase := boolField(filter, "VariableValuesIgnoreCase")
		var terms []string
		for _, c := range conds.Interface().(VariableConditions) {
			value, err := valueCondition(prefix, c, valuesIgnoreCase, arg)
			if err != nil {
				return "", err
			}
			var name string
			if namesIgnoreCase {
				name = "LOWER(" + prefix + "name) = LOWER(" + arg(c.Name) + ")"
			} else {
				name = prefix + "name = " + arg(c.Name)
			}
			term := name + " AND " + value
			if from != "" {
				term = "EXISTS (SELECT 1 FROM " + from + " WHERE " + where + " AND " + term + ")"
			}
			terms = append(terms, term)
		}
		return strings.Join(terms, " AND "), nil
	}, nil
}

// boolField is the bool field name of filter, false when it has none.
func boolField(filter reflect.Value, name string) bool {
	f := filter.FieldByName(name)
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}

// valueCondition is the SQL of c's value on the variable columns of the
// row prefix names.
func valueCondition(prefix string, c VariableCondition, ignoreCase bool, arg func(any) string) (string, error) {
	op, ok := variableOperators[c.Operator]
	if !ok {
		return "", fmt.Errorf("%w: Invalid variable comparator specified: %s", ErrInvalidQuery, c.Operator)
	}
	col := func(name string) string { return prefix + name }
	var cond string
	switch v := c.Value.(type) {
	case nil:
		if op != "=" && op != "<>" {
			return "", fmt.Errorf("%w: variable %s: null cannot be compared with %s", ErrInvalidQuery, c.Name, c.Operator)
		}
		return col("type") + " " + op + " '" + VarNull + "'", nil
	case bool:
		if op != "=" && op != "<>" {
			return "", fmt.Errorf("%w: variable %s: a boolean cannot be compared with %s", ErrInvalidQuery, c.Name, c.Operator)
		}
		n := int64(0)
		if v {
			n = 1
		}
		cond = col("type") + " = '" + VarBoolean + "' AND " + col("long_value") + " = " + arg(n)
	case int, int64, float64:
		if op == "LIKE" {
			return valueCondition(prefix, VariableCondition{c.Name, c.Operator, fmt.Sprint(v)}, ignoreCase, arg)
		}
		eqOp := op
		if op == "<>" {
			eqOp = "="
		}
		var long string
		if f, isFloat := v.(float64); isFloat {
			long = "CAST(" + arg(f) + " AS DOUBLE PRECISION)"
		} else {
			long = arg(v)
		}
		cond = "(" + col("type") + " = '" + VarLong + "' AND " + col("long_value") + " " + eqOp + " " + long + " OR " +
			col("type") + " = '" + VarDouble + "' AND " + col("double_value") + " " + eqOp + " " + arg(toFloat(v)) + ")"
		if op == "<>" {
			return "NOT " + cond, nil
		}
		return cond, nil
	case time.Time:
		if op == "LIKE" {
			return "", fmt.Errorf("%w: variable %s: a date cannot be compared with like", ErrInvalidQuery, c.Name)
		}
		cond = col("type") + " = '" + VarDate + "' AND " + col("time_value") + " " + op + " " + arg(v.UTC())
		if op == "<>" {
			cond = col("type") + " = '" + VarDate + "' AND " + col("time_value") + " = " + arg(v.UTC())
		}
	case string:
		text, param := "COALESCE("+col("text_value")+", '')", arg(v) // "" is stored as NULL
		if ignoreCase {
			text, param = "LOWER("+text+")", "LOWER("+param+")"
		}
		eqOp := op
		if op == "<>" {
			eqOp = "="
		}
		cond = col("type") + " = '" + VarString + "' AND " + text + " " + eqOp + " " + param
	default:
		return "", fmt.Errorf("%w: variable %s: cannot compare with a %T", ErrInvalidQuery, c.Name, c.Value)
	}
	if op == "<>" {
		return "NOT (" + cond + ")", nil
	}
	return "(" + cond + ")", nil
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return v.(float64)
}
