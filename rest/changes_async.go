package rest

import (
	"errors"
	"net/http"

	"github.com/bpmnlite/bpmnlite"
)

// The asynchronous forms of migration, modification and restart: the
// same payloads as the synchronous calls, answered with the batch
// (Camunda's BatchDto) that does the work.

func (h *Handler) changesAsyncRoutes() {
	h.handle("POST /migration/executeAsync", func(w http.ResponseWriter, r *http.Request) error {
		req, vars, err := readMigrationExecution(r)
		if err != nil {
			return err
		}
		b, err := h.eng.MigrateAsync(r.Context(), req)
		if err != nil {
			if migrationFailed(w, err, vars) {
				return nil
			}
			return err
		}
		writeJSON(w, http.StatusOK, batchJSON.of(b))
		return nil
	})
	h.handle("POST /modification/executeAsync", func(w http.ResponseWriter, r *http.Request) error {
		def, ids, req, err := h.readModification(r)
		if err != nil {
			return err
		}
		return writeBatch(w, "processInstanceIds", func() (*bpmnlite.Batch, error) {
			return refusedAsBadRequest(h.eng.ModifyProcessInstancesAsync(r.Context(), def, ids, req))
		})
	})
	h.handle("POST /process-instance/{id}/modification-async", func(w http.ResponseWriter, r *http.Request) error {
		req, err := readInstanceModification(r)
		if err != nil {
			return err
		}
		return writeBatch(w, "processInstanceIds", func() (*bpmnlite.Batch, error) {
			return refusedAsBadRequest(h.eng.ModifyProcessInstanceAsync(r.Context(), r.PathValue("id"), req))
		})
	})
	h.handle("POST /process-definition/{id}/restart-async", func(w http.ResponseWriter, r *http.Request) error {
		def, req, err := h.readRestart(r)
		if err != nil {
			return err
		}
		return writeBatch(w, "processInstanceIds", func() (*bpmnlite.Batch, error) {
			return refusedAsBadRequest(h.eng.RestartProcessInstancesAsync(r.Context(), def, req))
		})
	})
}

// refusedAsBadRequest turns a batch refused for what the request names (an
// instruction, an instance or definition it names that does not exist)
// into Camunda's 400.
func refusedAsBadRequest(b *bpmnlite.Batch, err error) (*bpmnlite.Batch, error) {
	if errors.Is(err, bpmnlite.ErrInvalidInstruction) || isNotFound(err) {
		return nil, badRequest("%v", err)
	}
	return b, err
}
