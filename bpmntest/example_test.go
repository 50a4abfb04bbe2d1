package bpmntest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmntest"
)

// A test of the payment example: the card service fails twice, and the
// R3/PT5S retry cycle runs the charge again only when the clock has moved
// five seconds. In a test, pass t to New instead of a Script.
func Example() {
	s := new(bpmntest.Script)
	defer s.Close()
	e := bpmntest.New(s)
	e.Deploy("../examples/processes/retry.bpmn")
	e.FailTimes("chargeCard", 2, errors.New("card service timeout"), nil)

	pi := e.Start("payment", nil)
	pi.AssertJob("charge", bpmntest.JobCheck{Retries: bpmntest.Ptr(2)})
	pi.Advance(5 * time.Second).Advance(5 * time.Second).AssertEnded("end")

	fmt.Println(strings.Join(pi.Path(), " → "))
	fmt.Println("charged", e.Calls("chargeCard"), "times")
	// Output:
	// start → charge → end
	// charged 3 times
}

// Timers fire only when the test moves the clock to them.
func ExampleInstance_Advance() {
	s := new(bpmntest.Script)
	defer s.Close()
	e := bpmntest.New(s)
	e.Deploy("../examples/processes/escalation.bpmn")

	pi := e.Start("escalation", nil)
	fmt.Println("waiting at", pi.WaitingAt())
	pi.Advance(4 * time.Hour)
	fmt.Println("after 4 hours, waiting at", pi.WaitingAt())
	pi.CompleteTask("escalate", nil).AssertEnded("done")
	fmt.Println("ended")
	// Output:
	// waiting at [answer]
	// after 4 hours, waiting at [escalate]
	// ended
}

// A stub stands in for a delegate the process calls: it sets the variables
// given and counts its calls. Start runs the instance (and its
// asynchronous preparation job) to the user task; CompleteTask runs it on.
func ExampleHarness_Stub() {
	s := new(bpmntest.Script)
	defer s.Close()
	e := bpmntest.New(s)
	e.Deploy("../examples/processes/order.bpmn")
	e.Stub("checkStock", map[string]any{"stock": 5})

	pi := e.Start("order", map[string]any{"customer": map[string]any{"name": "Ada", "status": "VIP"}, "quantity": 2})
	pi.AssertWaitingAt("ship").
		AssertPassed("checkStock", "prepare").
		CompleteTask("ship", nil).
		AssertEnded("shipped").
		AssertVariable("preparedFor", "Ada")

	fmt.Println(strings.Join(pi.Path(), " → "))
	fmt.Println("stock checked", e.Calls("checkStock"), "time")
	// Output:
	// received → checkStock → inStock → prepare → ship → shipped
	// stock checked 1 time
}

// A card service that fails at every attempt: after the retry cycle's
// three attempts, five seconds apart, the job has no retries left and an
// incident is open. Given a retry, as an operator gives it, the job runs
// again at its due date, five seconds after the last attempt.
func ExampleInstance_AssertIncident() {
	s := new(bpmntest.Script)
	defer s.Close()
	e := bpmntest.New(s)
	e.Deploy("../examples/processes/retry.bpmn")
	e.FailTimes("chargeCard", 3, errors.New("card service timeout"), nil)

	pi := e.Start("payment", nil).Advance(5 * time.Second).Advance(5 * time.Second)
	pi.AssertIncident("charge", "card service timeout")
	job := pi.AssertJob("charge", bpmntest.JobCheck{Retries: bpmntest.Ptr(0)})
	fmt.Println("attempts:", e.Calls("chargeCard"))

	if err := e.SetJobRetries(context.Background(), job.ID, 1); err != nil {
		panic(err)
	}
	pi.Advance(5 * time.Second).AssertEnded("end")
	fmt.Println("attempts:", e.Calls("chargeCard"))
	// Output:
	// attempts: 3
	// attempts: 4
}
