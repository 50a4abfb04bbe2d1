package runtime

import (
	"time"

	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
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

// jobDefinitionOf is the job definition type and configuration of j's log
// entries, as Camunda's: an asynchronous continuation's are
// "async-continuation" and its kind, a timer's its handler and its
// definition's configuration; a job without a definition has its
// handler type only.
func jobDefinitionOf(cc *tx.Context, j *persistence.Job) (typ, configuration string) {
	if j.JobDefinitionID == "" {
		return j.HandlerType, ""
	}
	if kind := handlerKind(j.HandlerType); kind == kindAsyncBefore || kind == kindAsyncAfter {
		return "async-continuation", kind
	}
	if jd, err := cc.Get(persistence.JobDefinitionTable, j.JobDefinitionID); err == nil {
		configuration = jd.(*persistence.JobDefinition).JobConfiguration
	}
	return j.HandlerType, configuration
}

// failureLogged is the job log entry of the failure that raised a failed
// job's incident in, written by this command: Camunda's history
// configuration of the incident. "" for other incidents.
func failureLogged(cc *tx.Context, in *persistence.Incident) string {
	if in.Type != persistence.IncidentFailedJob || in.CauseIncidentID != in.ID {
		return ""
	}
	last := ""
	for _, e := range cc.Cached(persistence.JobLogTable, func(e persistence.Entity) bool {
		l := e.(*persistence.JobLogEntry)
		return l.JobID == in.Configuration && l.Event == persistence.JobLogFailed
	}) {
		last = max(last, e.(*persistence.JobLogEntry).ID) // ids are time-ordered
	}
	return last
}
