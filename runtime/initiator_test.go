package runtime_test

import (
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// camunda:initiator stores the authenticated user in a variable of each
// new instance, as Camunda's InitiatorTest and
// ProcessInstantiationAtActivitiesTest.testInitiatorVariable: the start
// event's assignee expression sees it; without a user it is null; a start
// variable of that name wins; a start before an activity and a called
// process set it too; on a subprocess's start event it means nothing.
func TestInitiator(t *testing.T) {
	eachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *env) {
		e.Deploy("initiator", enginetest.Process("initiator", `
    <startEvent id="start" camunda:initiator="initiator" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <userTask id="task" camunda:assignee="${initiator}" />`))
		ctx := bpmnlite.WithAuthenticatedUser(e.Ctx, "bono")
		pi, err := e.Eng.Start(ctx, bpmnlite.StartRequest{Key: "initiator"})
		if err != nil {
			t.Fatal(err)
		}
		if tasks := e.Tasks(pi); len(tasks) != 1 || tasks[0].Assignee != "bono" {
			t.Fatalf("tasks %+v, want one assigned to bono", tasks)
		}

		anonymous := e.Start("initiator", nil)
		if vars := e.VarsOf(anonymous); len(vars) != 1 || vars["initiator"] != nil {
			t.Fatalf("variables %v, want initiator set to null", vars)
		}
		given, err := e.Eng.Start(ctx, bpmnlite.StartRequest{Key: "initiator", Variables: map[string]any{"initiator": "kermit"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Var(given, "initiator"); got != "kermit" {
			t.Fatalf("initiator %v, want the start variable kermit", got)
		}
		before, err := e.Eng.Start(bpmnlite.WithAuthenticatedUser(e.Ctx, "kermit"), bpmnlite.StartRequest{Key: "initiator", StartBefore: "task"})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Var(before, "initiator"); got != "kermit" {
			t.Fatalf("started before the task: initiator %v, want kermit", got)
		}

		e.Deploy("caller", enginetest.Process("caller", `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <callActivity id="call" calledElement="initiator" />
    <sequenceFlow id="f2" sourceRef="call" targetRef="sub" />
    <subProcess id="sub">
      <startEvent id="subStart" camunda:initiator="inner" />
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="wait" />
      <userTask id="wait" />
    </subProcess>`))
		caller, err := e.Eng.Start(ctx, bpmnlite.StartRequest{Key: "caller"})
		if err != nil {
			t.Fatal(err)
		}
		called, err := e.Eng.Tasks(e.Ctx, bpmnlite.TaskQuery{TaskDefinitionKey: "task", Assignee: "bono"})
		if err != nil || len(called) != 2 {
			t.Fatalf("tasks assigned to bono: %d (%v), want 2: the first instance's and the called one's", len(called), err)
		}
		if vars := e.VarsOf(caller); len(vars) != 0 {
			t.Fatalf("caller variables %v, want none", vars)
		}
	})
}
