package runtime

import (
	"errors"
	"testing"
	"time"
)

// A due date change cascades to a stored cycle by moving its start date;
// a cycle without one cannot move.
func TestShiftCycle(t *testing.T) {
	got, err := shiftCycle("R3/2026-01-01T10:00:00/PT1H", 90*time.Minute)
	if err != nil || got != "R3/2026-01-01T11:30:00/PT1H" {
		t.Errorf("shift: %q %v", got, err)
	}
	for _, cycle := range []string{"0 0/5 * * * ?", "R3/PT1H/2026-01-01T10:00:00Z"} {
		if _, err := shiftCycle(cycle, time.Hour); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("shift %q: %v, want ErrInvalidArgument", cycle, err)
		}
	}
}
