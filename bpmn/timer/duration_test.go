package timer

import (
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin for the DST cases, whatever the machine has
)

// at parses an RFC 3339 time for the tables.
func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad test time %q: %v", s, err)
	}
	return v
}

func berlin(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatalf("load Europe/Berlin: %v", err)
	}
	return loc
}

func TestParseDurationString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"PT5M", "PT5M"},
		{"P1DT2H", "P1DT2H"},
		{"PT0S", "PT0S"},
		{"PT0M", "PT0S"},
		{"PT0H", "PT0S"},
		{"P1M", "P1M"},
		{"P1Y2M3DT4H5M6.5S", "P1Y2M3DT4H5M6.5S"},
		{"P2W", "P2W"},
		{"P7D", "P7D"},
		{"PT99H", "PT99H"},
		{"  PT10S\n", "PT10S"},
		{"PT05M", "PT5M"},
		{"PT1.25S", "PT1.25S"},
		{"PT0.0004S", "PT0S"}, // Java keeps milliseconds only
		{"PT90M", "PT90M"},    // no normalisation: the parts stay as written
	}
	for _, tt := range tests {
		d, err := ParseDuration(tt.in)
		if err != nil {
			t.Errorf("ParseDuration(%q): %v", tt.in, err)
			continue
		}
		if got := d.String(); got != tt.want {
			t.Errorf("ParseDuration(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseDurationErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"", "empty"},
		{"P", "no years"},
		{"PT", "'T' must be followed"},
		{"P1X", `unknown designator 'X'`},
		{"5M", "must start with 'P'"},
		{"pt5m", "must start with 'P'"},
		{"-PT5M", "negative"},
		{"P1W2D", "weeks (W) cannot be combined"},
		{"PT1.5M", "only seconds may have a fraction"},
		{"P1H", "needs a 'T'"},
		{"PT1D", "must come before 'T'"},
		{"P1M1Y", "out of order"},
		{"PT5M5M", "out of order or repeated"},
		{"P1", "has no designator"},
		{"PT1.S", "expected digits after '.'"},
		{"PT.5S", "expected a number"},
		{"P1DT", "'T' must be followed"},
		{"P1DTT1H", "second 'T'"},
		{"P9999999999Y", "too large"},
		{"PT999999999H", "more than 290 years"},
		{"${duration}", "must start with 'P'"},
		// forms rickb777/period reads but Java's Duration does not
		{"PT1,5S", "unknown designator ','"},
		{"P-1D", "expected a number"},
		{"+PT5M", "must start with 'P'"},
		{"P1.5D", "only seconds may have a fraction"},
	}
	for _, tt := range tests {
		_, err := ParseDuration(tt.in)
		if err == nil {
			t.Errorf("ParseDuration(%q) = nil error, want one containing %q", tt.in, tt.reason)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) || se.Kind != "duration" || se.Input != tt.in {
			t.Errorf("ParseDuration(%q) error %#v is not a duration *SyntaxError for the input", tt.in, err)
		}
		prefix := `timer: invalid duration "` + tt.in
		if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("ParseDuration(%q) error = %q, want prefix %q and %q", tt.in, err, prefix, tt.reason)
		}
	}
}

func TestDurationAddTo(t *testing.T) {
	tests := []struct {
		name, dur, from, want string
	}{
		{"minutes", "PT5M", "2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z"},
		{"day and hours", "P1DT2H", "2026-01-01T10:00:00Z", "2026-01-02T12:00:00Z"},
		{"zero", "PT0S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z"},
		{"fraction", "PT6.5S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:06.5Z"},
		{"all parts", "P1Y2M3DT4H5M6.5S", "2026-01-01T00:00:00Z", "2027-03-04T04:05:06.5Z"},
		{"weeks", "P2W", "2026-01-01T10:00:00Z", "2026-01-15T10:00:00Z"},
		// Java clamps to the end of the month; Go's AddDate would give 2 March.
		{"31 Jan + P1M in a leap year", "P1M", "2024-01-31T10:00:00Z", "2024-02-29T10:00:00Z"},
		{"31 Jan + P1M", "P1M", "2023-01-31T10:00:00Z", "2023-02-28T10:00:00Z"},
		{"31 Mar + P1M", "P1M", "2024-03-31T10:00:00Z", "2024-04-30T10:00:00Z"},
		{"31 Dec + P2M", "P2M", "2024-12-31T10:00:00Z", "2025-02-28T10:00:00Z"},
		{"29 Feb + P1Y", "P1Y", "2024-02-29T10:00:00Z", "2025-02-28T10:00:00Z"},
		// Fields are added one after the other: +1Y clamps to 28 Feb first.
		{"29 Feb + P1Y1M", "P1Y1M", "2024-02-29T10:00:00Z", "2025-03-28T10:00:00Z"},
		{"31 Jan + P1M1D", "P1M1D", "2024-01-31T10:00:00Z", "2024-03-01T10:00:00Z"},
		{"big month count", "P25M", "2024-01-31T00:00:00Z", "2026-02-28T00:00:00Z"},
		{"offset kept", "P1M", "2024-01-31T10:00:00+05:30", "2024-02-29T10:00:00+05:30"},
		// Fields beyond int16 (rickb777/date v1's period overflowed them).
		{"5000 seconds", "PT5000S", "2026-01-01T00:00:00Z", "2026-01-01T01:23:20Z"},
		{"a year of hours", "PT8760H", "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"},
		{"100000 days", "P100000D", "2000-01-01T00:00:00Z", "2273-10-16T00:00:00Z"},
		{"fraction beyond millis dropped", "PT1.2349S", "2026-01-01T00:00:00Z", "2026-01-01T00:00:01.234Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDuration(tt.dur)
			if err != nil {
				t.Fatal(err)
			}
			got, want := d.AddTo(at(t, tt.from)), at(t, tt.want)
			if !got.Equal(want) {
				t.Errorf("%s + %s = %s, want %s", tt.from, tt.dur, got.Format(time.RFC3339Nano), tt.want)
			}
		})
	}
}

func TestDurationAddToAcrossDST(t *testing.T) {
	loc := berlin(t)
	// Clocks in Berlin go from 02:00 to 03:00 on 31 March 2024.
	from := time.Date(2024, 3, 30, 12, 0, 0, 0, loc)
	tests := []struct {
		dur  string
		want time.Time
	}{
		{"P1D", time.Date(2024, 3, 31, 12, 0, 0, 0, loc)},   // calendar day: same wall clock, 23 h later
		{"PT24H", time.Date(2024, 3, 31, 13, 0, 0, 0, loc)}, // elapsed time
		{"P1W", time.Date(2024, 4, 6, 13, 0, 0, 0, loc)},    // weeks are 7×24 h in Camunda
		{"P7D", time.Date(2024, 4, 6, 12, 0, 0, 0, loc)},
	}
	for _, tt := range tests {
		d, err := ParseDuration(tt.dur)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.AddTo(from); !got.Equal(tt.want) {
			t.Errorf("%s + %s = %s, want %s", from, tt.dur, got, tt.want)
		}
	}
}

func TestZeroDuration(t *testing.T) {
	var d Duration
	now := at(t, "2026-01-01T00:00:00Z")
	if !d.AddTo(now).Equal(now) || d.String() != "PT0S" {
		t.Errorf("zero Duration: AddTo moved the time or String() = %q", d.String())
	}
}
