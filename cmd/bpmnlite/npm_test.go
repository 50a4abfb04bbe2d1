package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// npmProcess is one process per topic the npm script serves: each
// external task leads to a user task, a BPMN error to another.
func npmProcess(key string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <error id="e" errorCode="NPM_ERROR"/>
  <process id="%[1]s" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" camunda:type="external" camunda:topic="%[1]s"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="after"/><userTask id="after"/>
    <boundaryEvent id="caught" attachedToRef="work"><errorEventDefinition errorRef="e"/></boundaryEvent>
    <sequenceFlow id="f3" sourceRef="caught" targetRef="handled"/><userTask id="handled"/>
  </process>
</definitions>`, key)
}

// The script: Camunda's own npm client against bpmnlite serve, with basic
// auth and long polling; one topic per report kind. It exits 0 once each
// handler has reported without error.
const npmScript = `
import { Client, Variables, BasicAuthInterceptor, logger } from "camunda-external-task-client-js";

const client = new Client({
  baseUrl: process.env.BASE_URL, workerId: "npm-worker", asyncResponseTimeout: 5000, lockDuration: 10000,
  interceptors: new BasicAuthInterceptor({ username: "demo", password: "secret" }), autoPoll: false,
});
const done = new Set();
const finish = (topic) => {
  done.add(topic);
  console.log("handled " + topic);
  if (done.size === 4) { client.stop(); process.exit(0); }
};
const fail = (topic, e) => { console.error(topic + " failed: " + (e && e.message)); process.exit(1); };
setTimeout(() => { console.error("timed out; handled: " + [...done]); process.exit(2); }, 60000);

client.subscribe("npmComplete", async ({ task, taskService }) => {
  try {
    const vars = new Variables();
    vars.set("doubled", task.variables.get("n") * 2);
    vars.setTyped("doc", { type: "json", value: { from: "npm", list: [1, 2] } });
    await taskService.complete(task, vars);
    finish("npmComplete");
  } catch (e) { fail("npmComplete", e); }
});
client.subscribe("npmFailure", async ({ task, taskService }) => {
  try {
    await taskService.handleFailure(task, { errorMessage: "npm failure", errorDetails: "npm details", retries: 0, retryTimeout: 0 });
    finish("npmFailure");
  } catch (e) { fail("npmFailure", e); }
});
client.subscribe("npmBpmnError", async ({ task, taskService }) => {
  try {
    const vars = new Variables();
    vars.set("why", "declined");
    await taskService.handleBpmnError(task, "NPM_ERROR", "from npm", vars);
    finish("npmBpmnError");
  } catch (e) { fail("npmBpmnError", e); }
});
client.subscribe("npmExtendLock", async ({ task, taskService }) => {
  try {
    await taskService.extendLock(task, 60000);
    await taskService.complete(task);
    finish("npmExtendLock");
  } catch (e) { fail("npmExtendLock", e); }
});
client.start();
`

// Camunda's npm external-task client (camunda-external-task-client-js,
// installed by make test) completes, fails, throws BPMN errors and
// extends locks against bpmnlite serve.
func TestNpmExternalTaskClient(t *testing.T) {
	dir := os.Getenv("BPMNLITE_NPM_CLIENT")
	node, nodeErr := exec.LookPath("node")
	pkg := filepath.Join(dir, "node_modules", "camunda-external-task-client-js")
	if _, err := os.Stat(pkg); dir == "" || nodeErr != nil || err != nil {
		msg := "npm external-task client test skipped: run it with make test on a machine with Node.js (BPMNLITE_NPM_CLIENT=" + dir + ", node: " + fmt.Sprint(nodeErr) + ")"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	db := filepath.Join(t.TempDir(), "npm.db")
	base, stop := startServe(t, db, "-auth", "demo:secret")
	files := map[string]string{}
	topics := []string{"npmComplete", "npmFailure", "npmBpmnError", "npmExtendLock"}
	for _, key := range topics {
		files[key+".bpmn"] = npmProcess(key)
	}
	deployOverHTTP(t, base, files)
	ids := map[string]string{}
	for _, key := range topics {
		ids[key] = restPost(t, base, "/process-definition/key/"+key+"/start", "application/json",
			[]byte(`{"variables":{"n":{"value":21,"type":"Integer"}}}`))["id"].(string)
	}

	work := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "worker.mjs"), []byte(npmScript), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "worker.mjs")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "BASE_URL="+base)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm worker: %v\n%s", err, out)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	// Check the outcome on the database the server used.
	eng, err := bpmnlite.Open(t.Context(), bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: db}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	waitsAt := func(pi string) string {
		tasks, err := eng.Tasks(t.Context(), bpmnlite.TaskQuery{ProcessInstanceID: pi})
		if err != nil || len(tasks) != 1 {
			return fmt.Sprint(len(tasks), " tasks ", err)
		}
		return tasks[0].TaskDefinitionKey
	}
	for key, want := range map[string]string{"npmComplete": "after", "npmBpmnError": "handled", "npmExtendLock": "after"} {
		if at := waitsAt(ids[key]); at != want {
			t.Errorf("%s waits at %q, want %q\n%s", key, at, want, out)
		}
	}
	if v, _, _ := eng.Variable(t.Context(), ids["npmComplete"], "doubled"); v != int64(42) {
		t.Errorf("doubled = %#v, want 42", v)
	}
	if v, _, _ := eng.Variable(t.Context(), ids["npmComplete"], "doc"); fmt.Sprint(v) != "map[from:npm list:[1 2]]" {
		t.Errorf("doc = %#v", v)
	}
	if v, _, _ := eng.Variable(t.Context(), ids["npmBpmnError"], "why"); v != "declined" {
		t.Errorf("why = %#v", v)
	}
	incidents, err := eng.Incidents(t.Context(), bpmnlite.IncidentQuery{ProcessInstanceID: ids["npmFailure"]})
	if err != nil || len(incidents) != 1 || incidents[0].Type != "failedExternalTask" || incidents[0].Message != "npm failure" {
		t.Errorf("incidents of the failed task: %+v (%v)", incidents, err)
	}
	ets, _ := eng.ExternalTasks(t.Context(), bpmnlite.ExternalTaskQuery{ProcessInstanceID: ids["npmFailure"]})
	if len(ets) != 1 || ets[0].ErrorDetails != "npm details" || ets[0].Retries == nil || *ets[0].Retries != 0 {
		t.Errorf("failed task %+v", ets)
	}
	if !strings.Contains(string(out), "handled npmExtendLock") {
		t.Errorf("script output:\n%s", out)
	}
}
