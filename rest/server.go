package rest

import (
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"

	"github.com/bpmnlite/bpmnlite"
)

// Options configure the handler. Zero values take the defaults named.
type Options struct {
	// BasePath prefixes every path. Default "/engine-rest".
	BasePath string
	// Auth, when set, is required of every request: "Bearer <token>" takes
	// a bearer token of at least MinTokenLength characters;
	// "<user>:<password>" (neither empty) takes HTTP basic authentication.
	// An Auth that CheckAuth refuses admits no request (and is logged).
	Auth string
	// MaxBodyBytes bounds request bodies. Default 16 MiB.
	MaxBodyBytes int64
	// MaxDeploymentBytes bounds a deployment's body, all its files
	// together, within MaxBodyBytes (each file is bounded by the engine's
	// MaxResourceBytes too); a larger one is answered 400. Default
	// DefaultMaxDeploymentBytes (16 MiB); negative: MaxBodyBytes only.
	MaxDeploymentBytes int64
	// DeploymentsPerMinute bounds the deployments taken per minute (ten
	// may come at once); more are answered 429 with Retry-After. Default
	// DefaultDeploymentsPerMinute (60); negative: no bound.
	DeploymentsPerMinute int
	// ConcurrentDeployments bounds the deployments read and parsed at
	// once; more wait, their bodies unread. A file takes about 16
	// times its size while parsed. Default DefaultConcurrentDeployments
	// (2); negative: no bound.
	ConcurrentDeployments int
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
	// served are the operations routed, in the order registered.
	served []route
	// deploys bound the deployments taken.
	deploys *deployLimits
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
	if opt.MaxDeploymentBytes == 0 {
		opt.MaxDeploymentBytes = DefaultMaxDeploymentBytes
	}
	if opt.DeploymentsPerMinute == 0 {
		opt.DeploymentsPerMinute = DefaultDeploymentsPerMinute
	}
	if opt.ConcurrentDeployments == 0 {
		opt.ConcurrentDeployments = DefaultConcurrentDeployments
	}
	if opt.MaxAsyncResponseTimeout <= 0 {
		opt.MaxAsyncResponseTimeout = 30 * time.Minute
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if err := CheckAuth(opt.Auth); err != nil {
		opt.Logger.Error("REST API refuses every request: Options.Auth is not usable", "error", err)
	}
	h := &Handler{eng: eng, opt: opt, mux: http.NewServeMux(), auth: authCheck(opt.Auth), deploys: newDeployLimits(opt)}
	h.routes()
	return h
}

// MinTokenLength is the shortest bearer token Auth accepts.
const MinTokenLength = 16

// CheckAuth reports why auth is not a credential worth requiring: it must be
// "<user>:<password>" with neither empty, or "Bearer <token>" with a token of
// at least MinTokenLength characters. An empty auth (no authentication) is
// accepted here; whether that is allowed is the caller's decision.
func CheckAuth(auth string) error {
	if auth == "" {
		return nil
	}
	if token, ok := bearerToken(auth); ok {
		switch {
		case len(token) < MinTokenLength:
			return fmt.Errorf("a bearer token must have at least %d characters, this one has %d", MinTokenLength, len(token))
		case strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }):
			return errors.New("a bearer token must not contain spaces or control characters")
		}
		return nil
	}
	user, password, ok := strings.Cut(auth, ":")
	switch {
	case !ok:
		return errors.New(`want "<user>:<password>" or "Bearer <token>"`)
	case user == "":
		return errors.New(`the user name of "<user>:<password>" must not be empty`)
	case password == "":
		return errors.New(`the password of "<user>:<password>" must not be empty`)
	}
	return nil
}

// bearerToken returns the token of "Bearer <token>" (the scheme in any
// case, RFC 7235) and whether s has that scheme.
func bearerToken(s string) (string, bool) {
	const scheme = "bearer"
	if len(s) < len(scheme) || !strings.EqualFold(s[:len(scheme)], scheme) || len(s) > len(scheme) && s[len(scheme)] != ' ' {
		return "", false
	}
	return strings.TrimSpace(s[len(scheme):]), true
}

// authCheck returns the check of a request's Authorization header against
// auth. An auth that CheckAuth refuses admits nobody. The comparison takes
// the same time whatever the credentials presented, their length included:
// both sides are hashed first.
func authCheck(auth string) func(*http.Request) bool {
	switch {
	case auth == "":
		return func(*http.Request) bool { return true }
	case CheckAuth(auth) != nil:
		return func(*http.Request) bool { return false }
	}
	if token, ok := bearerToken(auth); ok {
		want := sha256.Sum256([]byte(token))
		return func(r *http.Request) bool {
			got, ok := bearerToken(r.Header.Get("Authorization"))
			return ok && sameHash(got, want)
		}
	}
	want := sha256.Sum256([]byte(auth))
	return func(r *http.Request) bool {
		u, p, ok := r.BasicAuth() // u cannot hold a colon: u+":"+p is the credential sent
		return ok && sameHash(u+":"+p, want)
	}
}

// sameHash reports in constant time whether s hashes to want.
func sameHash(s string, want [sha256.Size]byte) bool {
	got := sha256.Sum256([]byte(s))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
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
	if r.ContentLength > h.opt.MaxBodyBytes {
		// Refused before a byte of it is read.
		h.fail(w, r, &http.MaxBytesError{Limit: h.opt.MaxBodyBytes})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.opt.MaxBodyBytes)
	if _, bearer := bearerToken(h.opt.Auth); h.opt.Auth != "" && !bearer {
		// Basic authentication passed: its user is the authenticated user
		// of the request's commands (camunda:initiator).
		if u, _, ok := r.BasicAuth(); ok {
			r = r.WithContext(bpmnlite.WithAuthenticatedUser(r.Context(), u))
		}
	}
	if r.Header.Get("traceparent") != "" {
		// The caller's trace (W3C Trace Context, through the process's
		// propagator): the engine's spans for this request continue it.
		r = r.WithContext(otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
	}
	if h.namedEngine(w, r) {
		h.mux.ServeHTTP(w, r)
	}
}

// handle registers fn for "METHOD /path" below the base path. accepts
// are the query parameters fn honours: a request with another parameter
// Camunda documents for the operation is refused (400).
func (h *Handler) handle(pattern string, fn func(w http.ResponseWriter, r *http.Request) error, accepts ...string) {
	method, path, _ := strings.Cut(pattern, " ")
	h.mux.HandleFunc(method+" "+h.opt.BasePath+path, h.operation(pattern, fn, accepts...))
}

// operation is handle without registering the handler with the mux, for the
// caller to dispatch to: patterns the mux cannot take side by side (GET
// /process-definition/key/{key} overlaps GET /process-definition/{id}/xml).
func (h *Handler) operation(pattern string, fn func(w http.ResponseWriter, r *http.Request) error, accepts ...string) http.HandlerFunc {
	method, path, _ := strings.Cut(pattern, " ")
	op := camundaAPI[opKey(method, path)]
	accepted := map[string]bool{}
	for _, p := range accepts {
		accepted[p] = true
	}
	h.served = append(h.served, route{method: method, path: path, op: op, accepts: accepts})
	return func(w http.ResponseWriter, r *http.Request) {
		err := refuseUnsupported(op, r.URL.Query(), accepted)
		if err == nil {
			err = fn(w, withOperation(r, op))
		}
		if err != nil {
			h.fail(w, r, err)
		}
	}
}

// route is one operation the handler serves.
type route struct {
	method, path string
	op           *camundaOp // nil: not in Camunda's API
	accepts      []string   // the query parameters it honours
}

// requestError is bad input: 400 with Camunda's InvalidRequestException,
// or the exception type typ names.
type requestError struct{ msg, typ string }

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...)}
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
	var many *tooMany
	switch {
	case errors.As(err, &many):
		w.Header().Set("Retry-After", retryAfter(many.retryAfter))
		writeError(w, http.StatusTooManyRequests, "RestException", many.msg)
	case errors.As(err, &cf):
		writeError(w, http.StatusInternalServerError, cf.typ, cf.msg)
	case errors.As(err, &se):
		writeError(w, http.StatusInternalServerError, se.typ, se.msg)
	case errors.As(err, &req):
		writeError(w, http.StatusBadRequest, cmp.Or(req.typ, "InvalidRequestException"), req.msg)
	case isRequestVariable(err), errors.Is(err, bpmnlite.ErrInvalidQuery):
		writeError(w, http.StatusBadRequest, "InvalidRequestException", err.Error())
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

// isRequestVariable reports whether err is a variable of the request that
// cannot be stored (ErrInvalidVariable): the client's fault. One that a
// delegate or a mapping set is the model's, a server error.
func isRequestVariable(err error) bool {
	var de *bpmnlite.DelegateError
	var ae *bpmnlite.ActivityError
	return errors.Is(err, bpmnlite.ErrInvalidVariable) && !errors.As(err, &de) && !errors.As(err, &ae)
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
	if err := refuseUnsupportedMembers(r, body, v); err != nil {
		return err
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

// conflict is a state conflict Camunda answers with 500 and its own type.
type conflict struct{ typ, msg string }

func (e *conflict) Error() string { return e.msg }

// serverError is a failure of the work a request ran (a job), 500.
type serverError struct{ typ, msg string }

func (e *serverError) Error() string { return e.msg }
