package timer

import (
	"testing"
	"time"
)

// fuzzNow is the fixed "now" the fuzz tests compute due dates from.
var fuzzNow = time.Date(2026, 5, 17, 12, 34, 56, 789, time.UTC)

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"PT5M", "P1DT2H", "PT0S", "P1M", "P1Y2M3DT4H5M6.5S", "P2W", "P1X", "-PT1S", "PT999999999H", "P1W2D", "PT.5S", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			return
		}
		again, err := ParseDuration(d.String())
		if err != nil || again != d {
			t.Fatalf("%q: String() %q reads back as %v, %v", s, d.String(), again, err)
		}
		if d.AddTo(fuzzNow).Before(fuzzNow) {
			t.Fatalf("%q moves time backwards", s)
		}
	})
}

func FuzzParseCycle(f *testing.F) {
	for _, s := range []string{
		"R3/PT10S", "R/PT1H", "R2/2026-01-01T00:00:00Z/PT5M", "R3/PT10S/2026-01-01T00:00:00Z",
		"R2/2026-01-01T00:00:00Z/2026-01-02T00:00:00Z", "R/1990-01-31T00:00:00Z/P1M",
		"0 0/5 * * * ?", "0/2 * * * * ?", "0 0 12 * * ?", "0 15 10 ? * 6L 2026-2030", "0 0 0 LW * ?",
		"0 0 0 15W * ?", "0 0 0 ? * 6#3", "0 0 22-2 * * ?", "R0/PT1M", "RASDASDAD5/PT5M", "0 0 0 30 2 ?",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCycle(s)
		if err != nil {
			return
		}
		first := c.First(fuzzNow)
		if !first.IsZero() && first.Before(fuzzNow) {
			t.Fatalf("%q: first due %s before now", s, first)
		}
		if next, ok := c.Next(fuzzNow); ok && !next.After(fuzzNow) {
			t.Fatalf("%q: next %s not after %s", s, next, fuzzNow)
		}
		again, err := ParseCycle(c.String())
		if err != nil || again.String() != c.String() || !again.First(fuzzNow).Equal(first) {
			t.Fatalf("%q: String() %q reads back as %q, %v", s, c.String(), again.String(), err)
		}
		// Anchored to the second, a cycle's fire times move less than one.
		anchored := c.Anchor(fuzzNow)
		if got := anchored.First(fuzzNow); !first.IsZero() && (got.After(first) || first.Sub(got) >= time.Second) {
			t.Fatalf("%q: anchored first due %s, want %s to the second", s, got, first)
		}
		if reread, err := ParseCycle(anchored.String()); err != nil || !reread.First(fuzzNow).Equal(anchored.First(fuzzNow)) {
			t.Fatalf("%q: anchored %q reads back as %v, %v", s, anchored.String(), reread, err)
		}
		_, _ = anchored.Next(first)
	})
}

func FuzzParseRetryCycle(f *testing.F) {
	for _, s := range []string{"R5/PT5M", "PT3M, PT10M,PT8M", "PT8M ", "R/PT1M", "RASDASDAD5/PT5M", "PT3M,,PT5M", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRetryCycle(s)
		if err != nil {
			return
		}
		if r.Retries < 1 || len(r.Intervals) == 0 {
			t.Fatalf("%q: %d retries, %d intervals", s, r.Retries, len(r.Intervals))
		}
		for _, left := range []int{-1, 0, 1, r.Retries - 1, r.Retries} {
			if r.Delay(fuzzNow, left).Before(fuzzNow) {
				t.Fatalf("%q: delay with %d left is in the past", s, left)
			}
		}
	})
}

// storedLayout writes a date in full, to check that ParseDate reads it back
// to the same instant.
const storedLayout = "2006-01-02T15:04:05.999999999Z07:00"

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2036-11-14T11:12:22", "2036-11-14T11:12:22.5+01:00", "2036-11-14", "2036-11-14T11Z", "2036-02-30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s, time.UTC)
		if err != nil {
			return
		}
		again, err := ParseDate(d.Format(storedLayout), time.UTC)
		if err != nil || !again.Equal(d) {
			t.Fatalf("%q: %s reads back as %s, %v", s, d.Format(storedLayout), again, err)
		}
	})
}
