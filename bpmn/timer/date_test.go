package timer

import (
	"strings"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	loc := berlin(t)
	tests := []struct {
		in   string
		loc  *time.Location
		want time.Time
	}{
		{"2036-11-14T11:12:22", time.UTC, time.Date(2036, 11, 14, 11, 12, 22, 0, time.UTC)},
		{"2036-11-14T11:12:22", loc, time.Date(2036, 11, 14, 11, 12, 22, 0, loc)},
		{"2036-11-14T11:12:22Z", loc, time.Date(2036, 11, 14, 11, 12, 22, 0, time.UTC)},
		{"2036-11-14T11:12:22+01:00", time.UTC, time.Date(2036, 11, 14, 10, 12, 22, 0, time.UTC)},
		{"2036-11-14T11:12:22-0530", time.UTC, time.Date(2036, 11, 14, 16, 42, 22, 0, time.UTC)},
		{"2036-11-14T11:12:22+02", time.UTC, time.Date(2036, 11, 14, 9, 12, 22, 0, time.UTC)},
		{"2036-11-14T11:12:22.123", time.UTC, time.Date(2036, 11, 14, 11, 12, 22, 123e6, time.UTC)},
		{"2036-11-14T11:12:22,5Z", time.UTC, time.Date(2036, 11, 14, 11, 12, 22, 5e8, time.UTC)},
		{"2036-11-14T11:12:22.1234567891Z", time.UTC, time.Date(2036, 11, 14, 11, 12, 22, 123456789, time.UTC)},
		{"2036-11-14T11:12", time.UTC, time.Date(2036, 11, 14, 11, 12, 0, 0, time.UTC)},
		{"2036-11-14T11Z", time.UTC, time.Date(2036, 11, 14, 11, 0, 0, 0, time.UTC)},
		{"2036-11-14", loc, time.Date(2036, 11, 14, 0, 0, 0, 0, loc)},
		{" 2024-02-29 ", nil, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		got, err := ParseDate(tt.in, tt.loc)
		if err != nil {
			t.Errorf("ParseDate(%q): %v", tt.in, err)
			continue
		}
		wantLoc := tt.loc
		if wantLoc == nil {
			wantLoc = time.UTC
		}
		if !got.Equal(tt.want) || got.Location() != wantLoc {
			t.Errorf("ParseDate(%q) = %s, want %s in %s", tt.in, got, tt.want, wantLoc)
		}
	}
}

func TestParseDateErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"", "expected a date"},
		{"14.11.2036", "expected a date"},
		{"2036-13-01", "month 13 out of range"},
		{"2023-02-29", "day 29 out of range"},
		{"2036-11-14T25:00:00", "out of range"},
		{"2036-11-14T11:60", "out of range"},
		{"2036-11-14 11:12:22", "expected 'T'"},
		{"2036-11-14T1:12:22", "two-digit hours"},
		{"2036-11-14T11:12:22+1", "zone offset"},
		{"2036-11-14T11:12:22+19:00", "out of range"},
		{"2036-11-14T11:12:22Zx", "after 'Z'"},
		{"2036-11-14T11:12:22.", "digits after the decimal mark"},
		{"2036-11-14T11:12:22 CET", "expected a zone"},
		{"${dueDate}", "expected a date"},
		{"0000-01-01T00:00:00+10:00", "outside the years 0001-9999 in UTC"},
	}
	for _, tt := range tests {
		_, err := ParseDate(tt.in, time.UTC)
		if err == nil {
			t.Errorf("ParseDate(%q) = nil error, want %q", tt.in, tt.reason)
			continue
		}
		prefix := `timer: invalid date "` + tt.in
		if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("ParseDate(%q) error = %q, want prefix %q and %q", tt.in, err, prefix, tt.reason)
		}
	}
}
