package dmn

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// transform converts v to typeRef as Camunda's data type transformers do:
// string, integer, long, double, boolean and date (in any case); null
// stays null, and "" and other types keep v as it is, as Camunda's
// identity transformer.
func transform(typeRef string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := fmt.Errorf("DMN-01005 Invalid value '%v' for clause with type '%s'.", v, typeRef)
	f, i, isInt, isNum := number(v)
	s, isStr := v.(string)
	switch strings.ToLower(typeRef) {
	case "string":
		if isStr {
			return s, nil
		}
		return javaString(v), nil
	case "integer", "long":
		switch {
		case isNum && isInt:
		case isNum && f == math.Trunc(f) && !math.IsInf(f, 0):
			i = int64(f)
		case isStr:
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return nil, bad
			}
			i = n
		default:
			return nil, bad
		}
		if typeRef == "integer" && (i < math.MinInt32 || i > math.MaxInt32) {
			return nil, bad
		}
		return i, nil
	case "double":
		switch {
		case isNum:
			return f, nil
		case isStr:
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, bad
			}
			return x, nil
		}
		return nil, bad
	case "boolean":
		if b, ok := v.(bool); ok {
			return b, nil
		}
		switch {
		case isStr && strings.EqualFold(s, "true"):
			return true, nil
		case isStr && strings.EqualFold(s, "false"):
			return false, nil
		}
		return nil, bad
	case "date":
		if t, ok := v.(time.Time); ok {
			return t, nil
		}
		if isStr {
			if t, err := time.ParseInLocation("2006-01-02T15:04:05", s, time.Local); err == nil {
				return t, nil
			}
		}
		return nil, bad
	}
	return v, nil
}

// javaString is String.valueOf of a value, as Java prints it.
func javaString(v any) string {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e7 {
			return strconv.FormatFloat(x, 'f', 1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return x.Format(time.RFC3339)
	}
	return fmt.Sprint(v)
}
