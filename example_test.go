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
