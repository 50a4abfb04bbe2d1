package metrics

import (
	"testing"
	"time"
)

// TestExemplarGate: a bucket takes an exemplar at most once a second;
// other buckets are not held up by a busy one.
func TestExemplarGate(t *testing.T) {
	g := newExemplarGate([]float64{.001, .01})
	now := time.Unix(1000, 0)
	steps := []struct {
		v     float64
		after time.Duration
		want  bool
	}{
		{.0005, 0, true},                      // first in the ≤1 ms bucket
		{.0009, time.Millisecond, false},      // same bucket, too soon
		{.005, 0, true},                       // another bucket
		{5, 0, true},                          // the +Inf bucket
		{.001, 998 * time.Millisecond, false}, // a bound belongs to its bucket: still too soon
		{.0002, time.Second, true},            // the first bucket, a second later
	}
	for i, s := range steps {
		now = now.Add(s.after)
		if got := g.admit(s.v, now); got != s.want {
			t.Errorf("step %d: admit(%v) = %v, want %v", i, s.v, got, s.want)
		}
	}
}
