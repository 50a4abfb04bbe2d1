package expression

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
)

// int64Of converts an integer or a whole float to int64. On failure it
// returns why, as a phrase that follows the value ("is not a whole number").
func int64Of(v reflect.Value) (int64, string) {
	switch k := v.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		return v.Int(), ""
	case isUint(k):
		if v.Uint() > math.MaxInt64 {
			return 0, "is out of the int64 range"
		}
		return int64(v.Uint()), ""
	case k == reflect.Float32 || k == reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			return 0, "is not a finite number"
		case f != math.Trunc(f):
			return 0, "is not a whole number"
		case f < -(1<<63) || f >= 1<<63: // 2^63 is exact in float64, MaxInt64 is not
			return 0, "is out of the int64 range"
		}
		return int64(f), ""
	}
	return 0, "is not a number"
}

// stringOf formats the values a string result may be: strings, times
// (RFC 3339 with as many fraction digits as needed), fmt.Stringers, numbers
// and booleans.
func stringOf(x any) (string, bool) {
	switch x := x.(type) {
	case string:
		return x, true
	case time.Time:
		return x.Format(time.RFC3339Nano), true
	case fmt.Stringer:
		return stringerString(x)
	}
	v := reflect.ValueOf(x)
	switch k := v.Kind(); {
	case k == reflect.String:
		return v.String(), true
	case k == reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case k >= reflect.Int && k <= reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case isUint(k):
		return strconv.FormatUint(v.Uint(), 10), true
	case k == reflect.Float32:
		return strconv.FormatFloat(v.Float(), 'f', -1, 32), true
	case k == reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, 64), true
	}
	return "", false
}

// stringerString calls String, which may panic (on a nil pointer, say).
func stringerString(x fmt.Stringer) (s string, ok bool) {
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	return x.String(), true
}

// text is a value's form inside text with embedded expressions: null is
// the empty string (as in JUEL), other values without a string form print
// as Go prints them.
func text(x any) string {
	if x == nil {
		return ""
	}
	if s, ok := stringOf(x); ok {
		return s
	}
	return fmt.Sprint(x)
}

func typeOf(x any) string {
	if x == nil {
		return "null"
	}
	return reflect.TypeOf(x).String()
}

// describe names a value for error messages: its type, and for short
// scalar values the value too.
func describe(x any) string {
	if x == nil {
		return "null"
	}
	v := reflect.ValueOf(x)
	switch k := v.Kind(); {
	case k == reflect.String:
		s := v.String()
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return fmt.Sprintf("%s %q", v.Type(), s)
	case k == reflect.Bool || k >= reflect.Int && k <= reflect.Float64:
		return fmt.Sprintf("%s %v", v.Type(), x)
	}
	return v.Type().String()
}
