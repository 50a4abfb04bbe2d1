package timer

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func mustCycle(t *testing.T, s string) Cycle {
	t.Helper()
	c, err := ParseCycle(s)
	if err != nil {
		t.Fatalf("ParseCycle(%q): %v", s, err)
	}
	return c
}

// run is one run of a timer job in the engine flow of the package doc: the
// job's stored cycle is parsed again and Next is asked at now; the
// follow-up job stores the same notation.
type run struct {
	now      string // when the job runs
	wantNext string // "" = no follow-up job
}

// drive creates the timer at created, checks its first due date and stored
// notation, then performs the runs.
func drive(t *testing.T, expr, created, wantFirst, wantStored string, runs []run) {
	t.Helper()
	c := mustCycle(t, expr)
	if got := c.First(at(t, created)); !got.Equal(at(t, wantFirst)) {
		t.Fatalf("%s created at %s: first due %s, want %s", expr, created, got.Format(time.RFC3339Nano), wantFirst)
	}
	stored := c.Anchor(at(t, created)).String()
	if stored != wantStored {
		t.Fatalf("%s: stored %q, want %q", expr, stored, wantStored)
	}
	for i, r := range runs {
		c := mustCycle(t, stored)
		next, ok := c.Next(at(t, r.now))
		if r.wantNext == "" {
			if ok {
				t.Fatalf("%s run %d at %s: next due %s, want none", expr, i+1, r.now, next.Format(time.RFC3339Nano))
			}
			return
		}
		if !ok || !next.Equal(at(t, r.wantNext)) {
			t.Fatalf("%s run %d at %s: next = %s, %v; want %s", expr, i+1, r.now, next.Format(time.RFC3339Nano), ok, r.wantNext)
		}
	}
}

func TestCycleRuns(t *testing.T) {
	t.Run("R3/PT10S fires three times", func(t *testing.T) {
		drive(t, "R3/PT10S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:10Z", "R3/2026-01-01T10:00:00/PT10S", []run{
			{"2026-01-01T10:00:10Z", "2026-01-01T10:00:20Z"},
			{"2026-01-01T10:00:20Z", "2026-01-01T10:00:30Z"},
			{"2026-01-01T10:00:30Z", ""},
		})
	})
	t.Run("R2/PT5M with the clock 5 s late each time", func(t *testing.T) {
		drive(t, "R2/PT5M", "2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z", "R2/2026-01-01T10:00:00/PT5M", []run{
			{"2026-01-01T10:05:05Z", "2026-01-01T10:10:00Z"},
			{"2026-01-01T10:10:05Z", ""},
		})
	})
	t.Run("R/PT1H is unbounded", func(t *testing.T) {
		drive(t, "R/PT1H", "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z", "R/2026-01-01T10:00:00/PT1H", []run{
			{"2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z"},
			{"2026-01-01T12:00:00Z", "2026-01-01T13:00:00Z"},
			{"2026-01-01T13:00:01Z", "2026-01-01T14:00:00Z"},
		})
	})
	t.Run("runs missed while down are skipped", func(t *testing.T) {
		// Due 10:00:10; the executor comes back at 10:00:35: the next run is
		// 10:00:40, and the grid's last fire time 10:00:50 still holds.
		drive(t, "R5/PT10S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:10Z", "R5/2026-01-01T10:00:00/PT10S", []run{
			{"2026-01-01T10:00:35Z", "2026-01-01T10:00:40Z"},
			{"2026-01-01T10:00:40Z", "2026-01-01T10:00:50Z"},
			{"2026-01-01T10:00:50Z", ""},
		})
	})
	t.Run("a job run before its due date is followed by one at that due date", func(t *testing.T) {
		drive(t, "R2/PT1H", "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z", "R2/2026-01-01T10:00:00/PT1H", []run{
			{"2026-01-01T10:30:00Z", "2026-01-01T11:00:00Z"},
			{"2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z"},
			{"2026-01-01T12:00:00Z", ""},
		})
	})
	t.Run("a creation time within a second anchors at the second", func(t *testing.T) {
		// Camunda writes the start to the second: the first run is P after
		// the creation, the later ones keep to the second's grid.
		drive(t, "R2/PT10S", "2026-01-01T10:00:00.5Z", "2026-01-01T10:00:10.5Z", "R2/2026-01-01T10:00:00/PT10S", []run{
			{"2026-01-01T10:00:10.5Z", "2026-01-01T10:00:20Z"},
			{"2026-01-01T10:00:20Z", ""},
		})
	})
	t.Run("a start date fires at the start and n times after it", func(t *testing.T) {
		// Camunda's DurationHelper counts start+k·P for k from 0 to n, and
		// keeps the clamped chain of months of Java's calendar.
		drive(t, "R3/2024-01-31T10:00:00Z/P1M", "2024-01-01T00:00:00Z", "2024-01-31T10:00:00Z", "R3/2024-01-31T10:00:00Z/P1M", []run{
			{"2024-01-31T10:00:00Z", "2024-02-29T10:00:00Z"},
			{"2024-02-29T10:00:00Z", "2024-03-29T10:00:00Z"},
			{"2024-03-29T10:00:00Z", "2024-04-29T10:00:00Z"},
			{"2024-04-29T10:00:00Z", ""},
		})
	})
	t.Run("end date", func(t *testing.T) {
		drive(t, "R3/PT10S/2026-01-01T00:00:00Z", "2025-12-31T23:00:00Z", "2025-12-31T23:59:30Z", "R3/PT10S/2026-01-01T00:00:00Z", []run{
			{"2025-12-31T23:59:30Z", "2025-12-31T23:59:40Z"},
			{"2025-12-31T23:59:40Z", "2025-12-31T23:59:50Z"},
			{"2025-12-31T23:59:50Z", "2026-01-01T00:00:00Z"},
			{"2026-01-01T00:00:00Z", ""},
		})
	})
	t.Run("cron keeps its notation", func(t *testing.T) {
		drive(t, "0 0/5 * * * ?", "2026-01-01T10:02:13Z", "2026-01-01T10:05:00Z", "0 0/5 * * * ?", []run{
			{"2026-01-01T10:05:00Z", "2026-01-01T10:10:00Z"},
			// an hour late: one run, then back on the grid
			{"2026-01-01T11:10:07Z", "2026-01-01T11:15:00Z"},
		})
	})
}

func TestCycleFirst(t *testing.T) {
	tests := []struct {
		expr, now, want string // want "" = no due date
	}{
		{"R3/PT10S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:10Z"},
		{"R/PT1H", "2026-01-01T10:00:00.5Z", "2026-01-01T11:00:00.5Z"},
		{"R6/P1D", "2024-02-28T08:00:00Z", "2024-02-29T08:00:00Z"},
		{"R0/PT1M", "2026-01-01T10:00:00Z", ""},
		// A start date in the future is the first due date; otherwise the
		// first start + k·interval (k ≤ n, as Camunda counts) after now.
		{"R2/1970-01-01T00:00:00/1970-01-01T00:00:10", "1970-01-01T00:00:15Z", "1970-01-01T00:00:20Z"},
		{"R2/1970-01-01T00:00:00/1970-01-01T00:00:10", "1970-01-01T00:00:30Z", ""},
		{"R2/2026-01-01T00:00:00Z/PT5M", "2025-12-31T12:00:00Z", "2026-01-01T00:00:00Z"},
		{"R2/2026-01-01T00:00:00Z/PT5M", "2026-01-01T00:00:00Z", "2026-01-01T00:05:00Z"},
		{"R5/2026-01-01T00:00:00Z/PT5M", "2026-01-01T00:07:00Z", "2026-01-01T00:10:00Z"},
		{"R2/2026-01-01T00:00:00Z/PT5M", "2026-01-01T00:07:00Z", "2026-01-01T00:10:00Z"},
		{"R2/2026-01-01T00:00:00Z/PT5M", "2026-01-01T00:10:00Z", ""},
		{"R/2000-01-01T00:00:00Z/PT1S", "2026-05-17T12:34:56.25Z", "2026-05-17T12:34:57Z"},
		{"R/2000-01-01T00:00:00Z/PT7M", "2026-05-17T12:34:56Z", "2026-05-17T12:38:00Z"},
		{"R/0001-01-01T00:00:00Z/PT0.001S", "9999-12-31T23:59:59.9985Z", "9999-12-31T23:59:59.999Z"},
		{"R/2024-01-31T00:00:00Z/P1M", "2024-03-01T00:00:00Z", "2024-03-29T00:00:00Z"},
		{"R/2026-01-01T00:00:00+01:00/PT1H", "2026-01-01T00:30:00Z", "2026-01-01T01:00:00Z"},
		// start and end: the interval is the time between them
		{"R3/2026-01-01T00:00:00Z/2026-01-01T01:30:00Z", "2026-01-01T01:00:00Z", "2026-01-01T01:30:00Z"},
		// end dates
		{"R3/PT10S/2026-01-01T00:00:00Z", "2025-12-31T23:59:45Z", "2025-12-31T23:59:50Z"},
		{"R3/PT10S/2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"},
		{"R3/PT10S/2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z", ""},
		{"R2/PT10S/1970-01-01T00:00:50Z", "1970-01-01T00:00:20Z", "1970-01-01T00:00:30Z"},
		{"R2/PT10S/1970-01-01T00:00:50Z", "1970-01-01T00:00:35Z", "1970-01-01T00:00:40Z"},
		{"R/PT1H/2026-01-01T00:00:00Z", "2025-06-01T10:30:00Z", "2025-06-01T11:00:00Z"},
		{"R/P1M/2024-03-31T00:00:00Z", "2024-01-15T00:00:00Z", "2024-01-29T00:00:00Z"},
		{"0 0 12 * * ?", "2026-01-01T12:00:00Z", "2026-01-02T12:00:00Z"},
	}
	for _, tt := range tests {
		got := mustCycle(t, tt.expr).First(at(t, tt.now))
		if tt.want == "" {
			if !got.IsZero() {
				t.Errorf("%s.First(%s) = %s, want the zero time", tt.expr, tt.now, got.Format(time.RFC3339Nano))
			}
			continue
		}
		if !got.Equal(at(t, tt.want)) {
			t.Errorf("%s.First(%s) = %s, want %s", tt.expr, tt.now, got.Format(time.RFC3339Nano), tt.want)
		}
	}
}

func TestCycleNextWithoutAnchor(t *testing.T) {
	// A cycle stored without a start date (SetJobRepeat stores what it is
	// given) counts from each run, as Camunda's does: its count never ends it.
	for _, expr := range []string{"R2/PT10S", "R1/PT10S"} {
		c := mustCycle(t, expr)
		now := at(t, "2026-01-01T10:00:10Z")
		for i := 0; i < 3; i++ {
			next, ok := c.Next(now)
			if want := now.Add(10 * time.Second); !ok || !next.Equal(want) {
				t.Fatalf("%s.Next(%s) = %s, %v; want %s", expr, now, next, ok, want)
			}
			now = next
		}
	}
}

func TestCycleInLocation(t *testing.T) {
	loc := berlin(t)
	// A day is a calendar day in the cycle's location: 12:00 stays 12:00
	// across the switch to summer time on 31 March 2024.
	c, err := ParseCycleIn("R3/2024-03-30T12:00:00/P1D", loc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "R3/2024-03-30T12:00:00/P1D"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	next, ok := c.Next(time.Date(2024, 3, 30, 12, 0, 0, 0, loc))
	if want := time.Date(2024, 3, 31, 12, 0, 0, 0, loc); !ok || !next.Equal(want) {
		t.Errorf("Next = %s, want %s", next, want)
	}
	again, err := ParseCycleIn(c.String(), loc)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := again.Next(next); !ok || !got.Equal(time.Date(2024, 4, 1, 12, 0, 0, 0, loc)) {
		t.Errorf("stored %q: Next after the second run = %s, %v; want 1 April 12:00", c, got, ok)
	}
	cron, err := ParseCycleIn("0 0 12 * * ?", loc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cron.First(at(t, "2026-01-01T12:00:00Z")), at(t, "2026-01-02T11:00:00Z"); !got.Equal(want) {
		t.Errorf("cron in Berlin: First = %s, want %s", got, want)
	}
}

func TestCycleRoundTrip(t *testing.T) {
	for _, s := range []string{
		"R3/PT10S", "R/PT1H", "R03/PT10S", "R2/2026-01-01T00:00:00Z/PT5M",
		"R2/2026-01-01T00:00:00.123456789+05:30/P1M", "R3/PT10S/2026-01-01T00:00:00Z",
		"R2/2026-01-01T00:00:00Z/2026-01-02T01:02:03.5Z", "0 0/5 * * * ?", "0  15 10 ? * mon-fri 2030",
	} {
		c := mustCycle(t, s)
		again := mustCycle(t, c.String())
		now := at(t, "2025-06-01T00:00:00Z")
		if again.String() != c.String() || !again.First(now).Equal(c.First(now)) {
			t.Errorf("%q: String() %q parses to %q with another state", s, c.String(), again.String())
		}
	}
}

func TestZeroCycle(t *testing.T) {
	var c Cycle
	now := at(t, "2026-01-01T00:00:00Z")
	if !c.First(now).IsZero() {
		t.Error("zero Cycle: First is not the zero time")
	}
	if _, ok := c.Next(now); ok {
		t.Error("zero Cycle: Next reports a due date")
	}
	if c.String() != "" || c.Anchor(now).String() != "" {
		t.Error("zero Cycle: String() is not empty")
	}
}

func TestParseCycleErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"", "empty"},
		{"R3", "expected R[n]/interval"},
		{"R3/", `interval "": empty`},
		{"R3/a/b/c", "expected R[n]/interval"},
		{"RX/PT1M", `repetitions "RX"`},
		{"R-1/PT1M", `repetitions "R-1"`},
		{"R99999999999/PT1M", "too many"},
		{"R3/PT0S", "longer than zero"},
		{"R3/P1X", `interval "P1X": unknown designator`},
		{"R3/2026-01-01T00:00:00Z/2025-01-01T00:00:00Z", "end must come after the start"},
		{"R3/0001-01-01/9999-01-01", "more than 290 years apart"},
		{"R3/2026-13-01T00:00:00Z/PT1M", `start "2026-13-01T00:00:00Z": month 13`},
		{"R3/PT10S/tomorrow", `end "tomorrow"`},
		{"PT5M", "neither a repeating interval"},
		{"0 0 12 * * *", "one of day-of-month and day-of-week must be '?'"},
		{"0 0 12 ? * ?", "not in both"},
		{"* * * * ?", "expected 6 or 7 fields"},
		{"0 60 * * * ?", `minutes "60"`},
		{"0 0 24 * * ?", `hours "24"`},
		{"0 0 0 0 * ?", `day-of-month "0"`},
		{"0 0 0 ? 13 *", `month "13"`},
		{"0 0 0 ? * 8", `day-of-week "8"`},
		{"0 0 0 ? * FOO", `"FOO" is not 1-7 or SUN-SAT`},
		{"0 0/0 * * * ?", "step must be a number from 1 to 59"},
		{"0 0/x * * * ?", "step must be"},
		{"? 0 0 * * ?", "'?' is only allowed in day-of-month or day-of-week"},
		{"0 0 0 L-31 * ?", "L-n needs"},
		{"0 0 0 32W * ?", "nW needs"},
		{"0 0 0 ? * 6#6", "n#k needs"},
		{"0 0 0 ? * 8L", "nL needs"},
		{"0 0 0 1 1 ? 1969", `year "1969"`},
		{"0 0 0 1 1 ? 2030-2020", "range ends before it starts"},
		{"0 0 0 1,,2 * ?", `day-of-month ""`},
	}
	for _, tt := range tests {
		_, err := ParseCycle(tt.in)
		if err == nil {
			t.Errorf("ParseCycle(%q) = nil error, want %q", tt.in, tt.reason)
			continue
		}
		var se *SyntaxError
		prefix := `timer: invalid cycle "` + tt.in
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("ParseCycle(%q) error = %q, want prefix %q and %q", tt.in, err, prefix, tt.reason)
		}
	}
}

func TestCycleFarDates(t *testing.T) {
	now := at(t, "2026-05-17T12:34:56Z")
	// In UTC a day is always 24 hours, so a fire time is computed at once,
	// however far the end date.
	if got, want := mustCycle(t, "R/P1D/9999-12-31T00:00:00Z").First(now), at(t, "2026-05-18T00:00:00Z"); !got.Equal(want) {
		t.Errorf("R/P1D/9999-12-31 in UTC: First = %s, want %s", got, want)
	}
	// Where clocks change, days are walked one by one, up to maxSteps:
	// beyond that the cycle has no fire time (rather than a long walk).
	c, err := ParseCycleIn("R/P1D/9999-12-31T00:00:00", berlin(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.First(now); !got.IsZero() {
		t.Errorf("R/P1D/9999-12-31 in Berlin: First = %s, want none", got)
	}
	c, err = ParseCycleIn("R/1900-01-01T00:00:00/P1D", berlin(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.First(now), at(t, "2026-05-17T22:00:00Z"); !got.Equal(want) {
		t.Errorf("R/1900-01-01/P1D in Berlin: First = %s, want %s", got, want)
	}
}
