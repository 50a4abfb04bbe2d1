package rest

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"net/url"
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

// reportMedia is the media type of the report the request accepts, of
// those offered (the first is the default); "" when it accepts none. The
// first accepted type offered wins (q-values aside).
func reportMedia(r *http.Request, offered ...string) string {
	accept := r.Header.Get("Accept")
	if strings.TrimSpace(accept) == "" {
		return offered[0]
	}
	for _, part := range strings.Split(accept, ",") {
		typ, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		for _, o := range offered {
			major, _, _ := strings.Cut(o, "/")
			if typ == o || typ == "*/*" || typ == major+"/*" {
				return o
			}
		}
	}
	return ""
}

// noAcceptable answers a request that accepts none of a report's media
// types, as Camunda does.
func noAcceptable(w http.ResponseWriter) error {
	writeError(w, http.StatusNotAcceptable, "InvalidRequestException", "No acceptable content-type found")
	return nil
}

// writeDurationCSV writes a duration report as Camunda's CSV.
func writeDurationCSV(w http.ResponseWriter, media, filename string, rows []*bpmnlite.DurationReportRow) error {
	var b strings.Builder
	b.WriteString("PERIOD,PERIOD_UNIT,MINIMUM,MAXIMUM,AVERAGE")
	for _, r := range rows {
		fmt.Fprintf(&b, "\n%d,%s,%d,%d,%d", r.Period, r.PeriodUnit, r.Minimum, r.Maximum, r.Average)
	}
	w.Header().Set("Content-Type", media)
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"; filename*=UTF-8''`+url.PathEscape(filename))
	_, err := io.WriteString(w, b.String())
	return err
}

func (h *Handler) historyDurationReportRoutes() {
	const instances = "/history/process-instance/report"
	accepts := append(queryParams(reflect.TypeFor[bpmnlite.InstanceDurationQuery](), "param"), "reportType", "periodUnit")
	h.handle("GET "+instances, func(w http.ResponseWriter, r *http.Request) error {
		media := reportMedia(r, "application/json", "application/csv", "text/csv")
		if media == "" {
			return noAcceptable(w)
		}
		var q bpmnlite.InstanceDurationQuery
		_, unit, err := readReport(r, &q, instances, "duration")
		if err != nil {
			return err
		}
		rows, err := h.eng.ProcessInstanceDurationReport(r.Context(), q, unit)
		if err != nil {
			return err
		}
		if media != "application/json" {
			return writeDurationCSV(w, media, "process-instance-report.csv", rows)
		}
		writeJSON(w, http.StatusOK, durationReportJSON.list(rows))
		return nil
	}, accepts...)
	const tasks = "/history/task/report"
	accepts = append(queryParams(reflect.TypeFor[bpmnlite.TaskReportQuery](), "param"), "reportType", "periodUnit", "groupBy")
	h.handle("GET "+tasks, func(w http.ResponseWriter, r *http.Request) error {
		if reportMedia(r, "application/json") == "" {
			return noAcceptable(w)
		}
		var q bpmnlite.TaskReportQuery
		reportType, unit, err := readReport(r, &q, tasks, "duration", "count")
		if err != nil {
			return err
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
