package rest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// The batch resource and history, and the operations that create
// batches: asynchronous deletion of process instances and of their
// history, job and external task retries.

var (
	batchJSON = newShape[bpmnlite.Batch](`id type totalJobs jobsCreated batchJobsPerSeed invocationsPerBatchJob
		seedJobDefinitionId monitorJobDefinitionId batchJobDefinitionId suspended() tenantId? createUserId? startTime executionStartTime`)
	batchStatisticsJSON = newShape[bpmnlite.BatchStatistics](`id type totalJobs jobsCreated batchJobsPerSeed invocationsPerBatchJob
		seedJobDefinitionId monitorJobDefinitionId batchJobDefinitionId suspended() tenantId? createUserId? startTime executionStartTime
		remainingJobs completedJobs failedJobs`)
	historicBatchJSON = newShape[bpmnlite.HistoricBatch](`id type totalJobs batchJobsPerSeed invocationsPerBatchJob
		seedJobDefinitionId monitorJobDefinitionId batchJobDefinitionId tenantId? createUserId? startTime executionStartTime endTime removalTime`)
)

func (h *Handler) batchRoutes() {
	listRoutes(h, "/batch", "param", bpmnlite.BatchQuery{}, h.eng.Batches, batchJSON)
	listRoutes(h, "/batch/statistics", "param", bpmnlite.BatchQuery{}, h.eng.BatchStatistics, batchStatisticsJSON)
	byIDRoute(h, "/batch", func(ctx context.Context, id string) ([]*bpmnlite.Batch, error) {
		return h.eng.Batches(ctx, bpmnlite.BatchQuery{ID: id})
	}, batchJSON, func(id string) string { return "Batch with id '" + id + "' does not exist" })
	h.handle("PUT /batch/{id}/suspended", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Suspended bool `json:"suspended"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		id, change, verb := r.PathValue("id"), h.eng.ActivateBatch, "activate"
		if body.Suspended {
			change, verb = h.eng.SuspendBatch, "suspend"
		}
		if err := change(r.Context(), id); err != nil {
			if isNotFound(err) {
				return badRequest("Unable to %s batch with id '%s'", verb, id)
			}
			return err
		}
		return noContent(w)
	})
	h.handle("DELETE /batch/{id}", func(w http.ResponseWriter, r *http.Request) error {
		cascade, err := boolParamOr(r, "cascade", false)
		if err != nil {
			return err
		}
		id := r.PathValue("id")
		if err := h.eng.DeleteBatch(r.Context(), id, cascade); err != nil {
			if isNotFound(err) {
				return badRequest("Unable to delete batch with id '%s'", id)
			}
			return err
		}
		return noContent(w)
	}, "cascade")

	listRoutes(h, "/history/batch", "param", bpmnlite.HistoricBatchQuery{}, h.eng.HistoricBatches, historicBatchJSON)
	byIDRoute(h, "/history/batch", func(ctx context.Context, id string) ([]*bpmnlite.HistoricBatch, error) {
		return h.eng.HistoricBatches(ctx, bpmnlite.HistoricBatchQuery{ID: id})
	}, historicBatchJSON, func(id string) string { return "Historic batch with id '" + id + "' does not exist" })
	h.handle("DELETE /history/batch/{id}", func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		if err := h.eng.DeleteHistoricBatch(r.Context(), id); err != nil {
			if isNotFound(err) {
				return &notFound{"Unable to delete historic batch with id '" + id + "'"}
			}
			return err
		}
		return noContent(w)
	})

	h.handle("POST /process-instance/delete", h.deleteInstancesAsync)
	h.handle("POST /process-instance/delete-historic-query-based", h.deleteInstancesAsync)
	h.handle("POST /process-instance/suspended-async", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Suspended     bool                       `json:"suspended"`
			IDs           []string                   `json:"processInstanceIds"`
			Query         map[string]json.RawMessage `json:"processInstanceQuery"`
			HistoricQuery map[string]json.RawMessage `json:"historicProcessInstanceQuery"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		req := bpmnlite.InstancesSuspensionRequest{IDs: body.IDs, Suspend: body.Suspended}
		var err error
		if req.Query, req.HistoricQuery, err = instanceQueries(body.Query, body.HistoricQuery); err != nil {
			return err
		}
		return writeBatch(w, "processInstanceIds", func() (*bpmnlite.Batch, error) { return h.eng.SuspendProcessInstancesAsync(r.Context(), req) })
	})
	h.handle("POST /history/process-instance/delete", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			IDs             []string                   `json:"historicProcessInstanceIds"`
			Query           map[string]json.RawMessage `json:"historicProcessInstanceQuery"`
			FailIfNotExists *bool                      `json:"failIfNotExists"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		req := bpmnlite.DeleteHistoricProcessInstancesRequest{IDs: body.IDs, FailIfNotExists: body.FailIfNotExists == nil || *body.FailIfNotExists}
		var err error
		if req.Query, err = nestedQuery[bpmnlite.HistoricProcessInstanceQuery](body.Query, "/history/process-instance"); err != nil {
			return err
		}
		return writeBatch(w, "historicProcessInstanceIds", func() (*bpmnlite.Batch, error) {
			return h.eng.DeleteHistoricProcessInstancesAsync(r.Context(), req)
		})
	})
	h.handle("POST /history/decision-instance/delete", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			IDs   []string                   `json:"historicDecisionInstanceIds"`
			Query map[string]json.RawMessage `json:"historicDecisionInstanceQuery"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		req := bpmnlite.DeleteHistoricDecisionInstancesRequest{IDs: body.IDs}
		var err error
		if req.Query, err = nestedQuery[bpmnlite.HistoricDecisionInstanceQuery](body.Query, "/history/decision-instance"); err != nil {
			return err
		}
		return writeBatch(w, "historicDecisionInstanceIds", func() (*bpmnlite.Batch, error) {
			return h.eng.DeleteHistoricDecisionInstancesAsync(r.Context(), req)
		})
	})
	h.handle("POST /history/process-instance/set-removal-time", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Absolute       *string                    `json:"absoluteRemovalTime"`
			Cleared        bool                       `json:"clearedRemovalTime"`
			Calculated     bool                       `json:"calculatedRemovalTime"`
			IDs            []string                   `json:"historicProcessInstanceIds"`
			Query          map[string]json.RawMessage `json:"historicProcessInstanceQuery"`
			Hierarchical   bool                       `json:"hierarchical"`
			UpdateInChunks bool                       `json:"updateInChunks"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		if body.UpdateInChunks {
			return badRequest("bpmnlite does not support updateInChunks=true: each execution job of the batch updates its instances at once")
		}
		req := bpmnlite.RemovalTimeRequest{IDs: body.IDs, Cleared: body.Cleared, Calculated: body.Calculated, Hierarchical: body.Hierarchical}
		if body.Absolute != nil {
			t, err := parseTime(*body.Absolute)
			if err != nil {
				return badRequest("absoluteRemovalTime: %v", err)
			}
			req.Absolute = &t
		}
		var err error
		if req.Query, err = nestedQuery[bpmnlite.HistoricProcessInstanceQuery](body.Query, "/history/process-instance"); err != nil {
			return err
		}
		return writeBatch(w, "historicProcessInstanceIds", func() (*bpmnlite.Batch, error) { return h.eng.SetRemovalTimeAsync(r.Context(), req) })
	})
	h.handle("POST /job/retries", h.setJobRetriesAsync)
	h.handle("POST /process-instance/job-retries", h.setJobRetriesAsync)
	h.handle("POST /process-instance/job-retries-historic-query-based", h.setJobRetriesAsync)
	h.handle("POST /external-task/retries-async", func(w http.ResponseWriter, r *http.Request) error {
		req, err := readExternalTaskRetries(r)
		if err != nil {
			return err
		}
		return writeBatch(w, "externalTaskIds", func() (*bpmnlite.Batch, error) { return h.eng.SetExternalTaskRetriesAsync(r.Context(), req) })
	})
}

// setJobRetriesAsync sets the retries of jobs in a batch: by ids and a
// job query (POST /job/retries), and by the process instances they
// belong to (POST /process-instance/job-retries and its form for a
// historic query).
func (h *Handler) setJobRetriesAsync(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		retriesBody
		IDs                []string                   `json:"jobIds"`
		Query              map[string]json.RawMessage `json:"jobQuery"`
		ProcessInstanceIDs []string                   `json:"processInstances"`
		InstanceQuery      map[string]json.RawMessage `json:"processInstanceQuery"`
		HistoricQuery      map[string]json.RawMessage `json:"historicProcessInstanceQuery"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	retries, err := body.retries()
	if err != nil {
		return err
	}
	req := bpmnlite.JobRetriesRequest{IDs: body.IDs, ProcessInstanceIDs: body.ProcessInstanceIDs, Retries: retries}
	if body.DueDate != nil {
		req.SetDueDate = true
		var s *string
		if err := json.Unmarshal(body.DueDate, &s); err != nil {
			return badRequest("dueDate: want a date or null: %v", err)
		}
		if s != nil {
			t, err := parseTime(*s)
			if err != nil {
				return badRequest("dueDate: %v", err)
			}
			req.DueDate = &t
		}
	}
	if req.Query, err = nestedQuery[bpmnlite.JobQuery](body.Query, "/job"); err != nil {
		return err
	}
	if req.InstanceQuery, req.HistoricQuery, err = instanceQueries(body.InstanceQuery, body.HistoricQuery); err != nil {
		return err
	}
	return writeBatch(w, "jobIds", func() (*bpmnlite.Batch, error) { return h.eng.SetJobRetriesAsync(r.Context(), req) })
}

// deleteInstancesAsync deletes process instances in a batch (POST
// /process-instance/delete, and its form for a historic query).
func (h *Handler) deleteInstancesAsync(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		IDs                 []string                   `json:"processInstanceIds"`
		Reason              string                     `json:"deleteReason"`
		SkipCustomListeners bool                       `json:"skipCustomListeners"`
		SkipSubprocesses    bool                       `json:"skipSubprocesses"`
		SkipIoMappings      bool                       `json:"skipIoMappings"`
		Query               map[string]json.RawMessage `json:"processInstanceQuery"`
		HistoricQuery       map[string]json.RawMessage `json:"historicProcessInstanceQuery"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	if body.SkipIoMappings {
		return badRequest("bpmnlite does not support skipIoMappings=true for a deletion: deleting an instance runs no input/output mappings")
	}
	req := bpmnlite.DeleteProcessInstancesRequest{IDs: body.IDs, Reason: body.Reason,
		SkipCustomListeners: body.SkipCustomListeners, SkipSubprocesses: body.SkipSubprocesses}
	var err error
	if req.Query, req.HistoricQuery, err = instanceQueries(body.Query, body.HistoricQuery); err != nil {
		return err
	}
	return writeBatch(w, "processInstanceIds", func() (*bpmnlite.Batch, error) { return h.eng.DeleteProcessInstancesAsync(r.Context(), req) })
}

// writeBatch answers with the batch create made; a batch of no items is
// Camunda's 400 saying the ids are empty.
func writeBatch(w http.ResponseWriter, ids string, create func() (*bpmnlite.Batch, error)) error {
	b, err := create()
	switch {
	case errors.Is(err, bpmnlite.ErrNoBatchItems):
		return badRequest("%s is empty", ids)
	case errors.Is(err, bpmnlite.ErrInvalidBatchRequest):
		return badRequest("%s", strings.TrimPrefix(err.Error(), bpmnlite.ErrInvalidBatchRequest.Error()+": "))
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, batchJSON.of(b))
	return nil
}

// instanceQueries are the process instance query and the historic one
// of a body's processInstanceQuery and historicProcessInstanceQuery
// members (each nil when absent).
func instanceQueries(q, hq map[string]json.RawMessage) (*bpmnlite.InstanceQuery, *bpmnlite.HistoricProcessInstanceQuery, error) {
	running, err := nestedQuery[bpmnlite.InstanceQuery](q, "/process-instance")
	if err != nil {
		return nil, nil, err
	}
	history, err := nestedQuery[bpmnlite.HistoricProcessInstanceQuery](hq, "/history/process-instance")
	return running, history, err
}

// nestedQuery is the query a body member holds, as the POST form of
// list path takes it; nil when the member is absent.
func nestedQuery[Q any](body map[string]json.RawMessage, path string) (*Q, error) {
	if body == nil {
		return nil, nil
	}
	q := new(Q)
	if err := bindJSONQuery(body, q, path); err != nil {
		return nil, err
	}
	return q, nil
}
