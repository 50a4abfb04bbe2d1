package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/rest"
)

func migrationModel(task string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="mig" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="` + task + `"/>
    <userTask id="` + task + `"/><sequenceFlow id="f2" sourceRef="` + task + `" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`
}

// POST /migration/generate, /validate and /execute with Camunda's DTOs,
// reports and exceptions.
func TestRESTMigration(t *testing.T) {
	eachBackend(t, rest.Options{}, func(t *testing.T, a *api) {
		ids := a.migrationVersions(2)
		src, tgt := ids[0], ids[1]
		pi, err := a.eng.Start(t.Context(), bpmnlite.StartRequest{DefinitionID: src})
		if err != nil {
			t.Fatal(err)
		}
		vars := map[string]any{"foo": map[string]any{"type": "String", "value": "bar"}}

		plan := a.ok(http.StatusOK, "POST", "/migration/generate", map[string]any{
			"sourceProcessDefinitionId": src, "targetProcessDefinitionId": tgt, "updateEventTriggers": true, "variables": vars}).(map[string]any)
		if fmt.Sprint(plan["instructions"]) != "[map[sourceActivityIds:[userTask] targetActivityIds:[userTask] updateEventTrigger:false]]" ||
			field(plan, "variables", "foo", "value") != "bar" || plan["targetProcessDefinitionId"] != tgt {
			t.Errorf("generated plan %v", plan)
		}

		bad := map[string]any{"sourceProcessDefinitionId": src, "targetProcessDefinitionId": tgt, "instructions": []any{
			map[string]any{"sourceActivityIds": []string{"userTask"}, "targetActivityIds": []string{"missing"}}}}
		report := a.ok(http.StatusOK, "POST", "/migration/validate", bad)
		irs, _ := field(report, "instructionReports").([]any)
		if len(irs) != 1 || fmt.Sprint(field(irs[0], "failures")) != "[Target activity 'missing' does not exist]" ||
			fmt.Sprint(field(irs[0], "instruction", "targetActivityIds")) != "[missing]" {
			t.Errorf("validation report %v", report)
		}
		if valid := a.ok(http.StatusOK, "POST", "/migration/validate", plan); fmt.Sprint(valid) != "map[instructionReports:[] variableReports:map[]]" {
			t.Errorf("report of a valid plan %v", valid)
		}

		status, out := a.call("POST", "/migration/execute", map[string]any{"migrationPlan": bad, "processInstanceIds": []string{pi}})
		if status != http.StatusBadRequest || field(out, "type") != "MigrationPlanValidationException" ||
			len(field(out, "validationReport", "instructionReports").([]any)) != 1 {
			t.Errorf("execute an invalid plan: %d %v", status, out)
		}
		empty := map[string]any{"sourceProcessDefinitionId": src, "targetProcessDefinitionId": tgt, "instructions": []any{}}
		status, out = a.call("POST", "/migration/execute", map[string]any{"migrationPlan": empty, "processInstanceIds": []string{pi}})
		ais, _ := field(out, "validationReport", "activityInstanceValidationReports").([]any)
		if status != http.StatusBadRequest || field(out, "type") != "MigratingProcessInstanceValidationException" ||
			field(out, "validationReport", "processInstanceId") != pi || len(ais) != 1 || field(ais[0], "sourceScopeId") != "userTask" ||
			fmt.Sprint(field(ais[0], "failures")) != "[There is no migration instruction for this instance's activity]" {
			t.Errorf("execute for an unmapped instance: %d %v", status, out)
		}
		status, out = a.call("POST", "/migration/execute", map[string]any{"migrationPlan": plan})
		if status != http.StatusBadRequest || field(out, "type") != "BadUserRequestException" || !strings.Contains(fmt.Sprint(field(out, "message")), "process instance ids is empty") {
			t.Errorf("execute without instances: %d %v", status, out)
		}
		status, out = a.call("POST", "/migration/generate", map[string]any{"sourceProcessDefinitionId": "nope", "targetProcessDefinitionId": tgt})
		if status != http.StatusBadRequest || field(out, "type") != "BadUserRequestException" {
			t.Errorf("generate from an unknown definition: %d %v", status, out)
		}

		a.ok(http.StatusNoContent, "POST", "/migration/execute", map[string]any{"migrationPlan": plan,
			"processInstanceQuery": map[string]any{"processDefinitionId": src}, "skipCustomListeners": true, "skipIoMappings": true})
		tasks := a.ok(http.StatusOK, "GET", "/task?processInstanceId="+pi, nil).([]any)
		if len(tasks) != 1 || field(tasks[0], "processDefinitionId") != tgt {
			t.Errorf("tasks after migration %v", tasks)
		}
		if v := a.ok(http.StatusOK, "GET", "/process-instance/"+pi+"/variables/foo", nil); field(v, "value") != "bar" {
			t.Errorf("plan variable %v", v)
		}
	})
}
