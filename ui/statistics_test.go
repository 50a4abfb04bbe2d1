package ui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
)

// varied has concurrent executions (a parallel gateway), a nested scope
// (an embedded subprocess) and a parallel multi-instance task in it: the
// definition page's counts are the executions in which no child runs.
const varied = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="varied" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="fork"/>
    <parallelGateway id="fork"/>
    <sequenceFlow id="f2" sourceRef="fork" targetRef="sub"/>
    <sequenceFlow id="f3" sourceRef="fork" targetRef="side"/>
    <subProcess id="sub">
      <startEvent id="subStart"/><sequenceFlow id="s1" sourceRef="subStart" targetRef="inner"/>
      <userTask id="inner"><multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
      <sequenceFlow id="s2" sourceRef="inner" targetRef="subEnd"/><endEvent id="subEnd"/>
    </subProcess>
    <userTask id="side"/>
    <sequenceFlow id="f4" sourceRef="sub" targetRef="join"/><sequenceFlow id="f5" sourceRef="side" targetRef="join"/>
    <parallelGateway id="join"/><sequenceFlow id="f6" sourceRef="join" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

// compensable leaves what compensation needs behind once subprocess csub
// ended (in Camunda an event-scope execution; bpmnlite keeps it without
// one, and the statistics skip event scopes either way) while the
// instance waits in after.
const compensable = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="compensable" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="csub"/>
    <subProcess id="csub">
      <startEvent id="cstart"/><sequenceFlow id="c1" sourceRef="cstart" targetRef="cwork"/>
      <userTask id="cwork"/>
      <boundaryEvent id="comp" attachedToRef="cwork"><compensateEventDefinition/></boundaryEvent>
      <userTask id="undo" isForCompensation="true"/>
      <association id="a1" sourceRef="comp" targetRef="undo"/>
      <sequenceFlow id="c2" sourceRef="cwork" targetRef="cend"/><endEvent id="cend"/>
    </subProcess>
    <sequenceFlow id="f2" sourceRef="csub" targetRef="after"/>
    <userTask id="after"/><sequenceFlow id="f3" sourceRef="after" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

// The activity statistics (definition page) count exactly what runs at
// each activity with migration 0028's indexes in place: one execution
// per multi-instance task instance, none for the subprocess and the
// multi-instance body (children run in them), concurrent tokens each
// (one waiting at the join too).
func TestActivityStatisticsCountLeaves(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Deploy("varied.bpmn", varied)
		first, _ := e.Start("varied", nil), e.Start("varied", nil)
		def := e.Tasks(first)[0].ProcessDefinitionID
		counts := func() string { return activityCounts(t, e, def) }

		if got, want := counts(), "inner 6|side 2"; got != want {
			t.Errorf("statistics %q, want %q", got, want)
		}
		e.Complete(first, "inner", nil)
		e.Complete(first, "side", nil)
		if got, want := counts(), "inner 5|join 1|side 1"; got != want {
			t.Errorf("after completing an inner and the side task: %q, want %q", got, want)
		}
		e.Complete(first, "inner", nil)
		e.Complete(first, "inner", nil)
		if got, want := counts(), "inner 3|side 1"; got != want {
			t.Errorf("after the first instance ended: %q, want %q", got, want)
		}
		durations, err := e.Eng.ActivityDurations(e.Ctx, def)
		if err != nil {
			t.Fatal(err)
		}
		var finished []string
		for _, d := range durations {
			finished = append(finished, fmt.Sprintf("%s %d", d.ActivityID, d.Finished))
		}
		if got := strings.Join(finished, "|"); !strings.Contains(got, "inner 3") || !strings.Contains(got, "side 1") || !strings.Contains(got, "end 1") {
			t.Errorf("finished activity instances %q: want inner 3, side 1, end 1", got)
		}
	})
}

// An ended subprocess kept for compensation is not counted, nor does it
// hide the execution it hangs from.
func TestActivityStatisticsAfterCompensableScope(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Deploy("compensable.bpmn", compensable)
		pi := e.Start("compensable", nil)
		def := e.Tasks(pi)[0].ProcessDefinitionID
		if got, want := activityCounts(t, e, def), "cwork 1"; got != want {
			t.Errorf("statistics %q, want %q", got, want)
		}
		e.Complete(pi, "cwork", nil)
		if got, want := activityCounts(t, e, def), "after 1"; got != want {
			t.Errorf("after csub ended: %q, want %q", got, want)
		}
	})
}

// activityCounts is the activity statistics of definition def as
// "activity count|…".
func activityCounts(t *testing.T, e *harness.Env, def string) string {
	t.Helper()
	stats, err := e.Eng.ActivityStatistics(e.Ctx, def, bpmnlite.StatisticsOptions{Incidents: true})
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, st := range stats {
		s = append(s, fmt.Sprintf("%s %d", st.ID, st.Instances))
	}
	return strings.Join(s, "|")
}
