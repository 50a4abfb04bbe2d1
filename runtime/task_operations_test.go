package runtime_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// review: user task "review" with an error boundary event (REJECT, to
// "fix"), a non-interrupting (LATE, to "remind") and an interrupting
// (ABORT, to the end) escalation boundary event; after it a service task
// "stamp" that sets stamped, and user task "archive".
var reviewProcess = enginetest.Defs(`<error id="reject" errorCode="REJECT"/><escalation id="late" escalationCode="LATE"/>
	<escalation id="abort" escalationCode="ABORT"/>`,
	enginetest.Executable("reviewing",
		`<startEvent id="start"/><userTask id="review"/><serviceTask id="stamp" camunda:class="stamp"/><userTask id="archive"/><endEvent id="end"/>
		<boundaryEvent id="rejected" attachedToRef="review"><errorEventDefinition errorRef="reject"/></boundaryEvent><userTask id="fix"/>
		<boundaryEvent id="reminded" attachedToRef="review" cancelActivity="false"><escalationEventDefinition escalationRef="late"/></boundaryEvent>
		<userTask id="remind"/>
		<boundaryEvent id="aborted" attachedToRef="review"><escalationEventDefinition escalationRef="abort"/></boundaryEvent><endEvent id="abortEnd"/>`,
		enginetest.Chain("start", "review", "stamp", "archive", "end"), enginetest.Chain("rejected", "fix"),
		enginetest.Chain("reminded", "remind"), enginetest.Chain("aborted", "abortEnd")))

func openReview(t *testing.T, e *harness.Env) {
	e.Eng.RegisterDelegate("stamp", bpmnlite.DelegateFunc(func(_ context.Context, x *bpmnlite.Execution) error {
		return x.SetVariable("stamped", true)
	}))
	e.Deploy("review", reviewProcess)
}

// taskAt is pi's open task at activity key.
func taskAt(t *testing.T, e *harness.Env, pi, key string) string {
	t.Helper()
	for _, task := range e.Tasks(pi) {
		if task.TaskDefinitionKey == key {
			return task.ID
		}
	}
	t.Fatalf("no task %s in %s (open: %s)", key, pi, e.TaskKeys(pi))
	return ""
}

func TestTaskBpmnErrorsAndEscalations(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		openReview(t, e)
		pi := e.Start("reviewing", nil)
		if err := e.Eng.HandleTaskBpmnError(e.Ctx, taskAt(t, e, pi, "review"), "REJECT", "no", map[string]any{"why": "no"}); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "fix" || e.Var(pi, "why") != "no" {
			t.Errorf("caught error: tasks %s, why=%v", got, e.Var(pi, "why"))
		}
		pi = e.Start("reviewing", nil)
		if err := e.Eng.HandleTaskBpmnError(e.Ctx, taskAt(t, e, pi, "review"), "UNKNOWN", "", nil); err != nil {
			t.Fatal(err)
		}
		if !e.Ended(pi) || len(e.Tasks(pi)) != 0 {
			t.Errorf("uncaught error: ended %v, tasks %s", e.Ended(pi), e.TaskKeys(pi))
		}

		pi = e.Start("reviewing", nil)
		review := taskAt(t, e, pi, "review")
		if err := e.Eng.HandleTaskEscalation(e.Ctx, review, "LATE", nil); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "remind,review" {
			t.Errorf("non-interrupting escalation: tasks %s", got)
		}
		err := e.Eng.HandleTaskEscalation(e.Ctx, review, "NONE", map[string]any{"lost": true})
		if !errors.Is(err, bpmnlite.ErrUncaughtEscalation) || e.Var(pi, "lost") != nil {
			t.Errorf("uncaught escalation: %v, lost=%v: want ErrUncaughtEscalation and nothing changed", err, e.Var(pi, "lost"))
		}
		if err := e.Eng.HandleTaskEscalation(e.Ctx, review, "ABORT", nil); err != nil {
			t.Fatal(err)
		}
		if got := e.TaskKeys(pi); got != "remind" {
			t.Errorf("interrupting escalation: tasks %s", got)
		}
		for _, err := range []error{
			e.Eng.HandleTaskBpmnError(e.Ctx, "nope", "X", "", nil),
			e.Eng.HandleTaskEscalation(e.Ctx, "nope", "X", nil),
		} {
			if !errors.Is(err, bpmnlite.ErrNotFound) {
				t.Errorf("unknown task: %v, want ErrNotFound", err)
			}
		}
	})
}

func TestCompleteTaskReturning(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		openReview(t, e)
		pi := e.Start("reviewing", map[string]any{"amount": int64(5)})
		vars, err := e.Eng.CompleteTaskReturning(e.Ctx, taskAt(t, e, pi, "review"), map[string]any{"ok": true})
		if err != nil {
			t.Fatal(err)
		}
		// The service task after it ran in the same transaction: its variable is there.
		if vars["amount"] != int64(5) || vars["ok"] != true || vars["stamped"] != true {
			t.Errorf("returned variables: %v", vars)
		}
		vars, err = e.Eng.CompleteTaskReturning(e.Ctx, taskAt(t, e, pi, "archive"), map[string]any{"last": "x"})
		if err != nil || vars["last"] != "x" || vars["stamped"] != true || !e.Ended(pi) {
			t.Errorf("returned variables of the ended instance: %v, %v (ended %v)", vars, err, e.Ended(pi))
		}
		if _, err := e.Eng.CompleteTaskReturning(e.Ctx, "nope", nil); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("unknown task: %v", err)
		}
	})
}

func TestTaskDelegation(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		openReview(t, e)
		pi := e.Start("reviewing", nil)
		id := taskAt(t, e, pi, "review")
		if err := e.Eng.SetTaskAssignee(e.Ctx, id, "ann"); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.DelegateTask(e.Ctx, id, "dave"); err != nil {
			t.Fatal(err)
		}
		task := e.Tasks(pi)[0]
		if task.Owner != "ann" || task.Assignee != "dave" || task.DelegationState != bpmnlite.DelegationPending || task.LastUpdated == nil {
			t.Errorf("delegated: %+v", task)
		}
		if err := e.Eng.CompleteTask(e.Ctx, id, nil); !errors.Is(err, bpmnlite.ErrDelegated) {
			t.Errorf("completing a delegated task: %v, want ErrDelegated", err)
		}
		if err := e.Eng.ResolveTask(e.Ctx, id, map[string]any{"checked": true}); err != nil {
			t.Fatal(err)
		}
		task = e.Tasks(pi)[0]
		if task.Assignee != "ann" || task.DelegationState != bpmnlite.DelegationResolved || e.Var(pi, "checked") != true {
			t.Errorf("resolved: %+v, checked=%v", task, e.Var(pi, "checked"))
		}
		if err := e.Eng.SuspendProcessInstance(e.Ctx, pi); err != nil {
			t.Fatal(err)
		}
		for what, err := range map[string]error{
			"claim":    e.Eng.ClaimTask(e.Ctx, id, "bob"),
			"delegate": e.Eng.DelegateTask(e.Ctx, id, "bob"),
			"update":   e.Eng.UpdateTask(e.Ctx, id, bpmnlite.TaskFields{Name: "x"}),
			"link":     e.Eng.AddTaskIdentityLink(e.Ctx, id, bpmnlite.IdentityLink{GroupID: "g", Type: bpmnlite.IdentityLinkCandidate}),
		} {
			if !errors.Is(err, bpmnlite.ErrSuspended) {
				t.Errorf("%s of a suspended task: %v, want ErrSuspended", what, err)
			}
		}
		if err := e.Eng.ActivateProcessInstance(e.Ctx, pi); err != nil {
			t.Fatal(err)
		}
		e.Complete(pi, "review", nil)
	})
}

func TestStandaloneTasks(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		parent, err := e.Eng.CreateTask(e.Ctx, "", bpmnlite.TaskFields{Name: "Plan", Owner: "olga", Priority: 10})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Eng.CreateTask(e.Ctx, "child", bpmnlite.TaskFields{Name: "Book", ParentTaskID: parent}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Eng.CreateTask(e.Ctx, "", bpmnlite.TaskFields{ParentTaskID: "nope"}); !errors.Is(err, bpmnlite.ErrNotValid) {
			t.Errorf("a missing parent: %v, want ErrNotValid", err)
		}
		if _, err := e.Eng.CreateTask(e.Ctx, "child", bpmnlite.TaskFields{}); !errors.Is(err, bpmnlite.ErrNotValid) {
			t.Errorf("an id taken: %v, want ErrNotValid", err)
		}
		subs, err := e.Eng.Tasks(e.Ctx, bpmnlite.TaskQuery{ParentTaskID: parent})
		if err != nil || len(subs) != 1 || subs[0].ID != "child" {
			t.Errorf("subtasks: %v %v", subs, err)
		}
		if err := e.Eng.UpdateTask(e.Ctx, "child", bpmnlite.TaskFields{Name: "Book a room", ParentTaskID: parent, Assignee: "ann"}); err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.CompleteTask(e.Ctx, parent, map[string]any{"x": 1}); !errors.Is(err, bpmnlite.ErrNotValid) {
			t.Errorf("variables for a standalone task: %v, want ErrNotValid", err)
		}
		if err := e.Eng.DeleteTask(e.Ctx, parent); err != nil {
			t.Fatal(err)
		}
		hist, err := e.Eng.HistoricTasks(e.Ctx, bpmnlite.HistoricTaskQuery{DeleteReason: bpmnlite.TaskDeleted})
		if err != nil || len(hist) != 2 {
			t.Fatalf("history of the deleted tasks: %v %v", hist, err)
		}
		for _, h := range hist {
			if h.ID == "child" && (h.Name != "Book a room" || h.Assignee != "ann" || h.ParentTaskID != parent) {
				t.Errorf("history of the subtask: %+v", h)
			}
		}

		e.Deploy("p", harness.UserTaskProcess)
		pi := e.Start("p", nil)
		if err := e.Eng.DeleteTask(e.Ctx, e.Tasks(pi)[0].ID); !errors.Is(err, bpmnlite.ErrNotValid) {
			t.Errorf("deleting a process's task: %v, want ErrNotValid", err)
		}
	})
}

func TestTaskCommentsAndAttachments(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		id, err := e.Eng.CreateTask(e.Ctx, "", bpmnlite.TaskFields{Name: "Read"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := e.Eng.AddTaskComment(e.Ctx, id, "", "ann", "hello")
		if err != nil || c.UserID != "ann" || c.TaskID != id {
			t.Fatalf("comment: %+v %v", c, err)
		}
		if _, err := e.Eng.AddTaskComment(e.Ctx, "nope", "", "", "x"); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("comment on an unknown task: %v", err)
		}
		other, _ := e.Eng.CreateTask(e.Ctx, "", bpmnlite.TaskFields{})
		if err := e.Eng.UpdateTaskComment(e.Ctx, other, c.ID, "x"); !errors.Is(err, bpmnlite.ErrNotValid) {
			t.Errorf("updating another task's comment: %v, want ErrNotValid", err)
		}
		a, err := e.Eng.AddTaskAttachment(e.Ctx, id, bpmnlite.TaskAttachment{Name: "doc", Content: []byte("data")})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Eng.DeleteTaskAttachment(e.Ctx, other, a.ID); !errors.Is(err, bpmnlite.ErrNotFound) {
			t.Errorf("deleting another task's attachment: %v, want ErrNotFound", err)
		}
		// Both outlive the task.
		if err := e.Eng.CompleteTask(e.Ctx, id, nil); err != nil {
			t.Fatal(err)
		}
		comments, _ := e.Eng.TaskComments(e.Ctx, id)
		attachments, _ := e.Eng.TaskAttachments(e.Ctx, id)
		if len(comments) != 1 || len(attachments) != 1 || string(attachments[0].Content) != "data" {
			t.Errorf("after the task: comments %v, attachments %v", comments, attachments)
		}
	})
}

// The history cleanup removes a task's comments and attachments with the
// task's history.
func TestTaskCommentsRemovedWithHistory(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{History: bpmnlite.HistoryConfig{TimeToLive: time.Hour}}, func(t *testing.T, e *harness.Env) {
		e.Eng.RegisterDelegate("after", bpmnlite.DelegateFunc(func(context.Context, *bpmnlite.Execution) error { return nil }))
		e.Deploy("p", harness.UserTaskProcess)
		pi := e.Start("p", nil)
		id := e.Tasks(pi)[0].ID
		if _, err := e.Eng.AddTaskComment(e.Ctx, id, pi, "", "note"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Eng.AddTaskAttachment(e.Ctx, id, bpmnlite.TaskAttachment{URL: "https://example.com"}); err != nil {
			t.Fatal(err)
		}
		standalone, _ := e.Eng.CreateTask(e.Ctx, "", bpmnlite.TaskFields{})
		if _, err := e.Eng.AddTaskComment(e.Ctx, standalone, "", "", "kept"); err != nil {
			t.Fatal(err)
		}
		e.Complete(pi, "work", nil)
		e.Clock.Add(2 * time.Hour)
		if n, err := e.Eng.CleanUpHistory(e.Ctx); err != nil || n != 1 {
			t.Fatalf("CleanUpHistory: %d %v", n, err)
		}
		comments, _ := e.Eng.TaskComments(e.Ctx, id)
		attachments, _ := e.Eng.TaskAttachments(e.Ctx, id)
		kept, _ := e.Eng.TaskComments(e.Ctx, standalone)
		if len(comments) != 0 || len(attachments) != 0 || len(kept) != 1 {
			t.Errorf("after the cleanup: comments %v, attachments %v; the standalone task's %v", comments, attachments, kept)
		}
	})
}

// A user task's update listeners run when it changes (before its
// assignment listeners), as Camunda's update event.
func TestTaskUpdateListeners(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		var events []string
		for _, event := range []string{"update", "assignment"} {
			e.Eng.RegisterDelegate(event, bpmnlite.DelegateFunc(func(_ context.Context, x *bpmnlite.Execution) error {
				events = append(events, event+":"+x.TaskAssignee())
				return nil
			}))
		}
		e.Deploy("listened", enginetest.Defs(enginetest.Executable("listened",
			`<startEvent id="start"/><userTask id="work"><extensionElements>
			<camunda:taskListener event="update" class="update"/><camunda:taskListener event="assignment" class="assignment"/>
			</extensionElements></userTask><endEvent id="end"/>`, enginetest.Chain("start", "work", "end"))))
		pi := e.Start("listened", nil)
		id := e.Tasks(pi)[0].ID
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(e.Eng.SetTaskOwner(e.Ctx, id, "olga"))
		must(e.Eng.ClaimTask(e.Ctx, id, "ann"))
		_, err := e.Eng.AddTaskComment(e.Ctx, id, "", "", "note")
		must(err)
		if want := []string{"update:", "update:ann", "assignment:ann", "update:ann"}; !slices.Equal(events, want) {
			t.Errorf("listeners ran: %v, want %v", events, want)
		}
	})
}
