package runtime

import (
	"github.com/bpmnlite/bpmnlite/bpmn"
)

// Transaction subprocesses, as Camunda runs them: a transaction is an
// embedded subprocess; a cancel end event inside it interrupts the
// transaction's other paths, runs the compensation handlers of what the
// transaction completed (compensation.go: latest first, nested
// subprocesses' too), and once they are done its cancel boundary event
// interrupts the transaction and takes its flows. A transaction that
// completes passes what it kept to the scope around it, as a subprocess.

// cancelEnd runs cancel end event a, reached by path x directly inside a
// transaction: the other paths of the transaction are cancelled, then the
// compensation of what it completed is thrown, x waiting at a until the
// handlers are done (transactionCancelled).
func (c *command) cancelEnd(x *execution, a *bpmn.Activity) error {
	if scope := x.scope(); scope != x {
		for _, ch := range scope.activeChildren() {
			if ch == x {
				continue
			}
			if err := c.cancel(ch, "cancel end event '"+a.ID+"'"); err != nil {
				return err
			}
		}
		c.touch(scope)
		last, err := c.compact(scope)
		if err != nil {
			return err
		}
		if last != nil {
			x = last
		}
	}
	return c.throwCompensation(x, a)
}

// transactionCancelled continues path x at cancel end event a once the
// compensation is done: the cancel boundary event of a's transaction
// fires, interrupting the transaction (with x).
func (c *command) transactionCancelled(x *execution, a *bpmn.Activity) error {
	for s := x.scope().parent; s != nil; s = s.parent {
		if b := boundaryAt(s, bpmn.CancelEvent, ""); b != nil {
			return c.triggerBoundary(s, b)
		}
	}
	return failAt(a, "its transaction has no cancel boundary event")
}
