package bpmntest_test

import (
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
