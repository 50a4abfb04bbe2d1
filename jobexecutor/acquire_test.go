package jobexecutor_test

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// Acquisition order and filters: what a job executor's acquisition locks,
// read through persistence.AcquireJobs on the engine's database in a
// rolled-back transaction (Camunda's "acquirable list"), and what a running
// executor does with it.

const jeDir = "camunda/job-executor/"

// S15: with AcquireByPriority, the acquirable list is ordered strictly by
// priority across job types: 5×10 (task1), 5×8 (timer1), 5×5 (task2),
// 5×4 (timer2).
func TestExecutorAcquireByPriority(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(jeDir+"_needs-extra/jobPrioProcess.bpmn20.xml", jeDir+"timerJobPrioProcess.bpmn20.xml")
		for range 5 {
			e.StartBefore("jobPrioProcess", "task1")
			e.StartBefore("jobPrioProcess", "task2")
			e.StartBefore("timerJobPrioProcess", "timer1")
			e.StartBefore("timerJobPrioProcess", "timer2")
		}
		if n := len(e.jeAcquirable(persistence.AcquireParams{ByPriority: true})); n != 10 {
			t.Fatalf("%d jobs acquirable before the timers are due, want the 10 async ones", n)
		}
		e.Clock.Add(61 * time.Second)
		got := e.jeAcquirable(persistence.AcquireParams{ByPriority: true})
		if want := jeRepeat([2]int64{10, 5}, [2]int64{8, 5}, [2]int64{5, 5}, [2]int64{4, 5}); !slices.Equal(jePriorities(got), want) {
			t.Fatalf("acquirable list %v, want %v", jePriorities(got), want)
		}
		// A limit takes the head of that order.
		if got := e.jeAcquirable(persistence.AcquireParams{ByPriority: true, Limit: 7}); !slices.Equal(jePriorities(got), jeRepeat([2]int64{10, 5}, [2]int64{8, 2})) {
			t.Fatalf("limit 7: %v", jePriorities(got))
		}
	})
}

// jeTypeAndDueSetup creates, as Camunda's acquisition-order tests do, a
// timer (due at +60 s), a message job at +1 s, a second timer at +2 s (due
// at +62 s) and a message job at +63 s, when all four are acquirable.
func (e *env) jeTypeAndDueSetup() (timer1, message1, timer2, message2 string) {
	e.T.Helper()
	e.DeployFiles(jeDir+"simpleAsyncProcess.bpmn20.xml", jeDir+"processWithTimerCatch.bpmn20.xml")
	one := func(key string) string {
		js := e.Jobs(e.Start(key, nil))
		if len(js) != 1 {
			e.T.Fatalf("%s: %d jobs, want 1", key, len(js))
		}
		return js[0].ID
	}
	timer1 = one("testProcess")
	e.Clock.Add(time.Second)
	message1 = one("simpleAsyncProcess")
	e.Clock.Add(time.Second)
	timer2 = one("testProcess")
	e.Clock.Add(61 * time.Second)
	message2 = one("simpleAsyncProcess")
	return
}

// jeSameSet reports whether got holds exactly the ids of want, in any order.
func jeSameSet(got []*persistence.Job, want ...string) bool {
	ids := jeIDs(got)
	slices.Sort(ids)
	want = slices.Clone(want)
	slices.Sort(want)
	return slices.Equal(ids, want)
}

// S16 (derived from the reference): AcquireByDueDate acquires by ascending
// due date; a message job has no due date, it is due at once, so it comes
// before every timer.
func TestExecutorAcquireByDueDate(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		timer1, message1, timer2, message2 := e.jeTypeAndDueSetup()
		for _, id := range []string{message1, message2} {
			if j := e.jeJob(id); j.DueDate != nil || j.Type != bpmnlite.JobTypeMessage {
				t.Fatalf("message job %s: type %s, due %v; want a message due at once (no due date)", id, j.Type, j.DueDate)
			}
		}
		got := e.jeAcquirable(persistence.AcquireParams{ByDueDate: true})
		if len(got) != 4 || !jeSameSet(got[:2], message1, message2) || got[2].ID != timer1 || got[3].ID != timer2 {
			t.Fatalf("acquirable list %s, want both message jobs, then timer 1 (due +60 s), then timer 2 (+62 s)", jeDescribe(got))
		}
	})
}

// S17 (derived): PreferTimerJobs acquires every acquirable timer before
// other jobs, in no particular order within a type; with AcquireByDueDate
// too, each type is ordered by due date.
func TestExecutorPreferTimerJobs(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		timer1, message1, timer2, message2 := e.jeTypeAndDueSetup()
		got := e.jeAcquirable(persistence.AcquireParams{PreferTimers: true})
		if len(got) != 4 || !jeSameSet(got[:2], timer1, timer2) || !jeSameSet(got[2:], message1, message2) {
			t.Fatalf("prefer timers: %s, want the two timers, then the two message jobs", jeDescribe(got))
		}
		got = e.jeAcquirable(persistence.AcquireParams{PreferTimers: true, ByDueDate: true})
		if len(got) != 4 || got[0].ID != timer1 || got[1].ID != timer2 || !jeSameSet(got[2:], message1, message2) {
			t.Fatalf("prefer timers by due date: %s, want timer 1, timer 2, then the message jobs", jeDescribe(got))
		}
		// Before the first timer is due (at +59 s), only the message jobs
		// are acquirable.
		got = e.jeAcquirable(persistence.AcquireParams{PreferTimers: true, Now: e.Clock.Now().Add(-4 * time.Second)})
		if !jeSameSet(got, message1, message2) {
			t.Fatalf("at +59 s: %s, want only the message jobs", jeDescribe(got))
		}
	})
}

const jePrioMessage = `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <serviceTask id="work" camunda:asyncBefore="true" camunda:expression="${true}" camunda:jobPriority="${p}" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="end" />
    <endEvent id="end" />`

const jePrioTimer = `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="wait" />
    <intermediateCatchEvent id="wait" camunda:jobPriority="${p}">
      <timerEventDefinition><timeDuration>PT1M</timeDuration></timerEventDefinition>
    </intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="wait" targetRef="end" />
    <endEvent id="end" />`

// The three orderings combine into one multi-level order: priority first,
// then timers before message jobs, then due date (none: due at once). Every
// combination of the flags gives its documented order on the same jobs.
func TestExecutorAcquisitionMultiLevelOrder(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("prioMessage", enginetest.Process("prioMessage", jePrioMessage))
		e.Deploy("prioTimer", enginetest.Process("prioTimer", jePrioTimer))
		ids := map[string]string{}
		create := func(name, key string, p int64) {
			js := e.Jobs(e.Start(key, map[string]any{"p": p}))
			if len(js) != 1 || js[0].Priority != p {
				t.Fatalf("%s: jobs %s, want one with priority %d", name, harness.JobList(js), p)
			}
			ids[js[0].ID] = name
			e.Clock.Add(time.Second)
		}
		create("A", "prioTimer", 5)   // due +60 s
		create("B", "prioMessage", 5) // due at once
		create("C", "prioTimer", 5)   // due +62 s
		create("D", "prioMessage", 9)
		create("E", "prioTimer", 1) // due +64 s
		create("F", "prioMessage", 1)
		e.Clock.Add(time.Minute)
		names := func(js []*persistence.Job) string {
			s := ""
			for _, j := range js {
				s += ids[j.ID]
			}
			return s
		}
		cases := []struct {
			p    persistence.AcquireParams
			want []string // acceptable orders (ties within a level are unordered)
		}{
			{persistence.AcquireParams{ByPriority: true, PreferTimers: true, ByDueDate: true}, []string{"DACBEF"}},
			{persistence.AcquireParams{ByPriority: true, ByDueDate: true}, []string{"DBACFE"}},
			{persistence.AcquireParams{ByPriority: true, PreferTimers: true}, []string{"DACBEF", "DCABEF"}},
			{persistence.AcquireParams{PreferTimers: true, ByDueDate: true}, []string{"ACEBDF", "ACEBFD", "ACEDBF", "ACEDFB", "ACEFBD", "ACEFDB"}},
		}
		for _, tc := range cases {
			got := names(e.jeAcquirable(tc.p))
			if !slices.Contains(tc.want, got) {
				t.Errorf("priority %v, timers %v, due date %v: order %s, want one of %v", tc.p.ByPriority, tc.p.PreferTimers, tc.p.ByDueDate, got, tc.want)
			}
		}
		// ByPriority alone: levels 9, 5, 1 with any order inside a level.
		got := e.jeAcquirable(persistence.AcquireParams{ByPriority: true})
		if !slices.IsSortedFunc(got, func(a, b *persistence.Job) int { return cmp.Compare(b.Priority, a.Priority) }) || len(got) != 6 {
			t.Errorf("by priority: %s", jeDescribe(got))
		}
	})
}

// S18: an executor's priority range bounds what it acquires: [0, max] → all
// 10, the five 10s first; [0, 7] → the five 5s; [7, max] and [7, 12] → the
// five 10s; [12, 15] → none; a range reaching below 0 takes a negative
// priority. Without bounds, every priority is acquired.
func TestExecutorPriorityRange(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.DeployFiles(jeDir + "_needs-extra/JobExecutorAcquireJobsForPriorityRangeTest.jobPrioProcess.bpmn20.xml")
		e.jeStartBefore("jobPrioProcess", "task1", 5)
		e.jeStartBefore("jobPrioProcess", "task2", 5)
		cases := []struct {
			min, max *int64
			want     []int64
		}{
			{p(0), p(math.MaxInt64), jeRepeat([2]int64{10, 5}, [2]int64{5, 5})},
			{p(0), p(7), jeRepeat([2]int64{5, 5})},
			{p(7), p(math.MaxInt64), jeRepeat([2]int64{10, 5})},
			{p(7), p(12), jeRepeat([2]int64{10, 5})},
			{p(12), p(15), nil},
			{nil, nil, jeRepeat([2]int64{10, 5}, [2]int64{5, 5})},
		}
		for _, tc := range cases {
			got := jePriorities(e.jeAcquirable(persistence.AcquireParams{ByPriority: true, PriorityMin: tc.min, PriorityMax: tc.max}))
			if !slices.Equal(got, tc.want) {
				t.Errorf("range [%v, %v]: %v, want %v", jeDeref(tc.min), jeDeref(tc.max), got, tc.want)
			}
		}
		e.StartBefore("jobPrioProcess", "task3")
		if got := jePriorities(e.jeAcquirable(persistence.AcquireParams{ByPriority: true, PriorityMin: p(0)})); len(got) != 10 || slices.Contains(got, -5) {
			t.Errorf("range [0, ∞): %v, want the ten jobs without the -5 one", got)
		}
		got := jePriorities(e.jeAcquirable(persistence.AcquireParams{ByPriority: true, PriorityMin: p(-5), PriorityMax: p(0)}))
		if !slices.Equal(got, []int64{-5}) {
			t.Errorf("range [-5, 0]: %v, want [-5]", got)
		}
		if got := jePriorities(e.jeAcquirable(persistence.AcquireParams{ByPriority: true})); len(got) != 11 || got[10] != -5 {
			t.Errorf("no range: %v, want all 11 with -5 last", got)
		}
	})
}

func jeDeref(p *int64) any {
	if p == nil {
		return "unbounded"
	}
	return *p
}

// S18 follow-up rule: a running executor serving [5, ∞) runs a job of
// priority 10, and leaves the priority 1 job it creates unlocked, for
// another executor.
func TestExecutorPriorityRangeLeavesFollowUpJob(t *testing.T) {
	min := int64(5)
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("followUp", enginetest.Process("followUp", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="urgent" />
    <serviceTask id="urgent" camunda:asyncBefore="true" camunda:expression="${true}" camunda:jobPriority="10" />
    <sequenceFlow id="f2" sourceRef="urgent" targetRef="later" />
    <serviceTask id="later" camunda:asyncBefore="true" camunda:expression="${true}" camunda:jobPriority="1" />
    <sequenceFlow id="f3" sourceRef="later" targetRef="end" />
    <endEvent id="end" />`))
		pi := e.Start("followUp", nil)
		m := &harness.Metrics{}
		e.StartExecutor(bpmnlite.JobExecutorConfig{PriorityMin: &min, Metrics: m})
		harness.WaitFor(t, "the urgent job to run", 10*time.Second, func() bool {
			js := e.Jobs(pi)
			return len(js) == 1 && js[0].ActivityID == "later"
		})
		m.WaitCycles(t, 3)
		j := e.OneJob(pi)
		if j.ActivityID != "later" || j.LockOwner != "" || j.LockExpiration != nil || j.Retries != 3 {
			t.Fatalf("follow-up job at %s locked by %q, retries %d; want it at later, unlocked, untouched", j.ActivityID, j.LockOwner, j.Retries)
		}
		m.Await(t, "the urgent job executed", func(s harness.Counts) bool { return s.Executed == 1 })
	})
}

// Expression priorities (the reference's example): an order of a VIP
// customer gets priority 10 and one of a casual customer 0, so an executor
// acquiring by priority ships the VIP orders first, whatever the order they
// came in.
func TestExecutorVIPOrderFirst(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		var mu sync.Mutex
		var shipped []string
		e.Eng.RegisterDelegate("ship", bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			name, _, err := ex.Variable("name")
			mu.Lock()
			shipped = append(shipped, name.(string))
			mu.Unlock()
			return err
		}))
		e.Deploy("order", enginetest.Process("order", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="ship" />
    <serviceTask id="ship" camunda:asyncBefore="true" camunda:class="ship" camunda:jobPriority="${customer.status == 'VIP' ? 10 : 0}" />
    <sequenceFlow id="f2" sourceRef="ship" targetRef="end" />
    <endEvent id="end" />`))
		customers := []struct{ name, status string }{{"casual1", "casual"}, {"vip1", "VIP"}, {"casual2", "casual"}, {"vip2", "VIP"}, {"casual3", "casual"}}
		for _, c := range customers {
			e.Clock.Add(time.Second)
			e.Start("order", map[string]any{"name": c.name, "customer": map[string]any{"status": c.status}})
		}
		got := e.jeAcquirable(persistence.AcquireParams{ByPriority: true})
		if !slices.Equal(jePriorities(got), []int64{10, 10, 0, 0, 0}) {
			t.Fatalf("acquirable list %v, want the two VIP orders (10) first", jePriorities(got))
		}
		// One worker, one job per acquisition and a queue of one: each
		// acquisition picks the most urgent job left.
		e.StartExecutor(bpmnlite.JobExecutorConfig{PoolSize: 1, QueueSize: 1, MaxJobsPerAcquisition: 1, AcquireByPriority: true})
		harness.WaitFor(t, "all orders shipped", 10*time.Second, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(shipped) == len(customers)
		})
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(shipped[:2], []string{"vip1", "vip2"}) && !slices.Equal(shipped[:2], []string{"vip2", "vip1"}) {
			t.Fatalf("shipping order %v, want the VIP orders first", shipped)
		}
	})
}

// Acquired by due date, asynchronous continuations carry their creation
// time as due date (Camunda's jobExecutorAcquireByDueDate), so they are
// served first in, first out alongside timers.
func TestMessageJobsGetCreationTimeAsDueDate(t *testing.T) {
	eachBackend(t, bpmnlite.Config{Jobs: bpmnlite.JobsConfig{EnsureDueDateNotNull: true}}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.AsyncService("p", "svc", ""))
		first := e.Start("p", nil)
		e.Clock.Add(time.Second)
		second := e.Start("p", nil)
		j1, j2 := e.OneJob(first), e.OneJob(second)
		if j1.DueDate == nil || !j1.DueDate.Equal(j1.CreateTime) || j2.DueDate == nil || !j2.DueDate.After(*j1.DueDate) {
			t.Fatalf("due dates %v and %v, want the creation times", j1.DueDate, j2.DueDate)
		}
	})
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("p", enginetest.AsyncService("p", "svc", ""))
		if j := e.OneJob(e.Start("p", nil)); j.DueDate != nil {
			t.Fatalf("without the option a message job is due at once (no due date), got %v", j.DueDate)
		}
	})
}
