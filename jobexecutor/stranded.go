package jobexecutor

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/bpmnlite/bpmnlite/runtime"
)

// Jobs this executor still owns after their outcome could not be stored (a
// database outage): they are released as soon as the database answers
// again, instead of staying locked until their lock expires and then being
// charged a failed attempt as if this node had died.
type stranded struct {
	mu   sync.Mutex
	jobs map[JobRuntime][]runtime.AcquiredJob
}

// releaseTimeout bounds one attempt to release stranded jobs.
const releaseTimeout = 5 * time.Second

// strand handles a job whose outcome was not stored: it is released at
// once if the database answers, else kept for the next attempts.
func (x *Executor) strand(rt JobRuntime, j runtime.AcquiredJob, err error) {
	x.log.Warn("job ran but its outcome could not be stored; releasing it without spending a retry", "job", j.ID, "error", err)
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if _, uerr := rt.UnlockJobs(ctx, []runtime.AcquiredJob{j}); uerr != nil {
		x.log.Warn("could not release the job; retrying while the executor runs", "job", j.ID, "error", uerr)
		x.stranded.mu.Lock()
		if x.stranded.jobs == nil {
			x.stranded.jobs = make(map[JobRuntime][]runtime.AcquiredJob)
		}
		x.stranded.jobs[rt] = append(x.stranded.jobs[rt], j)
		x.stranded.mu.Unlock()
	}
}

// releaseStranded tries again to release the stranded jobs; the acquisition
// loop calls it before each acquisition, and Stop once more.
func (x *Executor) releaseStranded(ctx context.Context) {
	x.stranded.mu.Lock()
	pending := x.stranded.jobs
	x.stranded.jobs = nil
	x.stranded.mu.Unlock()
	for rt, jobs := range pending {
		actx, cancel := context.WithTimeout(ctx, releaseTimeout)
		released, err := rt.UnlockJobs(actx, jobs)
		cancel()
		if err != nil {
			x.stranded.mu.Lock()
			if x.stranded.jobs == nil {
				x.stranded.jobs = make(map[JobRuntime][]runtime.AcquiredJob)
			}
			x.stranded.jobs[rt] = append(x.stranded.jobs[rt], jobs...)
			x.stranded.mu.Unlock()
			x.warnings.warn(x.log, "stranded", "could not release jobs whose outcome was not stored; retrying", "jobs", len(jobs), "error", err)
			continue
		}
		// Fewer than stranded: the others' outcome was stored after all,
		// or another node holds them now.
		x.log.Info("released jobs whose outcome could not be stored", "stranded", len(jobs), "released", released)
	}
}

// rateLimited logs a recurring warning (a database outage makes every
// acquisition fail) at most once per interval per kind, with the number of
// occurrences left out meanwhile.
type rateLimited struct {
	mu       sync.Mutex
	interval time.Duration
	last     map[string]time.Time
	skipped  map[string]int
}

func (r *rateLimited) warn(log *slog.Logger, kind, msg string, args ...any) {
	r.mu.Lock()
	now := time.Now()
	if r.last == nil {
		r.last, r.skipped = make(map[string]time.Time), make(map[string]int)
	}
	if t, ok := r.last[kind]; ok && now.Sub(t) < r.interval {
		r.skipped[kind]++
		r.mu.Unlock()
		return
	}
	skipped := r.skipped[kind]
	r.last[kind], r.skipped[kind] = now, 0
	r.mu.Unlock()
	if skipped > 0 {
		args = append(args, "alsoFailedSinceLastWarning", skipped)
	}
	log.Warn(msg, args...)
}

func notStored(err error) bool { return errors.Is(err, runtime.ErrNotStored) }
