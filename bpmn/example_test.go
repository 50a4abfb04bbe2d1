package bpmn_test

import (
	"errors"
	"fmt"

	"github.com/bpmnlite/bpmnlite/bpmn"
)

func ExampleParse() {
	src := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn">
  <process id="order" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="charge"/>
    <serviceTask id="charge" camunda:class="ChargeCard" camunda:asyncBefore="true"/>
    <sequenceFlow id="f2" sourceRef="charge" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`
	defs, err := bpmn.Parse([]byte(src), bpmn.ParseOptions{File: "order.bpmn"})
	if err != nil {
		fmt.Println(err)
		return
	}
	charge := defs.Process("order").Activity("charge")
	fmt.Println(charge.Kind, charge.Class, charge.AsyncBefore, charge.Pos.Line)
	// Output: serviceTask ChargeCard true 6
}

func ExampleParseError() {
	src := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">
  <process id="p" isExecutable="true">
    <startEvent id="start"/>
    <scriptTask id="script" scriptFormat="groovy"><script>x = 1</script></scriptTask>
    <sequenceFlow id="f" sourceRef="start" targetRef="nowhere"/>
  </process>
</definitions>`
	_, err := bpmn.Parse([]byte(src), bpmn.ParseOptions{File: "p.bpmn"})
	var pe *bpmn.ParseError
	if errors.As(err, &pe) {
		for _, p := range pe.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// p.bpmn:4:5: scriptTask 'script': script: scriptFormat 'groovy' is not supported: use javascript, an expression, or a delegate
	// p.bpmn:5:5: sequenceFlow 'f': targetRef 'nowhere' names no flow node of process 'p'
}
