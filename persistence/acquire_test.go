package persistence_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

var acqNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func minutes(m int) *time.Time { return ptr(acqNow.Add(time.Duration(m) * time.Minute)) }

// newJob is an acquirable message job; mods adjust it.
func newJob(id string, mods ...func(*persistence.Job)) *persistence.Job {
	j := &persistence.Job{ID: id, Type: persistence.JobMessage, HandlerType: "async-before",
		Retries: 3, Suspension: persistence.Active, CreateTime: acqNow.Add(-time.Hour), ProcessInstanceID: "pi-" + id}
	for _, m := range mods {
		m(j)
	}
	return j
}

func params(mods ...func(*persistence.AcquireParams)) persistence.AcquireParams {
	p := persistence.AcquireParams{Now: acqNow, LockOwner: "me", LockUntil: acqNow.Add(5 * time.Minute), Limit: 100}
	for _, m := range mods {
		m(&p)
	}
	return p
}

func insertJobs(t *testing.T, tx persistence.Tx, jobs ...*persistence.Job) {
	t.Helper()
	for _, j := range jobs {
		if err := persistence.Insert(t.Context(), tx, j); err != nil {
			t.Fatal(err)
		}
	}
}

func acquire(t *testing.T, tx persistence.Tx, p persistence.AcquireParams) []*persistence.Job {
	t.Helper()
	jobs, err := persistence.AcquireJobs(t.Context(), tx, p)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func ids(jobs []*persistence.Job) []string {
	out := make([]string, len(jobs))
	for i, j := range jobs {
		out[i] = j.ID
	}
	return out
}

func sortedIDs(jobs []*persistence.Job) string {
	s := ids(jobs)
	slices.Sort(s)
	return strings.Join(s, " ")
}

func TestAcquireFilters(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx := begin(t, db)
		insertJobs(t, tx,
			newJob("due-nil"),
			newJob("due-past", func(j *persistence.Job) { j.DueDate = minutes(-1) }),
			newJob("due-now", func(j *persistence.Job) { j.DueDate = ptr(acqNow) }),
			newJob("due-future", func(j *persistence.Job) { j.DueDate = ptr(acqNow.Add(time.Microsecond)) }),
			newJob("no-retries", func(j *persistence.Job) { j.Retries = 0 }),
			newJob("suspended", func(j *persistence.Job) { j.Suspension = persistence.Suspended }),
			newJob("locked", func(j *persistence.Job) { j.LockOwner, j.LockExpiration = "other", minutes(1) }),
			newJob("lock-ends-now", func(j *persistence.Job) { j.LockOwner, j.LockExpiration = "other", ptr(acqNow) }),
			newJob("expired", func(j *persistence.Job) {
				j.LockOwner, j.LockExpiration, j.FailedAttempts = "other", ptr(acqNow.Add(-time.Microsecond)), 1
			}),
		)
		p := params()
		got := acquire(t, tx, p)
		if s := sortedIDs(got); s != "due-nil due-now due-past expired" {
			t.Fatalf("acquired %s", s)
		}
		for _, j := range got {
			if j.LockOwner != "me" || j.LockExpiration == nil || !j.LockExpiration.Equal(p.LockUntil) || j.Rev != 2 {
				t.Errorf("%s: owner %q, expiration %v, rev %d", j.ID, j.LockOwner, j.LockExpiration, j.Rev)
			}
			if want := map[bool]int{true: 2, false: 0}[j.ID == "expired"]; j.FailedAttempts != want {
				t.Errorf("%s: %d failed attempts, want %d", j.ID, j.FailedAttempts, want)
			}
			stored, err := persistence.GetAs[*persistence.Job](ctx, tx, j.ID)
			if err != nil || !reflect.DeepEqual(stored, j) {
				t.Errorf("%s stored as %+v, returned %+v (%v)", j.ID, stored, j, err)
			}
		}
		if again := acquire(t, tx, p); len(again) != 0 {
			t.Errorf("locked jobs acquired again: %v", ids(again))
		}
	})
}

func TestAcquireLimit(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		tx := begin(t, db)
		for i := range 5 {
			insertJobs(t, tx, newJob(fmt.Sprint("j", i)))
		}
		seen := map[string]bool{}
		for _, want := range []int{2, 2, 1, 0} {
			got := acquire(t, tx, params(func(p *persistence.AcquireParams) { p.Limit = 2 }))
			if len(got) != want {
				t.Fatalf("acquired %v, want %d jobs", ids(got), want)
			}
			for _, j := range got {
				if seen[j.ID] {
					t.Errorf("%s acquired twice", j.ID)
				}
				seen[j.ID] = true
			}
		}
	})
}

func TestAcquireOrder(t *testing.T) {
	jobs := func() []*persistence.Job {
		timer := func(j *persistence.Job) { j.Type = persistence.JobTimer }
		prio := func(p int64) func(*persistence.Job) { return func(j *persistence.Job) { j.Priority = p } }
		due := func(m int) func(*persistence.Job) { return func(j *persistence.Job) { j.DueDate = minutes(m) } }
		return []*persistence.Job{
			newJob("a", prio(1)),
			newJob("b", timer, prio(1), due(-3)),
			newJob("c", prio(5), due(-1)),
			newJob("d", timer, prio(5), due(-2)),
			newJob("e", prio(1), due(-4)),
			newJob("f", prio(9), due(-10), func(j *persistence.Job) { // its lock expired
				j.LockOwner, j.LockExpiration = "dead", minutes(-1)
			}),
		}
	}
	const pri, timers, byDue = 1, 2, 4
	cases := []struct {
		order int
		limit int
		want  string
	}{
		{byDue, 0, "a f e b d c"},
		{byDue, 2, "a f"},
		{pri | byDue, 0, "f d c a e b"},
		{pri | byDue, 2, "f d"},
		{timers | byDue, 0, "b d a f e c"},
		{timers | byDue, 3, "b d a"},
		{pri | timers | byDue, 0, "f d c b a e"},
		{pri | timers | byDue, 4, "f d c b"},
	}
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		for _, c := range cases {
			tx, err := db.Begin(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			insertJobs(t, tx, jobs()...)
			got := acquire(t, tx, params(func(p *persistence.AcquireParams) {
				p.ByPriority, p.PreferTimers, p.ByDueDate = c.order&pri != 0, c.order&timers != 0, c.order&byDue != 0
				if c.limit > 0 {
					p.Limit = c.limit
				}
			}))
			if s := strings.Join(ids(got), " "); s != c.want {
				t.Errorf("order %03b limit %d: %s, want %s", c.order, c.limit, s, c.want)
			}
			tx.Rollback(ctx)
		}
		// By priority alone, ties come in any order.
		tx := begin(t, db)
		insertJobs(t, tx, jobs()...)
		var prios []int64
		for _, j := range acquire(t, tx, params(func(p *persistence.AcquireParams) { p.ByPriority = true })) {
			prios = append(prios, j.Priority)
		}
		if fmt.Sprint(prios) != "[9 5 5 1 1 1]" {
			t.Errorf("priorities %v", prios)
		}
	})
}

func TestAcquirePriorityRange(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		for _, c := range []struct {
			min, max *int64
			want     string
		}{
			{ptr[int64](2), ptr[int64](6), "p5"},
			{ptr[int64](5), nil, "p5 p9"},
			{nil, ptr[int64](5), "p1 p5"},
			{ptr[int64](10), nil, ""},
		} {
			tx, err := db.Begin(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []int64{1, 5, 9} {
				insertJobs(t, tx, newJob(fmt.Sprint("p", p), func(j *persistence.Job) { j.Priority = p }))
			}
			got := acquire(t, tx, params(func(p *persistence.AcquireParams) { p.PriorityMin, p.PriorityMax = c.min, c.max }))
			if s := sortedIDs(got); s != c.want {
				t.Errorf("range %v..%v: %q, want %q", c.min, c.max, s, c.want)
			}
			tx.Rollback(ctx)
		}
	})
}

func TestAcquireDeploymentAware(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		for _, c := range []struct {
			deployments []string
			want        string
		}{
			{nil, "d1 d2 none"},
			{[]string{}, "none"},
			{[]string{"d1"}, "d1 none"},
			{[]string{"d1", "d2", "d3"}, "d1 d2 none"},
		} {
			tx, err := db.Begin(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			insertJobs(t, tx,
				newJob("d1", func(j *persistence.Job) { j.DeploymentID = "d1" }),
				newJob("d2", func(j *persistence.Job) { j.DeploymentID = "d2" }),
				newJob("none"),
			)
			got := acquire(t, tx, params(func(p *persistence.AcquireParams) { p.DeploymentIDs = c.deployments }))
			if s := sortedIDs(got); s != c.want {
				t.Errorf("deployments %#v: %q, want %q", c.deployments, s, c.want)
			}
			tx.Rollback(ctx)
		}
	})
}

func TestAcquireExclusive(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		tx := begin(t, db)
		excl := func(pi string) func(*persistence.Job) {
			return func(j *persistence.Job) { j.Exclusive, j.ProcessInstanceID = true, pi }
		}
		insertJobs(t, tx,
			newJob("x1", excl("X"), func(j *persistence.Job) { j.LockOwner, j.LockExpiration = "other", minutes(1) }),
			newJob("x2", excl("X")),
			newJob("x3", func(j *persistence.Job) { j.ProcessInstanceID = "X" }), // not exclusive
			newJob("y1", excl("Y")),
			newJob("y2", excl("Y")), // both of Y: none of them is locked yet
			newJob("start", excl("")),
		)
		if s := sortedIDs(acquire(t, tx, params())); s != "start x3 y1 y2" {
			t.Errorf("acquired %s, want start x3 y1 y2", s)
		}
		// Once x1's lock has expired, x1 and x2 are both acquirable.
		later := params(func(p *persistence.AcquireParams) {
			p.Now = acqNow.Add(2 * time.Minute)
			p.LockUntil = p.Now.Add(time.Minute)
		})
		if s := sortedIDs(acquire(t, tx, later)); s != "x1 x2" {
			t.Errorf("after x1's lock expired: %s, want x1 x2", s)
		}
	})
}

func TestAcquireParamsValidation(t *testing.T) {
	db := testdb.Backend{Name: "sqlite", URL: ":memory:"}.Open(t)
	tx := begin(t, db)
	for _, c := range []struct {
		mod  func(*persistence.AcquireParams)
		want string
	}{
		{func(p *persistence.AcquireParams) { p.LockOwner = "" }, "LockOwner is empty"},
		{func(p *persistence.AcquireParams) { p.Limit = 0 }, "Limit 0 is not positive"},
		{func(p *persistence.AcquireParams) { p.LockUntil = p.Now }, "is not after Now"},
		{func(p *persistence.AcquireParams) { p.Now = time.Time{} }, "Now is not set"},
	} {
		_, err := persistence.AcquireJobs(t.Context(), tx, params(c.mod))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}

// TestAcquireConcurrent runs several acquirers at once on PostgreSQL, each
// committing its locks: no job may be acquired twice, and all get acquired.
func TestAcquireConcurrent(t *testing.T) {
	db := testdb.Postgres(t).Open(t)
	ctx := t.Context()
	const n = 150
	tx := begin(t, db)
	for i := range n {
		insertJobs(t, tx, newJob(fmt.Sprintf("j%03d", i), func(j *persistence.Job) {
			j.Priority, j.DueDate = int64(i%7), minutes(-i%13)
		}))
	}
	commit(t, tx)

	var mu sync.Mutex
	owner := map[string]string{}
	var wg, started sync.WaitGroup
	errs := make([]error, 4)
	started.Add(len(errs))
	for w := range errs {
		wg.Go(func() {
			me := fmt.Sprint("node", w)
			for round := 0; ; round++ {
				tx, err := db.Begin(ctx, false)
				if round == 0 {
					// Everyone's first acquisition runs at once.
					started.Done()
					started.Wait()
				}
				if err != nil {
					errs[w] = err
					return
				}
				jobs, err := persistence.AcquireJobs(ctx, tx, params(func(p *persistence.AcquireParams) {
					p.LockOwner, p.Limit = me, 7
					p.ByPriority, p.ByDueDate = w%2 == 0, w < 2
				}))
				if err == nil {
					err = tx.Commit(ctx)
				}
				tx.Rollback(ctx)
				if err != nil {
					errs[w] = err
					return
				}
				if len(jobs) == 0 {
					return
				}
				mu.Lock()
				for _, j := range jobs {
					if prev, ok := owner[j.ID]; ok {
						errs[w] = fmt.Errorf("%s acquired by %s and %s", j.ID, prev, me)
					}
					owner[j.ID] = me
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(owner) != n {
		t.Errorf("%d of %d jobs acquired", len(owner), n)
	}
	nodes := map[string]bool{}
	for _, o := range owner {
		nodes[o] = true
	}
	t.Logf("%d jobs spread over %d acquirers", len(owner), len(nodes))
	if got := countRows(t, db, "SELECT count(*) FROM job WHERE lock_owner IS NOT NULL AND rev = 2"); got != n {
		t.Errorf("%d jobs locked once in the database, want %d", got, n)
	}
}

// Under a sustained backlog of fresh jobs (more than one acquisition takes,
// refilled after each), a job whose node died is taken by the first
// acquisition after its lock expired, in every acquisition order, when it
// ties with the fresh jobs on that order.
func TestAcquireExpiredBeforeFreshBacklog(t *testing.T) {
	orders := map[string]func(*persistence.AcquireParams){
		"unordered":   func(*persistence.AcquireParams) {},
		"by priority": func(p *persistence.AcquireParams) { p.ByPriority = true },
		"timers":      func(p *persistence.AcquireParams) { p.PreferTimers = true },
		"by due date": func(p *persistence.AcquireParams) { p.ByDueDate = true },
		"all three":   func(p *persistence.AcquireParams) { p.ByPriority, p.PreferTimers, p.ByDueDate = true, true, true },
	}
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		for name, order := range orders {
			tx := begin(t, db)
			fresh := 0
			refill := func(n int) {
				for range n {
					fresh++
					insertJobs(t, tx, newJob(fmt.Sprintf("fresh-%03d", fresh)))
				}
			}
			refill(50)
			insertJobs(t, tx, newJob("orphan", func(j *persistence.Job) { j.LockOwner, j.LockExpiration = "dead", minutes(-1) }))
			got := acquire(t, tx, params(order, func(p *persistence.AcquireParams) { p.Limit = 5 }))
			if !slices.Contains(ids(got), "orphan") {
				t.Errorf("%s: the first acquisition took %v, not the orphaned job", name, ids(got))
			}
			for i := range 5 { // the backlog goes on; nothing else expired is left behind
				refill(5)
				if got := acquire(t, tx, params(order, func(p *persistence.AcquireParams) { p.Limit = 5 })); len(got) != 5 {
					t.Errorf("%s: acquisition %d took %d jobs, want 5", name, i+2, len(got))
				}
			}
			tx.Rollback(t.Context())
		}
	})
}

// ExcludeHandlerTypes leaves the jobs of those handler types out, with and
// beside the other filters' parameters.
func TestAcquireExcludeHandlerTypes(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		for _, c := range []struct {
			exclude     []string
			deployments []string
			want        string
		}{
			{nil, nil, "a b c"},
			{[]string{"batch-seed-job"}, nil, "b c"},
			{[]string{"batch-seed-job", "instance-migration"}, nil, "c"},
			{[]string{"instance-migration"}, []string{"d1"}, "a"},
		} {
			tx, err := db.Begin(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			insertJobs(t, tx,
				newJob("a", func(j *persistence.Job) { j.HandlerType = "batch-seed-job" }),
				newJob("b", func(j *persistence.Job) { j.HandlerType = "instance-migration" }),
				newJob("c", func(j *persistence.Job) { j.DeploymentID = "d2" }),
			)
			got := acquire(t, tx, params(func(p *persistence.AcquireParams) {
				p.ExcludeHandlerTypes, p.DeploymentIDs = c.exclude, c.deployments
			}))
			if s := sortedIDs(got); s != c.want {
				t.Errorf("excluding %v (deployments %v): %q, want %q", c.exclude, c.deployments, s, c.want)
			}
			tx.Rollback(ctx)
		}
	})
}
