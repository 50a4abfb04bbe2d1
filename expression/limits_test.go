package expression

import (
	"errors"
	"strings"
	"testing"
)

// A long expression is refused before it is compiled, and an error quotes
// only the start of its source.
func TestLimits(t *testing.T) {
	t.Cleanup(func() { SetLimits(Limits{}) })
	long := "${'" + strings.Repeat("x", 20000) + "'}"
	_, err := Compile(long)
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

	SetLimits(Limits{MaxLength: -1, MaxQuoted: 10})
	if _, err := Compile(long); err != nil {
		t.Fatalf("without a length limit: %v", err)
	}
	_, err = Compile("${1 +* 2 " + strings.Repeat("x", 50) + "}")
	if err == nil || !strings.Contains(err.Error(), "expression ${1 +* 2 x… (60 bytes)") {
		t.Errorf("error %v, want the first 10 characters quoted", err)
	}
	if got := Quote("${ü}"); got != "${ü}" {
		t.Errorf("a short source is quoted whole, got %q", got)
	}
}
