package ui_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/rest"
	"github.com/bpmnlite/bpmnlite/ui"
)

// The credentials of the served REST API and UI in these tests.
const user, password = "demo", "secret-password"

// The UI is served behind the REST API's authentication with a strict
// Content-Security-Policy, / redirects to it, and a browser's cross-site
// state-changing request is refused while clients that are not browsers
// (no Origin, no Sec-Fetch-Site) pass.
func TestServing(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		srv := httptest.NewServer(ui.Mount(e.Eng, rest.New(e.Eng, rest.Options{Auth: user + ":" + password}), ui.Options{}))
		defer srv.Close()
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		do := func(method, path string, header map[string]string, body string) (*http.Response, string) {
			t.Helper()
			req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.SetBasicAuth(user, password)
			for k, v := range header {
				req.Header.Set(k, v)
			}
			if header["Authorization"] == "none" {
				req.Header.Del("Authorization")
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp, string(b)
		}

		if resp, _ := do("GET", "/app/", map[string]string{"Authorization": "none"}, ""); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET /app/ without credentials: %d, want 401", resp.StatusCode)
		}
		if resp, _ := do("GET", "/", nil, ""); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/app/" {
			t.Errorf("GET /: %d to %q, want 302 to /app/", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, page := do("GET", "/app/", nil, "")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Security-Policy") != ui.ContentSecurityPolicy ||
			!strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self';") {
			t.Errorf("GET /app/: %d, CSP %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
		}
		for _, want := range []string{`<meta name="bpmnlite-rest" content="/engine-rest">`, `<meta name="bpmnlite-user" content="demo">`, `<script type="module" src="js/app.js">`} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %s", want)
			}
		}
		if strings.Contains(page, "<script>") {
			t.Error("the page has an inline script, which its CSP refuses")
		}
		for path, contentType := range map[string]string{
			"/app/js/app.js": "text/javascript", "/app/app.css": "text/css",
			"/app/vendor/bpmn-js/bpmn-navigated-viewer.production.min.js": "text/javascript",
			"/app/vendor/form-js/form-viewer.umd.js":                      "text/javascript",
		} {
			resp, _ := do("GET", path, nil, "")
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), contentType) || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("GET %s: %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
		// Assets revalidate by ETag and come gzipped to who takes it.
		first, js := do("GET", "/app/vendor/form-js/form-viewer.umd.js", map[string]string{"Accept-Encoding": "identity"}, "")
		again, _ := do("GET", "/app/vendor/form-js/form-viewer.umd.js", map[string]string{"If-None-Match": first.Header.Get("ETag"), "Accept-Encoding": "identity"}, "")
		if first.Header.Get("ETag") == "" || again.StatusCode != http.StatusNotModified || len(js) < 1<<20 {
			t.Errorf("form-js: %d bytes, ETag %q, revalidated %d, want 304", len(js), first.Header.Get("ETag"), again.StatusCode)
		}
		req, _ := http.NewRequest("GET", srv.URL+"/app/vendor/form-js/form-viewer.umd.js", nil)
		req.SetBasicAuth(user, password)
		req.Header.Set("Accept-Encoding", "gzip")
		zipped, err := client.Do(req) // the transport does not unzip what it did not ask for itself
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(zipped.Body)
		if err != nil {
			t.Fatalf("gzipped form-js: %v (Content-Encoding %q)", err, zipped.Header.Get("Content-Encoding"))
		}
		unzipped, err := io.ReadAll(zr)
		zipped.Body.Close()
		if err != nil || string(unzipped) != js || zipped.Header.Get("ETag") == first.Header.Get("ETag") {
			t.Errorf("gzipped form-js: %v, %d bytes unzipped, ETag %q", err, len(unzipped), zipped.Header.Get("ETag"))
		}
		if resp, _ := do("GET", "/app/vendor/", nil, ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /app/vendor/: %d, want 404 (no listings)", resp.StatusCode)
		}
		if resp, body := do("GET", "/app/api/job-executors", nil, ""); resp.StatusCode != http.StatusOK || strings.TrimSpace(body) != "[]" {
			t.Errorf("GET /app/api/job-executors without an executor: %d %s, want 200 []", resp.StatusCode, body)
		}
		if resp, body := do("GET", "/app/api/jobs/no-such-job/explain", nil, ""); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "no-such-job") {
			t.Errorf("explaining an unknown job: %d %s, want 404 naming it", resp.StatusCode, body)
		}
		if resp, _ := do("POST", "/app/", nil, ""); resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("POST /app/: %d, want 405", resp.StatusCode)
		}

		start := `{"key": "nothing"}`
		json := map[string]string{"Content-Type": "application/json"}
		crossSite := map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}
		if resp, _ := do("POST", "/engine-rest/message", crossSite, start); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a cross-site POST: %d, want 403", resp.StatusCode)
		}
		sameOrigin := map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin", "Origin": srv.URL}
		for _, h := range []map[string]string{json, sameOrigin} {
			// Reaches the REST API: no subscription for the message.
			if resp, body := do("POST", "/engine-rest/message", h, `{"messageName": "nothing"}`); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "nothing") {
				t.Errorf("POST with %v: %d %s, want the REST API's 400", h, resp.StatusCode, body)
			}
		}
		if resp, _ := do("GET", "/engine-rest/process-definition/count", crossSite, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("a cross-site GET: %d, want 200 (reading is not refused)", resp.StatusCode)
		}
	})
}

// A UI path that is not a folder below / is a programming error, refused
// at once rather than served somewhere else.
func TestPathRefused(t *testing.T) {
	for _, path := range []string{"/", "app/", "//"} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "Options.Path") {
					t.Errorf("Path %q: recovered %v, want a panic naming Options.Path", path, r)
				}
			}()
			ui.New(nil, ui.Options{Path: path})
		}()
	}
	ui.New(nil, ui.Options{Path: "/cockpit"}) // a folder, its slash added
}

// twoSteps: a user task between start and end, without diagram layout.
const twoSteps = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="two" isExecutable="true">
    <startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <userTask id="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// The heat map's durations: per activity the finished instances and their
// mean duration, from history, as the engine and the UI's handler answer
// them; and who is logged in, with the groups Options.Groups names.
func TestActivityDurationsAndMe(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		e.Deploy("two.bpmn", twoSteps)
		first, second, running := e.Start("two", nil), e.Start("two", nil), e.Start("two", nil)
		e.Clock.Add(2 * time.Second)
		e.Complete(first, "work", nil)
		e.Clock.Add(3*time.Second + 500*time.Microsecond)
		e.Complete(second, "work", nil)
		_ = running // its task runs: not counted
		def := e.Tasks(running)[0].ProcessDefinitionID

		got, err := e.Eng.ActivityDurations(e.Ctx, def)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, d := range got {
			lines = append(lines, fmt.Sprintf("%s %d %v", d.ActivityID, d.Finished, d.Mean))
		}
		// work: 2s and 5.0005s; start and end take no time.
		if want := "end 2 0s|start 3 0s|work 2 3.50025s"; strings.Join(lines, "|") != want {
			t.Errorf("durations %q, want %q", strings.Join(lines, "|"), want)
		}
		if none, err := e.Eng.ActivityDurations(e.Ctx, "no-such-definition"); err != nil || len(none) != 0 {
			t.Errorf("an unknown definition: %v %v, want none", none, err)
		}

		groups := func(_ context.Context, u string) ([]string, error) {
			if u != user {
				return nil, fmt.Errorf("asked for the groups of %q", u)
			}
			return []string{"sales", "management"}, nil
		}
		srv := httptest.NewServer(ui.Mount(e.Eng, rest.New(e.Eng, rest.Options{Auth: user + ":" + password}), ui.Options{Groups: groups}))
		defer srv.Close()
		read := func(path string) string {
			req, _ := http.NewRequest("GET", srv.URL+path, nil)
			req.SetBasicAuth(user, password)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
			}
			return strings.TrimSpace(string(b))
		}
		want := `[{"activityId":"end","finished":2,"meanMillis":0},{"activityId":"start","finished":3,"meanMillis":0},{"activityId":"work","finished":2,"meanMillis":3500.25}]`
		if got := read("/app/api/process-definitions/" + url.PathEscape(def) + "/activity-durations"); got != want {
			t.Errorf("the handler's durations: %s, want %s", got, want)
		}
		if got := read("/app/api/me"); got != `{"user":"demo","groups":["sales","management"]}` {
			t.Errorf("api/me: %s", got)
		}
	})
}

// The dashboard's throughput: the jobs that succeeded and failed in each
// of the last 15 minutes by the engine's clock, from the metrics reports
// (a run counts once reported; older reports fall out of the window).
func TestJobThroughput(t *testing.T) {
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		if _, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "review", Resources: []bpmnlite.Resource{
			{Name: "review.bpmn", Bytes: readFile(t, "testdata/review.bpmn")}, {Name: "approve.form", Bytes: readFile(t, "testdata/approve.form")},
		}}); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(ui.Mount(e.Eng, rest.New(e.Eng, rest.Options{Auth: user + ":" + password}), ui.Options{}))
		defer srv.Close()
		type minute struct {
			Start             time.Time
			Succeeded, Failed int64
		}
		read := func() []minute {
			req, _ := http.NewRequest("GET", srv.URL+"/app/api/job-throughput", nil)
			req.SetBasicAuth(user, password)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out []minute
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("GET api/job-throughput: %d %v", resp.StatusCode, err)
			}
			return out
		}
		run := func(fail bool) {
			e.Start("review", map[string]any{"fail": fail})
			e.Drain(10)
		}
		report := func() {
			if err := e.Eng.ReportMetrics(e.Ctx); err != nil {
				t.Fatal(err)
			}
		}
		run(false)
		run(false)
		run(true)
		if got := read(); got[14].Succeeded != 0 || got[14].Failed != 0 {
			t.Errorf("before a report the current minute shows %+v, want nothing", got[14])
		}
		report()
		got := read()
		now := e.Clock.Now().UTC().Truncate(time.Minute)
		if len(got) != 15 || !got[14].Start.Equal(now) || !got[0].Start.Equal(now.Add(-14*time.Minute)) {
			t.Fatalf("minutes %v, want the 15 up to %v", got, now)
		}
		if got[14].Succeeded != 2 || got[14].Failed != 1 {
			t.Errorf("the current minute: %+v, want 2 succeeded and 1 failed", got[14])
		}
		e.Clock.Add(3 * time.Minute)
		run(false)
		report()
		got = read()
		if got[11].Succeeded != 2 || got[11].Failed != 1 || got[14].Succeeded != 1 || got[14].Failed != 0 {
			t.Errorf("three minutes on: %+v and %+v, want 2/1 then 1/0", got[11], got[14])
		}
		e.Clock.Add(15 * time.Minute)
		for _, m := range read() {
			if m.Succeeded != 0 || m.Failed != 0 {
				t.Errorf("15 minutes on, %v still shows %+v", m.Start, m)
			}
		}
	})
}
