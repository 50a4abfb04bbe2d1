package jobexecutor

import (
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// servedBy's verdicts from executor reports, the full executor included
// (on SQLite a running job holds the one writer, so a test cannot fill an
// executor's queue while it watches).
func TestServedBy(t *testing.T) {
	ten := int64(10)
	job := &persistence.Job{DeploymentID: "d1", Priority: 0}
	for _, tc := range []struct {
		name   string
		execs  []*persistence.JobExecutorInfo
		blocks bool
		says   string
	}{
		{"none", nil, true, "no job executor"},
		{"deployment", []*persistence.JobExecutorInfo{{ID: "a", DeploymentAware: true, Deployments: "d2", PoolSize: 1}}, true, "has not registered deployment d1"},
		{"priority", []*persistence.JobExecutorInfo{{ID: "a", PriorityMin: &ten, PoolSize: 1}}, true, "serves priorities 10..+∞"},
		{"full", []*persistence.JobExecutorInfo{{ID: "a", PoolSize: 2, QueueSize: 2, Inflight: 4}}, true, "full, queue and pool"},
		{"served", []*persistence.JobExecutorInfo{{ID: "a", PoolSize: 2, QueueSize: 2, Inflight: 4}, {ID: "b", DeploymentAware: true, Deployments: "d0,d1", PoolSize: 4, Inflight: 1}}, false, "served by b (1 of 4 busy)"},
	} {
		blocks, says := ServedBy(job, tc.execs)
		if blocks != tc.blocks || !strings.Contains(says, tc.says) {
			t.Errorf("%s: %v %q", tc.name, blocks, says)
		}
	}
}

// The lock verdict says whether the owner is alive to extend the lock.
func TestLockVerdict(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	later, earlier := now.Add(time.Minute), now.Add(-time.Minute)
	alive := []*persistence.JobExecutorInfo{{ID: "node-a", Heartbeat: now.Add(-2 * time.Second)}}
	for _, tc := range []struct {
		name   string
		job    persistence.Job
		blocks bool
		says   string
	}{
		{"unlocked", persistence.Job{}, false, "not locked"},
		{"expired", persistence.Job{LockOwner: "node-a", LockExpiration: &earlier}, false, "expired"},
		{"alive", persistence.Job{LockOwner: "node-a", LockExpiration: &later}, true, "alive (reported 2s ago) and extends the lock"},
		{"gone", persistence.Job{LockOwner: "node-b", LockExpiration: &later}, true, "node-b has not reported in the last 30 s: the lock is not being extended"},
	} {
		blocks, says := LockVerdict(&tc.job, alive, now)
		if blocks != tc.blocks || !strings.Contains(says, tc.says) {
			t.Errorf("%s: %v %q", tc.name, blocks, says)
		}
	}
}
