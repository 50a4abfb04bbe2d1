package bpmnlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// deployExample deploys one file of examples/processes.
func (e *env) deployExample(name string) {
	e.T.Helper()
	if _, err := e.Eng.DeployFiles(e.Ctx, name, filepath.Join("examples", "processes", name+".bpmn")); err != nil {
		e.T.Fatalf("deploy example %s: %v", name, err)
	}
}

func TestExamplesParse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("examples", "processes", "*.bpmn"))
	if err != nil || len(files) < 5 {
		t.Fatalf("want at least five example processes, found %d (%v)", len(files), err)
	}
	for _, f := range files {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
}

// The order's preparation job gets priority 10 for a VIP customer and 0
// for a casual one, from the activity's priority expression.
func TestExampleOrder(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("checkStock", harness.SetVars(map[string]any{"stock": int64(5)}))
		e.DeployExample("order")
		vip := e.Start("order", map[string]any{"customer": map[string]any{"name": "Ada", "status": "VIP"}, "quantity": int64(2)})
		casual := e.Start("order", map[string]any{"customer": map[string]any{"name": "Bob", "status": "casual"}, "quantity": int64(1)})
		for pi, want := range map[string]int64{vip: 10, casual: 0} {
			jobs := e.Jobs(pi)
			if len(jobs) != 1 || jobs[0].ActivityID != "prepare" || jobs[0].Priority != want {
				t.Fatalf("jobs of %s = %+v, want one prepare job with priority %d", pi, jobs, want)
			}
			if err := e.Eng.ExecuteJob(e.Ctx, jobs[0].ID); err != nil {
				t.Fatal(err)
			}
			if got := e.TaskKeys(pi); got != "ship" {
				t.Fatalf("open tasks %q, want ship", got)
			}
			e.Complete(pi, "ship", nil)
			if got := e.Path(pi); got != "received,checkStock,inStock,prepare,ship,shipped" {
				t.Errorf("path = %s", got)
			}
		}
		big := e.Start("order", map[string]any{"customer": map[string]any{"name": "Cy", "status": "casual"}, "quantity": int64(50)})
		if got := e.TaskKeys(big); got != "backorder" {
			t.Fatalf("quantity above stock: open tasks %q, want backorder", got)
		}
	})
}

// Approving an invoice commits before archiving: a failing archive leaves
// the approval done and the job waiting for a retry.
func TestExampleInvoice(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		archived := 0
		failing := true
		e.Eng.RegisterDelegate("archiveInvoice", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			if failing {
				return errors.New("archive unreachable")
			}
			archived++
			return nil
		}))
		e.DeployExample("invoice")
		pi := e.Start("invoice", map[string]any{"approver": "mary"})
		tasks := e.Tasks(pi)
		if len(tasks) != 1 || tasks[0].Assignee != "mary" {
			t.Fatalf("tasks = %+v, want approve assigned to mary", tasks)
		}
		e.Complete(pi, "approve", map[string]any{"approved": true})
		jobs := e.Jobs(pi)
		if len(jobs) != 1 || jobs[0].HandlerType != "async-after" || jobs[0].ActivityID != "approve" {
			t.Fatalf("after approval jobs = %+v, want the async-after job of approve", jobs)
		}
		if err := e.Eng.ExecuteJob(e.Ctx, jobs[0].ID); err == nil {
			t.Fatal("archive should have failed")
		}
		jobs = e.Jobs(pi)
		if len(jobs) != 1 || jobs[0].Retries != 2 || jobs[0].ExceptionMessage == "" {
			t.Fatalf("after a failure jobs = %+v, want retries 2 and the message", jobs)
		}
		if got := e.TaskKeys(pi); got != "" {
			t.Fatalf("the approval was rolled back: open tasks %q", got)
		}
		failing = false
		if err := e.Eng.ExecuteJob(e.Ctx, jobs[0].ID); err != nil {
			t.Fatal(err)
		}
		if archived != 1 || e.State(pi) != "COMPLETED" {
			t.Fatalf("archived %d times, state %s", archived, e.State(pi))
		}
	})
}

// Hotel and flight are booked by separate jobs; the asynchronous join
// continues once, after both.
func TestExampleBooking(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Eng.RegisterDelegate("bookHotel", harness.SetVars(map[string]any{"hotel": "booked"}))
		e.Eng.RegisterDelegate("bookFlight", harness.SetVars(map[string]any{"flight": "booked"}))
		e.DeployExample("booking")
		pi := e.Start("booking", nil)
		if n := len(e.Jobs(pi)); n != 2 {
			t.Fatalf("after start %d jobs, want 2 (hotel, flight)", n)
		}
		if n := e.Drain(100); n != 4 {
			t.Fatalf("ran %d jobs, want 4 (hotel, flight, and one join job per arriving branch)", n)
		}
		if got := e.TaskKeys(pi); got != "confirm" {
			t.Fatalf("open tasks %q, want confirm", got)
		}
		vars, err := e.Eng.Variables(e.Ctx, pi)
		if err != nil || vars["hotel"] != "booked" || vars["flight"] != "booked" {
			t.Fatalf("variables %v (%v)", vars, err)
		}
		e.Complete(pi, "confirm", nil)
		if got := e.State(pi); got != "COMPLETED" {
			t.Fatalf("state %s", got)
		}
	})
}

// The ticket reminder fires hourly while the ticket is open; after four
// hours the ticket is escalated and the reminders stop.
func TestExampleEscalation(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployExample("escalation")
		start := e.Clock.Now()
		pi := e.Start("escalation", nil)
		due := map[string]time.Time{}
		for _, j := range e.Jobs(pi) {
			due[j.ActivityID] = *j.DueDate
		}
		if !due["tooLate"].Equal(start.Add(4*time.Hour)) || !due["reminder"].Equal(start.Add(time.Hour)) {
			t.Fatalf("timer due dates %v, want tooLate +4h and reminder +1h", due)
		}
		e.Clock.Add(time.Hour + time.Second)
		if n, err := e.Eng.ExecuteDueJobs(e.Ctx, 10); err != nil || n != 1 {
			t.Fatalf("at +1h ran %d jobs (%v), want the reminder", n, err)
		}
		if v, _, _ := e.Eng.Variable(e.Ctx, pi, "reminded"); v != true {
			t.Fatalf("reminded = %v", v)
		}
		if got := e.TaskKeys(pi); got != "answer" {
			t.Fatalf("non-interrupting reminder: open tasks %q, want answer", got)
		}
		e.Clock.Set(start.Add(4*time.Hour + time.Second))
		if _, err := e.Eng.ExecuteDueJobs(e.Ctx, 10); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "escalate" {
			t.Fatalf("open tasks %q, want escalate", got)
		}
		if n := len(e.Jobs(pi)); n != 0 {
			t.Fatalf("%d timer jobs left after escalation, want 0", n)
		}
	})
}

// The payment job is retried three times, five seconds apart.
func TestExampleRetry(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		calls := 0
		e.Eng.RegisterDelegate("chargeCard", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			calls++
			if calls < 3 {
				return errors.New("card service timeout")
			}
			return nil
		}))
		e.DeployExample("retry")
		pi := e.Start("payment", nil)
		job := e.Jobs(pi)[0]
		if job.Retries != 3 {
			t.Fatalf("initial retries %d, want 3 from R3/PT5S", job.Retries)
		}
		for want := 2; want >= 1; want-- {
			if err := e.Eng.ExecuteJob(e.Ctx, job.ID); err == nil {
				t.Fatal("want the delegate's error")
			}
			job = e.Jobs(pi)[0]
			if job.Retries != want || job.DueDate == nil || !job.DueDate.Equal(e.Clock.Now().Add(5*time.Second)) {
				t.Fatalf("after failure: retries %d due %v, want %d due now+5s", job.Retries, job.DueDate, want)
			}
			if n, _ := e.Eng.ExecuteDueJobs(e.Ctx, 10); n != 0 {
				t.Fatalf("a job ran before its retry was due")
			}
			e.Clock.Add(5 * time.Second)
		}
		if n, err := e.Eng.ExecuteDueJobs(e.Ctx, 10); err != nil || n != 1 {
			t.Fatalf("third attempt: ran %d (%v)", n, err)
		}
		if got := e.State(pi); got != "COMPLETED" {
			t.Fatalf("state %s", got)
		}
	})
}
