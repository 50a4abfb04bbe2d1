package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// verify waits until no job is left (every instance waits at "done" then)
// and checks every acknowledged instance: it reached "done", each step
// completed once in history, and the counter its steps increment in their
// transactions is exactly one per step.
func verify(ctx context.Context, eng *bpmnlite.Engine, ids []string, effects string, res *result) {
	if _, ok := waitUntil(ctx, 90*time.Second, func() bool { return noJobsLeft(ctx, eng) }); !ok {
		res.check(false, "jobs still left 90s after the last fault")
	}
	res.verified += len(ids)
	for _, pi := range ids {
		tasks, err := eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi, TaskDefinitionKey: "done"})
		if err != nil || len(tasks) != 1 {
			res.lost++
			continue
		}
		counter, _, err := eng.Variable(ctx, pi, "counter")
		hist, herr := eng.ActivityHistory(ctx, pi)
		completed := map[string]int{}
		for _, h := range hist {
			if h.EndTime != nil && !h.Canceled {
				completed[h.ActivityID]++
			}
		}
		dup := err != nil || herr != nil || counter != int64(len(steps))
		for _, s := range steps {
			dup = dup || completed[s] != 1
		}
		if dup {
			res.duplicated++
			res.failures = append(res.failures, fmt.Sprintf("instance %s: counter %v, completed %v", pi, counter, completed))
		}
	}
	runs, _ := readLines(effects)
	res.delegateRuns = len(runs)
}

// charges counts the retries charged to jobs, by cause.
type charges map[string]int

func (c charges) total() int {
	n := 0
	for _, k := range c {
		n += k
	}
	return n
}

func (c charges) String() string {
	if c.total() == 0 {
		return "0"
	}
	causes := make([]string, 0, len(c))
	for cause, n := range c {
		causes = append(causes, fmt.Sprintf("%d %s", n, cause))
	}
	sort.Strings(causes)
	return fmt.Sprintf("%d (%s)", c.total(), strings.Join(causes, ", "))
}

// countCharges reads every job's history in the job log (the nodes write
// it at HistoryLevel full) and the job rows left: a retry was charged
// wherever a job's retries drop. A drop at a "locked" entry is a lock that
// expired on its own, re-acquired as a failed attempt (the cause names the
// owner whose lock it was); a drop at a "failed" entry is a failed run.
func countCharges(ctx context.Context, eng *bpmnlite.Engine) (charges, error) {
	entries, err := eng.JobLog(ctx, bpmnlite.JobLogQuery{})
	if err != nil {
		return nil, fmt.Errorf("reading the job log: %w", err)
	}
	rows, err := eng.Jobs(ctx, bpmnlite.JobQuery{})
	if err != nil {
		return nil, fmt.Errorf("reading the jobs: %w", err)
	}
	type state struct {
		created, retries int
		owner            string
	}
	jobs := map[string]*state{}
	c := charges{}
	for _, e := range entries {
		s := jobs[e.JobID]
		if s == nil {
			s = &state{created: e.Retries, retries: e.Retries}
			jobs[e.JobID] = s
		}
		if spent := s.retries - e.Retries; spent > 0 {
			cause := "failed run"
			if e.Message != "" {
				// What failed, so that a run that should not have failed
				// can be told apart in the report.
				cause += ": " + firstLine(e.Message, 160)
			}
			if e.Event == bpmnlite.JobLogLocked {
				cause = "expired lock of " + s.owner
			}
			c[cause] += spent
		}
		if e.Event == bpmnlite.JobLogLocked {
			s.owner = e.LockOwner
		}
		s.retries = e.Retries
	}
	// A row left with fewer retries or failed attempts than its log shows
	// spent means a charge the log missed.
	for _, j := range rows {
		s := jobs[j.ID]
		if s == nil {
			if j.FailedAttempts > 0 {
				c["failed attempts on a job without a log"] += j.FailedAttempts
			}
			continue
		}
		if spent := s.retries - j.Retries; spent > 0 {
			c["job row: "+j.ExceptionMessage] += spent
		}
	}
	return c, nil
}

// heldJob is a job locked by a node, as it was when the node was killed or
// frozen.
type heldJob struct {
	id  string
	rev int
}

// heldBy lists the jobs whose lock owner is owner (held or expired); nil
// when the database does not answer.
func heldBy(ctx context.Context, eng *bpmnlite.Engine, owner string) []heldJob {
	jobs, err := eng.Jobs(ctx, bpmnlite.JobQuery{})
	if err != nil {
		return nil
	}
	var held []heldJob
	for _, j := range jobs {
		if j.LockOwner == owner {
			held = append(held, heldJob{j.ID, j.Rev})
		}
	}
	return held
}

// released reports whether none of the held jobs is still as it was: each
// is done, or was released or locked again (its revision moved on).
func released(ctx context.Context, eng *bpmnlite.Engine, held []heldJob) bool {
	jobs, err := eng.Jobs(ctx, bpmnlite.JobQuery{})
	if err != nil {
		return false
	}
	for _, j := range jobs {
		if slices.Contains(held, heldJob{j.ID, j.Rev}) {
			return false
		}
	}
	return true
}

// noJobsLeft reports whether the database answers and has no job left.
func noJobsLeft(ctx context.Context, eng *bpmnlite.Engine) bool {
	jobs, err := eng.Jobs(ctx, bpmnlite.JobQuery{})
	return err == nil && len(jobs) == 0
}

// firstDoneAfter waits up to d for a job to succeed after since, as the job
// log says, and returns when it did.
func firstDoneAfter(ctx context.Context, eng *bpmnlite.Engine, since time.Time, d time.Duration) (time.Time, bool) {
	var first time.Time
	_, ok := waitUntil(ctx, d, func() bool {
		entries, err := eng.JobLog(ctx, bpmnlite.JobLogQuery{Event: bpmnlite.JobLogSucceeded})
		if err != nil {
			return false
		}
		for _, e := range entries {
			if e.Timestamp.After(since) && (first.IsZero() || e.Timestamp.Before(first)) {
				first = e.Timestamp
			}
		}
		return !first.IsZero()
	})
	return first, ok
}

// stranded reads in the job log which jobs an outage stranded: locked
// before it (stopped) and done after the database answered again (back).
// It returns how many and when the last of them was done.
func stranded(ctx context.Context, eng *bpmnlite.Engine, stopped, back time.Time) (int, time.Time, error) {
	entries, err := eng.JobLog(ctx, bpmnlite.JobLogQuery{})
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("reading the job log: %w", err)
	}
	lockedBefore := map[string]bool{}
	n, last := 0, time.Time{}
	for _, e := range entries {
		switch {
		case e.Event == bpmnlite.JobLogLocked && e.Timestamp.Before(stopped):
			lockedBefore[e.JobID] = true
		case e.Event == bpmnlite.JobLogSucceeded && e.Timestamp.After(back) && lockedBefore[e.JobID]:
			n++
			if e.Timestamp.After(last) {
				last = e.Timestamp
			}
		}
	}
	return n, last, nil
}

// A rule that releases a node's locks, and the message a node logs (with
// owner=) when it applies it.
type releaseRule struct{ name, msg string }

var (
	deadOwnerRule  = releaseRule{"the dead-owner rule", "took over the job locks of a job executor that stopped reporting"}
	ownRestartRule = releaseRule{"its restart under the same identity", "released the job locks a previous run of this executor's identity held"}
)

// takenOver waits up to within for the held jobs of owner, killed or
// frozen at since, to be released, and checks that rule did it (a node
// logged it) within maxTakeover; it returns the time taken and what
// happened, for the notes.
func (r *result) takenOver(ctx context.Context, eng *bpmnlite.Engine, logFile string, rule releaseRule, owner string, held []heldJob, since time.Time, within time.Duration) (time.Duration, string) {
	_, ok := waitUntil(ctx, within, func() bool { return released(ctx, eng, held) })
	took := time.Since(since)
	what := "released after " + took.Round(10*time.Millisecond).String()
	if !ok {
		what = "NOT released within " + took.Round(10*time.Millisecond).String()
	}
	r.check(ok && took <= maxTakeover, "%s's %d jobs %s, want within %s", owner, len(held), what, maxTakeover)
	// The node logs after its commit: the line may trail the release.
	_, byRule := waitUntil(ctx, time.Second, func() bool { return logged(logFile, rule.msg, owner) })
	r.check(byRule, "no node logged releasing %s's locks by %s", owner, rule.name)
	if byRule {
		what += " by " + rule.name + " (logged)"
	}
	return took, what
}

// logged reports whether a node logged a line containing msg with the
// attribute owner=owner.
func logged(logFile, msg, owner string) bool {
	lines, _ := readLines(logFile)
	for _, l := range lines {
		if strings.Contains(l, msg) && slices.Contains(strings.Fields(l), "owner="+owner) {
			return true
		}
	}
	return false
}

// reported waits until the executor owner has reported to the database.
func reported(ctx context.Context, eng *bpmnlite.Engine, owner string) bool {
	_, ok := waitUntil(ctx, 15*time.Second, func() bool {
		infos, err := eng.JobExecutors(ctx)
		return err == nil && slices.ContainsFunc(infos, func(i *bpmnlite.JobExecutorInfo) bool { return i.ID == owner })
	})
	return ok
}

// starter starts instances from the suite's engine until stopped, keeping
// the acknowledged ones (Start returned their id) and when.
type starter struct {
	quit, done chan struct{}
	once       sync.Once
	mu         sync.Mutex
	acked      []string
	at         []time.Time
	failed     int
}

func startStarts(ctx context.Context, eng *bpmnlite.Engine, every time.Duration) *starter {
	s := &starter{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for ctx.Err() == nil {
			// Bounded: a start during the outage must fail, not hang.
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			pi, err := startInstance(sctx, eng)
			cancel()
			s.mu.Lock()
			if err == nil {
				s.acked, s.at = append(s.acked, pi), append(s.at, time.Now())
			} else {
				s.failed++
			}
			s.mu.Unlock()
			select {
			case <-s.quit:
				return
			case <-time.After(every):
			}
		}
	}()
	return s
}

// counts returns how many starts were acknowledged, how many of them after
// t, and how many failed.
func (s *starter) counts(t time.Time) (acked, after, failed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.at {
		if at.After(t) {
			after++
		}
	}
	return len(s.acked), after, s.failed
}

// stop ends the starts and returns the acknowledged instances.
func (s *starter) stop() []string {
	s.once.Do(func() { close(s.quit) })
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.acked)
}

// waitUntil polls cond until it holds or d passes; it reports how long it
// took and whether it held.
func waitUntil(ctx context.Context, d time.Duration, cond func() bool) (time.Duration, bool) {
	start := time.Now()
	for time.Since(start) < d && ctx.Err() == nil {
		if cond() {
			return time.Since(start), true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start), false
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

func timeAfter(seconds int) <-chan time.Time { return time.After(time.Duration(seconds) * time.Second) }

// firstLine is the first line of s, at most n bytes of it.
func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
