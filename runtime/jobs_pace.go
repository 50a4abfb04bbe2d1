package runtime

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// On a single writer (SQLite), and on PostgreSQL with group commit, an
// executor runs quick jobs in groups that share a transaction, and a job
// that may take long (a delegate calling a remote service) on its own, so
// that such jobs run side by side. Which jobs are quick is learnt from
// their runs: the work of each activity's jobs is timed.

// slowWork is the work time above which a job no longer runs in a group.
// On a single writer a group of 64 such jobs would hold the write lock for
// tens of ms. On PostgreSQL a group holds only its own rows' locks, and
// the work includes round trips to the database: 5 ms.
func slowWork(caps persistence.Capabilities) time.Duration {
	if caps.SingleWriter {
		return time.Millisecond
	}
	return 5 * time.Millisecond
}

// quickRuns is how many quick runs in a row make an activity's jobs quick
// again after a slow one.
const quickRuns = 3

type paceKey struct {
	definitionID, activityID, handler string
}

// jobPace counts, per activity and job handler, the quick runs since the
// last slow one, once an executor that groups jobs asked for it (timed).
type jobPace struct {
	slow  time.Duration // see slowWork
	timed atomic.Bool
	mu    sync.Mutex
	quick map[paceKey]int
}

func paceKeyOf(j *persistence.Job) paceKey {
	return paceKey{j.ProcessDefinitionID, j.ActivityID, j.HandlerType}
}

func (p *jobPace) record(j *persistence.Job, work time.Duration) {
	k := paceKeyOf(j)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quick == nil {
		p.quick = make(map[paceKey]int)
	}
	if work > p.slow {
		p.quick[k] = 0
	} else if p.quick[k] < quickRuns {
		p.quick[k]++
	}
}

func (p *jobPace) isQuick(j *persistence.Job) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.quick[paceKeyOf(j)] >= quickRuns
}

// TimeJobs makes the engine time each job's work from now on, for
// MayRunLong. An executor that runs the engine's jobs in groups calls it;
// others never read the times, so the engine does not take them.
func (e *Core) TimeJobs() { e.pace.timed.Store(true) }

// MayRunLong reports whether a job's work may take longer than a group
// on a single writer should wait for: a job of an activity whose last
// runs were not all quick, or that has not run yet on this engine.
func (e *Core) MayRunLong(j *persistence.Job) bool { return !e.pace.isQuick(j) }
