// Package enginetest holds what the engine's tests share across packages:
// a clock tests move by hand and builders of BPMN XML. The database
// backends loop is internal/testdb.
package enginetest

import (
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
