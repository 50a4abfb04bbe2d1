// Package rest serves a bpmnlite engine over HTTP with Camunda 7's REST
// paths and JSON payloads (under /engine-rest), so that existing clients,
// such as Camunda's external task clients, need only the base URL.
package rest

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// Options configure the handler. Zero values take the defaults named.
type Options struct {
	// BasePath prefixes every path. Default "/engine-rest".
	BasePath string
	// Auth, when set, is required of every request: "Bearer <token>" is
	// compared with the Authorization header as is; "<user>:<password>"
	// takes HTTP basic authentication.
	Auth string
	// MaxBodyBytes bounds request bodies (deployments included). Default 16 MiB.
	MaxBodyBytes int64
	// MaxAsyncResponseTimeout bounds a fetch's long poll. Default 30 minutes
	// (Camunda's bound).
	MaxAsyncResponseTimeout time.Duration
	// Logger receives request failures (5xx). Default slog.Default().
	Logger *slog.Logger
}

// Handler serves the REST API of one engine.
type Handler struct {
	eng  *bpmnlite.Engine
	opt  Options
	mux  *http.ServeMux
	auth func(*http.Request) bool
}

// New returns the REST handler of eng.
func New(eng *bpmnlite.Engine, opt Options) *Handler {
	if opt.BasePath == "" {
		opt.BasePath = "/engine-rest"
	}
	opt.BasePath = strings.TrimSuffix(opt.BasePath, "/")
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = 16 << 20
	}
	if opt.MaxAsyncResponseTimeout <= 0 {
		opt.MaxAsyncResponseTimeout = 30 * time.Minute
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	h := &Handler{eng: eng, opt: opt, mux: http.NewServeMux(), auth: authCheck(opt.Auth)}
	h.routes()
	return h
}

// authCheck returns the check of an Authorization header against auth.
func authCheck(auth string) func(*http.Request) bool {
	switch {
	case auth == "":
		return func(*http.Request) bool { return true }
	case strings.HasPrefix(auth, "Bearer "):
		return func(r *http.Request) bool {
			return subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(auth)) == 1
		}
	}
	user, password, _ := strings.Cut(auth, ":")
	return func(r *http.Request) bool {
		u, p, ok := r.BasicAuth()
		return ok && subtle.ConstantTimeCompare([]byte(u), []byte(user))&subtle.ConstantTimeCompare([]byte(p), []byte(password)) == 1
	}
}

// Handle serves handler at path (outside the base path, e.g. /metrics)
// behind the same authentication.
func (h *Handler) Handle(path string, handler http.Handler) { h.mux.Handle(path, handler) }

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.auth(r) {
		w.Header().Set("WWW-Authenticate", `Basic realm="bpmnlite"`)
		writeError(w, http.StatusUnauthorized, "AuthenticationException", "authentication required")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.opt.MaxBodyBytes)
	h.mux.ServeHTTP(w, r)
}

// handle registers fn for "METHOD /path" below the base path.
func (h *Handler) handle(pattern string, fn func(w http.ResponseWriter, r *http.Request) error) {
	method, path, _ := strings.Cut(pattern, " ")
	h.mux.HandleFunc(method+" "+h.opt.BasePath+path, func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.fail(w, r, err)
		}
	})
}

// requestError is bad input: 400 with Camunda's InvalidRequestException.
type requestError struct{ msg string }

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &requestError{fmt.Sprintf(format, args...)}
}

// notFound is an unknown id where Camunda answers 404.
type notFound struct{ msg string }

func (e *notFound) Error() string { return e.msg }

// fail writes err as Camunda does: {"type": ..., "message": ...} with the
// status its kind calls for.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var req *requestError
	var nf *notFound
	var tooBig *http.MaxBytesError
	var cf *conflict
	var se *serverError
	switch {
	case errors.As(err, &cf):
		writeError(w, http.StatusInternalServerError, cf.typ, cf.msg)
	case errors.As(err, &se):
		writeError(w, http.StatusInternalServerError, se.typ, se.msg)
	case errors.As(err, &req):
		writeError(w, http.StatusBadRequest, "InvalidRequestException", req.msg)
	case errors.As(err, &nf):
		writeError(w, http.StatusNotFound, "InvalidRequestException", nf.msg)
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "InvalidRequestException", fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit))
	case errors.Is(err, bpmnlite.ErrWrongWorker):
		// Camunda's REST layer reports a wrong worker as a RestException.
		writeError(w, http.StatusBadRequest, "RestException", err.Error())
	case errors.Is(err, bpmnlite.ErrSuspended):
		writeError(w, http.StatusBadRequest, "BadUserRequestException", err.Error())
	case errors.Is(err, bpmnlite.ErrNotFound):
		writeError(w, http.StatusNotFound, "InvalidRequestException", err.Error())
	case errors.Is(err, bpmnlite.ErrOptimisticLock):
		writeError(w, http.StatusConflict, "OptimisticLockingException", err.Error())
	default:
		h.opt.Logger.Warn("REST request failed", "method", r.Method, "path", r.URL.Path, "error", err)
		writeError(w, http.StatusInternalServerError, "RestException", err.Error())
	}
}

// writeError writes Camunda's error body; code is its engine error code,
// null here as in Camunda when none applies.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"type": typ, "message": msg, "code": nil})
}

// writeJSON writes v with the exact content type strict clients expect.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func noContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// readJSON decodes the request body into v; an empty body leaves v as is.
func readJSON(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		return badRequest("the request body is not valid JSON: %v", err)
	}
	return nil
}

// camundaTime is Camunda's date format in JSON: 2016-01-25T13:33:42.000+0100.
const camundaTime = "2006-01-02T15:04:05.000-0700"

func formatTime(t time.Time) string { return t.Format(camundaTime) }

func formatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

// parseTime reads Camunda's date format, and RFC 3339 too.
func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{camundaTime, "2006-01-02T15:04:05-0700", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date like 2016-01-25T13:33:42.000+0100", s)
}

// readRetries reads a {"retries": n} body.
func readRetries(r *http.Request) (int, error) {
	var body struct {
		Retries *int `json:"retries"`
	}
	if err := readJSON(r, &body); err != nil {
		return 0, err
	}
	if body.Retries == nil || *body.Retries < 0 {
		return 0, badRequest("retries are required and must not be negative")
	}
	return *body.Retries, nil
}
