package worker_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/rest"
	"github.com/bpmnlite/bpmnlite/worker"
)

// paymentProcess charges a card in an external task of topic "charge-card";
// a declined card is a BPMN error, caught by the boundary event.
const paymentProcess = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="shop">
  <error id="declined" errorCode="CARD_DECLINED"/>
  <process id="payment" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="charge"/>
    <serviceTask id="charge" name="Charge card" camunda:type="external" camunda:topic="charge-card"/>
    <sequenceFlow id="f2" sourceRef="charge" targetRef="charged"/>
    <endEvent id="charged"/>
    <boundaryEvent id="cardDeclined" attachedToRef="charge">
      <errorEventDefinition errorRef="declined"/>
    </boundaryEvent>
    <sequenceFlow id="f3" sourceRef="cardDeclined" targetRef="callCustomer"/>
    <userTask id="callCustomer" name="Call the customer"/>
  </process>
</definitions>`

// newEngine opens an engine on a private in-memory database and deploys
// paymentProcess (the bpmnlite package's examples show both calls).
func newEngine() *bpmnlite.Engine {
	ctx := context.Background()
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "payments", Resources: []bpmnlite.Resource{{Name: "payment.bpmn", Bytes: []byte(paymentProcess)}}}); err != nil {
		panic(err)
	}
	return eng
}

// A worker in the engine's own process: it fetches the tasks of its topic,
// runs the handler with the task's lock extended, and completes the task
// with the variables the handler returns. The instance then goes on.
func Example() {
	eng := newEngine()
	defer eng.Close()
	pi, err := eng.Start(context.Background(), bpmnlite.StartRequest{Key: "payment", BusinessKey: "order-7", Variables: map[string]any{"amount": 120}})
	if err != nil {
		panic(err)
	}

	// Run works until its context ends; this one ends after one task.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	w := worker.New(worker.Engine(eng), worker.Config{WorkerID: "payments-1"})
	w.Subscribe("charge-card", func(_ context.Context, t *worker.Task) (map[string]any, error) {
		defer stop()
		fmt.Println("charging", t.Variables["amount"], "for", t.BusinessKey)
		return map[string]any{"receipt": "R-1001"}, nil
	}, worker.Subscription{LockDuration: time.Minute})
	if err := w.Run(ctx); err != nil { // returns when the task's outcome is reported
		panic(err)
	}

	hist, err := eng.HistoricProcessInstances(context.Background(), bpmnlite.HistoricProcessInstanceQuery{ID: pi})
	if err != nil {
		panic(err)
	}
	fmt.Println(hist[0].State, "at", hist[0].EndActivityID)
	// Output:
	// charging 120 for order-7
	// COMPLETED at charged
}

// A *BpmnError from a handler is a business outcome, not a failure: the
// error boundary event with its code catches it, and the instance goes on
// from there. Any other error is a failure, retried as the Subscription
// says.
func ExampleBpmnError() {
	eng := newEngine()
	defer eng.Close()
	pi, err := eng.Start(context.Background(), bpmnlite.StartRequest{Key: "payment", Variables: map[string]any{"amount": 9000}})
	if err != nil {
		panic(err)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	w := worker.New(worker.Engine(eng), worker.Config{})
	w.Subscribe("charge-card", func(context.Context, *worker.Task) (map[string]any, error) {
		defer stop() // one task is enough for this example
		return nil, &worker.BpmnError{Code: "CARD_DECLINED", Message: "over the card's limit"}
	}, worker.Subscription{})
	if err := w.Run(ctx); err != nil {
		panic(err)
	}

	tasks, err := eng.Tasks(context.Background(), bpmnlite.TaskQuery{ProcessInstanceID: pi})
	if err != nil {
		panic(err)
	}
	fmt.Println("waiting at:", tasks[0].Name)
	// Output: waiting at: Call the customer
}

// The same handler in another process, over the REST API of a bpmnlite
// server (`bpmnlite serve`, here the rest package's handler on a test
// server) or of Camunda 7.
func ExampleHTTP() {
	eng := newEngine()
	defer eng.Close()
	srv := httptest.NewServer(rest.New(eng, rest.Options{}))
	defer srv.Close()
	if _, err := eng.Start(context.Background(), bpmnlite.StartRequest{Key: "payment", BusinessKey: "order-8", Variables: map[string]any{"amount": 45}}); err != nil {
		panic(err)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	w := worker.New(worker.HTTP(srv.URL+"/engine-rest", worker.HTTPOptions{}), worker.Config{})
	w.Subscribe("charge-card", func(_ context.Context, t *worker.Task) (map[string]any, error) {
		defer stop() // one task is enough for this example
		fmt.Println("charging", t.Variables["amount"], "for", t.BusinessKey, "over HTTP")
		return map[string]any{"receipt": "R-1002"}, nil
	}, worker.Subscription{})
	if err := w.Run(ctx); err != nil {
		panic(err)
	}

	ended, err := eng.HistoricProcessInstances(context.Background(), bpmnlite.HistoricProcessInstanceQuery{BusinessKey: "order-8", State: bpmnlite.StateCompleted})
	if err != nil {
		panic(err)
	}
	fmt.Println("completed instances:", len(ended))
	// Output:
	// charging 45 for order-8 over HTTP
	// completed instances: 1
}
