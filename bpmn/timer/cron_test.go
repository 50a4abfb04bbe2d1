package timer

import (
	"testing"
	"time"
)

func TestCronNext(t *testing.T) {
	tests := []struct {
		expr, after, want string // want "" = never again
	}{
		{"0 0/5 * * * ?", "2026-01-01T10:02:13Z", "2026-01-01T10:05:00Z"},
		{"0 0/5 * * * ?", "2026-01-01T10:05:00Z", "2026-01-01T10:10:00Z"}, // strictly after
		{"0 0/5 * * * ?", "2026-01-01T23:55:00Z", "2026-01-02T00:00:00Z"},
		{"0/2 * * * * ?", "2026-01-01T10:00:00Z", "2026-01-01T10:00:02Z"},
		{"0/2 * * * * ?", "2026-01-01T10:00:01.9Z", "2026-01-01T10:00:02Z"},
		{"0/2 * * * * ?", "2026-01-01T10:00:59Z", "2026-01-01T10:01:00Z"},
		{"*/20 * * * * ?", "2026-01-01T10:00:40Z", "2026-01-01T10:01:00Z"},
		{"15,45 * * * * ?", "2026-01-01T10:00:15Z", "2026-01-01T10:00:45Z"},
		{"15,45 * * * * ?", "2026-01-01T10:00:45Z", "2026-01-01T10:01:15Z"},
		{"0 0 12 * * ?", "2026-01-01T12:00:00Z", "2026-01-02T12:00:00Z"},
		{"0 0 12 * * ?", "2026-12-31T12:00:00Z", "2027-01-01T12:00:00Z"},
		{"0 0/15 9-17 * * ?", "2026-01-01T17:45:00Z", "2026-01-02T09:00:00Z"},
		{"0 0 22-2 * * ?", "2026-01-01T23:30:00Z", "2026-01-02T00:00:00Z"}, // wrapping range
		{"0 0 22-2 * * ?", "2026-01-02T02:00:00Z", "2026-01-02T22:00:00Z"},
		{"0 0 12 1/10 * ?", "2026-02-21T12:00:00Z", "2026-03-01T12:00:00Z"},
		{"0 0 12 * JAN,JUL ?", "2026-01-31T12:00:00Z", "2026-07-01T12:00:00Z"},
		{"0 0 0 ? * *", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"},
		// day of week: 1 = Sunday, as Quartz; 1 January 2026 is a Thursday
		{"0 0 12 ? * 2", "2026-01-01T00:00:00Z", "2026-01-05T12:00:00Z"},
		{"0 0 12 ? * MON-FRI", "2026-01-02T12:00:00Z", "2026-01-05T12:00:00Z"},
		{"0 0 12 ? * sat-mon", "2026-01-02T12:00:00Z", "2026-01-03T12:00:00Z"},
		{"0 15 10 ? * 6L", "2026-01-01T00:00:00Z", "2026-01-30T10:15:00Z"},
		{"0 15 10 ? * 6#3", "2026-01-01T00:00:00Z", "2026-01-16T10:15:00Z"},
		{"0 15 10 ? * FRI#1", "2026-01-02T10:15:00Z", "2026-02-06T10:15:00Z"},
		{"0 0 0 ? * L", "2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z"}, // L alone: Saturday
		// day of month specials
		{"0 0 0 L * ?", "2024-02-10T00:00:00Z", "2024-02-29T00:00:00Z"},
		{"0 0 0 L-2 * ?", "2024-02-10T00:00:00Z", "2024-02-27T00:00:00Z"},
		{"0 0 0 LW * ?", "2026-05-01T00:00:00Z", "2026-05-29T00:00:00Z"},     // 31 May is a Sunday
		{"0 0 0 15W * ?", "2026-08-01T00:00:00Z", "2026-08-14T00:00:00Z"},    // 15 Aug is a Saturday
		{"0 0 0 1W * ?", "2026-07-31T00:00:00Z", "2026-08-03T00:00:00Z"},     // 1 Aug is a Saturday: not back into July
		{"0 0 0 31W * ?", "2026-04-01T00:00:00Z", "2026-05-29T00:00:00Z"},    // April has no 31st; 31 May is a Sunday
		{"0 0 0 29 2 ?", "2025-03-01T00:00:00Z", "2028-02-29T00:00:00Z"},     // leap day
		{"0 0 0 1 1 ? 2030", "2026-06-01T00:00:00Z", "2030-01-01T00:00:00Z"}, // year field
		{"0 0 0 1 1 ? 2020/5", "2026-06-01T00:00:00Z", "2030-01-01T00:00:00Z"},
		{"0 0 0 1 1 ? 2030", "2030-01-01T00:00:00Z", ""},
		{"0 0 0 30 2 ?", "2026-01-01T00:00:00Z", ""}, // 30 February never comes
	}
	for _, tt := range tests {
		c := mustCycle(t, tt.expr)
		got, ok := c.Next(at(t, tt.after))
		if tt.want == "" {
			if ok || !c.First(at(t, tt.after)).IsZero() {
				t.Errorf("%q after %s = %s, want never", tt.expr, tt.after, got.Format(time.RFC3339))
			}
			continue
		}
		if !ok || !got.Equal(at(t, tt.want)) {
			t.Errorf("%q after %s = %s (%v), want %s", tt.expr, tt.after, got.Format(time.RFC3339), ok, tt.want)
		}
	}
}

func TestCronAcrossDST(t *testing.T) {
	loc := berlin(t)
	tests := []struct {
		expr         string
		after, want  time.Time
		wantInstance string
	}{
		// 02:30 does not exist on 31 March 2024: that day is skipped.
		{"0 30 2 * * ?", time.Date(2024, 3, 30, 3, 0, 0, 0, loc), time.Date(2024, 4, 1, 2, 30, 0, 0, loc), "2024-04-01T00:30:00Z"},
		// 03:00 on 27 October 2024 comes after the first 02:30 (summer time).
		{"0 0/30 * * * ?", time.Date(2024, 10, 27, 0, 30, 0, 0, time.UTC).In(loc), time.Date(2024, 10, 27, 3, 0, 0, 0, loc), "2024-10-27T02:00:00Z"},
	}
	for _, tt := range tests {
		c, err := ParseCycleIn(tt.expr, loc)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := c.Next(tt.after)
		if !ok || !got.Equal(tt.want) || !got.Equal(at(t, tt.wantInstance)) {
			t.Errorf("%q after %s = %s, want %s", tt.expr, tt.after, got, tt.want)
		}
	}
}
