package timer

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rickb777/period"
)

// SyntaxError reports a notation that cannot be read.
type SyntaxError struct {
	Kind   string // "duration", "date", "cycle", "cron expression" or "retry cycle"
	Input  string // the notation as given
	Reason string // what is wrong
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("timer: invalid %s %q: %s", e.Kind, e.Input, e.Reason)
}

func syntaxErr(kind, input, format string, args ...any) *SyntaxError {
	return &SyntaxError{Kind: kind, Input: input, Reason: fmt.Sprintf(format, args...)}
}

// maxField bounds each number in a duration, as Java reads them into ints.
const maxField = 999_999_999

// Duration is an ISO 8601 duration such as PT5M or P1DT2H. Calendar parts
// (years, months, days) are added on the calendar, the rest as elapsed time.
// The zero Duration is PT0S.
type Duration struct {
	years, months, days int
	weeks               int // only in the form PnW
	hours, minutes      int
	seconds, millis     int
}

// ParseDuration reads an ISO 8601 duration ("PT5M", "P1DT2H", "P1M",
// "P1Y2M3DT4H5M6.5S", "P2W"). Surrounding white space is ignored. Negative
// durations are rejected.
func ParseDuration(s string) (Duration, error) {
	d, reason := parseDuration(strings.TrimSpace(s))
	if reason != "" {
		return Duration{}, syntaxErr("duration", s, "%s", reason)
	}
	return d, nil
}

// parseDuration reads the XML Schema duration grammar Camunda accepts, plus
// PnW; it returns a reason when s is not one. The values are read by
// rickb777/period (decimal fields: PT5000S and PT8760H are exact); the
// grammar is checked here first because Camunda's (Java's Duration) is
// stricter than that library's: designators in order, a fraction only on
// seconds, '.' as the only decimal mark, no signs, weeks only alone.
func parseDuration(s string) (Duration, string) {
	if reason := durationGrammar(s); reason != "" {
		return Duration{}, reason
	}
	p, err := period.Parse(s)
	if err != nil {
		return Duration{}, strings.TrimPrefix(err.Error(), s+": ")
	}
	d := Duration{
		years: p.Years(), months: p.Months(), weeks: p.Weeks(), days: p.Days(),
		hours: p.Hours(), minutes: p.Minutes(),
	}
	// Java keeps milliseconds and drops the rest (Seconds() would round).
	if whole, millis, ok := p.SecondsDecimal().Trunc(3).Int64(3); ok {
		d.seconds, d.millis = int(whole), int(millis)
	}
	for _, n := range []int{d.years, d.months, d.weeks, d.days, d.hours, d.minutes, d.seconds} {
		if n > maxField {
			return Duration{}, fmt.Sprintf("%d is too large", n)
		}
	}
	if _, ok := d.elapsedChecked(); !ok {
		return d, "hours, minutes, seconds and weeks add up to more than 290 years"
	}
	return d, ""
}

// durationGrammar returns why s is not a duration in Camunda's grammar
// P…Y…M…W…D T…H…M…S, or "".
func durationGrammar(s string) string {
	switch {
	case s == "":
		return "empty"
	case s[0] == '-':
		return "negative durations are not supported"
	case s[0] != 'P':
		return "must start with 'P'"
	}
	// rank orders the designators: a designator must come after the ones
	// before it in P…Y…M…W…D T…H…M…S.
	rank, inTime, parts, weeks := 0, false, 0, false
	for i := 1; i < len(s); {
		if s[i] == 'T' {
			if inTime {
				return fmt.Sprintf("second 'T' at offset %d", i)
			}
			inTime = true
			i++
			if i == len(s) {
				return "'T' must be followed by hours, minutes or seconds"
			}
			continue
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return fmt.Sprintf("expected a number at offset %d, found %q", i, s[i])
		}
		digits, fraction := s[start:i], false
		if i < len(s) && s[i] == '.' {
			i++
			fs := i
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			if i == fs {
				return fmt.Sprintf("expected digits after '.' at offset %d", fs)
			}
			fraction = true
		}
		if i == len(s) {
			return fmt.Sprintf("number %s has no designator (Y, M, W, D, H or S)", s[start:i])
		}
		if len(strings.TrimLeft(digits, "0")) > 10 {
			return fmt.Sprintf("%s is too large", digits)
		}
		des := s[i]
		i++
		var r int
		switch {
		case des == 'Y' && !inTime:
			r = 1
		case des == 'M' && !inTime:
			r = 2
		case des == 'W' && !inTime:
			r, weeks = 3, true
		case des == 'D' && !inTime:
			r = 4
		case des == 'H' && inTime:
			r = 5
		case des == 'M' && inTime:
			r = 6
		case des == 'S' && inTime:
			r = 7
		case des == 'H' || des == 'S':
			return fmt.Sprintf("'%c' at offset %d needs a 'T' before it", des, i-1)
		case des == 'Y' || des == 'W' || des == 'D':
			return fmt.Sprintf("'%c' at offset %d must come before 'T'", des, i-1)
		default:
			return fmt.Sprintf("unknown designator %q at offset %d", des, i-1)
		}
		if r <= rank {
			return fmt.Sprintf("'%c' at offset %d is out of order or repeated (order: Y M W D T H M S)", des, i-1)
		}
		rank = r
		if fraction && des != 'S' {
			return fmt.Sprintf("only seconds may have a fraction, not '%c'", des)
		}
		parts++
	}
	if parts == 0 {
		return "no years, months, weeks, days, hours, minutes or seconds"
	}
	if weeks && parts > 1 {
		return "weeks (W) cannot be combined with other parts"
	}
	return ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// elapsedChecked returns the elapsed-time part (weeks, hours, minutes,
// seconds) and false when it does not fit a time.Duration.
func (d Duration) elapsedChecked() (time.Duration, bool) {
	var total time.Duration
	for _, p := range []struct {
		n    int
		unit time.Duration
	}{
		{d.weeks, 7 * 24 * time.Hour},
		{d.hours, time.Hour},
		{d.minutes, time.Minute},
		{d.seconds, time.Second},
		{d.millis, time.Millisecond},
	} {
		limit := (1<<63 - 1 - total) / p.unit
		if time.Duration(p.n) > limit {
			return 0, false
		}
		total += time.Duration(p.n) * p.unit
	}
	return total, true
}

// elapsed is the elapsed-time part; ParseDuration checked that it fits.
func (d Duration) elapsed() time.Duration {
	e, _ := d.elapsedChecked()
	return e
}

// isZero reports whether adding d changes nothing.
func (d Duration) isZero() bool {
	return d.years == 0 && d.months == 0 && d.days == 0 && d.elapsed() == 0
}

// AddTo returns t moved forward by d, in t's location. Months clamp to the
// end of the month as Java does: 31 January + P1M = 28/29 February.
func (d Duration) AddTo(t time.Time) time.Time { return d.add(t, 1) }

// add moves t by d (sign 1) or back by d (sign -1), field by field as
// Java's Duration.addTo(Calendar).
func (d Duration) add(t time.Time, sign int) time.Time {
	if d.years != 0 {
		t = addMonths(t, sign*d.years*12)
	}
	if d.months != 0 {
		t = addMonths(t, sign*d.months)
	}
	if d.days != 0 {
		t = t.AddDate(0, 0, sign*d.days)
	}
	return t.Add(time.Duration(sign) * d.elapsed())
}

// addMonths moves t by n months, keeping the wall clock time and clamping the
// day to the last day of the target month (Go's AddDate would roll over).
func addMonths(t time.Time, n int) time.Time {
	y, m, day := t.Date()
	total := int(m) - 1 + n
	y += floorDiv(total, 12)
	month := time.Month(total - floorDiv(total, 12)*12 + 1)
	if last := daysIn(y, month); day > last {
		day = last
	}
	h, mi, s := t.Clock()
	return time.Date(y, month, day, h, mi, s, t.Nanosecond(), t.Location())
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// String returns the ISO 8601 form, e.g. "P1DT2H"; the zero Duration is
// "PT0S". ParseDuration(d.String()) gives d back.
func (d Duration) String() string {
	var b strings.Builder
	b.WriteByte('P')
	if d.weeks != 0 {
		fmt.Fprintf(&b, "%dW", d.weeks)
		return b.String()
	}
	for _, p := range []struct {
		n int
		c byte
	}{{d.years, 'Y'}, {d.months, 'M'}, {d.days, 'D'}} {
		if p.n != 0 {
			b.WriteString(strconv.Itoa(p.n))
			b.WriteByte(p.c)
		}
	}
	if d.hours == 0 && d.minutes == 0 && d.seconds == 0 && d.millis == 0 {
		if b.Len() == 1 {
			return "PT0S"
		}
		return b.String()
	}
	b.WriteByte('T')
	if d.hours != 0 {
		fmt.Fprintf(&b, "%dH", d.hours)
	}
	if d.minutes != 0 {
		fmt.Fprintf(&b, "%dM", d.minutes)
	}
	if d.seconds != 0 || d.millis != 0 {
		b.WriteString(strconv.Itoa(d.seconds))
		if d.millis != 0 {
			b.WriteString(strings.TrimRight(fmt.Sprintf(".%03d", d.millis), "0"))
		}
		b.WriteByte('S')
	}
	return b.String()
}
