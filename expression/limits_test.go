package expression

import (
	"errors"
	"strings"
	"testing"
)

// A long source is refused by the limit its engine sets, and an error
// quotes only the start of its source, as much as its engine says.
func TestLimits(t *testing.T) {
	long := "${'" + strings.Repeat("x", 20000) + "'}"
	err := CheckLength(long, 0, 0)
	var ee *Error
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "more than the limit of 10000") {
		t.Fatalf("a %d-byte expression: %v, want refused at the default limit", len(long), err)
	}
	if n := len(err.Error()); n > 400 {
		t.Errorf("the error is %d bytes long; it should quote only the start of the source", n)
	}
	if !strings.Contains(err.Error(), "… (20005 bytes)") {
		t.Errorf("error %q does not say the source was cut and how long it is", err)
	}
	if err := CheckLength(long, -1, 0); err != nil {
		t.Fatalf("without a length limit: %v", err)
	}
	if err := CheckLength(long, 30000, 0); err != nil {
		t.Fatalf("under a larger limit: %v", err)
	}
	if _, err := Compile(long); err != nil {
		t.Fatalf("Compile checks no length (engines do): %v", err)
	}
	_, err = Compile("${1 +* 2 " + strings.Repeat("x", 50) + "}")
	if !errors.As(err, &ee) {
		t.Fatalf("a syntax error: %v, want an *Error", err)
	}
	ee.MaxQuoted = 10
	if !strings.Contains(err.Error(), "expression ${1 +* 2 x… (60 bytes)") {
		t.Errorf("error %v, want the first 10 characters quoted", err)
	}
	if got := Quote("${ü}", 0); got != "${ü}" {
		t.Errorf("a short source is quoted whole, got %q", got)
	}
}
