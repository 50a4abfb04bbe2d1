package jobexecutor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// fakeRuntime is a JobRuntime over an in-memory job table, for testing the
// executor without a database: acquisition locks due, unlocked (or expired)
// jobs with retries left, in creation order; running a job calls run.
type fakeRuntime struct {
	caps persistence.Capabilities

	mu       sync.Mutex
	jobs     map[string]*persistence.Job
	order    []string // creation order
	hooks    []func([]*persistence.Job) bool
	ran      map[string]int
	running  int // jobs inside run right now
	maxHeld  int // most jobs locked at once
	extended int
	unlocked int
	calls    map[string]int // RunAcquired calls per job, fenced or not
	unlocks  int            // UnlockJobs calls
	// run is the job's work; nil succeeds at once.
	run func(ctx context.Context, j runtime.AcquiredJob) error
	// failUnlock makes this many UnlockJobs calls fail first.
	failUnlock int
	// failAcquire makes AcquireJobs fail while set.
	failAcquire bool
	// extendLost makes ExtendLock report a lost lock.
	extendLost bool
}

func newFake(caps persistence.Capabilities) *fakeRuntime {
	return &fakeRuntime{caps: caps, jobs: map[string]*persistence.Job{}, ran: map[string]int{}, calls: map[string]int{}}
}

// add creates jobs as a command would and, like a commit, calls the
// job-created hooks.
func (f *fakeRuntime) add(jobs ...*persistence.Job) {
	f.mu.Lock()
	for _, j := range jobs {
		if j.Retries == 0 {
			j.Retries = 3
		}
		j.Rev = 1
		f.jobs[j.ID] = j
		f.order = append(f.order, j.ID)
	}
	hooks := f.hooks
	f.mu.Unlock()
	for _, h := range hooks {
		h(jobs)
	}
}

func job(id, instance string, exclusive bool) *persistence.Job {
	return &persistence.Job{ID: id, ProcessInstanceID: instance, Exclusive: exclusive, Type: persistence.JobMessage, Suspension: persistence.Active}
}

func (f *fakeRuntime) Capabilities() persistence.Capabilities { return f.caps }

func (f *fakeRuntime) OnJobCreated(fn func([]*persistence.Job) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hooks = append(f.hooks, fn)
}

func (f *fakeRuntime) ListenJobs(ctx context.Context, fn func()) error {
	<-ctx.Done()
	return ctx.Err()
}

func (f *fakeRuntime) NextWakeup(context.Context, time.Time) (*time.Time, error) { return nil, nil }
func (f *fakeRuntime) IsRegistered(string) bool                                  { return true }
func (f *fakeRuntime) RegisteredDeployments() []string                           { return nil }

func (f *fakeRuntime) held() int {
	n := 0
	for _, j := range f.jobs {
		if j.LockOwner != "" {
			n++
		}
	}
	return n
}

func (f *fakeRuntime) AcquireJobs(_ context.Context, p persistence.AcquireParams) ([]runtime.AcquiredJob, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAcquire {
		return nil, errors.New("connection refused")
	}
	// As the acquisition statement: an exclusive job waits while another
	// exclusive job of its instance is locked (by an earlier acquisition).
	busy := map[string]bool{}
	for _, j := range f.jobs {
		if j.Exclusive && j.LockOwner != "" && !j.LockExpiration.Before(p.Now) {
			busy[j.ProcessInstanceID] = true
		}
	}
	var out []runtime.AcquiredJob
	for _, id := range f.order {
		j := f.jobs[id]
		if j == nil || len(out) == p.Limit || j.Retries <= 0 || (j.DueDate != nil && j.DueDate.After(p.Now)) {
			continue
		}
		if j.LockOwner != "" && j.LockExpiration.After(p.Now) || j.Exclusive && busy[j.ProcessInstanceID] {
			continue
		}
		until := p.LockUntil
		j.LockOwner, j.LockExpiration = p.LockOwner, &until
		j.Rev++
		c := *j
		out = append(out, runtime.AcquiredJob{Job: &c, Lock: runtime.JobLock{Owner: p.LockOwner, Rev: j.Rev}})
	}
	f.maxHeld = max(f.maxHeld, f.held())
	return out, nil
}

func (f *fakeRuntime) RunAcquiredContinuing(ctx context.Context, a runtime.AcquiredJob, _ *runtime.Claim) (*runtime.AcquiredJob, error) {
	return nil, f.RunAcquired(ctx, a)
}

func (f *fakeRuntime) RunAcquired(ctx context.Context, a runtime.AcquiredJob) error {
	f.mu.Lock()
	f.calls[a.ID]++
	j := f.jobs[a.ID]
	if j == nil || j.LockOwner != a.Lock.Owner || j.Rev != a.Lock.Rev {
		f.mu.Unlock()
		return runtime.ErrLockLost
	}
	f.running++
	run := f.run
	f.mu.Unlock()
	var err error
	if run != nil {
		err = run(ctx, a)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running--
	f.ran[a.ID]++
	switch {
	case err == nil:
		delete(f.jobs, a.ID)
	case errors.Is(err, runtime.ErrNotStored):
		// the outcome was not written: the job stays locked
	default:
		j.Retries--
		j.LockOwner, j.LockExpiration = "", nil
		j.Rev++
	}
	return err
}

func (f *fakeRuntime) RunGroup(ctx context.Context, jobs []runtime.AcquiredJob, proceed func() bool, next func() (persistence.AcquireParams, bool)) ([]error, int, []runtime.AcquiredJob) {
	var errs []error
	for _, j := range jobs {
		if !proceed() {
			break
		}
		errs = append(errs, f.RunAcquired(ctx, j))
	}
	var acquired []runtime.AcquiredJob
	if p, ok := next(); ok {
		acquired, _ = f.AcquireJobs(ctx, p)
	}
	return errs, len(errs), acquired
}

// MayRunLong: the fake's jobs are all quick (the fake has no writer).
func (f *fakeRuntime) MayRunLong(*persistence.Job) bool { return false }
func (f *fakeRuntime) TimeJobs()                        {}

func (f *fakeRuntime) UnlockJobs(_ context.Context, jobs []runtime.AcquiredJob) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unlocks++
	if f.failUnlock > 0 {
		f.failUnlock--
		return 0, errors.New("database unreachable")
	}
	n := 0
	for _, a := range jobs {
		if j := f.jobs[a.ID]; j != nil && j.LockOwner == a.Lock.Owner && j.Rev == a.Lock.Rev {
			j.LockOwner, j.LockExpiration = "", nil
			j.Rev++
			f.unlocked++
			n++
		}
	}
	return n, nil
}

func (f *fakeRuntime) LockedJobs(_ context.Context, owner string) ([]runtime.AcquiredJob, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAcquire {
		return nil, errors.New("connection refused")
	}
	var out []runtime.AcquiredJob
	for _, j := range f.jobs {
		if j.LockOwner == owner {
			c := *j
			out = append(out, runtime.AcquiredJob{Job: &c, Lock: runtime.JobLock{Owner: owner, Rev: j.Rev}})
		}
	}
	return out, nil
}

func (f *fakeRuntime) ExtendLock(_ context.Context, a runtime.AcquiredJob, until time.Time) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.extended++
	if f.extendLost {
		return false, nil
	}
	if j := f.jobs[a.ID]; j != nil && j.LockOwner == a.Lock.Owner && j.Rev == a.Lock.Rev {
		j.LockExpiration = &until
		return true, nil
	}
	return false, nil
}

// snapshot returns, under the lock, what fn reads.
func snapshot[T any](f *fakeRuntime, fn func() T) T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fn()
}

func (f *fakeRuntime) remaining() []string {
	return snapshot(f, func() []string {
		var ids []string
		for id := range f.jobs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return ids
	})
}

func jobs(prefix string, n int, instance func(i int) string, exclusive bool) []*persistence.Job {
	out := make([]*persistence.Job, n)
	for i := range out {
		out[i] = job(fmt.Sprintf("%s%03d", prefix, i), instance(i), exclusive)
	}
	return out
}

func (f *fakeRuntime) ReportJobExecutor(context.Context, persistence.JobExecutorInfo) error {
	return nil
}
func (f *fakeRuntime) TakeOverDeadOwners(context.Context, time.Time, string) (map[string]int, error) {
	return nil, nil
}
func (f *fakeRuntime) RemoveJobExecutor(context.Context, string) error { return nil }
