package main

import (
	"context"
	"errors"
	"io"

	"github.com/bpmnlite/bpmnlite"
)

const modifyHelp = `usage: bpmnlite modify [flags] INSTANCE
Modifies a running process instance (Camunda's process instance
modification): the instructions run in the order given, all in one
transaction; a refused one changes nothing. Starting inside a subprocess
creates its scope; cancelling the last activity of a scope cancels it;
the instance ends when nothing is left. Prints the activities it is at.
flags (instructions, repeatable, in order):
  -cancel ACTIVITY          cancel every instance of ACTIVITY
  -cancel-instance ID       cancel one activity or transition instance
                            (ids from GET /process-instance/{id}/activity-instances)
  -start-before ACTIVITY    start a path before ACTIVITY
  -start-after ACTIVITY     start a path on ACTIVITY's one outgoing flow
  -start-transition FLOW    start a path on sequence flow FLOW
flags (options):
  -var name=value           a variable set with the start instructions (where
                            it exists, else on the instance); repeatable
  -skip-listeners           do not run execution and task listeners
  -skip-io-mappings         do not evaluate input/output mappings
  -annotation TEXT          why (logged)
` + dbHelp + `
example: bpmnlite modify -db orders.db -cancel review -start-before approve 0190c3f2-...`

// instructionFlag appends one kind of instruction to a shared list, so
// that instructions keep the order of their flags.
type instructionFlag struct {
	list  *[]bpmnlite.ModificationInstruction
	build func(arg string) bpmnlite.ModificationInstruction
}

func (f instructionFlag) String() string { return "" }

func (f instructionFlag) Set(arg string) error {
	if arg == "" {
		return errors.New("an id is required")
	}
	*f.list = append(*f.list, f.build(arg))
	return nil
}

func modifyCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("modify", out, false)
	var ins []bpmnlite.ModificationInstruction
	instruction := func(name string, build func(string) bpmnlite.ModificationInstruction) {
		c.fs.Var(instructionFlag{&ins, build}, name, "")
	}
	instruction("cancel", func(id string) bpmnlite.ModificationInstruction {
		return bpmnlite.ModificationInstruction{Type: bpmnlite.CancelAllForActivity, ActivityID: id}
	})
	instruction("cancel-instance", func(id string) bpmnlite.ModificationInstruction {
		// An activity instance's id, or a transition instance's (an
		// execution id): which one is decided once the tree is read.
		return bpmnlite.ModificationInstruction{Type: bpmnlite.CancelActivityInstance, ActivityInstanceID: id}
	})
	instruction("start-before", func(id string) bpmnlite.ModificationInstruction {
		return bpmnlite.ModificationInstruction{Type: bpmnlite.StartBeforeActivity, ActivityID: id}
	})
	instruction("start-after", func(id string) bpmnlite.ModificationInstruction {
		return bpmnlite.ModificationInstruction{Type: bpmnlite.StartAfterActivity, ActivityID: id}
	})
	instruction("start-transition", func(id string) bpmnlite.ModificationInstruction {
		return bpmnlite.ModificationInstruction{Type: bpmnlite.StartTransition, TransitionID: id}
	})
	c.fs.Var(c.vars, "var", "")
	skipListeners := c.fs.Bool("skip-listeners", false, "")
	skipIO := c.fs.Bool("skip-io-mappings", false, "")
	annotation := c.fs.String("annotation", "", "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	if len(c.args) != 1 {
		return errors.New("modify: give one process instance id")
	}
	if len(ins) == 0 {
		return errors.New("modify: give at least one instruction (-cancel, -cancel-instance, -start-before, -start-after, -start-transition)")
	}
	pi := c.args[0]
	tree, err := c.eng.ActivityInstances(ctx, pi)
	if err != nil {
		return err
	}
	withVars := false
	for i := range ins {
		switch ins[i].Type {
		case bpmnlite.CancelActivityInstance:
			if isTransitionInstance(tree, ins[i].ActivityInstanceID) {
				ins[i] = bpmnlite.ModificationInstruction{Type: bpmnlite.CancelTransitionInstance, TransitionInstanceID: ins[i].ActivityInstanceID}
			}
		case bpmnlite.StartBeforeActivity, bpmnlite.StartAfterActivity, bpmnlite.StartTransition:
			if !withVars && len(c.vars) > 0 {
				ins[i].Variables, withVars = c.vars, true
			}
		}
	}
	if len(c.vars) > 0 && !withVars {
		return errors.New("modify: -var goes with a start instruction; there is none")
	}
	err = c.eng.ModifyProcessInstance(ctx, pi, bpmnlite.ModificationRequest{Instructions: ins,
		SkipCustomListeners: *skipListeners, SkipIoMappings: *skipIO, Annotation: *annotation})
	if err != nil {
		return err
	}
	tree, err = c.eng.ActivityInstances(ctx, pi)
	if errors.Is(err, bpmnlite.ErrNotFound) {
		return c.print(map[string]any{"id": pi, "ended": true}, "INSTANCE\tENDED", [][]string{{pi, "true"}})
	}
	if err != nil {
		return err
	}
	var rows [][]string
	walkInstances(tree, func(id, activity, kind string) { rows = append(rows, []string{activity, kind, id}) })
	return c.print(tree, "ACTIVITY\tTYPE\tINSTANCE", rows)
}

// isTransitionInstance reports whether id is a transition instance of tree.
func isTransitionInstance(tree *bpmnlite.ActivityInstance, id string) bool {
	found := false
	walkInstances(tree, func(tid, _, kind string) { found = found || (tid == id && kind == "transition") })
	return found
}

// walkInstances calls f for each activity and transition instance below
// the process instance at the root of n.
func walkInstances(n *bpmnlite.ActivityInstance, f func(id, activity, kind string)) {
	for _, ch := range n.Children {
		f(ch.ID, ch.ActivityID, ch.ActivityType)
		walkInstances(ch, f)
	}
	for _, tr := range n.Transitions {
		f(tr.ID, tr.ActivityID, "transition")
	}
}
