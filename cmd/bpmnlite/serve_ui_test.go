package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bpmnlite/bpmnlite/ui"
)

// serve answers the cockpit at /app/, behind its authentication, and
// redirects / there.
func TestServeUI(t *testing.T) {
	base, _ := startServe(t, filepath.Join(t.TempDir(), "ui.db"), "-auth", "demo:secret")
	root := strings.TrimSuffix(base, "/engine-rest")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, auth bool) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", root+path, nil)
		if auth {
			req.SetBasicAuth("demo", "secret")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := get("/", true); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/app/" {
		t.Errorf("GET /: %d to %q, want 302 to /app/", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp := get("/app/", false); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /app/ without credentials: %d, want 401", resp.StatusCode)
	}
	if resp := get("/app/", true); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Security-Policy") != ui.ContentSecurityPolicy {
		t.Errorf("GET /app/: %d, CSP %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
}
