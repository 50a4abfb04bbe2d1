package timer

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseRetryCycle(t *testing.T) {
	tests := []struct {
		in        string
		retries   int
		intervals []string
	}{
		{"R5/PT5M", 5, []string{"PT5M"}},
		{" R3/PT1M ", 3, []string{"PT1M"}},
		{"R/PT1M", math.MaxInt32, []string{"PT1M"}}, // Camunda: Integer.MAX_VALUE
		// A list: one retry per interval, plus the first execution.
		{"PT3M, PT10M,PT8M", 4, []string{"PT3M", "PT10M", "PT8M"}},
		{"PT5M,PT20M, PT3M", 4, []string{"PT5M", "PT20M", "PT3M"}},
		{"PT8M ", 2, []string{"PT8M"}},
	}
	for _, tt := range tests {
		r, err := ParseRetryCycle(tt.in)
		if err != nil {
			t.Errorf("ParseRetryCycle(%q): %v", tt.in, err)
			continue
		}
		var got []string
		for _, d := range r.Intervals {
			got = append(got, d.String())
		}
		if r.Retries != tt.retries || strings.Join(got, ",") != strings.Join(tt.intervals, ",") {
			t.Errorf("ParseRetryCycle(%q) = %d retries %v, want %d %v", tt.in, r.Retries, got, tt.retries, tt.intervals)
		}
	}
}

func TestParseRetryCycleErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"RASDASDAD5/PT5M", `repetitions "RASDASDAD5"`},
		{"", "empty"},
		{"R5", "expected R[n]/interval"},
		{"R5/2026-01-01T00:00:00Z/PT5M", "expected R[n]/interval"},
		{"R5/XYZ", `interval "XYZ": must start with 'P'`},
		{"PT3M,,PT5M", `interval 2 "": empty`},
		{"PT3M,", `interval 2 "": empty`},
		{"PT3M, R2/PT1M", `interval 2 "R2/PT1M"`},
		{"${retryCycle}", `interval 1 "${retryCycle}"`},
	}
	for _, tt := range tests {
		_, err := ParseRetryCycle(tt.in)
		if err == nil {
			t.Errorf("ParseRetryCycle(%q) = nil error, want %q", tt.in, tt.reason)
			continue
		}
		prefix := `timer: invalid retry cycle "` + tt.in
		if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("ParseRetryCycle(%q) error = %q, want prefix %q and %q", tt.in, err, prefix, tt.reason)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	now := at(t, "2017-01-01T10:00:00Z")
	tests := []struct {
		cycle       string
		retriesLeft int
		want        string
	}{
		{"R5/PT5M", 4, "2017-01-01T10:05:00Z"},
		{"R5/PT5M", 1, "2017-01-01T10:05:00Z"},
		{"R5/PT5M", 0, "2017-01-01T10:05:00Z"},
		// A 3-interval list starts with 4 retries: the failures leave 3, 2, 1.
		{"PT3M, PT10M,PT8M", 3, "2017-01-01T10:03:00Z"},
		{"PT3M, PT10M,PT8M", 2, "2017-01-01T10:10:00Z"},
		{"PT3M, PT10M,PT8M", 1, "2017-01-01T10:08:00Z"},
		{"PT3M, PT10M,PT8M", 0, "2017-01-01T10:08:00Z"}, // clamped: the last
		{"PT3M, PT10M,PT8M", 4, "2017-01-01T10:03:00Z"}, // retries set by hand: the first
		{"PT3M, PT10M,PT8M", -1, "2017-01-01T10:08:00Z"},
		{"PT8M", 1, "2017-01-01T10:08:00Z"},
		{"P1M", 1, "2017-02-01T10:00:00Z"},
	}
	for _, tt := range tests {
		r, err := ParseRetryCycle(tt.cycle)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Delay(now, tt.retriesLeft); !got.Equal(at(t, tt.want)) {
			t.Errorf("%q.Delay(now, %d) = %s, want %s", tt.cycle, tt.retriesLeft, got.Format(time.RFC3339), tt.want)
		}
	}
	if got := (RetryCycle{}).Delay(now, 2); !got.Equal(now) {
		t.Errorf("zero RetryCycle.Delay = %s, want now", got)
	}
}

// TestRetryIntervalsLikeCamunda replays Camunda's RetryIntervalsConfigurationTest
// testRetryIntervals: the job's retries after each failure and the due date
// of the next attempt.
func TestRetryIntervalsLikeCamunda(t *testing.T) {
	r, err := ParseRetryCycle("PT3M, PT10M,PT8M")
	if err != nil {
		t.Fatal(err)
	}
	now, retries := at(t, "2017-01-01T10:00:00Z"), r.Retries
	for i, step := range []struct {
		retries int
		due     string
	}{
		{3, "2017-01-01T10:03:00Z"},
		{2, "2017-01-01T10:13:00Z"},
		{1, "2017-01-01T10:21:00Z"},
	} {
		retries--
		now = r.Delay(now, retries)
		if retries != step.retries || !now.Equal(at(t, step.due)) {
			t.Fatalf("failure %d: %d retries due %s, want %d due %s", i+1, retries, now.Format(time.RFC3339), step.retries, step.due)
		}
	}
}
