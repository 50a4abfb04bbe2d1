package rest

import (
	"context"
	"testing"
	"time"
)

// Deployments beyond ConcurrentDeployments wait for a slot; beyond the
// rate they are refused with the time to wait.
func TestDeployLimitsAdmit(t *testing.T) {
	l := newDeployLimits(Options{ConcurrentDeployments: 1, DeploymentsPerMinute: 600})
	release, err := l.admit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := l.admit(ctx); err == nil {
		t.Fatal("a second deployment at once was admitted")
	}
	release()
	release2, err := l.admit(context.Background())
	if err != nil {
		t.Fatalf("after the first ended: %v", err)
	}
	release2()

	b := newTokenBucket(1, 2) // one per second, two at once
	now := time.Now()
	if b.take(now) != 0 || b.take(now) != 0 {
		t.Fatal("the burst was refused")
	}
	if wait := b.take(now); wait <= 0 || wait > time.Second {
		t.Fatalf("third at once: wait %v, want up to 1s", wait)
	}
	if b.take(now.Add(1100*time.Millisecond)) != 0 {
		t.Fatal("refused after a second")
	}
	if retryAfter(1500*time.Millisecond) != "2" || retryAfter(time.Millisecond) != "1" {
		t.Error("Retry-After not rounded up to whole seconds")
	}
}
