package runtime

import (
	"context"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// CompactCountsEvery merges the rows that keep the list counts
// (persistence.CompactCounts) at each interval until ctx ends.
func (e *Core) CompactCountsEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := persistence.CompactCounts(ctx, e.db); err != nil && ctx.Err() == nil {
				e.log.Warn("compacting the list counts failed; the next round does it", "error", err)
			}
		}
	}
}
