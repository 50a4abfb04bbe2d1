package timer

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Cycle is a repeating timer: an ISO 8601 repeating interval ("R3/PT10S",
// "R/PT1H", "R2/2026-01-01T00:00:00Z/PT5M", "R3/PT10S/2026-01-01T00:00:00Z")
// or a Quartz cron expression with seconds ("0 0/5 * * * ?"). See the
// package documentation for its fire times and how a job stores it. The zero
// Cycle never fires.
type Cycle struct {
	cron  *cronExpr // set for a cron expression; the fields below are unused
	reps  int       // fire times left; -1: unbounded
	every Duration
	form  cycleForm
	start time.Time // fromStart: the first fire time
	end   time.Time // fromEnd: the last fire time
	loc   *time.Location
	text  string // the repeating interval as written (anchored: with its start)
}

// cycleForm tells where a repeating interval's fire times are tied to.
type cycleForm int

const (
	fromCreation cycleForm = iota // Rn/P: P after the timer is created (see Anchor)
	fromStart                     // Rn/S/P and Rn/S/E: S+kP, 0 ≤ k ≤ n
	fromEnd                       // Rn/P/E: E-kP, 0 ≤ k ≤ n
)

// anchorLayout writes the start date Anchor puts into a cycle: Camunda's
// "yyyy-MM-dd'T'HH:mm:ss", without zone (read back in the cycle's location).
const anchorLayout = "2006-01-02T15:04:05"

// maxSteps bounds walking a calendar interval one step at a time (months,
// years, or days where clocks change): 100 000 days are 273 years, 100 000
// months 8 333 years. A fire time further from the start or end date than
// that counts as none.
const maxSteps = 100_000

// ParseCycle reads a time cycle. Dates without zone inside it, and the
// calendar arithmetic of the cycle, use UTC; see ParseCycleIn.
func ParseCycle(s string) (Cycle, error) { return ParseCycleIn(s, time.UTC) }

// ParseCycleIn reads a time cycle whose dates without zone, calendar
// arithmetic (days and months) and cron expression use loc (nil: UTC).
// Surrounding white space is ignored.
func ParseCycleIn(s string, loc *time.Location) (Cycle, error) {
	if loc == nil {
		loc = time.UTC
	}
	text := strings.TrimSpace(s)
	if text == "" {
		return Cycle{}, syntaxErr("cycle", s, "empty")
	}
	if text[0] != 'R' {
		c, reason := parseCron(text)
		if reason != "" {
			return Cycle{}, syntaxErr("cycle", s, "neither a repeating interval (R…/…) nor a cron expression: %s", reason)
		}
		return Cycle{cron: c, loc: loc}, nil
	}
	c, reason := parseRepeat(text, loc)
	if reason != "" {
		return Cycle{}, syntaxErr("cycle", s, "%s", reason)
	}
	return c, nil
}

// parseRepeat reads R[n]/P, R[n]/start/P, R[n]/P/end and R[n]/start/end.
func parseRepeat(s string, loc *time.Location) (Cycle, string) {
	c := Cycle{loc: loc, text: s}
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return c, "expected R[n]/interval, R[n]/start/interval or R[n]/interval/end"
	}
	reps, reason := parseReps(parts[0])
	if reason != "" {
		return c, reason
	}
	c.reps = reps
	// Which part is the interval decides the form, as in Camunda.
	var startText, endText, everyText string
	hasStart, hasEnd, hasEvery := false, false, true
	switch {
	case len(parts) == 2:
		everyText = parts[1]
	case strings.HasPrefix(parts[1], "P"):
		everyText, endText, hasEnd = parts[1], parts[2], true
	case strings.HasPrefix(parts[2], "P"):
		startText, everyText, hasStart = parts[1], parts[2], true
	default:
		startText, endText, hasStart, hasEnd, hasEvery = parts[1], parts[2], true, true, false
	}
	var err string
	if hasStart {
		c.form = fromStart
		if c.start, err = parseDate(startText, loc); err != "" {
			return c, "start " + strconv.Quote(startText) + ": " + err
		}
	}
	if hasEnd {
		c.form = fromEnd
		if c.end, err = parseDate(endText, loc); err != "" {
			return c, "end " + strconv.Quote(endText) + ": " + err
		}
	}
	if hasEvery {
		if c.every, err = parseDuration(everyText); err != "" {
			return c, "interval " + strconv.Quote(everyText) + ": " + err
		}
	} else {
		// start/end: the interval is the time between them, as in Camunda.
		if !c.end.After(c.start) {
			return c, "the end must come after the start"
		}
		span := c.end.Sub(c.start)
		if span == math.MaxInt64 {
			return c, "the start and the end are more than 290 years apart"
		}
		c.every = Duration{
			hours:   int(span / time.Hour),
			minutes: int(span % time.Hour / time.Minute),
			seconds: int(span % time.Minute / time.Second),
			millis:  int(span % time.Second / time.Millisecond),
		}
		c.form, c.end = fromStart, time.Time{}
	}
	if c.every.isZero() {
		return c, "the interval must be longer than zero"
	}
	return c, ""
}

// parseReps reads "R" (unbounded) or "Rn".
func parseReps(s string) (int, string) {
	if s == "R" {
		return -1, ""
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || !allDigits(s[1:]) {
		return 0, "repetitions " + strconv.Quote(s) + ": expected R or R followed by a number"
	}
	if n > math.MaxInt32 {
		return 0, "repetitions " + strconv.Quote(s) + ": too many"
	}
	return n, ""
}

func (c Cycle) location() *time.Location {
	if c.loc == nil {
		return time.UTC
	}
	return c.loc
}

// repeating reports whether c is a repeating interval with fire times left.
func (c Cycle) repeating() bool { return c.cron == nil && c.reps != 0 && !c.every.isZero() }

// Anchor returns c as a timer created at now stores it, as Camunda does: a
// repeating interval without start or end date gets now (to the second) as
// its start date, "R3/PT10S" becoming "R3/2026-01-01T10:00:00/PT10S", whose
// fire times now+P, ..., now+nP are those of the cycle created at now; other
// cycles come back unchanged.
func (c Cycle) Anchor(now time.Time) Cycle {
	if c.repeating() && c.form == fromCreation {
		c.form, c.start = fromStart, now.In(c.location()).Truncate(time.Second)
		slash := strings.IndexByte(c.text, '/')
		c.text = c.text[:slash+1] + c.start.Format(anchorLayout) + c.text[slash:]
	}
	return c
}

// First returns the first due date of the cycle for a timer created at now:
// for Rn/P, now+P; with a start date, the first fire time after now; with an
// end date, the first at or after now; for cron, the first matching second
// after now. It returns the zero time when the cycle has no fire time left.
func (c Cycle) First(now time.Time) time.Time {
	now = now.In(c.location())
	var t time.Time
	switch {
	case c.cron != nil:
		t, _ = c.cron.next(now)
	case !c.repeating():
	case c.form == fromStart:
		t, _ = c.firstFromStart(now, true)
	case c.form == fromEnd:
		t, _ = c.firstFromEnd(now, false)
	default:
		t = c.every.AddTo(now)
	}
	return t
}

// Next returns the due date after a run at prev, and false when the cycle
// has no fire time left after it. With a start or end date (an anchored
// cycle, as stored on a job) that is the first fire time after prev; for
// cron, the first matching second after prev. A repeating interval without
// dates (stored so by SetJobRepeat) counts from each run, as in Camunda: it
// gives prev+P, and its count never ends it. Pass the current time to skip
// runs missed while no job executor ran, as Camunda does.
func (c Cycle) Next(prev time.Time) (time.Time, bool) {
	prev = prev.In(c.location())
	switch {
	case c.cron != nil:
		return c.cron.next(prev)
	case !c.repeating():
		return time.Time{}, false
	case c.form == fromStart:
		return c.firstFromStart(prev, true)
	case c.form == fromEnd:
		return c.firstFromEnd(prev, true)
	}
	return c.every.AddTo(prev), true
}

// String returns the notation to store: a repeating interval as written
// ("R3/PT10S", "R/PT1H", "R2/2026-01-01T00:00:20/PT10S" after Anchor,
// "R3/PT10S/2026-01-01T00:00:00Z"), a cron expression with single spaces.
// Parsing it with the same location gives the same cycle.
func (c Cycle) String() string {
	if c.cron != nil {
		return c.cron.text
	}
	if c.every.isZero() {
		return ""
	}
	return c.text
}

// firstFromStart returns the first fire time start+k·P (0 ≤ k ≤ reps, as
// Camunda's DurationHelper counts) at or after t, or strictly after t.
func (c Cycle) firstFromStart(t time.Time, strict bool) (time.Time, bool) {
	cur := c.start
	if !before(cur, t, strict) {
		return cur, true
	}
	if e := c.fixedStep(cur); e != nil {
		diff := nanosBetween(cur, t) // > 0, or ≥ 0 when strict
		k, rem := new(big.Int).QuoRem(diff, e, new(big.Int))
		if strict || rem.Sign() != 0 {
			k.Add(k, big.NewInt(1))
		}
		if c.reps >= 0 && k.Cmp(big.NewInt(int64(c.reps))) > 0 {
			return time.Time{}, false
		}
		return addNanos(cur, k.Mul(k, e)), true
	}
	if c.every.tooFar(cur, t) {
		return time.Time{}, false
	}
	for k := 1; ; k++ {
		if (c.reps >= 0 && k > c.reps) || k > maxSteps {
			return time.Time{}, false
		}
		if cur = c.every.AddTo(cur); !before(cur, t, strict) {
			return cur, true
		}
	}
}

// firstFromEnd returns the earliest fire time end-k·P (0 ≤ k ≤ reps, as
// Camunda's DurationHelper counts) at or after t, or strictly after t.
func (c Cycle) firstFromEnd(t time.Time, strict bool) (time.Time, bool) {
	cur := c.end
	if before(cur, t, strict) {
		return time.Time{}, false
	}
	if e := c.fixedStep(cur); e != nil {
		diff := nanosBetween(t, cur) // ≥ 0, or > 0 when strict
		if strict {
			diff.Sub(diff, big.NewInt(1))
		}
		k := new(big.Int).Quo(diff, e)
		if c.reps >= 0 && k.Cmp(big.NewInt(int64(c.reps))) > 0 {
			k.SetInt64(int64(c.reps))
		}
		return addNanos(cur, k.Neg(k.Mul(k, e))), true
	}
	if c.every.tooFar(t, cur) && (c.reps < 0 || c.reps > maxSteps) {
		return time.Time{}, false
	}
	for k := 1; c.reps < 0 || k <= c.reps; k++ {
		if k > maxSteps {
			return time.Time{}, false
		}
		prev := c.every.add(cur, -1)
		if before(prev, t, strict) {
			break
		}
		cur = prev
	}
	return cur, true
}

// fixedStep returns the interval in nanoseconds when every step is the same
// length: no months or years, and days only in a zone without daylight
// saving time (UTC, fixed offsets), where a day is always 24 hours. Then fire
// times are computed, not walked to. It returns nil otherwise.
func (c Cycle) fixedStep(anchor time.Time) *big.Int {
	d := c.every
	if d.years != 0 || d.months != 0 {
		return nil
	}
	if d.days != 0 {
		if from, to := anchor.ZoneBounds(); !from.IsZero() || !to.IsZero() {
			return nil
		}
	}
	e := big.NewInt(int64(d.days))
	e.Mul(e, big.NewInt(int64(24*time.Hour)))
	return e.Add(e, big.NewInt(int64(d.elapsed())))
}

// tooFar reports whether walking from a to b by d takes more than maxSteps
// steps even if every step were as long as it can be (25-hour days).
func (d Duration) tooFar(a, b time.Time) bool {
	longest := big.NewInt(int64(d.years)*366 + int64(d.months)*31 + int64(d.days))
	longest.Mul(longest, big.NewInt(int64(25*time.Hour)))
	longest.Add(longest, big.NewInt(int64(d.elapsed())))
	return nanosBetween(a, b).Cmp(longest.Mul(longest, big.NewInt(maxSteps))) > 0
}

// before reports a < b, or a ≤ b when strict (a is not a fire time after b).
func before(a, b time.Time, strict bool) bool {
	return a.Before(b) || (strict && a.Equal(b))
}

// nanosBetween returns b-a in nanoseconds, without the overflow of Sub.
func nanosBetween(a, b time.Time) *big.Int {
	d := big.NewInt(b.Unix() - a.Unix())
	d.Mul(d, big.NewInt(int64(time.Second)))
	return d.Add(d, big.NewInt(int64(b.Nanosecond()-a.Nanosecond())))
}

// addNanos returns t+n for an n that may not fit a time.Duration.
func addNanos(t time.Time, n *big.Int) time.Time {
	sec, nsec := new(big.Int).QuoRem(n, big.NewInt(int64(time.Second)), new(big.Int))
	return time.Unix(t.Unix()+sec.Int64(), int64(t.Nanosecond())+nsec.Int64()).In(t.Location())
}
