package bpmnlite

import (
	"testing"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// The public constants are written out for readable docs; they must stay
// the values stored.
func TestConstantsMatchStorage(t *testing.T) {
	pairs := []struct {
		name        string
		got, stored any
	}{
		{"SuspensionActive", SuspensionActive, persistence.Active},
		{"SuspensionSuspended", SuspensionSuspended, persistence.Suspended},
		{"StateActive", StateActive, persistence.StateActive},
		{"StateCompleted", StateCompleted, persistence.StateCompleted},
		{"StateInternallyTerminated", StateInternallyTerminated, persistence.StateDeleted},
		{"StateExternallyTerminated", StateExternallyTerminated, persistence.StateExternallyTerminated},
		{"JobTypeMessage", JobTypeMessage, persistence.JobMessage},
		{"JobTypeTimer", JobTypeTimer, persistence.JobTimer},
		{"IncidentFailedJob", IncidentFailedJob, persistence.IncidentFailedJob},
		{"IncidentFailedExternalTask", IncidentFailedExternalTask, persistence.IncidentFailedExternalTask},
		{"JobLogCreated", JobLogCreated, persistence.JobLogCreated},
		{"JobLogLocked", JobLogLocked, persistence.JobLogLocked},
		{"JobLogFailed", JobLogFailed, persistence.JobLogFailed},
		{"JobLogSucceeded", JobLogSucceeded, persistence.JobLogSucceeded},
		{"JobLogDeleted", JobLogDeleted, persistence.JobLogDeleted},
	}
	for _, p := range pairs {
		if p.got != p.stored {
			t.Errorf("%s = %v, stored as %v", p.name, p.got, p.stored)
		}
	}
}
