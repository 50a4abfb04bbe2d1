package ui_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/harness"
	"github.com/bpmnlite/bpmnlite/ui"
)

// flowLog records the sequence flows each instance took
// (Config.SequenceFlowTaken), what the instance page's path must show.
type flowLog struct {
	mu    sync.Mutex
	flows map[string][]string
}

func (l *flowLog) taken(f bpmnlite.FlowTaken) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !slices.Contains(l.flows[f.ProcessInstanceID], f.FlowID) {
		l.flows[f.ProcessInstanceID] = append(l.flows[f.ProcessInstanceID], f.FlowID)
	}
}

func (l *flowLog) of(pi string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Sorted(slices.Values(l.flows[pi]))
}

// TestBrowserHistoryAndModification drives what the cockpit shows from
// history and metrics, on each backend: the dashboard's job throughput
// equals the engine's metrics (and follows new reports), the heat map's
// mean durations equal those of the history's activity instances, the
// instance page draws exactly the flows the instance took, a click on the
// diagram starts and cancels activities (and shows a refusal), and the
// tasklist's "My groups' tasks" are the tasks of the user's groups.
func TestBrowserHistoryAndModification(t *testing.T) {
	chromium := chromiumPath(t)
	flows := &flowLog{flows: map[string][]string{}}
	harness.EachBackend(t, bpmnlite.Config{SequenceFlowTaken: flows.taken}, func(t *testing.T, e *harness.Env) {
		if _, err := e.Eng.Deploy(e.Ctx, bpmnlite.DeployRequest{Name: "review", Resources: []bpmnlite.Resource{
			{Name: "review.bpmn", Bytes: readFile(t, "testdata/review.bpmn")}, {Name: "approve.form", Bytes: readFile(t, "testdata/approve.form")},
			{Name: "route.bpmn", Bytes: readFile(t, "testdata/route.bpmn")},
		}}); err != nil {
			t.Fatal(err)
		}
		// A small claim took one branch of the gateway, and waits to be archived.
		claim := e.Start("route", map[string]any{"amount": 250})
		e.Clock.Add(time.Minute)
		e.Complete(claim, "small", nil)
		// Three pass approve (1, 3 and 5 minutes there); one of them ships
		// after 2 more; one waits at approve; one fails its check.
		// Each reports its job run at once: the throughput chart has a bar
		// in several minutes.
		report := func() {
			if err := e.Eng.ReportMetrics(e.Ctx); err != nil {
				t.Fatal(err)
			}
		}
		var passed []string
		for i := range 3 {
			pi := e.Start("review", map[string]any{"fail": false})
			e.Drain(10)
			report()
			e.Clock.Add(time.Duration(2*i+1) * time.Minute)
			e.Complete(pi, "approve", map[string]any{"approved": true, "shipper": "carol"})
			passed = append(passed, pi)
		}
		e.Clock.Add(2 * time.Minute)
		e.Complete(passed[0], "ship", nil)
		waiting := e.Start("review", map[string]any{"fail": false, "shipper": "dave"})
		e.Start("review", map[string]any{"fail": true})
		e.Drain(10)
		report()
		def := latest(e, "review")
		groups := func(_ context.Context, u string) ([]string, error) { return []string{"sales"}, nil }
		p := openPage(t, e, chromium, ui.Options{PollInterval: 100 * time.Millisecond, Groups: groups})

		t.Run("job throughput", func(t *testing.T) {
			p.t = t
			p.open("#/")
			from := e.Clock.Now().UTC().Truncate(time.Minute).Add(-14 * time.Minute)
			sum := func(name string) string {
				n, err := e.Eng.MetricsSum(e.Ctx, bpmnlite.MetricsQuery{Name: name, StartDate: &from})
				if err != nil {
					t.Fatal(err)
				}
				return fmt.Sprint(n)
			}
			succeeded, failed := sum(bpmnlite.MetricJobSuccessful), sum(bpmnlite.MetricJobFailed)
			if succeeded != "4" || failed != "1" {
				t.Fatalf("the engine's metrics: %s succeeded, %s failed; want 4 and 1", succeeded, failed)
			}
			// Read at once: a poll may draw the chart again meanwhile.
			if got := get(p, "read the totals", chromedp.Evaluate[string](`document.getElementById('jobs-succeeded').textContent + ' ' + document.getElementById('jobs-failed').textContent`)); got != succeeded+" "+failed {
				t.Errorf("the dashboard shows %s succeeded and failed, want %s %s", got, succeeded, failed)
			}
			// Each bar: the engine's reports of its minute.
			bars := get(p, "read the bars", chromedp.Evaluate[[][]string](`[...document.querySelectorAll('#throughput g.minute')].map((g) => [g.dataset.start, g.dataset.succeeded, g.dataset.failed])`))
			if len(bars) != 15 {
				t.Fatalf("%d bars, want 15", len(bars))
			}
			for _, bar := range bars {
				start, err := time.Parse(time.RFC3339, bar[0])
				if err != nil {
					t.Fatal(err)
				}
				end := start.Add(time.Minute)
				for i, name := range []string{bpmnlite.MetricJobSuccessful, bpmnlite.MetricJobFailed} {
					n, err := e.Eng.MetricsSum(e.Ctx, bpmnlite.MetricsQuery{Name: name, StartDate: &start, EndDate: &end})
					if err != nil {
						t.Fatal(err)
					}
					if bar[i+1] != fmt.Sprint(n) {
						t.Errorf("the bar of %s shows %s %s, the engine reported %d", bar[0], bar[i+1], name, n)
					}
				}
			}
			p.screenshot("cockpit-dashboard")
			// A new report shows without a reload.
			e.Start("review", map[string]any{"fail": false})
			e.Drain(10)
			report()
			p.run("wait for the new count", chromedp.WaitVisible(chromedp.Search(`//b[@id="jobs-succeeded" and text()="5"]`)))
		})

		t.Run("heat map with mean durations", func(t *testing.T) {
			p.t = t
			p.open("#/definition/" + def.ID)
			p.run("show the heat map", chromedp.WaitVisible(chromedp.CSS(`#diagram svg`)), chromedp.Click(chromedp.CSS("#heat")),
				chromedp.WaitVisible(chromedp.CSS(`.badge.duration[data-activity="approve"]`)))
			// The history's activity instances, averaged here.
			history, err := e.Eng.HistoricActivityInstances(e.Ctx, bpmnlite.HistoricActivityQuery{ProcessDefinitionID: def.ID, Finished: true})
			if err != nil {
				t.Fatal(err)
			}
			type agg struct {
				n   int
				sum time.Duration
			}
			want := map[string]*agg{}
			for _, a := range history {
				w := want[a.ActivityID]
				if w == nil {
					w = &agg{}
					want[a.ActivityID] = w
				}
				w.n++
				w.sum += a.EndTime.Sub(a.StartTime)
			}
			if w := want["approve"]; w == nil || w.n != 3 || w.sum/3 != 3*time.Minute {
				t.Fatalf("history at approve: %+v, want 3 with a mean of 3 minutes", w)
			}
			shown := get(p, "read the badges", chromedp.Evaluate[[][]string](`[...document.querySelectorAll('#diagram .badge.duration')].map((b) => [b.dataset.activity, b.dataset.meanMs, b.textContent, document.querySelector('#diagram .badge.finished[data-activity="' + b.dataset.activity + '"]').textContent])`))
			if len(shown) != len(want) {
				t.Errorf("%d activities with a duration, history has %d", len(shown), len(want))
			}
			for _, b := range shown {
				w := want[b[0]]
				if w == nil {
					t.Errorf("a duration at %s, which history has no finished instance of", b[0])
					continue
				}
				ms, err := strconv.ParseFloat(b[1], 64)
				mean := float64((w.sum / time.Duration(w.n)).Microseconds()) / 1000
				if err != nil || math.Abs(ms-mean) > 0.001 || b[3] != fmt.Sprint(w.n) {
					t.Errorf("%s: %s finished, mean %s ms (%s); history: %d, %v ms", b[0], b[3], b[1], b[2], w.n, mean)
				}
			}
			if got := p.text(`.badge.duration[data-activity="approve"]`); got != "⌀ 3 min" {
				t.Errorf("approve's badge reads %q, want ⌀ 3 min", got)
			}
			p.screenshot("cockpit-heatmap")
			// Another passes approve, in 7 minutes: the open heat map follows.
			pi := e.Start("review", map[string]any{"fail": false})
			e.Drain(10)
			e.Clock.Add(7 * time.Minute)
			e.Complete(pi, "approve", map[string]any{"approved": true, "shipper": "carol"})
			p.run("wait for the new count", chromedp.WaitVisible(chromedp.Search(`//span[contains(@class, "finished") and @data-activity="approve" and text()="4"]`)))
			if got := p.text(`.badge.duration[data-activity="approve"]`); got != "⌀ 4 min" { // (1+3+5+7)/4
				t.Errorf("approve's badge reads %q after the fourth, want ⌀ 4 min", got)
			}
		})

		t.Run("the path taken", func(t *testing.T) {
			for _, c := range []struct {
				pi, at string
				taken  int
			}{{passed[1], "ship", 3}, {claim, "archive", 4}} {
				p.t = t
				p.open("#/instance/" + c.pi)
				p.run("wait for the diagram", chromedp.WaitVisible(chromedp.CSS(`#diagram .djs-connection.taken`)))
				marked := func(class string) []string {
					ids := get(p, "read "+class, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#diagram .djs-element.`+class+`')].map((g) => g.dataset.elementId)`))
					slices.Sort(ids)
					return ids
				}
				if got, want := marked("taken"), flows.of(c.pi); !slices.Equal(got, want) || len(want) != c.taken {
					t.Errorf("%s: flows drawn as taken: %v, the engine took %v", c.at, got, want)
				}
				var ended []string
				for _, a := range e.HistoryOf(c.pi) {
					if a.EndTime != nil && !slices.Contains(ended, a.ActivityID) {
						ended = append(ended, a.ActivityID)
					}
				}
				slices.Sort(ended)
				if got := marked("passed"); !slices.Equal(got, ended) {
					t.Errorf("%s: activities marked passed: %v, history ended %v", c.at, got, ended)
				}
				if got := marked("active"); !slices.Equal(got, []string{c.at}) {
					t.Errorf("activities marked active: %v, want [%s]", got, c.at)
				}
			}
			p.screenshot("cockpit-instance")
		})

		t.Run("modify by clicking on the diagram", func(t *testing.T) {
			p.t = t
			p.open("#/instance/" + waiting)
			shape := func(id string) chromedp.CSS {
				return chromedp.CSS(fmt.Sprintf(`#diagram .djs-shape[data-element-id=%q]`, id))
			}
			p.run("start before ship", chromedp.WaitVisible(shape("ship")), chromedp.Click(shape("ship")),
				chromedp.Click(chromedp.CSS("#modify-start-before")), chromedp.WaitVisible(chromedp.CSS("#modify-instruction")))
			if got := p.text("#modify-instruction"); !strings.Contains(got, `"type": "startBeforeActivity"`) || !strings.Contains(got, `"activityId": "ship"`) {
				t.Errorf("the confirmation shows %s", got)
			}
			get(p, "scroll to the diagram", chromedp.Evaluate[any](`document.querySelector('.title-row').scrollIntoView()`))
			p.screenshot("cockpit-modification")
			p.run("apply", chromedp.Click(chromedp.CSS("#modify-apply")),
				chromedp.WaitVisible(chromedp.CSS(`#diagram .badge.running[data-activity="ship"]`)))
			if got := e.TaskKeys(waiting); got != "approve,ship" && got != "ship,approve" {
				t.Errorf("after starting ship the tasks are %q, want approve and ship", got)
			}

			p.run("cancel approve", chromedp.Click(shape("approve")), chromedp.Click(chromedp.CSS("#modify-cancel")),
				chromedp.WaitVisible(chromedp.CSS("#modify-instruction")))
			if got := p.text("#modify-instruction"); !strings.Contains(got, `"type": "cancel"`) || !strings.Contains(got, `"activityId": "approve"`) {
				t.Errorf("the confirmation shows %s", got)
			}
			p.run("apply", chromedp.Click(chromedp.CSS("#modify-apply")),
				chromedp.WaitNotPresent(chromedp.CSS(`#diagram .badge.running[data-activity="approve"]`)))
			if got := e.TaskKeys(waiting); got != "ship" {
				t.Errorf("after cancelling approve the tasks are %q, want ship", got)
			}

			p.expected = "400 (Bad Request)"
			// Chosen from the list (the keyboard's way) this time.
			get(p, "choose the end event", chromedp.Evaluate[any](`const s = document.getElementById('modify-choose'); s.value = 'end'; s.dispatchEvent(new Event('change'))`))
			p.run("start after the end event", chromedp.Click(chromedp.CSS("#modify-start-after")),
				chromedp.Click(chromedp.CSS("#modify-apply")), chromedp.WaitVisible(chromedp.CSS(`#modify-error:not(:empty)`)))
			p.expected = ""
			if got := p.text("#modify-error"); !strings.Contains(got, "end") {
				t.Errorf("the refusal reads %q", got)
			}
			if got := e.TaskKeys(waiting); got != "ship" {
				t.Errorf("after the refusal the tasks are %q, want ship", got)
			}
		})

		t.Run("my groups' tasks", func(t *testing.T) {
			p.t = t
			p.open("#/tasks?view=groups")
			if got := p.text("#my-groups"); !strings.HasSuffix(got, "sales") {
				t.Errorf("the groups shown: %q", got)
			}
			tasks, err := e.Eng.Tasks(e.Ctx, bpmnlite.TaskQuery{CandidateGroups: []string{"sales"}})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, task := range tasks {
				want = append(want, "#/task/"+task.ID)
			}
			slices.Sort(want)
			got := get(p, "read the tasks", chromedp.Evaluate[[]string](`[...document.querySelectorAll('a.task-link')].map((a) => a.getAttribute('href'))`))
			slices.Sort(got)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("my groups' tasks: %v, the engine's tasks of sales: %v", got, want)
			}
			p.screenshot("tasklist-groups")
		})
	})
}
