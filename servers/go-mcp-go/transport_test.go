package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"perflab/servers/go-common/runtimeinfo"
	"perflab/servers/go-common/validate"
)

// startServer serves /mcp and the plain routes as main does, in the mode cfg asks.
func startServer(t *testing.T, cfg config) (string, *atomic.Int64) {
	t.Helper()
	dv, err := validate.New()
	if err != nil {
		t.Fatal(err)
	}
	var sessions atomic.Int64
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	mcpServer := newMCPServer(cfg, newBackends(), dv, &sessions)
	streamable := newStreamableHTTP(cfg, mcpServer, srv.Config)
	mux.Handle("/mcp", mcpRoute(cfg, streamable))
	if cfg.legacySSE {
		sse := legacySSE(mux, mcpServer)
		t.Cleanup(sse.CloseSessions)
	}
	plainRoutes(mux, newBackends(), func() runtimeinfo.Info {
		return runtimeinfo.ReadMCP(cfg.stateless, cfg.jsonResponse, func() int { return int(sessions.Load()) })
	})
	srv.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		streamable.CloseSessions(ctx)
		srv.Close()
	})
	return srv.URL, &sessions
}

type answer struct {
	status      int
	contentType string
	sessionID   string
	body        string
}

func send(t *testing.T, method, url, body string, headers map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Mcp-Session-Id"), string(data)}
}

const initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
const echoCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`

func TestStatefulAnswersWithSSEAndEndsSessionsWithDelete(t *testing.T) {
	url, sessions := startServer(t, config{})
	init := send(t, "POST", url+"/mcp", initializeBody, nil)
	if init.status != 200 || !strings.HasPrefix(init.contentType, "text/event-stream") || init.sessionID == "" {
		t.Fatalf("initialize: %+v", init)
	}
	if !strings.Contains(init.body, `"name":"perflab-go-mcp-go"`) || strings.Contains(init.body, `"prompts"`) {
		t.Fatalf("initialize: %s", init.body)
	}
	if sessions.Load() != 1 {
		t.Fatalf("%d sessions after initialize", sessions.Load())
	}
	session := map[string]string{"Mcp-Session-Id": init.sessionID}
	if got := send(t, "POST", url+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); got.status != 202 || got.body != "" {
		t.Fatalf("notification: %+v", got)
	}
	call := send(t, "POST", url+"/mcp", echoCall, session)
	if !strings.HasPrefix(call.contentType, "text/event-stream") || !strings.Contains(call.body, `"text":"hi"`) {
		t.Fatalf("tools/call: %+v", call)
	}
	expectStreamOpens(t, url+"/mcp", session)
	if got := send(t, "POST", url+"/mcp", echoCall, map[string]string{"Mcp-Session-Id": "00000000-0000-4000-8000-000000000000"}); got.status != 404 {
		t.Fatalf("unknown session: %+v", got)
	}
	if got := send(t, "DELETE", url+"/mcp", "", session); got.status != 200 {
		t.Fatalf("DELETE: %+v", got)
	}
	if got := send(t, "POST", url+"/mcp", echoCall, session); got.status != 404 {
		t.Fatalf("deleted session: %+v", got)
	}
	if sessions.Load() != 0 {
		t.Fatalf("%d sessions after DELETE", sessions.Load())
	}
}

// expectStreamOpens checks that GET sends 200 and text/event-stream before any event.
func expectStreamOpens(t *testing.T, url string, headers map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET stream: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
}

func TestJSONResponsesKeepTheSessionHeader(t *testing.T) {
	url, _ := startServer(t, config{jsonResponse: true})
	init := send(t, "POST", url+"/mcp", initializeBody, nil)
	if !strings.HasPrefix(init.contentType, "application/json") || init.sessionID == "" {
		t.Fatalf("initialize: %+v", init)
	}
	call := send(t, "POST", url+"/mcp", echoCall, map[string]string{"Mcp-Session-Id": init.sessionID})
	if !strings.HasPrefix(call.contentType, "application/json") || !strings.Contains(call.body, `"text":"hi"`) {
		t.Fatalf("tools/call: %+v", call)
	}
}

func TestStatelessHasNoSessionsAndRefusesGetAndDelete(t *testing.T) {
	url, _ := startServer(t, config{stateless: true})
	init := send(t, "POST", url+"/mcp", initializeBody, nil)
	if init.status != 200 || init.sessionID != "" {
		t.Fatalf("initialize: %+v", init)
	}
	if call := send(t, "POST", url+"/mcp", echoCall, nil); !strings.HasPrefix(call.contentType, "text/event-stream") || !strings.Contains(call.body, `"text":"hi"`) {
		t.Fatalf("tools/call without initialize: %+v", call)
	}
	for _, method := range []string{"GET", "DELETE"} {
		if got := send(t, method, url+"/mcp", "", nil); got.status != 405 {
			t.Fatalf("%s: %+v", method, got)
		}
	}
	if body := send(t, "GET", url+"/debug/runtime", "", nil).body; !strings.Contains(body, `"mcp":{"stateless":true,"json_response":false,"sessions":null}`) {
		t.Fatalf("/debug/runtime: %s", body)
	}
}

func TestBodiesUpToEightMiBAreAcceptedAndLargerOnes413(t *testing.T) {
	url, _ := startServer(t, config{stateless: true})
	call := func(size int, chunked bool) int {
		prefix := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"`
		suffix := `"}}}`
		body := prefix + strings.Repeat("a", size-len(prefix)-len(suffix)) + suffix
		var reader io.Reader = strings.NewReader(body)
		if chunked {
			reader = bufio.NewReader(bytes.NewReader([]byte(body))) // no length known: sent chunked
		}
		req, _ := http.NewRequest("POST", url+"/mcp", reader)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return -1
		}
		res.Body.Close()
		return res.StatusCode
	}
	// An 8 MiB echo is refused by the tool (over 1 MiB), but the body itself is read and answered.
	for _, chunked := range []bool{false, true} {
		if got := call(maxBodyBytes, chunked); got != 200 {
			t.Fatalf("8 MiB (chunked=%t): %d", chunked, got)
		}
		if got := call(maxBodyBytes+1, chunked); got != 413 {
			t.Fatalf("8 MiB + 1 (chunked=%t): %d", chunked, got)
		}
	}
}

func TestPlainRoutes(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	url, _ := startServer(t, config{})
	for path, want := range map[string]answer{
		"/health":          {200, "application/json", "", `{"status":"ok"}`},
		"/rest/users/0":    {400, "application/json", "", `{"error":"invalid id"}`},
		"/rest/users/%2B1": {400, "application/json", "", `{"error":"invalid id"}`},
		"/rest/users/42":   {503, "application/json", "", `{"error":"database unavailable"}`},
	} {
		if got := send(t, "GET", url+path, "", nil); got != want {
			t.Errorf("%s: %+v", path, got)
		}
	}
	if got := send(t, "GET", url+"/rest/time", "", nil); !strings.HasPrefix(got.body, `{"now_ms":`) {
		t.Errorf("/rest/time: %+v", got)
	}
}

func TestModeFlagsAcceptOnlyZeroOrOne(t *testing.T) {
	t.Setenv("PORT", "")
	t.Setenv("MCP_LEGACY_SSE", "")
	for _, name := range []string{"MCP_STATELESS", "MCP_JSON_RESPONSE", "MCP_LEGACY_SSE"} {
		for _, value := range []string{"true", "yes", "2", " 1"} {
			t.Setenv("MCP_STATELESS", "")
			t.Setenv("MCP_JSON_RESPONSE", "")
			t.Setenv("MCP_LEGACY_SSE", "")
			t.Setenv(name, value)
			if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), name+" must be 0 or 1") {
				t.Fatalf("%s=%q: want a configuration error, got %v", name, value, err)
			}
		}
	}
}

func TestLegacySSEStreamsAnswersAndCountsItsSessions(t *testing.T) {
	url, sessions := startServer(t, config{legacySSE: true})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	events := bufio.NewReader(res.Body)
	next := func() (string, string) {
		var event, data string
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended: %v", err)
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				event = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				data = line[len("data: "):]
			case line == "" && event != "":
				return event, data
			}
		}
	}
	event, endpoint := next()
	if event != "endpoint" || !strings.HasPrefix(endpoint, "/message?sessionId=") || sessions.Load() != 1 {
		t.Fatalf("first event %q %q, %d sessions", event, endpoint, sessions.Load())
	}
	if got := send(t, "POST", url+endpoint, echoCall, nil); got.status != 202 {
		t.Fatalf("POST %s: %+v", endpoint, got)
	}
	if event, data := next(); event != "message" || !strings.Contains(data, `"text":"hi"`) {
		t.Fatalf("answer %q %q", event, data)
	}
	cancel()
	res.Body.Close()
	deadline := time.Now().Add(2 * time.Second)
	for sessions.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if sessions.Load() != 0 {
		t.Fatalf("%d sessions after the stream closed", sessions.Load())
	}
}

func TestLegacySSENeedsStatefulMode(t *testing.T) {
	t.Setenv("PORT", "")
	t.Setenv("MCP_JSON_RESPONSE", "")
	t.Setenv("MCP_LEGACY_SSE", "1")
	t.Setenv("MCP_STATELESS", "1")
	if _, err := loadConfig(); err == nil {
		t.Fatal("MCP_LEGACY_SSE=1 with MCP_STATELESS=1 accepted")
	}
	t.Setenv("MCP_STATELESS", "0")
	if cfg, err := loadConfig(); err != nil || !cfg.legacySSE {
		t.Fatalf("%+v %v", cfg, err)
	}
}
