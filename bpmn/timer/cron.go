package timer

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cronExpr is a Quartz cron expression:
//
//	seconds minutes hours day-of-month month day-of-week [year]
//
// with *, ?, lists, ranges (wrapping, as 22-2), steps (0/5, */5, 10-40/5),
// names (JAN-DEC, SUN-SAT; day-of-week 1 = Sunday), L, L-n, LW and nW in the
// day of month, and L, nL and n#k in the day of week. Exactly one of the two
// day fields is '?', as Quartz requires. Years run from 1970 to 2099.
//
// (github.com/adhocore/gronx is not used: it numbers days of the week from
// Sunday = 0, ORs the two day fields, and reads a six-field expression with a
// four-digit last field as minutes…year.)
type cronExpr struct {
	text                     string
	sec, min, hour, month    bitset
	dom, dow, years          bitset
	byMonthDay               bool // day-of-week is '?'
	lastDay, nearestWeekday  bool // L / L-n / LW, nW / LW
	lastOffset, nearDay      int
	lastDow, nthDow, nthWeek int // nL: lastDow = n; n#k: nthDow = n, nthWeek = k
	hasYears                 bool
}

const (
	minYear = 1970
	maxYear = 2099
)

// bitset holds small non-negative numbers (0..191).
type bitset [3]uint64

func (b *bitset) set(v int) { b[v/64] |= 1 << (v % 64) }
func (b *bitset) has(v int) bool {
	return v >= 0 && v < 192 && b[v/64]&(1<<(v%64)) != 0
}

// next returns the smallest member ≥ v, or -1.
func (b *bitset) next(v int) int {
	for ; v < 192; v++ {
		if b.has(v) {
			return v
		}
	}
	return -1
}

// cronField describes one field: its range and names.
type cronField struct {
	name   string
	lo, hi int
	names  []string // names[i] stands for lo+i
	offset int      // subtracted before storing in the bitset (years)
}

var (
	fieldSec   = cronField{name: "seconds", lo: 0, hi: 59}
	fieldMin   = cronField{name: "minutes", lo: 0, hi: 59}
	fieldHour  = cronField{name: "hours", lo: 0, hi: 23}
	fieldDom   = cronField{name: "day-of-month", lo: 1, hi: 31}
	fieldMonth = cronField{name: "month", lo: 1, hi: 12, names: []string{
		"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}}
	fieldDow  = cronField{name: "day-of-week", lo: 1, hi: 7, names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}}
	fieldYear = cronField{name: "year", lo: minYear, hi: maxYear, offset: minYear}
)

// parseCron reads a Quartz cron expression; it returns a reason when s is
// not one.
func parseCron(s string) (*cronExpr, string) {
	fields := strings.Fields(strings.ToUpper(s))
	if len(fields) != 6 && len(fields) != 7 {
		return nil, fmt.Sprintf("expected 6 or 7 fields (seconds minutes hours day-of-month month day-of-week [year]), found %d", len(fields))
	}
	c := &cronExpr{text: strings.Join(fields, " ")}
	var reason string
	for _, f := range []struct {
		text  string
		field cronField
		into  *bitset
	}{
		{fields[0], fieldSec, &c.sec},
		{fields[1], fieldMin, &c.min},
		{fields[2], fieldHour, &c.hour},
		{fields[4], fieldMonth, &c.month},
	} {
		if *f.into, reason = f.field.parse(f.text); reason != "" {
			return nil, reason
		}
	}
	domText, dowText := fields[3], fields[5]
	switch {
	case domText == "?" && dowText == "?":
		return nil, "'?' may stand in day-of-month or in day-of-week, not in both"
	case domText != "?" && dowText != "?":
		return nil, "one of day-of-month and day-of-week must be '?' (Quartz does not combine them)"
	case dowText == "?":
		c.byMonthDay = true
		reason = c.parseDom(domText)
	default:
		reason = c.parseDow(dowText)
	}
	if reason != "" {
		return nil, reason
	}
	if len(fields) == 7 && fields[6] != "*" {
		c.hasYears = true
		if c.years, reason = fieldYear.parse(fields[6]); reason != "" {
			return nil, reason
		}
	}
	return c, ""
}

// parseDom reads the day-of-month field, with its special forms L, L-n, LW
// and nW, which stand alone as in Quartz.
func (c *cronExpr) parseDom(s string) string {
	switch {
	case s == "L":
		c.lastDay = true
	case s == "LW":
		c.lastDay, c.nearestWeekday = true, true
	case strings.HasPrefix(s, "L-"):
		n, err := strconv.Atoi(s[2:])
		if err != nil || n < 0 || n > 30 || !allDigits(s[2:]) {
			return fmt.Sprintf("day-of-month %q: L-n needs 0 ≤ n ≤ 30", s)
		}
		c.lastDay, c.lastOffset = true, n
	case strings.HasSuffix(s, "W"):
		n, err := strconv.Atoi(s[:len(s)-1])
		if err != nil || n < 1 || n > 31 || !allDigits(s[:len(s)-1]) {
			return fmt.Sprintf("day-of-month %q: nW needs a single day 1-31 (nearest weekday)", s)
		}
		c.nearestWeekday, c.nearDay = true, n
	default:
		var reason string
		c.dom, reason = fieldDom.parse(s)
		return reason
	}
	return ""
}

// parseDow reads the day-of-week field, with its special forms L (Saturday),
// nL and n#k, which stand alone as in Quartz.
func (c *cronExpr) parseDow(s string) string {
	switch {
	case s == "L":
		c.dow.set(7)
	case strings.HasSuffix(s, "L"):
		n, ok := fieldDow.value(s[:len(s)-1])
		if !ok {
			return fmt.Sprintf("day-of-week %q: nL needs a single day 1-7 or SUN-SAT", s)
		}
		c.lastDow = n
	case strings.Contains(s, "#"):
		day, week, _ := strings.Cut(s, "#")
		n, ok := fieldDow.value(day)
		k, err := strconv.Atoi(week)
		if !ok || err != nil || k < 1 || k > 5 || !allDigits(week) {
			return fmt.Sprintf("day-of-week %q: n#k needs a day 1-7 or SUN-SAT and 1 ≤ k ≤ 5", s)
		}
		c.nthDow, c.nthWeek = n, k
	default:
		var reason string
		c.dow, reason = fieldDow.parse(s)
		return reason
	}
	return ""
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// value reads a number or a name of the field.
func (f cronField) value(s string) (int, bool) {
	for i, n := range f.names {
		if s == n {
			return f.lo + i, true
		}
	}
	if !allDigits(s) || len(s) > 4 {
		return 0, false
	}
	v, _ := strconv.Atoi(s)
	return v, f.lo <= v && v <= f.hi
}

// parse reads a comma-separated list of *, values, ranges and steps.
func (f cronField) parse(s string) (bitset, string) {
	var set bitset
	if s == "?" {
		return set, fmt.Sprintf("'?' is only allowed in day-of-month or day-of-week, not in %s", f.name)
	}
	for _, item := range strings.Split(s, ",") {
		rng, stepText, hasStep := strings.Cut(item, "/")
		a, b := f.lo, f.hi
		if rng != "*" {
			from, to, isRange := strings.Cut(rng, "-")
			var ok bool
			if a, ok = f.value(from); !ok {
				return set, f.bad(item, from)
			}
			switch {
			case isRange:
				if b, ok = f.value(to); !ok {
					return set, f.bad(item, to)
				}
			case !hasStep:
				b = a
			}
		}
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || !allDigits(stepText) || n < 1 || n > f.hi {
				return set, fmt.Sprintf("%s %q: step must be a number from 1 to %d", f.name, item, f.hi)
			}
			step = n
		}
		span := f.hi - f.lo + 1
		if b < a {
			if f.offset != 0 {
				return set, fmt.Sprintf("%s %q: range ends before it starts", f.name, item)
			}
			b += span // wraps around, as FRI-MON or 22-2
		}
		for v := a; v <= b; v += step {
			set.set(f.lo + (v-f.lo)%span - f.offset)
		}
	}
	return set, ""
}

func (f cronField) bad(item, v string) string {
	if len(f.names) > 0 {
		return fmt.Sprintf("%s %q: %q is not %d-%d or %s-%s", f.name, item, v, f.lo, f.hi, f.names[0], f.names[len(f.names)-1])
	}
	return fmt.Sprintf("%s %q: %q is not a number from %d to %d", f.name, item, v, f.lo, f.hi)
}

// next returns the first second strictly after `after` that matches, in
// after's location, and false when none comes within 400 years.
func (c *cronExpr) next(after time.Time) (time.Time, bool) {
	loc := after.Location()
	y, mon, d := after.Date()
	h, mi, s := after.Clock()
	mo := int(mon)
	s++
	horizon := y + 400 // the Gregorian calendar repeats every 400 years
	if c.hasYears {
		horizon = min(horizon, maxYear)
	}
	// Each pass moves at least one field forward; the bound only guards
	// against a mistake turning into an endless loop.
	for range 2_000_000 {
		if s > 59 {
			s, mi = 0, mi+1
		}
		if mi > 59 {
			mi, h = 0, h+1
		}
		if h > 23 {
			h, d = 0, d+1
		}
		if d > daysIn(y, time.Month(mo)) {
			d, mo = 1, mo+1
		}
		if mo > 12 {
			mo, y = 1, y+1
		}
		if y > horizon {
			return time.Time{}, false
		}
		if c.hasYears && !c.years.has(y-minYear) {
			ny := c.years.next(max(y-minYear, 0))
			if ny < 0 {
				return time.Time{}, false
			}
			y, mo, d, h, mi, s = ny+minYear, 1, 1, 0, 0, 0
			continue
		}
		if !c.month.has(mo) {
			if nm := c.month.next(mo); nm > 0 {
				mo = nm
			} else {
				y, mo = y+1, 1
			}
			d, h, mi, s = 1, 0, 0, 0
			continue
		}
		if !c.dayMatches(y, time.Month(mo), d) {
			d, h, mi, s = d+1, 0, 0, 0
			continue
		}
		if !c.hour.has(h) {
			if nh := c.hour.next(h); nh >= 0 {
				h = nh
			} else {
				h, d = 0, d+1
			}
			mi, s = 0, 0
			continue
		}
		if !c.min.has(mi) {
			if nm := c.min.next(mi); nm >= 0 {
				mi = nm
			} else {
				mi, h = 0, h+1
			}
			s = 0
			continue
		}
		if !c.sec.has(s) {
			if ns := c.sec.next(s); ns >= 0 {
				s = ns
			} else {
				s, mi = 0, mi+1
			}
			continue
		}
		t := time.Date(y, time.Month(mo), d, h, mi, s, 0, loc)
		// Skip wall clock times that do not exist (spring forward) and the
		// second pass through a repeated hour (fall back).
		if t.Day() != d || t.Hour() != h || t.Minute() != mi || !t.After(after) {
			s++
			continue
		}
		return t, true
	}
	return time.Time{}, false
}

// dayMatches applies the day-of-month or day-of-week rule to y-m-d.
func (c *cronExpr) dayMatches(y int, m time.Month, d int) bool {
	last := daysIn(y, m)
	if c.byMonthDay {
		switch {
		case c.lastDay && c.nearestWeekday:
			return d == nearestWeekday(y, m, last)
		case c.lastDay:
			return d == last-c.lastOffset
		case c.nearestWeekday:
			return c.nearDay <= last && d == nearestWeekday(y, m, c.nearDay)
		}
		return c.dom.has(d)
	}
	wd := int(time.Date(y, m, d, 12, 0, 0, 0, time.UTC).Weekday()) + 1 // Quartz: 1 = Sunday
	switch {
	case c.lastDow != 0:
		return wd == c.lastDow && d+7 > last
	case c.nthDow != 0:
		return wd == c.nthDow && (d-1)/7+1 == c.nthWeek
	}
	return c.dow.has(wd)
}

// nearestWeekday is the weekday nearest to day n of the month, without
// leaving the month (Quartz's W).
func nearestWeekday(y int, m time.Month, n int) int {
	last := daysIn(y, m)
	switch time.Date(y, m, n, 12, 0, 0, 0, time.UTC).Weekday() {
	case time.Saturday:
		if n == 1 {
			return 3
		}
		return n - 1
	case time.Sunday:
		if n == last {
			return n - 2
		}
		return n + 1
	}
	return n
}
