package rest

import (
	"cmp"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// Reports over the history: the cleanable process instance report and the
// activity statistics of a process definition.

var (
	cleanableReportJSON = newShape[bpmnlite.CleanableReportRow](`processDefinitionId processDefinitionKey processDefinitionName?
	processDefinitionVersion historyTimeToLive finishedProcessInstanceCount=Finished cleanableProcessInstanceCount=Cleanable tenantId:null`)
	// completeScope is not stored (its parameter is refused).
	activityStatisticsJSON = newShape[bpmnlite.HistoricActivityStatistics](`id=ActivityID instances canceled finished completeScope:0
	openIncidents resolvedIncidents deletedIncidents`)
)

func (h *Handler) historyReportRoutes() {
	h.historyDurationReportRoutes()
	listRoutes(h, "/history/process-definition/cleanable-process-instance-report", "param", bpmnlite.CleanableReportQuery{},
		h.eng.CleanableProcessInstanceReport, cleanableReportJSON)
	const statistics = "/history/process-definition/{id}/statistics"
	accepts := queryParams(reflect.TypeFor[bpmnlite.HistoricActivityStatisticsQuery](), "param")
	h.handle("GET "+statistics, func(w http.ResponseWriter, r *http.Request) error {
		q := bpmnlite.HistoricActivityStatisticsQuery{ProcessDefinitionID: r.PathValue("id")}
		if err := bindQuery(r.URL.Query(), &q, "param", camundaAPI[opKey("GET", statistics)]); err != nil {
			return err
		}
		stats, err := h.eng.HistoricActivityStatistics(r.Context(), q)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, activityStatisticsJSON.list(stats))
		return nil
	}, accepts...)
}

var (
	durationReportJSON = newShape[bpmnlite.DurationReportRow](`period periodUnit minimum maximum average`)
	taskCountJSON      = newShape[bpmnlite.TaskCountRow](`taskName? count processDefinitionKey processDefinitionId processDefinitionName?
	tenantId:null`)
)

// readReport binds the report's filter q from the request and checks its
// reportType against the ones the report has (Camunda's messages); the
// period unit of a duration report in the engine's words.
func readReport(r *http.Request, q any, path string, types ...string) (reportType, unit string, err error) {
	if accept := r.Header.Get("Accept"); strings.Contains(accept, "csv") && !strings.Contains(accept, "json") && !strings.Contains(accept, "*/*") {
		return "", "", &notAcceptable{"bpmnlite answers reports in JSON only (Accept: application/json)"}
	}
	params := r.URL.Query()
	if err := bindQuery(params, q, "param", camundaAPI[opKey("GET", path)]); err != nil {
		return "", "", err
	}
	reportType = params.Get("reportType")
	if reportType != "" && reportType != "duration" && reportType != "count" {
		return "", "", badRequest("reportType parameter has invalid value: %s", reportType)
	}
	if !slices.Contains(types, reportType) {
		if len(types) == 1 {
			return "", "", badRequest("Unknown report type %s", cmp.Or(reportType, "null"))
		}
		return "", "", badRequest("Parameter reportType is not set.")
	}
	if reportType != "duration" {
		return reportType, "", nil
	}
	switch unit = strings.ToUpper(params.Get("periodUnit")); unit {
	case "":
		return "", "", badRequest("periodUnit is null")
	case bpmnlite.PeriodMonth, bpmnlite.PeriodQuarter:
		return reportType, unit, nil
	}
	return "", "", badRequest("Cannot set query parameter 'periodUnit' to value '%s'", params.Get("periodUnit"))
}

// notAcceptable is a representation bpmnlite does not make: 406.
type notAcceptable struct{ msg string }

func (e *notAcceptable) Error() string { return e.msg }

func (h *Handler) historyDurationReportRoutes() {
	const instances = "/history/process-instance/report"
	accepts := append(queryParams(reflect.TypeFor[bpmnlite.InstanceDurationQuery](), "param"), "reportType", "periodUnit")
	h.handle("GET "+instances, func(w http.ResponseWriter, r *http.Request) error {
		var q bpmnlite.InstanceDurationQuery
		_, unit, err := readReport(r, &q, instances, "duration")
		if err != nil {
			return h.answerNotAcceptable(w, err)
		}
		rows, err := h.eng.ProcessInstanceDurationReport(r.Context(), q, unit)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, durationReportJSON.list(rows))
		return nil
	}, accepts...)
	const tasks = "/history/task/report"
	accepts = append(queryParams(reflect.TypeFor[bpmnlite.TaskReportQuery](), "param"), "reportType", "periodUnit", "groupBy")
	h.handle("GET "+tasks, func(w http.ResponseWriter, r *http.Request) error {
		var q bpmnlite.TaskReportQuery
		reportType, unit, err := readReport(r, &q, tasks, "duration", "count")
		if err != nil {
			return h.answerNotAcceptable(w, err)
		}
		if reportType == "duration" {
			rows, err := h.eng.TaskDurationReport(r.Context(), q, unit)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, durationReportJSON.list(rows))
			return nil
		}
		groupBy := cmp.Or(r.URL.Query().Get("groupBy"), "taskName")
		if groupBy != "taskName" && groupBy != "processDefinition" {
			return badRequest("groupBy parameter has invalid value: %s", groupBy)
		}
		rows, err := h.eng.TaskCountReport(r.Context(), q, groupBy == "processDefinition")
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, taskCountJSON.list(rows))
		return nil
	}, accepts...)
}

// answerNotAcceptable answers a notAcceptable err with 406 (Camunda's
// InvalidRequestException); other errors are returned.
func (h *Handler) answerNotAcceptable(w http.ResponseWriter, err error) error {
	var na *notAcceptable
	if errors.As(err, &na) {
		writeError(w, http.StatusNotAcceptable, "InvalidRequestException", na.msg)
		return nil
	}
	return err
}
