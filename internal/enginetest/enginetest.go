package enginetest

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Clock is an engine clock tests move by hand. It starts at a fixed time,
// so that due dates in tests are reproducible.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at 2026-01-15 09:00 UTC.
func NewClock() *Clock { return ClockAt(time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)) }

// ClockAt returns a clock at t.
func ClockAt(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time; pass it as the engine's clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock forward by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Header opens a BPMN document with the namespaces the tests use (BPMN,
// camunda, fox).
const Header = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:fox="http://www.camunda.com/fox" targetNamespace="t">`

// Process is a BPMN document with one executable process id whose
// elements are body.
func Process(id, body string) string {
	return Header + `
  <process id="` + id + `" isExecutable="true">` + body + `</process>
</definitions>`
}

// AsyncService is a process id whose start event leads to an asynchronous
// service task "work" calling delegate class, then to the end; with a
// failedJobRetryTimeCycle when cycle is set.
func AsyncService(id, class, cycle string) string {
	ext := ""
	if cycle != "" {
		ext = `<extensionElements><camunda:failedJobRetryTimeCycle>` + cycle + `</camunda:failedJobRetryTimeCycle></extensionElements>`
	}
	return Process(id, `
    <startEvent id="start" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <serviceTask id="work" camunda:asyncBefore="true" camunda:class="`+class+`">`+ext+`</serviceTask>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end" />
    <endEvent id="end" />`)
}

// LargeModel is a process id of at least size bytes shaped as Camunda
// Modeler exports it: a chain of external and user tasks with asynchronous
// continuations, input/output mappings, properties and listeners, exclusive
// gateways with conditions, and the diagram (BPMNDI) that makes up about
// half of a real file. An instance stops at the first external task (topic
// "step").
func LargeModel(id string, size int) string {
	var proc, di strings.Builder
	const shape = `
      <bpmndi:BPMNShape id="%[1]s_di" bpmnElement="%[1]s"><dc:Bounds x="%[2]d" y="%[3]d" width="100" height="80" /><bpmndi:BPMNLabel><dc:Bounds x="%[2]d" y="%[3]d" width="90" height="14" /></bpmndi:BPMNLabel></bpmndi:BPMNShape>`
	const edge = `
      <bpmndi:BPMNEdge id="%[1]s_di" bpmnElement="%[1]s"><di:waypoint x="%[2]d" y="%[3]d" /><di:waypoint x="%[4]d" y="%[3]d" /><di:waypoint x="%[4]d" y="%[5]d" /></bpmndi:BPMNEdge>`
	flow := func(n int, from, to, cond string) {
		fid := fmt.Sprintf("Flow_%d", n)
		if cond != "" {
			cond = `<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">` + cond + `</bpmn:conditionExpression>`
		}
		fmt.Fprintf(&proc, `
    <bpmn:sequenceFlow id="%s" name="to %s" sourceRef="%s" targetRef="%s">%s</bpmn:sequenceFlow>`, fid, to, from, to, cond)
		fmt.Fprintf(&di, edge, fid, n%5000*10, n%700, n%5000*10+50, n%700+40)
	}
	fmt.Fprintf(&proc, `
    <bpmn:startEvent id="start" name="Order received"><bpmn:outgoing>Flow_0</bpmn:outgoing></bpmn:startEvent>`)
	fmt.Fprintf(&di, shape, "start", 0, 0)
	prev, n := "start", 0
	for i := 0; proc.Len()+di.Len() < size-2000; i++ {
		task := fmt.Sprintf("Task_%d", i)
		kind, impl := "serviceTask", `camunda:type="external" camunda:topic="step"`
		if i%4 == 3 {
			kind, impl = "userTask", `camunda:assignee="${initiator}" camunda:candidateGroups="clerks,managers" camunda:dueDate="P2D"`
		}
		flow(n, prev, task, "")
		fmt.Fprintf(&proc, `
    <bpmn:%[1]s id="%[2]s" name="Step %[3]d of the order" camunda:asyncBefore="%[4]t" %[5]s>
      <bpmn:documentation>Checks the order at step %[3]d before it moves on.</bpmn:documentation>
      <bpmn:extensionElements>
        <camunda:properties><camunda:property name="region" value="eu" /><camunda:property name="step" value="%[3]d" /></camunda:properties>
        <camunda:inputOutput>
          <camunda:inputParameter name="amount">${order.amount}</camunda:inputParameter>
          <camunda:inputParameter name="label">Step %[3]d</camunda:inputParameter>
          <camunda:outputParameter name="checked">${checked}</camunda:outputParameter>
        </camunda:inputOutput>
        <camunda:executionListener expression="${audit.log(execution)}" event="start" />
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_%[6]d</bpmn:incoming>
      <bpmn:outgoing>Flow_%[7]d</bpmn:outgoing>
    </bpmn:%[1]s>`, kind, task, i, i%2 == 0, impl, n, n+1)
		fmt.Fprintf(&di, shape, task, i%5000*10, i%700)
		n++
		prev = task
		if i%10 == 9 {
			split, join := fmt.Sprintf("Split_%d", i), fmt.Sprintf("Join_%d", i)
			flow(n, prev, split, "")
			fmt.Fprintf(&proc, `
    <bpmn:exclusiveGateway id="%s" name="Amount high?" default="Flow_%d" />
    <bpmn:exclusiveGateway id="%s" />`, split, n+2, join)
			flow(n+1, split, join, "${amount > 1000}")
			flow(n+2, split, join, "")
			fmt.Fprintf(&di, shape, split, i%5000*10, i%700)
			fmt.Fprintf(&di, shape, join, i%5000*10, i%700)
			n += 3
			prev = join
		}
	}
	flow(n, prev, "end", "")
	fmt.Fprintf(&proc, `
    <bpmn:endEvent id="end" name="Order done"><bpmn:incoming>Flow_%d</bpmn:incoming></bpmn:endEvent>`, n)
	fmt.Fprintf(&di, shape, "end", 0, 0)
	return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:di="http://www.omg.org/spec/DD/20100524/DI" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_1" targetNamespace="http://bpmn.io/schema/bpmn" exporter="Camunda Modeler" exporterVersion="5.20.0">
  <bpmn:process id="` + id + `" name="Large order process" isExecutable="true" camunda:versionTag="1">` + proc.String() + `
  </bpmn:process>
  <bpmndi:BPMNDiagram id="BPMNDiagram_1">
    <bpmndi:BPMNPlane id="BPMNPlane_1" bpmnElement="` + id + `">` + di.String() + `
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>
`
}

// LogBuffer is a log sink tests read while the engine writes to it.
type LogBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Defs wraps root elements (processes, messages, signals, errors) in a
// definitions element with the namespaces of Header.
func Defs(body ...string) string {
	return Header + strings.Join(body, "") + `</definitions>`
}

// Executable is an executable process element id made of body.
func Executable(id string, body ...string) string {
	return `<process id="` + id + `" isExecutable="true">` + strings.Join(body, "") + `</process>`
}

// Chain is the sequence flows from each of ids to the next.
func Chain(ids ...string) string {
	var b strings.Builder
	for i := 1; i < len(ids); i++ {
		fmt.Fprintf(&b, `<sequenceFlow id="%s-%s" sourceRef="%s" targetRef="%s"/>`, ids[i-1], ids[i], ids[i-1], ids[i])
	}
	return b.String()
}

// Cond is sequence flow id from from to to with condition cond.
func Cond(id, from, to, cond string) string {
	return fmt.Sprintf(`<sequenceFlow id="%s" sourceRef="%s" targetRef="%s"><conditionExpression>%s</conditionExpression></sequenceFlow>`, id, from, to, cond)
}

// Compensable is a task name calling delegate "do" with a compensation
// boundary event associated with its handler "undo<name>", a service task
// calling "undo".
func Compensable(name string) string {
	return `
    <serviceTask id="` + name + `" camunda:class="do" />
    <boundaryEvent id="comp` + name + `" attachedToRef="` + name + `"><compensateEventDefinition /></boundaryEvent>
    <serviceTask id="undo` + name + `" isForCompensation="true" camunda:class="undo" />
    <association id="as` + name + `" associationDirection="One" sourceRef="comp` + name + `" targetRef="undo` + name + `" />`
}
