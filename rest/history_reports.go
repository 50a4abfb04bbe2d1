package rest

import (
	"net/http"
	"reflect"

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
