package rest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// Variable conditions of a query (variables, processVariables,
// taskVariables, variableValues): in a GET query, Camunda's
// comma-separated name_operator_value expressions, the value a string (or
// a date, when it reads as one, as Camunda's); in a POST query's body, an
// array of {"name", "operator", "value"} with typed JSON values (numbers
// compare with numbers, booleans with booleans, null with null).

var variableOperators = []string{"eq", "neq", "gt", "gteq", "lt", "lteq", "like"}

// parseVariableConditions reads parameter param's value s.
func parseVariableConditions(param, s string) (bpmnlite.VariableConditions, error) {
	var out bpmnlite.VariableConditions
	if strings.HasPrefix(strings.TrimSpace(s), "[") {
		var body []struct {
			Name     string          `json:"name"`
			Operator string          `json:"operator"`
			Value    json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal([]byte(s), &body); err != nil {
			return nil, badRequest("%s: want an array of {\"name\", \"operator\", \"value\"}: %v", param, err)
		}
		for _, c := range body {
			v, err := conditionValue(c.Value)
			if err != nil {
				return nil, badRequest("%s: variable %s: %v", param, c.Name, err)
			}
			out = append(out, bpmnlite.VariableCondition{Name: c.Name, Operator: c.Operator, Value: v})
		}
	} else {
		for _, expr := range strings.Split(s, ",") {
			triple := strings.Split(expr, "_")
			if len(triple) != 3 {
				return nil, badRequest("variable query parameter has to have format KEY_OPERATOR_VALUE.")
			}
			out = append(out, bpmnlite.VariableCondition{Name: triple[0], Operator: triple[1], Value: dateOrString(triple[2])})
		}
	}
	for _, c := range out {
		if !slices.Contains(variableOperators, c.Operator) {
			return nil, badRequest("Invalid variable comparator specified: %s", c.Operator)
		}
	}
	return out, nil
}

// conditionValue is a condition's JSON value: a string (a date when it
// reads as one), an integer or float64, a bool, or nil.
func conditionValue(raw json.RawMessage) (any, error) {
	v, err := untyped(bytes.TrimSpace(raw), false)
	if s, ok := v.(string); ok {
		return dateOrString(s), nil
	}
	return v, err
}

func dateOrString(s string) any {
	if t, err := parseTime(s); err == nil {
		return t
	}
	return s
}
