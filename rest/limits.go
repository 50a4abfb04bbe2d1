package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// Defaults of the deployment limits (Options).
const (
	DefaultMaxDeploymentBytes    = 16 << 20
	DefaultDeploymentsPerMinute  = 60
	DefaultConcurrentDeployments = 2
)

// deploymentBurst is how many deployments may follow each other at once
// before DeploymentsPerMinute paces them.
const deploymentBurst = 10

// deployLimits bound the deployments a handler takes: parsing one takes
// memory and time in proportion to its size (about 16 times its
// bytes while parsed), so their size, rate and number at once are bounded.
type deployLimits struct {
	maxBytes int64
	slots    chan struct{} // one per deployment at once; nil: no bound
	bucket   *tokenBucket  // nil: no rate bound
}

func newDeployLimits(opt Options) *deployLimits {
	l := &deployLimits{maxBytes: opt.MaxDeploymentBytes}
	if opt.ConcurrentDeployments > 0 {
		l.slots = make(chan struct{}, opt.ConcurrentDeployments)
	}
	if opt.DeploymentsPerMinute > 0 {
		l.bucket = newTokenBucket(float64(opt.DeploymentsPerMinute)/60, min(opt.DeploymentsPerMinute, deploymentBurst))
	}
	return l
}

// tooMany is a request over a rate limit: 429, with when to retry.
type tooMany struct {
	msg        string
	retryAfter time.Duration
}

func (e *tooMany) Error() string { return e.msg }

// admit takes a deployment's turn: it fails with *tooMany over the rate,
// and otherwise waits for a free slot (the request's body stays unread,
// so waiting deployments hold no memory). release gives the slot back.
func (l *deployLimits) admit(ctx context.Context) (release func(), err error) {
	if l.bucket != nil {
		if wait := l.bucket.take(time.Now()); wait > 0 {
			return nil, &tooMany{fmt.Sprintf("more than %.0f deployments per minute: retry in %s", l.bucket.rate*60, wait.Round(time.Second)), wait}
		}
	}
	if l.slots == nil {
		return func() {}, nil
	}
	select {
	case l.slots <- struct{}{}:
		return func() { <-l.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readDeployment reads a deployment's multipart form as it streams in:
// the form fields, and each file part as a resource. The whole body is
// bounded by maxBytes (a larger one is a 400 naming the limit).
// resourceName is a deployment part's file name as the client gave it,
// directories included, as Camunda keeps it (Part.FileName keeps only the
// last element: it guards file systems, and resources are rows).
func resourceName(part *multipart.Part) string {
	_, params, err := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
	if name := params["filename"]; err == nil && name != "" {
		return name
	}
	return part.FileName()
}

func (l *deployLimits) readDeployment(w http.ResponseWriter, r *http.Request) (bpmnlite.DeployRequest, error) {
	var req bpmnlite.DeployRequest
	if l.maxBytes > 0 {
		r.Body = http.MaxBytesReader(w, r.Body, l.maxBytes)
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		return req, badRequest("a deployment is a multipart/form-data request, not %q", mt)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return req, badRequest("a deployment is a multipart/form-data request: %v", err)
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return req, l.bodyError(err)
		}
		b, err := io.ReadAll(part)
		part.Close()
		if err != nil {
			return req, l.bodyError(err)
		}
		if part.FileName() != "" {
			req.Resources = append(req.Resources, bpmnlite.Resource{Name: resourceName(part), Bytes: b})
			continue
		}
		switch v := string(b); part.FormName() {
		case "deployment-name":
			req.Name = v
		case "deployment-source":
			req.Source = v
		case "tenant-id":
			req.TenantID = v
		case "enable-duplicate-filtering":
			req.SkipUnchanged = req.SkipUnchanged || v == "true"
		case "deploy-changed-only":
			req.ChangedOnly = v == "true"
			req.SkipUnchanged = req.SkipUnchanged || req.ChangedOnly
		case "deployment-activation-time":
			if v != "" {
				return req, badRequest("bpmnlite does not support deployment-activation-time: its definitions are active when deployed")
			}
		}
	}
	if len(req.Resources) == 0 {
		return req, badRequest("the deployment has no resources")
	}
	return req, nil
}

// bodyError names the size limit when err is the body passing it: 400,
// as for any other invalid deployment.
func (l *deployLimits) bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return badRequest("the deployment is larger than the limit of %d bytes", tooBig.Limit)
	}
	return badRequest("a deployment is a multipart/form-data request: %v", err)
}

// tokenBucket paces events to rate per second, allowing burst at once.
type tokenBucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

func newTokenBucket(rate float64, burst int) *tokenBucket {
	return &tokenBucket{rate: rate, burst: float64(burst), tokens: float64(burst)}
}

// take takes a token at now, or returns how long until one is available.
func (b *tokenBucket) take(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.last.IsZero() {
		b.tokens = math.Min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return time.Duration(math.Ceil((1 - b.tokens) / b.rate * float64(time.Second)))
}

// retryAfter is the Retry-After header's value for d: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}
