package bpmntest_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmntest"
)

// Every example of examples/processes driven to its end with the kit, on
// in-memory SQLite and on PostgreSQL.

func example(name string) string { return filepath.Join("..", "examples", "processes", name+".bpmn") }

func eachBackend(t *testing.T, f func(t *testing.T, e *bpmntest.Harness)) {
	t.Run("sqlite", func(t *testing.T) { f(t, bpmntest.New(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, bpmntest.New(t, bpmntest.Options{Postgres: true})) })
}

func TestOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *bpmntest.Harness) {
		e.Deploy(example("order"))
		e.Stub("checkStock", map[string]any{"stock": 5})
		// Start runs the preparation job too: the VIP's has priority 10.
		vip := e.Start("order", map[string]any{"customer": map[string]any{"name": "Ada", "status": "VIP"}, "quantity": 2})
		vip.AssertWaitingAt("ship").
			AssertPassed("received", "checkStock", "inStock", "prepare", "ship").
			CompleteTask("ship", nil).
			AssertEnded("shipped")
		e.Start("order", map[string]any{"customer": map[string]any{"name": "Cy", "status": "casual"}, "quantity": 50}).
			AssertWaitingAt("backorder").
			CompleteTask("backorder", nil).
			AssertEnded("backordered")
	})
}

func TestInvoiceArchiveRetried(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *bpmntest.Harness) {
		e.Deploy(example("invoice"))
		e.FailTimes("archiveInvoice", 1, errors.New("archive unreachable"), nil)
		pi := e.Start("invoice", map[string]any{"approver": "mary"}).AssertWaitingAt("approve")
		// The approval commits; archiving fails once, is retried at once
		// (no retry cycle), and succeeds.
		pi.CompleteTask("approve", map[string]any{"approved": true}).
			AssertEnded("end").
			AssertVariable("approved", true)
		if got := e.Calls("archiveInvoice"); got != 2 {
			t.Errorf("archive ran %d times, want 2", got)
		}
	})
}

func TestBooking(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *bpmntest.Harness) {
		e.Deploy(example("booking"))
		e.Stub("bookHotel", map[string]any{"hotel": "booked"})
		e.Stub("bookFlight", map[string]any{"flight": "booked"})
		e.Start("booking", nil).
			AssertWaitingAt("confirm").
			AssertVariable("hotel", "booked").
			AssertVariable("flight", "booked").
			CompleteTask("confirm", nil).
			AssertEnded("end").
			AssertVariable("flight", "booked") // from history, after the end
	})
}

// Timers fire only when the clock reaches them: the hourly reminder at
// +1h (the ticket stays open), the escalation at +4h.
func TestEscalation(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *bpmntest.Harness) {
		e.Deploy(example("escalation"))
		start := e.Clock.Now()
		pi := e.Start("escalation", nil).AssertWaitingAt("answer")
		pi.AssertJob("tooLate", bpmntest.JobCheck{Due: bpmntest.Ptr(start.Add(4 * time.Hour))})
		pi.Advance(59 * time.Minute).AssertWaitingAt("answer")
		pi.Advance(time.Minute).AssertWaitingAt("answer").AssertVariable("reminded", true).AssertPassed("answer", "reminder", "remind", "reminded")
		pi.Advance(3*time.Hour).AssertWaitingAt("escalate").AssertPassed("tooLate", "escalate")
		pi.CompleteTask("escalate", nil).AssertEnded("done")
	})
}

// The payment's R3/PT5S retry cycle: two failures, each retried only when
// its five seconds have passed, then success.
func TestPaymentRetry(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *bpmntest.Harness) {
		e.Deploy(example("retry"))
		e.FailTimes("chargeCard", 2, errors.New("card service timeout"), nil)
		pi := e.Start("payment", nil)
		pi.AssertJob("charge", bpmntest.JobCheck{Retries: bpmntest.Ptr(2), Due: bpmntest.Ptr(e.Clock.Now().Add(5 * time.Second))})
		pi.Advance(4*time.Second).AssertJob("charge", bpmntest.JobCheck{Retries: bpmntest.Ptr(2)})
		pi.Advance(time.Second).AssertJob("charge", bpmntest.JobCheck{Retries: bpmntest.Ptr(1)})
		pi.Advance(5 * time.Second).AssertEnded("end")
		if got := e.Calls("chargeCard"); got != 3 {
			t.Errorf("charged %d times, want 3", got)
		}
	})
}
