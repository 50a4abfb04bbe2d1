package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/worker"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

const externalProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="pay" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" camunda:type="external" camunda:topic="pay"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/><endEvent id="end"/>
  </process>
</definitions>`

// startServe runs bpmnlite serve on database db and a free loopback port
// with args, and returns its REST base URL and a stop that ends it
// gracefully.
func startServe(t *testing.T, db string, args ...string) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var log enginetest.LogBuffer
	done := make(chan error, 1)
	args = append([]string{"-db", db, "-http", addr}, args...)
	go func() { done <- serve(ctx, args, &log) }()
	for waitUp := time.Now().Add(20 * time.Second); !strings.Contains(log.String(), "REST API listening"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(waitUp) {
			cancel()
			t.Fatalf("serve did not come up:\n%s", log.String())
		}
	}
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(20 * time.Second):
				stopErr = errors.New("serve did not stop")
			}
		})
		return stopErr
	}
	t.Cleanup(func() { _ = stop() })
	return "http://" + addr + "/engine-rest", stop
}

// deployOverHTTP deploys BPMN files (name → content) through the REST API.
func deployOverHTTP(t *testing.T, base string, files map[string]string) {
	t.Helper()
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	for name, content := range files {
		fw, _ := mw.CreateFormFile(name, name)
		fw.Write([]byte(content))
	}
	mw.WriteField("deployment-name", "test")
	mw.Close()
	restPost(t, base, "/deployment/create", mw.FormDataContentType(), form.Bytes())
}

// restPost posts as user demo and decodes the JSON reply of a 200.
func restPost(t *testing.T, base, path, contentType string, body []byte) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("POST", base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.SetBasicAuth("demo", "secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %v", path, resp.StatusCode, out)
	}
	return out
}

// End to end: bpmnlite serve on a loopback port, a deployment and starts
// over HTTP, the Go worker completing the external tasks over HTTP, and a
// graceful stop while a long poll waits.
func TestServeEndToEnd(t *testing.T) {
	base, stop := startServe(t, filepath.Join(t.TempDir(), "e2e.db"), "-auth", "demo:secret")
	ctx := t.Context()
	deployOverHTTP(t, base, map[string]string{"pay.bpmn": externalProcess})
	var ids []string
	for range 5 {
		ids = append(ids, restPost(t, base, "/process-definition/key/pay/start", "application/json", []byte(`{"variables":{"n":{"value":2,"type":"Integer"}}}`))["id"].(string))
	}

	w := worker.New(worker.HTTP(base, worker.HTTPOptions{Authorization: "Basic ZGVtbzpzZWNyZXQ="}),
		worker.Config{LongPoll: 5 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	var mu sync.Mutex
	handled := 0
	w.Subscribe("pay", func(_ context.Context, task *worker.Task) (map[string]any, error) {
		mu.Lock()
		handled++
		mu.Unlock()
		return map[string]any{"paid": task.Variables["n"]}, nil
	}, worker.Subscription{})
	wctx, stopWorker := context.WithCancel(ctx)
	workerDone := make(chan error, 1)
	go func() { workerDone <- w.Run(wctx) }()
	count := func() float64 {
		req, _ := http.NewRequest("GET", base+"/process-instance/count", nil)
		req.SetBasicAuth("demo", "secret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]float64
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return out["count"]
	}
	for deadline := time.Now().Add(20 * time.Second); count() != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%v instances still running", count())
		}
	}
	mu.Lock()
	if handled != len(ids) {
		t.Errorf("handled %d tasks, want %d", handled, len(ids))
	}
	mu.Unlock()

	// The worker now waits in a long poll; stopping the server answers it.
	time.Sleep(100 * time.Millisecond)
	if err := stop(); err != nil {
		t.Errorf("serve: %v", err)
	}
	stopWorker()
	<-workerDone
}

// A non-loopback address without credentials is refused.
func TestServeRefusesOpenAddressWithoutAuth(t *testing.T) {
	t.Setenv("BPMNLITE_AUTH", "")
	err := serve(context.Background(), []string{"-db", filepath.Join(t.TempDir(), "x.db"), "-http", "0.0.0.0:0"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "-auth") {
		t.Errorf("serve on 0.0.0.0 without auth: %v", err)
	}
}

// Credentials that mean nothing (what "$U:$P" becomes with both unset, a
// bare scheme, a short token) are refused before anything opens, with the
// rule named; good ones start the server.
func TestServeRefusesMeaninglessAuth(t *testing.T) {
	for auth, rule := range map[string]string{
		":": "user name", "demo:": "password", "Bearer": "at least 16 characters", "x": `"<user>:<password>"`,
		"Bearer short-token": "at least 16 characters",
	} {
		db := filepath.Join(t.TempDir(), "x.db")
		err := serve(context.Background(), []string{"-db", db, "-http", "0.0.0.0:0", "-auth", auth}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "-auth") || !strings.Contains(err.Error(), rule) {
			t.Errorf("-auth %q: %v, want an error naming -auth and %q", auth, err, rule)
		}
		if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("-auth %q: the database was created (%v)", auth, err)
		}
	}
	t.Setenv("BPMNLITE_AUTH", ":")
	if err := serve(context.Background(), []string{"-db", filepath.Join(t.TempDir(), "x.db"), "-http", ""}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "BPMNLITE_AUTH") {
		t.Errorf("BPMNLITE_AUTH=: %v, want refused", err)
	}
	t.Setenv("BPMNLITE_AUTH", "")
	for _, auth := range []string{"demo:secret", "Bearer 0123456789abcdef"} {
		base, _ := startServe(t, filepath.Join(t.TempDir(), "ok.db"), "-auth", auth)
		req, _ := http.NewRequest("GET", base+"/version", nil)
		req.Header.Set("Authorization", "Basic Og==")
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("-auth %q, Basic Og==: %v %v, want 401", auth, resp, err)
		} else {
			resp.Body.Close()
		}
	}
}

// jobs reads: a missing database file is an error, and none is created.
func TestJobsDoesNotCreateADatabase(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent.db")
	err := jobsCmd(context.Background(), []string{"-db", missing}, &bytes.Buffer{})
	if err == nil {
		t.Fatal("jobs on a missing database succeeded")
	}
	if _, statErr := os.Stat(missing); statErr == nil {
		t.Errorf("jobs created %s", missing)
	}
}

// serve logs as -log-level and -log-format say, and rejects bad values.
func TestServeLogFlags(t *testing.T) {
	var log enginetest.LogBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, []string{"-db", filepath.Join(t.TempDir(), "log.db"), "-http", "127.0.0.1:0", "-log-format", "json", "-log-level", "debug",
			filepath.Join("..", "..", "examples", "processes", "order.bpmn")}, &log)
	}()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(log.String(), "REST API listening"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not come up:\n%s", log.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(log.String(), "\n", 2)[0]), &first); err != nil || first["level"] == nil {
		t.Errorf("want JSON log lines, got %q (%v)", strings.SplitN(log.String(), "\n", 2)[0], err)
	}
	// The example names Go delegates serve does not have: it says so.
	if !strings.Contains(log.String(), `"level":"WARN"`) || !strings.Contains(log.String(), "checkStock") {
		t.Errorf("want a warning naming the Go delegates of order.bpmn:\n%s", log.String())
	}
	if !strings.Contains(log.String(), `"level":"DEBUG"`) {
		t.Errorf("want debug lines at -log-level debug:\n%s", log.String())
	}
	for _, bad := range [][]string{{"-log-level", "loud"}, {"-log-format", "xml"}} {
		if err := serve(context.Background(), append([]string{"-db", filepath.Join(t.TempDir(), "x.db")}, bad...), &bytes.Buffer{}); err == nil {
			t.Errorf("serve %v succeeded", bad)
		}
	}
}

// /metrics serves the engine's and job executor's Prometheus metrics,
// behind the API's authentication.
func TestServeMetrics(t *testing.T) {
	base, _ := startServe(t, filepath.Join(t.TempDir(), "metrics.db"), "-auth", "demo:secret")
	deployOverHTTP(t, base, map[string]string{"pay.bpmn": externalProcess, "async.bpmn": `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="async" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="step"/>
    <serviceTask id="step" camunda:asyncBefore="true" camunda:expression="${true}"/>
    <sequenceFlow id="f2" sourceRef="step" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>`})
	for range 3 {
		restPost(t, base, "/process-definition/key/async/start", "application/json", []byte(`{}`))
	}
	restPost(t, base, "/process-definition/key/pay/start", "application/json", []byte(`{}`))
	w := worker.New(worker.HTTP(base, worker.HTTPOptions{Authorization: "Basic ZGVtbzpzZWNyZXQ="}), worker.Config{LongPoll: time.Second, Logger: slog.New(slog.DiscardHandler)})
	w.Subscribe("pay", func(context.Context, *worker.Task) (map[string]any, error) { return nil, nil }, worker.Subscription{})
	wctx, stopWorker := context.WithCancel(t.Context())
	defer stopWorker()
	go w.Run(wctx)

	metricsURL := strings.TrimSuffix(base, "/engine-rest") + "/metrics"
	scrape := func() map[string]*dto.MetricFamily {
		t.Helper()
		req, _ := http.NewRequest("GET", metricsURL, nil)
		req.SetBasicAuth("demo", "secret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /metrics: %d", resp.StatusCode)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(resp.Body)
		if err != nil {
			t.Fatalf("parse /metrics: %v", err)
		}
		return families
	}
	value := func(fs map[string]*dto.MetricFamily, name string) float64 {
		f := fs[name]
		if f == nil || len(f.Metric) == 0 {
			return -1
		}
		m := f.Metric[0]
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
		return -1
	}
	var fs map[string]*dto.MetricFamily
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		fs = scrape()
		if value(fs, "bpmnlite_instances_ended_total") >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instances ended: %v", value(fs, "bpmnlite_instances_ended_total"))
		}
	}
	for name, atLeast := range map[string]float64{
		"bpmnlite_instances_started_total": 4, "bpmnlite_jobs_executed_total": 3, "bpmnlite_jobs_acquired_total": 3,
		"bpmnlite_acquisition_cycles_total": 1, "bpmnlite_job_pickup_seconds": 3, "bpmnlite_job_duration_seconds": 3,
		"bpmnlite_external_tasks_fetched_total": 1, "bpmnlite_external_tasks_completed_total": 1,
		"bpmnlite_incidents_open": 0, "bpmnlite_external_task_fetches_waiting": 0, "bpmnlite_jobs_failed_total": 0,
		"bpmnlite_job_queue_depth": 0, "go_goroutines": 1,
	} {
		if v := value(fs, name); v < atLeast {
			t.Errorf("%s = %v, want at least %v", name, v, atLeast)
		}
	}
	req, _ := http.NewRequest("GET", metricsURL, nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics without credentials: %v %v, want 401", resp.StatusCode, err)
	}
}

// The deployment flags reach the REST API: a deployment over
// -max-deployment-bytes is answered 400, one over -deployments-per-minute 429.
func TestServeDeploymentFlags(t *testing.T) {
	base, _ := startServe(t, filepath.Join(t.TempDir(), "flags.db"), "-max-deployment-bytes", "300", "-deployments-per-minute", "1")
	deploy := func() (int, string) {
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		fw, _ := mw.CreateFormFile("p.bpmn", "p.bpmn")
		fw.Write([]byte(externalProcess))
		mw.Close()
		resp, err := http.Post(base+"/deployment/create", mw.FormDataContentType(), &form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		msg, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(msg)
	}
	if status, msg := deploy(); status != http.StatusBadRequest || !strings.Contains(msg, "limit of 300 bytes") {
		t.Errorf("a deployment over -max-deployment-bytes: %d %s", status, msg)
	}
	if status, msg := deploy(); status != http.StatusTooManyRequests {
		t.Errorf("a second deployment in the minute: %d %s", status, msg)
	}
}

// Four deployments of a 9 MB model at once (under every size limit) are
// parsed at most -concurrent-deployments (2) at a time: the heap grows by
// about 200 MiB, where all four read and parsed at once took 480 MiB (and
// the server 1.7 GB of RSS before the files were streamed).
func TestServeConcurrentLargeDeployments(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 36 MB of BPMN")
	}
	base, _ := startServe(t, filepath.Join(t.TempDir(), "big.db"))
	var bodies [4]*bytes.Buffer
	var contentTypes [4]string
	for i := range bodies {
		bodies[i] = &bytes.Buffer{}
		mw := multipart.NewWriter(bodies[i])
		fw, _ := mw.CreateFormFile("big.bpmn", "big.bpmn")
		fw.Write([]byte(enginetest.LargeModel(fmt.Sprint("big", i), 9<<20)))
		mw.Close()
		contentTypes[i] = mw.FormDataContentType()
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m goruntime.MemStats
		for {
			goruntime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	goruntime.GC()
	var before goruntime.MemStats
	goruntime.ReadMemStats(&before)
	var wg sync.WaitGroup
	status := make([]string, len(bodies))
	for i, body := range bodies {
		wg.Go(func() {
			resp, err := http.Post(base+"/deployment/create", contentTypes[i], body)
			if err != nil {
				status[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			msg, _ := io.ReadAll(resp.Body)
			status[i] = fmt.Sprint(resp.StatusCode, " ", string(msg[:min(len(msg), 300)]))
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	for i, s := range status {
		if !strings.HasPrefix(s, "200 ") {
			t.Errorf("deployment %d: %s, want 200", i, s)
		}
	}
	grew := int64(peak.Load()) - int64(before.HeapInuse)
	t.Logf("heap in use before %d MiB, peak %d MiB (+%d MiB)", before.HeapInuse>>20, peak.Load()>>20, grew>>20)
	if grew > 400<<20 {
		t.Errorf("the heap grew by %d MiB while deploying, want under 400 MiB", grew>>20)
	}
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, serve sends the engine's spans over
// OTLP/HTTP; a request carrying a W3C traceparent has its start span in the
// caller's trace.
func TestServeExportsTraces(t *testing.T) {
	var mu sync.Mutex
	var received [][]byte
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" {
			mu.Lock()
			received = append(received, body)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "none")
	t.Setenv("OTEL_SERVICE_NAME", "bpmnlite-test")

	base, stop := startServe(t, filepath.Join(t.TempDir(), "traces.db"), "-auth", "demo:secret")
	deployOverHTTP(t, base, map[string]string{"pay.bpmn": externalProcess})
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	req, _ := http.NewRequest("POST", base+"/process-definition/key/pay/start", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	req.SetBasicAuth("demo", "secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("start: %s", resp.Status)
	}
	// An asynchronous step's job run carries its trace to the latency
	// histograms: OpenMetrics shows it as an exemplar.
	deployOverHTTP(t, base, map[string]string{"later.bpmn": strings.Replace(
		strings.Replace(externalProcess, `id="pay"`, `id="later"`, 1), `camunda:type`, `camunda:asyncBefore="true" camunda:type`, 1)})
	req, _ = http.NewRequest("POST", base+"/process-definition/key/later/start", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth("demo", "secret")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("start later: %v %v", resp, err)
	}
	metricsURL := strings.TrimSuffix(base, "/engine-rest") + "/metrics"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		req, _ := http.NewRequest("GET", metricsURL, nil)
		req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
		req.SetBasicAuth("demo", "secret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if bytes.Contains(body, []byte(`bpmnlite_job_duration_seconds_bucket`)) && bytes.Contains(body, []byte(`# {trace_id="`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no exemplar on the job histograms:\n%s", body)
		}
	}
	if err := stop(); err != nil { // the shutdown flushes the batch
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	all := bytes.Join(received, nil)
	id, _ := hex.DecodeString(traceID)
	if !bytes.Contains(all, []byte("bpmnlite.start")) || !bytes.Contains(all, id) || !bytes.Contains(all, []byte("bpmnlite-test")) {
		t.Fatalf("the collector got %d requests without the start span in the caller's trace", len(received))
	}
}

// serve's engine flags come from the command line or, when not given
// there, from BPMNLITE_<FLAG> environment variables; a bad value names the
// variable.
func TestServeEngineFlagsFromEnv(t *testing.T) {
	historyOf := func(base string) int {
		t.Helper()
		resp, err := http.Get(base + "/history/process-instance/count")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ Count int }
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out.Count
	}
	start := func(base string) {
		t.Helper()
		restPost(t, base, "/process-definition/key/pay/start", "application/json", []byte(`{}`))
	}
	t.Setenv("BPMNLITE_HISTORY", "none")
	base, stop := startServe(t, filepath.Join(t.TempDir(), "none.db"))
	deployOverHTTP(t, base, map[string]string{"pay.bpmn": externalProcess})
	start(base)
	if n := historyOf(base); n != 0 {
		t.Errorf("BPMNLITE_HISTORY=none: %d instances in history, want 0", n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	base, _ = startServe(t, filepath.Join(t.TempDir(), "full.db"), "-history", "full")
	deployOverHTTP(t, base, map[string]string{"pay.bpmn": externalProcess})
	start(base)
	if n := historyOf(base); n != 1 {
		t.Errorf("-history full over BPMNLITE_HISTORY=none: %d instances in history, want 1", n)
	}
	t.Setenv("BPMNLITE_LOCK_TIME", "soon")
	err := serve(t.Context(), []string{"-db", filepath.Join(t.TempDir(), "bad.db"), "-http", ""}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "BPMNLITE_LOCK_TIME") {
		t.Errorf("bad BPMNLITE_LOCK_TIME: %v, want an error naming it", err)
	}
}

// -groups names the groups of the logged-in user for the tasklist,
// blanks and empty entries dropped.
func TestServeGroups(t *testing.T) {
	for list, want := range map[string]string{"": "", "sales": "sales", " sales, ,management ": "sales|management"} {
		got, err := groupsOf(list)(context.Background(), "demo")
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("-groups %q: %q (%v), want %q", list, got, err, want)
		}
	}
}
