package rest

import (
	"github.com/bpmnlite/bpmnlite"
)

// The incident resource, and the incident fields history shares.

// incidentMembers are the members of Camunda's runtime and historic
// incidents.
const incidentMembers = `id processDefinitionId processInstanceId executionId incidentType=Type activityId failedActivityId?
	causeIncidentId rootCauseIncidentId configuration incidentMessage=Message? jobDefinitionId? tenantId:null`

// incidentJSON is an open incident as Camunda's REST API shows it.
var incidentJSON = newShape[bpmnlite.Incident](incidentMembers + " incidentTimestamp=Timestamp")

// incidentRoutes: open incidents.
func (h *Handler) incidentRoutes() {
	listRoutes(h, "/incident", "param", bpmnlite.IncidentQuery{}, h.eng.Incidents, incidentJSON)
}
