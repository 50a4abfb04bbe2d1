package rest

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// The incident resource, and the incident fields history shares.

// incidentMembers are the members of Camunda's runtime and historic
// incidents.
const incidentMembers = `id processDefinitionId processInstanceId executionId incidentType=Type activityId failedActivityId?
	causeIncidentId rootCauseIncidentId configuration incidentMessage=Message? jobDefinitionId? tenantId:null`

// incidentJSON is an open incident as Camunda's REST API shows it.
var incidentJSON = newShape[bpmnlite.Incident](incidentMembers + " incidentTimestamp=Timestamp annotation?")

// incidentRoutes: open incidents: queries, resolution, annotations, and
// incidents raised on an execution.
func (h *Handler) incidentRoutes() {
	listRoutes(h, "/incident", "param", bpmnlite.IncidentQuery{}, h.eng.Incidents, incidentJSON)
	byIDRoute(h, "/incident", func(ctx context.Context, id string) ([]*bpmnlite.Incident, error) {
		return h.eng.Incidents(ctx, bpmnlite.IncidentQuery{ID: id})
	}, incidentJSON, func(id string) string { return "No matching incident with id " + id })
	// Camunda resolves only the incidents raised by hand: a failed job's
	// or external task's goes with new retries.
	h.handle("DELETE /incident/{id}", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		ins, err := h.eng.Incidents(r.Context(), bpmnlite.IncidentQuery{ID: id})
		in, err := first(ins, err, "Cannot find an incident with id '"+id+"'")
		if err != nil {
			return err
		}
		if in.Type == bpmnlite.IncidentFailedJob || in.Type == bpmnlite.IncidentFailedExternalTask {
			return badRequest("Cannot resolve an incident of type %s", in.Type)
		}
		return h.incidentChange(w, r, h.eng.ResolveIncident(r.Context(), id))
	})
	h.handle("PUT /incident/{id}/annotation", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Annotation string `json:"annotation"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return h.incidentChange(w, r, h.eng.SetIncidentAnnotation(r.Context(), r.PathValue("id"), body.Annotation))
	})
	h.handle("DELETE /incident/{id}/annotation", func(w http.ResponseWriter, r *http.Request) error {
		return h.incidentChange(w, r, h.eng.SetIncidentAnnotation(r.Context(), r.PathValue("id"), ""))
	})
	h.handle("POST /execution/{id}/create-incident", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			IncidentType  string `json:"incidentType"`
			Configuration string `json:"configuration"`
			Message       string `json:"message"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		in, err := h.eng.CreateIncident(r.Context(), r.PathValue("id"), body.IncidentType, body.Configuration, body.Message)
		if errors.Is(err, bpmnlite.ErrInvalidArgument) {
			// Camunda's BadUserRequestException: 400, an unknown execution too.
			return invalidArgument(err)
		}
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, incidentJSON.of(in))
		return nil
	})
}

// incidentChange answers a change of incident {id}: 204, or its error
// with an unknown incident worded as Camunda words it (404).
func (h *Handler) incidentChange(w http.ResponseWriter, r *http.Request, err error) error {
	switch {
	case isNotFound(err):
		return &notFound{"Cannot find an incident with id '" + r.PathValue("id") + "'"}
	case err != nil:
		return err
	}
	return noContent(w)
}

// invalidArgument is a 400 with the message of err, an ErrInvalidArgument
// worded as Camunda words it.
func invalidArgument(err error) error {
	return badRequest("%s", strings.TrimSuffix(err.Error(), ": "+bpmnlite.ErrInvalidArgument.Error()))
}
