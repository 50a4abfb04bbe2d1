package runtime

import (
	"time"

	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// logExternalTask records an event of an external task in the external
// task log (at history level full, as Camunda writes it).
func (c *command) logExternalTask(task *persistence.ExternalTask, event string) {
	if !c.e.history(config.HistoryFull) {
		return
	}
	c.cc.Insert(persistence.ExternalTaskLogOf(newID(), task, event, c.cc.Now().UTC()))
}

// copyTime is a copy of *t (nil for nil): a log entry keeps the time the
// row had when it was written.
func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
