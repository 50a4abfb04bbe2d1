package bpmntest

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/bpmnlite/bpmnlite/internal/bpmnio"
)

//go:embed report
var reportFiles embed.FS

// reportMu keeps this process's tests from making the report at once;
// lockReport does the same across processes (go test runs packages side by
// side) where the system has file locks.
var reportMu sync.Mutex

// processReport is one process model's coverage over all tests.
type processReport struct {
	Key, Name, Model string
	Page             string   // its page's file name
	Elements         []string // all flow nodes and sequence flows
	Covered          []string // passed by any test
	Tests            []testCoverage
}

// testCoverage is what one test passed of a process.
type testCoverage struct {
	Test    string
	Covered []string
}

func (p processReport) Percent() float64 { return percent(len(p.Covered), len(p.Elements)) }

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// writeCoverageReport makes index.html and the process pages of dir from
// every fragment there.
func writeCoverageReport(dir string) error {
	reportMu.Lock()
	defer reportMu.Unlock()
	unlock, err := lockReport(dir)
	if err != nil {
		return err
	}
	defer unlock()
	frags, err := readFragments(dir)
	if err != nil {
		return err
	}
	procs := aggregateCoverage(frags)
	for _, p := range procs {
		xml, err := os.ReadFile(filepath.Join(dir, "models", p.Model+".bpmn"))
		if err != nil {
			return err
		}
		tests := map[string][]string{}
		for _, t := range p.Tests {
			tests[t.Test] = t.Covered
		}
		data, err := json.Marshal(map[string]any{"xml": string(xml), "elements": p.Elements, "covered": p.Covered, "tests": tests})
		if err != nil {
			return err
		}
		// json.Marshal escapes <, > and &, so the data cannot end the
		// script element it is written into.
		if err := renderReport(filepath.Join(dir, p.Page), "process", map[string]any{"P": p, "Data": template.JS(data)}); err != nil {
			return err
		}
	}
	if err := renderReport(filepath.Join(dir, "index.html"), "index", map[string]any{"Processes": procs, "Tests": len(frags)}); err != nil {
		return err
	}
	if err := copyFS(bpmnio.Files, dir, "bpmn-navigated-viewer.production.min.js", "diagram-js.css", "bpmn-js.css"); err != nil {
		return err
	}
	own, err := fs.Sub(reportFiles, "report")
	if err != nil {
		return err
	}
	return copyFS(own, dir, "coverage.js", "coverage.css")
}

// aggregateCoverage groups the fragments' processes by model: each model
// gets the union of what its tests passed.
func aggregateCoverage(frags []coverageFragment) []processReport {
	byModel := map[string]*processReport{}
	for _, f := range frags {
		for _, pc := range f.Processes {
			id := pc.Key + "/" + pc.Model
			p := byModel[id]
			if p == nil {
				p = &processReport{Key: pc.Key, Name: pc.Name, Model: pc.Model, Elements: pc.Elements,
					Page: fmt.Sprintf("process-%s-%s.html", unsafeName.ReplaceAllString(pc.Key, "_"), pc.Model[:12])}
				byModel[id] = p
			}
			p.Covered = append(p.Covered, pc.Covered...)
			p.Tests = append(p.Tests, testCoverage{Test: f.Test, Covered: pc.Covered})
		}
	}
	var out []processReport
	for _, p := range byModel {
		slices.Sort(p.Covered)
		p.Covered = slices.Compact(p.Covered)
		sort.SliceStable(p.Tests, func(i, j int) bool { return p.Tests[i].Test < p.Tests[j].Test })
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].Model < out[j].Model
	})
	return out
}

var reportTemplates = template.Must(template.New("").Funcs(template.FuncMap{
	"pct":     func(n, of int) string { return fmt.Sprintf("%.1f %%", percent(n, of)) },
	"short":   func(s string) string { return s[:12] },
	"percent": percent,
}).Parse(`
{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{.}}</title>
<link rel="stylesheet" href="diagram-js.css"><link rel="stylesheet" href="bpmn-js.css"><link rel="stylesheet" href="coverage.css"></head>{{end}}
{{define "index"}}{{template "head" "Process coverage"}}<body>
<h1>Process coverage</h1>
<p>{{len .Processes}} process models, {{.Tests}} tests. Flow nodes and sequence flows passed by any test, out of all in the model.</p>
<table><tr><th>process</th><th>model</th><th class="num">elements</th><th class="num">covered</th><th class="num">coverage</th><th></th><th class="num">tests</th></tr>
{{range .Processes}}<tr><td><a href="{{.Page}}">{{.Key}}</a>{{if .Name}} ({{.Name}}){{end}}</td><td><code>{{short .Model}}</code></td>
<td class="num">{{len .Elements}}</td><td class="num">{{len .Covered}}</td><td class="num">{{pct (len .Covered) (len .Elements)}}</td>
<td><span class="bar" style="width: {{printf "%.0f" (percent (len .Covered) (len .Elements))}}px"></span></td><td class="num">{{len .Tests}}</td></tr>
{{end}}</table>
<h2>By test</h2>
<table><tr><th>test</th><th>process</th><th class="num">covered</th><th class="num">coverage</th></tr>
{{range $p := .Processes}}{{range .Tests}}<tr><td>{{.Test}}</td><td><a href="{{$p.Page}}">{{$p.Key}}</a></td><td class="num">{{len .Covered}}</td><td class="num">{{pct (len .Covered) (len $p.Elements)}}</td></tr>
{{end}}{{end}}</table>
</body></html>{{end}}
{{define "process"}}{{template "head" (printf "Coverage of %s" .P.Key)}}<body>
<p><a href="index.html">All processes</a></p>
<h1>{{.P.Key}}{{if .P.Name}} ({{.P.Name}}){{end}}: <span id="percent"></span></h1>
<label>Tests: <select id="test"><option value="">all ({{pct (len .P.Covered) (len .P.Elements)}})</option>
{{range .P.Tests}}<option value="{{.Test}}">{{.Test}} ({{pct (len .Covered) (len $.P.Elements)}})</option>{{end}}</select></label>
<div id="canvas"></div>
<h2>Elements</h2>
<table><thead><tr><th>element</th><th>passed</th></tr></thead><tbody id="elements"></tbody></table>
<script id="coverage" type="application/json">{{.Data}}</script>
<script src="bpmn-navigated-viewer.production.min.js"></script>
<script src="coverage.js"></script>
</body></html>{{end}}`))

func renderReport(path, name string, data any) error {
	var b bytes.Buffer
	if err := reportTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return err
	}
	return writeFileAtomic(path, b.Bytes())
}
