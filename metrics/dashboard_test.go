package metrics_test

import (
	"encoding/json"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/metrics"
)

// Every metric the Grafana dashboard queries is one the collector serves
// (a histogram's _bucket, _sum and _count series belong to its family), and
// every family the collector serves has a panel.
func TestDashboardQueriesExistingMetrics(t *testing.T) {
	raw, err := os.ReadFile("grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash any
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	var queries []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "expr" || k == "query") {
					queries = append(queries, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(dash)
	if len(queries) < 10 {
		t.Fatalf("found %d queries in the dashboard", len(queries))
	}

	eng, err := bpmnlite.Open(t.Context(), bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: ":memory:"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.New(eng))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, f := range families {
		served[f.GetName()] = true
	}

	used := map[string]bool{}
	name := regexp.MustCompile(`bpmnlite_[a-z_]+`)
	for _, q := range queries {
		for _, m := range name.FindAllString(q, -1) {
			family := m
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if base := strings.TrimSuffix(m, suffix); base != m && served[base] {
					family = base
				}
			}
			if !served[family] {
				t.Errorf("the dashboard queries %s, which the collector does not serve: %s", m, q)
			}
			used[family] = true
		}
	}
	for f := range served {
		if !used[f] {
			t.Errorf("the collector serves %s, which no panel shows", f)
		}
	}
}
