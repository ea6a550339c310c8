package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), string(body)
}

func TestPlainRoutesWithoutADatabase(t *testing.T) {
	srv := httptest.NewServer(newRouter(newUserStore("")))
	defer srv.Close()
	for path, want := range map[string]struct {
		status int
		body   string
	}{
		"/health":          {200, `{"status":"ok"}`},
		"/rest/users/0":    {400, `{"error":"invalid id"}`},
		"/rest/users/%2B1": {400, `{"error":"invalid id"}`},
		"/rest/users/%201": {400, `{"error":"invalid id"}`},
		"/rest/users/42x":  {400, `{"error":"invalid id"}`},
		"/rest/users/42":   {503, `{"error":"database unavailable"}`},
	} {
		status, contentType, body := get(t, srv.URL+path)
		if status != want.status || body != want.body || contentType != "application/json" {
			t.Errorf("%s: %d %s %s", path, status, contentType, body)
		}
	}
	if _, _, body := get(t, srv.URL+"/rest/time"); !strings.HasPrefix(body, `{"now_ms":`) || strings.HasSuffix(body, "\n") {
		t.Errorf("/rest/time: %q", body)
	}
}

func TestRuntimeHasTheCommonShapeWithMCPNull(t *testing.T) {
	srv := httptest.NewServer(newRouter(newUserStore("")))
	defer srv.Close()
	_, _, body := get(t, srv.URL+"/debug/runtime")
	var keys []string
	dec := json.NewDecoder(strings.NewReader(body))
	dec.Token()
	for dec.More() {
		key, _ := dec.Token()
		keys = append(keys, key.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	want := "runtime,pid,uptime_ms,parallelism,heap_used_bytes,heap_total_bytes,rss_bytes,gc_count,gc_pause_total_ms,gc_pauses_recent,threads,goroutines,mcp"
	if strings.Join(keys, ",") != want || !strings.HasSuffix(body, `"mcp":null}`) || !strings.HasPrefix(body, `{"runtime":{"name":"go",`) {
		t.Fatalf("/debug/runtime: %s", body)
	}
}

func TestRefusesAnMCPModeAndABadPort(t *testing.T) {
	t.Setenv("PORT", "")
	for name, value := range map[string]string{"MCP_STATELESS": "1", "MCP_JSON_RESPONSE": "yes", "PORT": "0"} {
		t.Setenv("MCP_STATELESS", "")
		t.Setenv("MCP_JSON_RESPONSE", "")
		t.Setenv("PORT", "")
		t.Setenv(name, value)
		if _, err := loadPort(); err == nil {
			t.Fatalf("%s=%q accepted", name, value)
		}
	}
	// Every variable the loop set is cleared again: the map's order decides which one it set last.
	t.Setenv("PORT", "")
	t.Setenv("MCP_JSON_RESPONSE", "")
	t.Setenv("MCP_STATELESS", "0")
	if port, err := loadPort(); err != nil || port != "8080" {
		t.Fatalf("defaults: %q %v", port, err)
	}
}
