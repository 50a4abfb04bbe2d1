package bpmnlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// deployExample deploys one file of examples/processes.
func (e *env) deployExample(name string) {
	e.t.Helper()
	if _, err := e.eng.DeployFiles(e.ctx, name, filepath.Join("examples", "processes", name+".bpmn")); err != nil {
		e.t.Fatalf("deploy example %s: %v", name, err)
	}
}

func setVars(vars map[string]any) bpmnlite.Delegate {
	return bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
		for k, v := range vars {
			if err := ex.SetVariable(k, v); err != nil {
				return err
			}
		}
		return nil
	})
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
		e.eng.RegisterDelegate("checkStock", setVars(map[string]any{"stock": int64(5)}))
		e.deployExample("order")
		vip := e.start("order", map[string]any{"customer": map[string]any{"name": "Ada", "status": "VIP"}, "quantity": int64(2)})
		casual := e.start("order", map[string]any{"customer": map[string]any{"name": "Bob", "status": "casual"}, "quantity": int64(1)})
		for pi, want := range map[string]int64{vip: 10, casual: 0} {
			jobs := e.jobs(pi)
			if len(jobs) != 1 || jobs[0].ActivityID != "prepare" || jobs[0].Priority != want {
				t.Fatalf("jobs of %s = %+v, want one prepare job with priority %d", pi, jobs, want)
			}
			if err := e.eng.ExecuteJob(e.ctx, jobs[0].ID); err != nil {
				t.Fatal(err)
			}
			if got := e.taskKeys(pi); got != "ship" {
				t.Fatalf("open tasks %q, want ship", got)
			}
			e.complete(pi, "ship", nil)
			if got := e.path(pi); got != "received,checkStock,inStock,prepare,ship,shipped" {
				t.Errorf("path = %s", got)
			}
		}
		big := e.start("order", map[string]any{"customer": map[string]any{"name": "Cy", "status": "casual"}, "quantity": int64(50)})
		if got := e.taskKeys(big); got != "backorder" {
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
		e.eng.RegisterDelegate("archiveInvoice", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			if failing {
				return errors.New("archive unreachable")
			}
			archived++
			return nil
		}))
		e.deployExample("invoice")
		pi := e.start("invoice", map[string]any{"approver": "mary"})
		tasks := e.tasks(pi)
		if len(tasks) != 1 || tasks[0].Assignee != "mary" {
			t.Fatalf("tasks = %+v, want approve assigned to mary", tasks)
		}
		e.complete(pi, "approve", map[string]any{"approved": true})
		jobs := e.jobs(pi)
		if len(jobs) != 1 || jobs[0].HandlerType != "async-after" || jobs[0].ActivityID != "approve" {
			t.Fatalf("after approval jobs = %+v, want the async-after job of approve", jobs)
		}
		if err := e.eng.ExecuteJob(e.ctx, jobs[0].ID); err == nil {
			t.Fatal("archive should have failed")
		}
		jobs = e.jobs(pi)
		if len(jobs) != 1 || jobs[0].Retries != 2 || jobs[0].ExceptionMessage == "" {
			t.Fatalf("after a failure jobs = %+v, want retries 2 and the message", jobs)
		}
		if got := e.taskKeys(pi); got != "" {
			t.Fatalf("the approval was rolled back: open tasks %q", got)
		}
		failing = false
		if err := e.eng.ExecuteJob(e.ctx, jobs[0].ID); err != nil {
			t.Fatal(err)
		}
		if archived != 1 || e.state(pi) != "COMPLETED" {
			t.Fatalf("archived %d times, state %s", archived, e.state(pi))
		}
	})
}

// Hotel and flight are booked by separate jobs; the asynchronous join
// continues once, after both.
func TestExampleBooking(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.eng.RegisterDelegate("bookHotel", setVars(map[string]any{"hotel": "booked"}))
		e.eng.RegisterDelegate("bookFlight", setVars(map[string]any{"flight": "booked"}))
		e.deployExample("booking")
		pi := e.start("booking", nil)
		if n := len(e.jobs(pi)); n != 2 {
			t.Fatalf("after start %d jobs, want 2 (hotel, flight)", n)
		}
		if n := e.drain(100); n != 4 {
			t.Fatalf("ran %d jobs, want 4 (hotel, flight, and one join job per arriving branch)", n)
		}
		if got := e.taskKeys(pi); got != "confirm" {
			t.Fatalf("open tasks %q, want confirm", got)
		}
		vars, err := e.eng.Variables(e.ctx, pi)
		if err != nil || vars["hotel"] != "booked" || vars["flight"] != "booked" {
			t.Fatalf("variables %v (%v)", vars, err)
		}
		e.complete(pi, "confirm", nil)
		if got := e.state(pi); got != "COMPLETED" {
			t.Fatalf("state %s", got)
		}
	})
}

// The ticket reminder fires hourly while the ticket is open; after four
// hours the ticket is escalated and the reminders stop.
func TestExampleEscalation(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.deployExample("escalation")
		start := e.clock.Now()
		pi := e.start("escalation", nil)
		due := map[string]time.Time{}
		for _, j := range e.jobs(pi) {
			due[j.ActivityID] = *j.DueDate
		}
		if !due["tooLate"].Equal(start.Add(4*time.Hour)) || !due["reminder"].Equal(start.Add(time.Hour)) {
			t.Fatalf("timer due dates %v, want tooLate +4h and reminder +1h", due)
		}
		e.clock.Add(time.Hour + time.Second)
		if n, err := e.eng.ExecuteDueJobs(e.ctx, 10); err != nil || n != 1 {
			t.Fatalf("at +1h ran %d jobs (%v), want the reminder", n, err)
		}
		if v, _, _ := e.eng.Variable(e.ctx, pi, "reminded"); v != true {
			t.Fatalf("reminded = %v", v)
		}
		if got := e.taskKeys(pi); got != "answer" {
			t.Fatalf("non-interrupting reminder: open tasks %q, want answer", got)
		}
		e.clock.Set(start.Add(4*time.Hour + time.Second))
		if _, err := e.eng.ExecuteDueJobs(e.ctx, 10); err != nil {
			t.Fatal(err)
		}
		if got := e.taskKeys(pi); got != "escalate" {
			t.Fatalf("open tasks %q, want escalate", got)
		}
		if n := len(e.jobs(pi)); n != 0 {
			t.Fatalf("%d timer jobs left after escalation, want 0", n)
		}
	})
}

// The payment job is retried three times, five seconds apart.
func TestExampleRetry(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		calls := 0
		e.eng.RegisterDelegate("chargeCard", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			calls++
			if calls < 3 {
				return errors.New("card service timeout")
			}
			return nil
		}))
		e.deployExample("retry")
		pi := e.start("payment", nil)
		job := e.jobs(pi)[0]
		if job.Retries != 3 {
			t.Fatalf("initial retries %d, want 3 from R3/PT5S", job.Retries)
		}
		for want := 2; want >= 1; want-- {
			if err := e.eng.ExecuteJob(e.ctx, job.ID); err == nil {
				t.Fatal("want the delegate's error")
			}
			job = e.jobs(pi)[0]
			if job.Retries != want || job.DueDate == nil || !job.DueDate.Equal(e.clock.Now().Add(5*time.Second)) {
				t.Fatalf("after failure: retries %d due %v, want %d due now+5s", job.Retries, job.DueDate, want)
			}
			if n, _ := e.eng.ExecuteDueJobs(e.ctx, 10); n != 0 {
				t.Fatalf("a job ran before its retry was due")
			}
			e.clock.Add(5 * time.Second)
		}
		if n, err := e.eng.ExecuteDueJobs(e.ctx, 10); err != nil || n != 1 {
			t.Fatalf("third attempt: ran %d (%v)", n, err)
		}
		if got := e.state(pi); got != "COMPLETED" {
			t.Fatalf("state %s", got)
		}
	})
}
