package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// Long polling: a fetch with a response timeout that finds nothing waits
// until a task it may take could be there, then fetches again. What wakes
// it: a commit on this engine that made external tasks fetchable (at once,
// after the commit), the same on another node (PostgreSQL NOTIFY), and the
// expiry of a lock or retry timeout on a task of its topics (a timer).

// taskWake wakes waiting fetches: its channel is closed and replaced at
// each wake-up, so a fetch that takes the channel before it looks for tasks
// misses no wake-up.
type taskWake struct {
	mu        sync.Mutex
	ch        chan struct{}
	waiting   int
	closed    bool
	listening bool
}

func (w *taskWake) signal() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

func (w *taskWake) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}

// enter counts a fetch in as waiting; false when max wait already or the
// engine is closing.
func (w *taskWake) enter(max int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.waiting >= max {
		return false
	}
	w.waiting++
	return true
}

func (w *taskWake) leave() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting--
}

// close answers every waiting fetch and refuses new waits.
func (w *taskWake) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.wake()
}

func (w *taskWake) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

// externalTasksReady records that the command makes external tasks
// fetchable, or changes when they become so: its commit wakes waiting
// fetches here and on other nodes, which look again and time their next
// wait by the earliest lock expiry.
func (c *command) externalTasksReady() {
	if c.wakesFetches {
		return
	}
	c.wakesFetches = true
	n, notifies := c.e.db.(persistence.Notifier)
	if notifies && c.cc.InCallerTx {
		// The engine does not see the caller's commit: NOTIFY with it.
		c.cc.Write(n.NotifyAtCommit(c.e.extChannel, c.e.ID))
	}
	c.cc.AfterCommit(func() {
		c.e.extWake.wake()
		if notifies && !c.cc.InCallerTx {
			n.Notify(c.e.extChannel, c.e.ID)
		}
	})
}

// longPoll waits, after a fetch found nothing, until a task of the topics
// may be fetchable or timeout passes. It reports whether to fetch again.
func (e *Core) longPoll(ctx context.Context, wake <-chan struct{}, topics []string, deadline time.Time) (bool, error) {
	remaining := time.Until(deadline)
	if remaining <= 0 || e.extWake.isClosed() {
		return false, nil
	}
	wait := time.NewTimer(remaining)
	defer wait.Stop()
	var unlocked <-chan time.Time
	if next, err := e.nextExternalTaskUnlock(ctx, topics); err != nil {
		return false, err
	} else if next != nil {
		// The engine clock says when; wait that long in real time.
		t := time.NewTimer(max(next.Sub(e.clock()), 0))
		defer t.Stop()
		unlocked = t.C
	}
	select {
	case <-wake:
		return !e.extWake.isClosed(), nil
	case <-unlocked:
		return true, nil
	case <-wait.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (e *Core) nextExternalTaskUnlock(ctx context.Context, topics []string) (*time.Time, error) {
	var at *time.Time
	err := e.cmd.Plain(ctx, true, func(t persistence.Tx) (err error) {
		at, err = persistence.NextExternalTaskUnlock(ctx, t, e.clock().UTC(), topics)
		return err
	})
	return at, err
}

// listenExternalTasks starts, once, listening for other nodes' commits
// that made external tasks fetchable (PostgreSQL), until the engine closes.
func (e *Core) listenExternalTasks() {
	l, ok := e.db.(persistence.Listener)
	if !ok {
		return
	}
	e.extWake.mu.Lock()
	defer e.extWake.mu.Unlock()
	if e.extWake.listening {
		return
	}
	e.extWake.listening = true
	go func() {
		for e.lifetime.Err() == nil {
			err := l.Listen(e.lifetime, e.extChannel, func(payload string) {
				if payload != e.ID {
					e.extWake.wake()
				}
			})
			if err != nil && e.lifetime.Err() == nil {
				e.log.Warn("listening for external tasks of other nodes failed; retrying", "error", err)
				select {
				case <-time.After(time.Second):
				case <-e.lifetime.Done():
				}
			}
		}
	}()
}

// Close answers the fetches waiting for external tasks (with no tasks) and
// stops listening for other nodes' notifications.
func (e *Core) Close() {
	e.extWake.close()
	e.stop()
}
