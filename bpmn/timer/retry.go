package timer

import (
	"math"
	"strings"
	"time"
)

// RetryCycle is a camunda:failedJobRetryTimeCycle: "R5/PT5M" (five retries,
// five minutes apart) or a comma-separated list of intervals
// ("PT3M, PT10M,PT8M": one interval per retry, in order).
//
// Retries is what a job starts with, as in Camunda: n for "Rn/P" (R alone:
// math.MaxInt32), and the number of intervals plus one for a list or a
// single plain duration ("PT3M, PT10M,PT8M" → 4: after the first failure the
// job has 3 retries left, due in 3, then 10, then 8 minutes).
type RetryCycle struct {
	Retries   int
	Intervals []Duration
}

// ParseRetryCycle reads a retry cycle. A broken value ("RASDASDAD5/PT5M")
// is an error; the engine then falls back to its default retries.
func ParseRetryCycle(s string) (RetryCycle, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return RetryCycle{}, syntaxErr("retry cycle", s, "empty")
	}
	items := strings.Split(text, ",")
	if len(items) == 1 && text[0] == 'R' {
		rep, after, found := strings.Cut(text, "/")
		if !found || strings.Contains(after, "/") {
			return RetryCycle{}, syntaxErr("retry cycle", s, "expected R[n]/interval or a list of intervals")
		}
		n, reason := parseReps(rep)
		if reason != "" {
			return RetryCycle{}, syntaxErr("retry cycle", s, "%s", reason)
		}
		if n < 0 {
			n = math.MaxInt32 // Camunda reads a bare R as Integer.MAX_VALUE
		}
		d, reason := parseDuration(after)
		if reason != "" {
			return RetryCycle{}, syntaxErr("retry cycle", s, "interval %q: %s", after, reason)
		}
		return RetryCycle{Retries: n, Intervals: []Duration{d}}, nil
	}
	r := RetryCycle{Retries: len(items) + 1, Intervals: make([]Duration, len(items))}
	for i, item := range items {
		item = strings.TrimSpace(item)
		d, reason := parseDuration(item)
		if reason != "" {
			return RetryCycle{}, syntaxErr("retry cycle", s, "interval %d %q: %s", i+1, item, reason)
		}
		r.Intervals[i] = d
	}
	return r, nil
}

// Delay returns the due date of the next retry when retriesLeft retries remain
// after a failure at now. "Rn/P" always waits P. A list waits its first
// interval when retriesLeft = len(Intervals) (the first failure), the second
// one at len-1, and so on; the index is clamped into the list, as Camunda
// does (more retries left than intervals, e.g. after retries were set by
// hand: the first interval; none left: the last).
func (r RetryCycle) Delay(now time.Time, retriesLeft int) time.Time {
	n := len(r.Intervals)
	if n == 0 {
		return now
	}
	i := min(max(n-max(retriesLeft, 0), 0), n-1)
	return r.Intervals[i].AddTo(now)
}
