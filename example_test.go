package bpmnlite_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/bpmnlite/bpmnlite"
)

// Embedding the engine: deploy, start, complete the user task, read the path.
func Example() {
	ctx := context.Background()
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: ":memory:", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
		return ex.SetVariable("archived", true)
	}))
	if _, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "demo", Resources: []bpmnlite.Resource{{Name: "p.bpmn", Bytes: []byte(userTaskProcess)}}}); err != nil {
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
	// end endEvent
}

// A transient variable: the card number reaches the delegate of the
// starting command but is never stored.
func ExampleTransient() {
	ctx := context.Background()
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: ":memory:", Logger: slog.New(slog.DiscardHandler)})
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
