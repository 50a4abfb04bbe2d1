package rest

import (
	"net/http"
	"net/url"

	"github.com/bpmnlite/bpmnlite"
)

// The incident resource, and the incident fields history shares.

type incidentDto struct {
	incidentFields
	IncidentTimestamp string `json:"incidentTimestamp"`
}

// incidentFields are the fields of Camunda's runtime and historic incidents.
type incidentFields struct {
	ID                  string  `json:"id"`
	ProcessDefinitionID string  `json:"processDefinitionId"`
	ProcessInstanceID   string  `json:"processInstanceId"`
	ExecutionID         string  `json:"executionId"`
	IncidentType        string  `json:"incidentType"`
	ActivityID          string  `json:"activityId"`
	FailedActivityID    *string `json:"failedActivityId"`
	CauseIncidentID     string  `json:"causeIncidentId"`
	RootCauseIncidentID string  `json:"rootCauseIncidentId"`
	Configuration       string  `json:"configuration"`
	IncidentMessage     *string `json:"incidentMessage"`
	JobDefinitionID     *string `json:"jobDefinitionId"`
	TenantID            *string `json:"tenantId"`
}

func incidentFieldsOf(in bpmnlite.Incident) incidentFields {
	return incidentFields{ID: in.ID, ProcessDefinitionID: in.ProcessDefinitionID, ProcessInstanceID: in.ProcessInstanceID,
		ExecutionID: in.ExecutionID, IncidentType: in.Type, ActivityID: in.ActivityID,
		FailedActivityID: optString(in.FailedActivityID), CauseIncidentID: in.CauseIncidentID, RootCauseIncidentID: in.RootCauseIncidentID,
		Configuration: in.Configuration, IncidentMessage: optString(in.Message), JobDefinitionID: optString(in.JobDefinitionID)}
}

// incidentQuery reads the parameters Camunda's incident queries share,
// runtime and history.
func incidentQuery(q url.Values) bpmnlite.IncidentQuery {
	return bpmnlite.IncidentQuery{ID: q.Get("incidentId"), ProcessInstanceID: q.Get("processInstanceId"),
		ProcessDefinitionID: q.Get("processDefinitionId"), ActivityID: q.Get("activityId"), Type: q.Get("incidentType"),
		Configuration: q.Get("configuration"), JobDefinitionID: q.Get("jobDefinitionId")}
}

// incidentRoutes: open incidents.
func (h *Handler) incidentRoutes() {
	h.handle("GET /incident", func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		ins, err := h.eng.Incidents(r.Context(), incidentQuery(q))
		if err != nil {
			return err
		}
		out := []incidentDto{}
		for _, in := range page(r, ins) {
			out = append(out, incidentDto{incidentFieldsOf(*in), formatTime(in.Timestamp)})
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
}
