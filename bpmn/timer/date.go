package timer

import (
	"fmt"
	"strings"
	"time"
)

// ParseDate reads an ISO 8601 date-time as found in BPMN files:
// "2036-11-14T11:12:22", with hours and minutes only, with a fraction of a
// second ("…:22.5"), with a zone ("Z", "+01:00", "+0100", "+01"), or a plain
// date ("2036-11-14", midnight). A value without zone is read in loc (nil:
// UTC). The result is in loc. Surrounding white space is ignored.
func ParseDate(s string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	t, reason := parseDate(strings.TrimSpace(s), loc)
	if reason != "" {
		return time.Time{}, syntaxErr("date", s, "%s", reason)
	}
	return t, nil
}

// ParseDueDate reads a due date as Camunda's due-date calendar does (timer
// dates, user task due and follow-up dates): an ISO 8601 date as ParseDate,
// or a duration ("P3D", "PT2H") counted from now.
func ParseDueDate(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if s = strings.TrimSpace(s); strings.HasPrefix(s, "P") {
		d, err := ParseDuration(s)
		if err != nil {
			return time.Time{}, err
		}
		return d.AddTo(now), nil
	}
	return ParseDate(s, loc)
}

// parseDate reads YYYY-MM-DD[THH[:MM[:SS[.fff]]][zone]] and returns a reason
// when s is not one.
func parseDate(s string, loc *time.Location) (time.Time, string) {
	p := &scanner{s: s}
	y, ok1 := p.num(4)
	ok2 := p.lit('-')
	mo, ok3 := p.num(2)
	ok4 := p.lit('-')
	d, ok5 := p.num(2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return time.Time{}, "expected a date YYYY-MM-DD, optionally followed by THH:MM:SS"
	}
	if mo < 1 || mo > 12 {
		return time.Time{}, fmt.Sprintf("month %02d out of range 01-12", mo)
	}
	if d < 1 || d > daysIn(y, time.Month(mo)) {
		return time.Time{}, fmt.Sprintf("day %02d out of range for %04d-%02d", d, y, mo)
	}
	var h, mi, sec, nsec int
	zone := loc
	if !p.done() {
		if !p.lit('T') {
			return time.Time{}, fmt.Sprintf("unexpected %q after the date, expected 'T'", p.rest())
		}
		var ok bool
		if h, ok = p.num(2); !ok {
			return time.Time{}, "expected two-digit hours after 'T'"
		}
		if p.lit(':') {
			if mi, ok = p.num(2); !ok {
				return time.Time{}, "expected two-digit minutes after ':'"
			}
			if p.lit(':') {
				if sec, ok = p.num(2); !ok {
					return time.Time{}, "expected two-digit seconds after ':'"
				}
				if p.lit('.') || p.lit(',') {
					if nsec, ok = p.fraction(); !ok {
						return time.Time{}, "expected digits after the decimal mark"
					}
				}
			}
		}
		if h > 23 || mi > 59 || sec > 59 {
			return time.Time{}, fmt.Sprintf("time %02d:%02d:%02d out of range", h, mi, sec)
		}
		if !p.done() {
			z, reason := p.zone()
			if reason != "" {
				return time.Time{}, reason
			}
			zone = z
		}
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, nsec, zone).In(loc)
	if t.Year() < 1 || t.Year() > 9999 {
		// keeps every date writable as YYYY-MM-DD in a stored cycle
		return time.Time{}, fmt.Sprintf("%s is outside the years 0001-9999 in %s", s, loc)
	}
	return t, ""
}

// scanner walks a date notation.
type scanner struct {
	s string
	i int
}

func (p *scanner) done() bool   { return p.i == len(p.s) }
func (p *scanner) rest() string { return p.s[p.i:] }

func (p *scanner) lit(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// num reads exactly n digits.
func (p *scanner) num(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(p.s[p.i : p.i+n]) {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

// fraction reads the digits of a fraction of a second as nanoseconds;
// digits beyond the ninth are dropped.
func (p *scanner) fraction() (int, bool) {
	start, ns, scale := p.i, 0, 100_000_000
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		ns += int(p.s[p.i]-'0') * scale
		scale /= 10
		p.i++
	}
	return ns, p.i > start
}

// zone reads "Z", "±HH:MM", "±HHMM" or "±HH" up to the end.
func (p *scanner) zone() (*time.Location, string) {
	if p.lit('Z') {
		if !p.done() {
			return nil, fmt.Sprintf("unexpected %q after 'Z'", p.rest())
		}
		return time.UTC, ""
	}
	sign := 1
	switch {
	case p.lit('+'):
	case p.lit('-'):
		sign = -1
	default:
		return nil, fmt.Sprintf("unexpected %q after the time, expected a zone (Z or ±HH:MM)", p.rest())
	}
	h, ok := p.num(2)
	if !ok {
		return nil, "expected a zone offset ±HH:MM"
	}
	m := 0
	if !p.done() {
		p.lit(':')
		if m, ok = p.num(2); !ok || !p.done() {
			return nil, "expected a zone offset ±HH:MM"
		}
	}
	if h > 18 || m > 59 {
		return nil, fmt.Sprintf("zone offset %02d:%02d out of range", h, m)
	}
	return time.FixedZone("", sign*(h*3600+m*60)), ""
}
