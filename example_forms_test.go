package bpmnlite_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

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
