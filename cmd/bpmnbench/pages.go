package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/rest"
	"github.com/bpmnlite/bpmnlite/ui"
)

// The pages suite (issue 26): what each page of the browser UI asks the
// REST API (and the UI's own /app/api) for when it opens, timed as the
// sum of its requests one after another (the browser sends some side by
// side, so a page is faster than this); the heat map, loaded only when
// switched on, is timed on its own, on a database with o.pageInstances running instances of one
// definition and o.pageHistory finished activity instances of it in
// history. The requests are those of ui/assets/js: keep them in step.

const pageLoads = 50

// uiPage is a page and the requests it sends when it opens, for the
// definition def and the instance pi.
type uiPage struct {
	name     string
	requests func(def, pi string) []pageRequest
}

type pageRequest struct {
	method, path, body string
}

func get(path string) pageRequest { return pageRequest{method: http.MethodGet, path: path} }

var uiPages = []uiPage{
	{"dashboard", func(def, pi string) []pageRequest {
		return []pageRequest{
			get("/process-definition/statistics?incidents=true"), get("/app/api/job-executors"),
			get("/process-definition?latestVersion=true&sortBy=key&sortOrder=asc&firstResult=0&maxResults=20"),
			get("/process-definition/count?latestVersion=true&sortBy=key&sortOrder=asc"),
			get("/job?withException=true&noRetriesLeft=true&sortBy=jobDueDate&sortOrder=asc&firstResult=0&maxResults=10"),
			get("/job/count?withException=true&noRetriesLeft=true&sortBy=jobDueDate&sortOrder=asc"),
		}
	}},
	{"definition (diagram, counts, first page of instances)", func(def, pi string) []pageRequest {
		return []pageRequest{
			get("/process-definition/" + def), get("/process-definition/" + def + "/xml"),
			get("/process-definition/" + def + "/statistics?incidents=true"),
			get("/process-definition?key=waiting&withoutTenantId=true&sortBy=version&sortOrder=desc&maxResults=50"),
			{http.MethodPost, "/process-instance?firstResult=0&maxResults=20", `{"processDefinitionId":"` + def + `","sorting":[{"sortBy":"instanceId","sortOrder":"desc"}]}`},
			{http.MethodPost, "/process-instance/count", `{"processDefinitionId":"` + def + `"}`},
		}
	}},
	{"definition's heat map (when switched on)", func(def, pi string) []pageRequest {
		return []pageRequest{get("/app/api/process-definitions/" + def + "/activity-durations")}
	}},
	{"instance", func(def, pi string) []pageRequest {
		return []pageRequest{
			get("/process-instance/" + pi), get("/process-definition/" + def + "/xml"),
			get("/process-instance/" + pi + "/activity-instances"),
			get("/process-instance/" + pi + "/variables?deserializeValues=false"),
			get("/job?processInstanceId=" + pi + "&maxResults=100"), get("/incident?processInstanceId=" + pi + "&maxResults=100"),
			get("/task?processInstanceId=" + pi + "&maxResults=100"), get("/job-definition?processDefinitionId=" + def + "&maxResults=1000"),
			get("/history/activity-instance?processInstanceId=" + pi + "&finished=true&maxResults=1000"),
		}
	}},
	{"tasklist (all tasks, first page)", func(def, pi string) []pageRequest {
		return []pageRequest{get("/task?sortBy=created&sortOrder=desc&firstResult=0&maxResults=20"), get("/task/count")}
	}},
}

func pagesSuite(ctx context.Context, o options, w io.Writer) error {
	fmt.Fprintf(w, "UI pages: the REST requests a page sends when it opens, one after another, %d loads each, with %d running instances and %d activity instances in history\n\n", pageLoads, o.pageInstances, o.pageHistory)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "page\tbackend\trequests\tp50\tp99\tnote")
	err := onEachBackend(ctx, o, "pages", func(backend, url string) error {
		return measurePages(ctx, o, url, backend, tw)
	})
	if err != nil {
		return fmt.Errorf("pages: %w", err)
	}
	return tw.Flush()
}

func measurePages(ctx context.Context, o options, url, backend string, tw io.Writer) error {
	eng, err := openWithWaiting(ctx, url, o.pageInstances)
	if err != nil {
		return err
	}
	defer eng.Close()
	defs, err := eng.ProcessDefinitions(ctx, bpmnlite.DefinitionQuery{Key: "waiting"})
	if err != nil || len(defs) == 0 {
		return fmt.Errorf("the waiting definition: %v", err)
	}
	def := defs[0].ID
	pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: "waiting", BusinessKey: "probe"})
	if err != nil {
		return err
	}
	db, err := persistence.Open(ctx, url, persistence.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := seedActivityHistory(ctx, db, def, o.pageHistory); err != nil {
		return err
	}
	api := rest.New(eng, rest.Options{})
	srv := httptest.NewServer(ui.Mount(eng, api, ui.Options{}))
	defer srv.Close()
	note := loadNote()
	for _, p := range uiPages {
		reqs := p.requests(def, pi)
		var ds []time.Duration
		each := make([]time.Duration, len(reqs)) // per request, over the measured loads
		for i := range pageLoads + 5 {
			begin := time.Now()
			for k, r := range reqs {
				sent := time.Now()
				base := srv.URL + "/engine-rest"
				if strings.HasPrefix(r.path, "/app/") {
					base = srv.URL
				}
				if err := send(base, r); err != nil {
					return fmt.Errorf("%s: %w", p.name, err)
				}
				if i >= 5 {
					each[k] += time.Since(sent)
				}
			}
			if i >= 5 { // warm-up: statements prepared, caches filled
				ds = append(ds, time.Since(begin))
			}
		}
		slices.Sort(ds)
		slowest := 0
		for k := range each {
			if each[k] > each[slowest] {
				slowest = k
			}
		}
		slow := fmt.Sprintf("slowest: %s %s, mean %s", reqs[slowest].method, reqs[slowest].path, ms(each[slowest]/pageLoads))
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", p.name, backend, len(reqs), ms(ds[len(ds)/2]), ms(ds[len(ds)*99/100]), joinNotes(note, slow))
	}
	return nil
}

// send makes one request and reads its answer, which must be 2xx.
func send(base string, r pageRequest) error {
	var body io.Reader
	if r.body != "" {
		body = bytes.NewBufferString(r.body)
	}
	req, err := http.NewRequest(r.method, base+r.path, body)
	if err != nil {
		return err
	}
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s %s", r.method, r.path, resp.Status, strings.TrimSpace(string(data)))
	}
	return nil
}

// seedActivityHistory writes n finished activity instances of definition
// def to history (the definition page's heat map reads them), spread over
// its activities.
func seedActivityHistory(ctx context.Context, db persistence.DB, def string, n int) error {
	return seed(ctx, db, []string{"hist_activity_instance"}, func(tx persistence.Tx, s seedSQL) error {
		_, err := tx.Exec(ctx, s.insert("hist_activity_instance", "id, rev, process_instance_id, process_definition_id, activity_id, activity_type, start_time, end_time, canceled",
			"'seeded-' || "+s.text("x")+", 1, 'seeded-pi-' || "+s.text("x")+", '"+def+"', CASE x % 3 WHEN 0 THEN 'start' WHEN 1 THEN 'work' ELSE 'end' END, 'userTask', "+s.at("x")+", "+s.at("x")+", false"), 1, n)
		return err
	})
}
