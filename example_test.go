package bpmnlite_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// Embedding the engine: deploy, start, complete the user task, read the path.
func Example() {
	ctx := context.Background()
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
		return ex.SetVariable("archived", true)
	}))
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "demo", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(harness.UserTaskProcess)}}}); err != nil {
		panic(err)
	}
	pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "p", BusinessKey: "order-1"})
	if err != nil {
		panic(err)
	}
	tasks, _ := eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi})
	fmt.Println("waiting at:", tasks[0].TaskDefinitionKey)
	if err := eng.CompleteTask(ctx, tasks[0].ID, map[string]any{"approved": true}); err != nil {
		panic(err)
	}
	hist, _ := eng.ActivityHistory(ctx, pi)
	for _, h := range hist {
		fmt.Println(h.ActivityID, h.ActivityType)
	}
	// Output:
	// waiting at: work
	// start startEvent
	// work userTask
	// after serviceTask
	// end noneEndEvent
}

// A transient variable: the card number reaches the delegate of the
// starting command but is never stored.
func ExampleTransient() {
	ctx := context.Background()
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	eng.RegisterDelegate("charge", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
		card, _, err := ex.Variable("card")
		if err != nil {
			return err
		}
		return ex.SetVariable("charged", card != nil)
	}))
	bpmn := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="order" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="charge"/>
    <serviceTask id="charge" camunda:class="charge"/><sequenceFlow id="f2" sourceRef="charge" targetRef="ship"/>
    <userTask id="ship"/>
  </process>
</definitions>`
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "orders", Resources: []bpmnlite.Resource{{Name: "order.bpmn", Bytes: []byte(bpmn)}}}); err != nil {
		panic(err)
	}
	pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "order", Variables: map[string]any{
		"card": bpmnlite.Transient("4111 1111 1111 1111"),
		"item": "book",
	}})
	if err != nil {
		panic(err)
	}
	vars, _ := eng.Variables(ctx, pi)
	_, stored := vars["card"]
	fmt.Println("charged:", vars["charged"], "item:", vars["item"], "card stored:", stored)
	// Output: charged: true item: book card stored: false
}

// orderProcess is the process of the examples below: an order of more than
// 1000 needs the sales team's approval; then the order waits for its
// payment.
const orderProcess = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="shop">
  <message id="payment" name="paymentReceived"/>
  <process id="order" isExecutable="true">
    <startEvent id="received"/>
    <sequenceFlow id="f1" sourceRef="received" targetRef="large"/>
    <exclusiveGateway id="large" default="f3"/>
    <sequenceFlow id="f2" sourceRef="large" targetRef="approve">
      <conditionExpression>${amount > 1000}</conditionExpression>
    </sequenceFlow>
    <sequenceFlow id="f3" sourceRef="large" targetRef="awaitPayment"/>
    <userTask id="approve" name="Approve order" camunda:candidateGroups="sales"/>
    <sequenceFlow id="f4" sourceRef="approve" targetRef="awaitPayment"/>
    <intermediateCatchEvent id="awaitPayment">
      <messageEventDefinition messageRef="payment"/>
    </intermediateCatchEvent>
    <sequenceFlow id="f5" sourceRef="awaitPayment" targetRef="paid"/>
    <endEvent id="paid"/>
  </process>
</definitions>`

// newEngine opens an engine on a private in-memory database, as ExampleOpen
// does, and deploys the BPMN files given, as ExampleEngine_Deploy does.
func newEngine(bpmnFiles ...string) *bpmnlite.Engine {
	ctx := context.Background()
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	for i, f := range bpmnFiles {
		res := bpmnlite.Resource{Name: fmt.Sprintf("process%d.bpmn", i), Bytes: []byte(f)}
		if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "examples", Resources: []bpmnlite.Resource{res}}); err != nil {
			panic(err)
		}
	}
	return eng
}

// Opening an engine on a private in-memory SQLite database, as tests do.
// A file path (the default is "bpmnlite.db") keeps the data; a
// postgres:// URL runs on PostgreSQL. Open creates or migrates the schema.
func ExampleOpen() {
	ctx := context.Background()
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{
		Database: bpmnlite.DatabaseConfig{URL: ":memory:"},
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	fmt.Println("database:", eng.Dialect())
	// Output: database: sqlite
}

// Deploying a BPMN file held in memory (DeployFiles and DeployFS read
// files). Each deployment makes a new version of its processes; with
// SkipUnchanged, deploying the same bytes again makes none. A file with
// problems fails with a *ParseError listing each one.
func ExampleEngine_Deploy() {
	ctx := context.Background()
	eng := newEngine()
	defer eng.Close()
	req := bpmnlite.DeployRequest{
		Name:          "shop",
		Resources:     []bpmnlite.Resource{{Name: "order.bpmn", Bytes: []byte(orderProcess)}},
		SkipUnchanged: true,
	}
	for range 2 {
		d, err := eng.Deploy(ctx, req)
		if err != nil {
			panic(err)
		}
		def := d.Definitions[0]
		fmt.Printf("%s version %d, unchanged: %v\n", def.Key, def.Version, d.Unchanged)
	}
	// Output:
	// order version 1, unchanged: false
	// order version 1, unchanged: true
}

// Starting an instance of the latest version of a process by its key, with
// a business key and variables. Start returns the new instance's id when
// the instance waits: a large order waits for its approval.
func ExampleEngine_Start() {
	ctx := context.Background()
	eng := newEngine(orderProcess)
	defer eng.Close()
	pi, err := eng.Start(ctx, bpmnlite.StartRequest{
		Key:         "order",
		BusinessKey: "order-1",
		Variables:   map[string]any{"amount": 2500, "customer": "Ada"},
	})
	if err != nil {
		panic(err)
	}
	tasks, err := eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi})
	if err != nil {
		panic(err)
	}
	fmt.Println("waiting at:", tasks[0].TaskDefinitionKey)
	vars, err := eng.Variables(ctx, pi)
	if err != nil {
		panic(err)
	}
	fmt.Println("customer:", vars["customer"], "amount:", vars["amount"])
	// Output:
	// waiting at: approve
	// customer: Ada amount: 2500
}

// Completing a user task from a task list, with variables: the instance
// continues in the same transaction to its next wait state, here the
// payment message.
func ExampleEngine_CompleteTask() {
	ctx := context.Background()
	eng := newEngine(orderProcess)
	defer eng.Close()
	if _, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "order", Variables: map[string]any{"amount": 2500}}); err != nil {
		panic(err)
	}
	tasks, err := eng.Tasks(ctx, bpmnlite.TaskQuery{CandidateGroup: "sales"})
	if err != nil {
		panic(err)
	}
	for _, t := range tasks {
		fmt.Println("task:", t.Name)
		if err := eng.CompleteTask(ctx, t.ID, map[string]any{"approvedBy": "mary"}); err != nil {
			panic(err)
		}
		subs, err := eng.EventSubscriptions(ctx, t.ProcessInstanceID)
		if err != nil {
			panic(err)
		}
		fmt.Println("then waiting for:", subs[0].EventName)
	}
	// Output:
	// task: Approve order
	// then waiting for: paymentReceived
}

// Delivering a message to the instance waiting for it, found by its
// business key. Correlate returns the instances that received it; when
// nobody waits for the message it returns ErrNoMatch.
func ExampleEngine_Correlate() {
	ctx := context.Background()
	eng := newEngine(orderProcess)
	defer eng.Close()
	// A small order needs no approval: it waits for its payment at once.
	pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "order", BusinessKey: "order-3", Variables: map[string]any{"amount": 80}})
	if err != nil {
		panic(err)
	}
	paid := bpmnlite.CorrelateRequest{MessageName: "paymentReceived", BusinessKey: "order-3", Variables: map[string]any{"paymentRef": "PAY-81"}}
	ids, err := eng.Correlate(ctx, paid)
	if err != nil {
		panic(err)
	}
	fmt.Println("received by the order:", ids[0] == pi)
	_, err = eng.Correlate(ctx, paid)
	fmt.Println("sent again, no match:", errors.Is(err, bpmnlite.ErrNoMatch))
	hist, err := eng.HistoricProcessInstances(ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
	if err != nil {
		panic(err)
	}
	fmt.Println(hist[0].State, "at", hist[0].EndActivityID)
	// Output:
	// received by the order: true
	// sent again, no match: true
	// COMPLETED at paid
}

// A generated form (camunda:formData): its variables with their defaults,
// a submission its constraints refuse, naming the field, then one they
// accept, converted to the fields' types.
func ExampleEngine_SubmitTaskForm() {
	ctx := context.Background()
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	model := enginetest.Process("order", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="approve" />
    <userTask id="approve">
      <extensionElements><camunda:formData>
        <camunda:formField id="amount" type="long" defaultValue="10">
          <camunda:validation><camunda:constraint name="max" config="100" /></camunda:validation>
        </camunda:formField>
        <camunda:formField id="approved" type="boolean" />
      </camunda:formData></extensionElements>
    </userTask>
    <sequenceFlow id="f2" sourceRef="approve" targetRef="end" />
    <endEvent id="end" />`)
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "order", Resources: []bpmnlite.Resource{{Name: "order.bpmn", Bytes: []byte(model)}}}); err != nil {
		panic(err)
	}
	pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "order"})
	if err != nil {
		panic(err)
	}
	tasks, _ := eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi})
	vars, _ := eng.TaskFormVariables(ctx, tasks[0].ID, []string{"amount"})
	fmt.Println("amount:", vars["amount"].Type, vars["amount"].Value)

	_, err = eng.SubmitTaskForm(ctx, tasks[0].ID, map[string]any{"amount": 250}, false)
	var refused *bpmnlite.FormFieldError
	if errors.As(err, &refused) {
		fmt.Println("refused:", refused.Field, "-", err)
	}
	out, err := eng.SubmitTaskForm(ctx, tasks[0].ID, map[string]any{"amount": 90, "approved": "true"}, true)
	if err != nil {
		panic(err)
	}
	fmt.Printf("submitted: amount %v (%T), approved %v\n", out["amount"], out["amount"], out["approved"])
	// Output:
	// amount: Long 10
	// refused: amount - Invalid value submitted for form field 'amount': validation of max(100) failed.
	// submitted: amount 90 (int64), approved true
}
