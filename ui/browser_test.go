package ui_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/rest"
	"github.com/bpmnlite/bpmnlite/ui"
)

// page is headless Chromium on the UI of one engine, served as bpmnlite
// serve serves it (REST and UI behind basic authentication).
type page struct {
	t   *testing.T
	e   *harness.Env
	ctx context.Context
	url string // the UI's root, ending in /app/

	mu       sync.Mutex
	problems []string // exceptions and console errors (CSP violations among them)
	expected string   // a console error a step expects (a refusal's status)
}

// chromiumPath finds the browser, or skips the test saying why (fails it
// under CI=true, where the browser is installed).
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("browser tests need Chromium (apt-get install chromium); CI=true does not skip them")
	}
	t.Skip("browser tests skipped: no chromium on this machine (apt-get install chromium)")
	return ""
}

func openPage(t *testing.T, e *harness.Env, chromium string, opts ...ui.Options) *page {
	api := rest.New(e.Eng, rest.Options{Auth: user + ":" + password})
	opt := ui.Options{PollInterval: 100 * time.Millisecond}
	if len(opts) > 0 {
		opt = opts[0]
	}
	srv := httptest.NewServer(ui.Mount(e.Eng, api, opt))
	t.Cleanup(srv.Close)
	browserOpts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 860))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browserOpts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	p := &page{t: t, e: e, ctx: ctx, url: srv.URL + "/app/"}
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	messages := chromedp.Console(ctx) // starts the browser
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("start the browser: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	// The browser sends the credentials with every request, as it does once
	// its login prompt was answered.
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
		Headers: network.Headers{"Authorization": "Basic " + auth}}); err != nil {
		t.Fatal(err)
	}
	// The page asks before it cancels or deletes (confirm()): the tests say yes.
	dialogs := chromedp.Events(ctx, cdppage.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			if (m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleError) && (p.expected == "" || !strings.Contains(m.Text, p.expected)) {
				p.problems = append(p.problems, m.String())
			}
			p.mu.Unlock()
		}
	}()
	return p
}

// run runs browser actions, failing the test on an error or on any
// exception or console error of the page so far.
func (p *page) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v (page problems: %v; the page: %s)", what, err, p.pageProblems(), p.state())
	}
	if problems := p.pageProblems(); len(problems) > 0 {
		p.t.Fatalf("%s: the page reported %s", what, strings.Join(problems, "; "))
	}
}

// state says where the page is, for a failure's message: its URL, what
// the router drew last, the start of its text.
func (p *page) state() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	var s string
	err := chromedp.Do(ctx, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		var err error
		s, err = chromedp.Evaluate[string](`location.hash + ' drawn ' + (document.body.dataset.ready ?? 'nothing') + ': ' + document.getElementById('main').innerText.slice(0, 300) + ' | toast: ' + document.getElementById('toast').textContent`)(ctx, t)
		return chromedp.Void{}, err
	})
	if err != nil {
		return "unknown: " + err.Error()
	}
	return s
}

// get runs an action that answers a value, as run does.
func get[T any](p *page, what string, action chromedp.Action[T]) T {
	p.t.Helper()
	var v T
	p.run(what, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		var err error
		v, err = action(ctx, t)
		return chromedp.Void{}, err
	})
	return v
}

func (p *page) pageProblems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// open navigates to the UI's page at hash and waits until it is drawn.
func (p *page) open(hash string) {
	p.t.Helper()
	want := strings.SplitN(strings.TrimPrefix(hash, "#"), "?", 2)[0]
	if want == "" {
		want = "/"
	}
	p.run("open "+hash, chromedp.Navigate(p.url+hash), p.ready(want))
}

// ready waits until the router has drawn the page at path.
func (p *page) ready(path string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`body[data-ready=%q]`, path)))
}

// text is the text of the element sel selects (waiting for it).
func (p *page) text(sel string) string {
	p.t.Helper()
	return strings.TrimSpace(get(p, "read "+sel, chromedp.Text(chromedp.CSS(sel))))
}

// screenshot saves the viewport as PNG: in $BPMNLITE_SCREENSHOTS (docs/img
// when refreshing the docs' pictures), else in the test's temporary directory.
func (p *page) screenshot(name string) {
	p.t.Helper()
	dir := os.Getenv("BPMNLITE_SCREENSHOTS")
	if dir == "" {
		dir = p.t.TempDir()
	}
	png := get(p, "screenshot "+name, chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// TestBrowser drives the cockpit and the tasklist in headless Chromium on
// each backend: the dashboard's counts and the diagram's badges match the
// engine's statistics, the retry button resolves an incident, a task is
// claimed and completed through its Camunda Form, an upload deploys a new
// version.
func TestBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	harness.EachBackend(t, bpmnlite.Config{}, func(t *testing.T, e *harness.Env) {
		review := readFile(t, "testdata/review.bpmn")
		if _, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "review", Resources: []bpmnlite.Resource{
			{Name: "review.bpmn", Bytes: review}, {Name: "approve.form", Bytes: readFile(t, "testdata/approve.form")},
			{Name: "leave.bpmn", Bytes: readFile(t, "testdata/leave.bpmn")},
		}}); err != nil {
			t.Fatal(err)
		}
		approved := e.Start("review", map[string]any{"fail": false})
		e.Start("review", map[string]any{"fail": false})
		failing := e.Start("review", map[string]any{"fail": true})
		e.Drain(10)
		if n := len(incidents(e, failing)); n != 1 {
			t.Fatalf("the failing instance has %d incidents, want 1", n)
		}
		leave := e.Start("leave", nil)
		p := openPage(t, e, chromium)

		t.Run("dashboard", func(t *testing.T) {
			p.t = t
			p.open("#/")
			stats, err := e.Eng.ProcessDefinitionStatistics(e.Ctx, bpmnlite.StatisticsOptions{Incidents: true})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{`.definition-link[data-key="review"]`: "Review an order"}
			var running, open int
			for _, s := range stats {
				incidents := 0
				for _, i := range s.Incidents {
					incidents += i.Count
				}
				key := s.Definition.Key
				want[fmt.Sprintf(`.count-running[data-key=%q]`, key)] = fmt.Sprint(s.Instances)
				want[fmt.Sprintf(`.count-incidents[data-key=%q]`, key)] = fmt.Sprint(incidents)
				running += s.Instances
				open += incidents
			}
			if running != 4 || open != 1 || want[`.count-running[data-key="review"]`] != "3" {
				t.Fatalf("the engine counts %d instances and %d incidents (%v), want 4 and 1, 3 of review", running, open, want)
			}
			want["#total-running"] = fmt.Sprint(running)
			want["#total-incidents"] = fmt.Sprint(open)
			for sel, text := range want {
				if got := p.text(sel); got != text {
					t.Errorf("%s shows %q, want %q", sel, got, text)
				}
			}
		})

		t.Run("definition badges", func(t *testing.T) {
			p.t = t
			p.run("open the definition", chromedp.Click(chromedp.CSS(`.definition-link[data-key="review"]`)))
			def := latest(e, "review")
			p.run("wait for the diagram", p.ready("/definition/"+def.ID), chromedp.WaitVisible(chromedp.CSS(`#diagram svg`)))
			stats, err := e.Eng.ActivityStatistics(e.Ctx, def.ID, bpmnlite.StatisticsOptions{Incidents: true})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{} // badge selector → count
			for _, s := range stats {
				want[fmt.Sprintf(`.badge.running[data-activity=%q]`, s.ID)] = fmt.Sprint(s.Instances)
				for _, i := range s.Incidents {
					want[fmt.Sprintf(`.badge.incidents[data-activity=%q]`, s.ID)] = fmt.Sprint(i.Count)
				}
			}
			if len(want) != 3 { // check: 1 running, 1 incident; approve: 2 running
				t.Fatalf("the engine's activity statistics: %v", want)
			}
			for sel, n := range want {
				if got := p.text(sel); got != n {
					t.Errorf("badge %s shows %q, want %q", sel, got, n)
				}
			}
			badges := get(p, "count badges", chromedp.Evaluate[int](`document.querySelectorAll('#diagram .badge').length`))
			if badges != len(want) {
				t.Errorf("the diagram has %d badges, want %d", badges, len(want))
			}
			p.screenshot("cockpit-definition")

			history, err := e.Eng.HistoricActivityStatistics(e.Ctx, bpmnlite.HistoricActivityStatisticsQuery{ProcessDefinitionID: def.ID, Finished: true})
			if err != nil {
				t.Fatal(err)
			}
			finished := map[string]string{}
			for _, s := range history {
				if s.Finished > 0 {
					finished[s.ActivityID] = fmt.Sprint(s.Finished)
				}
			}
			if finished["start"] != "3" {
				t.Fatalf("history: %v, want 3 finished at start", finished)
			}
			p.run("show the heat map", chromedp.Click(chromedp.CSS("#heat")), chromedp.WaitVisible(chromedp.CSS(`.badge.finished[data-activity="start"]`)))
			for id, n := range finished {
				if got := p.text(fmt.Sprintf(`.badge.finished[data-activity=%q]`, id)); got != n {
					t.Errorf("the heat map shows %s finished at %s, want %s", got, id, n)
				}
			}
			if n := get(p, "count", chromedp.Evaluate[int](`document.querySelectorAll('#diagram .badge.finished').length`)); n != len(finished) {
				t.Errorf("the heat map has %d badges, want %d", n, len(finished))
			}
		})

		t.Run("retry resolves the incident", func(t *testing.T) {
			p.t = t
			p.open("#/instance/" + failing)
			p.run("wait for the incident's badge", chromedp.WaitVisible(chromedp.CSS(`#diagram .badge.incidents[data-activity="check"]`)))
			p.screenshot("cockpit-incident")
			p.run("ask why the job does not run", chromedp.Click(chromedp.CSS(`details.explain summary`)),
				chromedp.WaitVisible(chromedp.CSS(`details.explain li.blocks`)))
			if got := p.text(`details.explain ul`); !strings.Contains(got, "retries: no retries left") || !strings.Contains(got, "the order cannot be checked") {
				t.Errorf("the job's explanation reads %q", got)
			}
			p.run("retry", chromedp.Click(chromedp.CSS(`button.retry`)),
				chromedp.WaitNotPresent(chromedp.CSS(`#diagram .badge.incidents`)),
				chromedp.WaitNotPresent(chromedp.CSS(`button.retry`)))
			if n := len(incidents(e, failing)); n != 0 {
				t.Errorf("after retry the instance has %d incidents, want 0", n)
			}
			jobs, err := e.Eng.Jobs(e.Ctx, bpmnlite.JobQuery{ProcessInstanceID: failing})
			if err != nil || len(jobs) != 1 || jobs[0].Retries != 1 {
				t.Errorf("after retry the jobs are %v (%v), want one with 1 retry", jobs, err)
			}

			// The cause fixed in the variables, the job runs through.
			p.run("edit the variable", chromedp.SetValue(chromedp.CSS(`input[aria-label="value of fail"]`), "false"),
				chromedp.Click(chromedp.Search(`//tr[td[1]="fail"]//button[.="Save"]`)),
				chromedp.WaitVisible(chromedp.Search(`//div[@id="toast" and contains(., "Saved fail")]`)))
			if v, _, err := e.Eng.Variable(e.Ctx, failing, "fail"); err != nil || v != false {
				t.Errorf("variable fail = %#v (%v), want false", v, err)
			}
			e.Drain(10)
			if got := onlyTask(e, failing).TaskDefinitionKey; got != "approve" {
				t.Errorf("after the fix the instance waits at %s, want approve", got)
			}
		})

		t.Run("complete a task through its Camunda Form", func(t *testing.T) {
			p.t = t
			task := onlyTask(e, approved)
			p.open("#/tasks?view=all")
			p.run("open the task", chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="#/task/%s"]`, task.ID))), p.ready("/task/"+task.ID))
			p.run("claim it", chromedp.Click(chromedp.CSS(`#claim`)), chromedp.WaitVisible(chromedp.CSS(`#assignee`)))
			p.run("wait for its form", chromedp.WaitVisible(chromedp.CSS(`.camunda-form .fjs-form-field-textfield input`)))
			if got := p.text("#assignee"); got != user {
				t.Errorf("claimed by %q, want %q", got, user)
			}
			p.run("fill the form",
				chromedp.Click(chromedp.CSS(`.camunda-form .fjs-form-field-checkbox input`)),
				chromedp.SendKeys(chromedp.CSS(`.camunda-form .fjs-form-field-textfield input`), "carol"))
			p.screenshot("tasklist-form")
			p.run("complete", chromedp.Click(chromedp.CSS(`#complete`)), p.ready("/tasks"))
			next := onlyTask(e, approved)
			if next.TaskDefinitionKey != "ship" || next.Assignee != "carol" {
				t.Errorf("after the form the task is %s assigned to %q, want ship assigned to carol", next.TaskDefinitionKey, next.Assignee)
			}
			if v, _, err := e.Eng.Variable(e.Ctx, approved, "approved"); err != nil || v != true {
				t.Errorf("variable approved = %v (%v), want true", v, err)
			}
		})

		t.Run("a generated form shows a refusal at its field", func(t *testing.T) {
			p.t = t
			task := onlyTask(e, leave)
			p.open("#/task/" + task.ID)
			p.expected = "400 (Bad Request)"
			p.run("submit too many days", chromedp.SetValue(chromedp.CSS("#field-days"), "12"), chromedp.Click(chromedp.CSS("#complete")),
				chromedp.WaitVisible(chromedp.CSS(`[data-field="days"] .field-error:not(:empty)`)))
			p.expected = ""
			if got := p.text(`[data-field="days"] .field-error`); !strings.Contains(got, "validation of max(10) failed") {
				t.Errorf("the field's error reads %q", got)
			}
			p.run("submit", chromedp.SetValue(chromedp.CSS("#field-days"), "3"), chromedp.Click(chromedp.CSS("#complete")), p.ready("/tasks"))
			if v, _, err := e.Eng.Variable(e.Ctx, leave, "days"); err != nil || v != int64(3) {
				t.Errorf("variable days = %#v (%v), want int64 3", v, err)
			}
		})

		t.Run("upload deploys a new version", func(t *testing.T) {
			p.t = t
			changed := filepath.Join(t.TempDir(), "review.bpmn")
			if err := os.WriteFile(changed, []byte(strings.Replace(string(review), "Review an order", "Review an order (v2)", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			p.open("#/deployments")
			p.run("upload", chromedp.SetUploadFiles(chromedp.CSS(`#files`), []string{changed}),
				chromedp.Click(chromedp.CSS(`#deploy`)),
				chromedp.WaitVisible(chromedp.Search(`//div[@id="toast" and contains(., "review v2")]`)))
			if v := latest(e, "review").Version; v != 2 {
				t.Errorf("after the upload the latest version is %d, want 2", v)
			}
			p.screenshot("cockpit-deployments")
		})

		t.Run("counts update without a reload", func(t *testing.T) {
			p.t = t
			p.open("#/")
			before := p.text(`.count-running[data-key="leave"]`)
			e.Start("leave", nil)
			p.run("wait for the new count", chromedp.WaitVisible(chromedp.Search(
				`//span[contains(@class, "count-running") and @data-key="leave" and text()="2"]`)))
			if before != "1" {
				t.Errorf("leave's count was %q before, want 1", before)
			}
		})

		t.Run("cancel an instance, delete a deployment", func(t *testing.T) {
			p.t = t
			p.open("#/instance/" + approved)
			p.run("cancel", chromedp.Click(chromedp.CSS("#cancel")), chromedp.WaitVisible(chromedp.CSS(`body[data-ready^="/definition/"]`)))
			if is, err := e.Eng.Instances(e.Ctx, bpmnlite.InstanceQuery{IDs: []string{approved}}); err != nil || len(is) != 0 {
				t.Errorf("after cancel: %v (%v), want the instance gone", is, err)
			}
			uploaded := latest(e, "review")
			p.open("#/deployments")
			p.run("delete the upload", chromedp.Click(chromedp.Search(`//tr[td[1]="ui"]//button[.="Delete"]`)),
				chromedp.WaitNotPresent(chromedp.Search(`//tr[td[1]="ui"]`)))
			if v := latest(e, "review").Version; v != 1 || uploaded.Version != 2 {
				t.Errorf("after deleting the upload the latest review is version %d (was %d), want 1", v, uploaded.Version)
			}
		})

		t.Run("start an instance with its start form", func(t *testing.T) {
			p.t = t
			def := latest(e, "leave")
			p.open("#/definition/" + def.ID)
			if got := p.text("#diagram"); !strings.Contains(got, "no diagram layout") {
				t.Errorf("a model without DI: the diagram says %q", got)
			}
			p.run("open the start form", chromedp.Click(chromedp.CSS("details summary")), chromedp.WaitVisible(chromedp.CSS("#field-employee")))
			if got := get(p, "read the default", chromedp.Value(chromedp.CSS("#field-employee"))); got != "ada" {
				t.Errorf("the start form shows %q, want the default ada", got)
			}
			p.run("start", chromedp.SetValue(chromedp.CSS("#field-employee"), "bob"),
				chromedp.SendKeys(chromedp.CSS(`#start-form input[name="businessKey"]`), "leave-7"),
				chromedp.Click(chromedp.CSS("#complete")), chromedp.WaitVisible(chromedp.CSS(`body[data-ready^="/instance/"]`)))
			pis, err := e.Eng.Instances(e.Ctx, bpmnlite.InstanceQuery{BusinessKey: "leave-7"})
			if err != nil || len(pis) != 1 {
				t.Fatalf("instances with business key leave-7: %v (%v), want one", pis, err)
			}
			if v, _, err := e.Eng.Variable(e.Ctx, pis[0].ID, "employee"); err != nil || v != "bob" {
				t.Errorf("variable employee = %#v (%v), want bob", v, err)
			}
		})
	})
}

func readFile(t *testing.T, name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func incidents(e *harness.Env, pi string) []*bpmnlite.Incident {
	is, err := e.Eng.Incidents(e.Ctx, bpmnlite.IncidentQuery{ProcessInstanceID: pi})
	if err != nil {
		e.T.Fatal(err)
	}
	return is
}

func latest(e *harness.Env, key string) *bpmnlite.ProcessDefinition {
	defs, err := e.Eng.ProcessDefinitions(e.Ctx, bpmnlite.DefinitionQuery{Key: key, LatestOnly: true})
	if err != nil || len(defs) != 1 {
		e.T.Fatalf("latest %s: %v %v", key, defs, err)
	}
	return defs[0]
}

func onlyTask(e *harness.Env, pi string) *bpmnlite.Task {
	ts := e.Tasks(pi)
	if len(ts) != 1 {
		e.T.Fatalf("instance %s has %d tasks, want 1", pi, len(ts))
	}
	return ts[0]
}
