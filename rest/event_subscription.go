package rest

import (
	"github.com/bpmnlite/bpmnlite"
)

// The event subscription resource.

// eventSubscriptionJSON is an event subscription as Camunda's REST API
// shows it.
var eventSubscriptionJSON = newShape[bpmnlite.EventSubscription](`id eventType eventName executionId? processInstanceId?
	activityId? createdDate=Created tenantId:null`)

// eventSubscriptionRoutes: message, signal, conditional and compensation
// subscriptions (not the timers bpmnlite mirrors as subscriptions, which
// Camunda does not have).
func (h *Handler) eventSubscriptionRoutes() {
	listRoutes(h, "/event-subscription", "param", bpmnlite.EventSubscriptionQuery{WithoutTimers: true}, h.eng.FindEventSubscriptions, eventSubscriptionJSON)
}
