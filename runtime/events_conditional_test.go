package runtime_test

import (
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// A variable that cannot be read fails a conditional event's evaluation:
// it is not a variable "not set yet", which would be false.
func TestConditionalEventUnreadableVariable(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		r := newRig(t, db)
		r.deploy("p", enginetest.Process("p", `<startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="wait"/>
			<intermediateCatchEvent id="wait"><conditionalEventDefinition><condition>${variable == 1}</condition></conditionalEventDefinition></intermediateCatchEvent>
			<sequenceFlow id="f2" sourceRef="wait" targetRef="end"/><endEvent id="end"/>`))
		pi, err := r.eng.Start(r.ctx, nil, runtime.StartRequest{Key: "p", Variables: map[string]any{"variable": 0}})
		if err != nil {
			t.Fatal(err)
		}
		tx, err := db.Begin(r.ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(r.ctx)
		if _, err := tx.Exec(r.ctx, `UPDATE variable SET type = 'bogus' WHERE name = 'variable'`); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(r.ctx); err != nil {
			t.Fatal(err)
		}
		err = r.eng.SetVariables(r.ctx, nil, pi, map[string]any{"other": 1}, false)
		if err == nil || !strings.Contains(err.Error(), `variable "variable": unknown stored type "bogus"`) {
			t.Fatalf("set variables: %v, want the unreadable variable named", err)
		}
	})
}
