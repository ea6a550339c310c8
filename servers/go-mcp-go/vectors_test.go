package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"perflab/servers/go-common/contract"
	"perflab/servers/go-common/validate"
)

type toolVector struct {
	Name       string          `json:"name"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	Text       *string         `json:"text,omitempty"`
	TextBytes  *int            `json:"text_bytes,omitempty"`
	TextSHA256 *string         `json:"text_sha256,omitempty"`
}

// testServer is the MCP server as main builds it, without backends.
func testServer(t *testing.T) *server.MCPServer {
	t.Helper()
	dv, err := validate.New()
	if err != nil {
		t.Fatal(err)
	}
	var sessions atomic.Int64
	return newMCPServer(config{}, newBackends(), dv, &sessions)
}

// callTool sends one tools/call through mcp-go's message handling (validation, binding, middleware).
func callTool(t *testing.T, s *server.MCPServer, tool string, args json.RawMessage) *mcp.CallToolResult {
	t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	answer := s.HandleMessage(context.Background(), msg)
	response, ok := answer.(mcp.JSONRPCResponse)
	if !ok {
		t.Fatalf("%s %s: answered %#v", tool, args, answer)
	}
	result, ok := response.Result.(*mcp.CallToolResult)
	if !ok {
		t.Fatalf("%s %s: result %#v", tool, args, response.Result)
	}
	return result
}

// textOf is the single text content of a result, failing on anything else.
func textOf(t *testing.T, result *mcp.CallToolResult) string {
	t.Helper()
	if len(result.Content) != 1 || result.StructuredContent != nil {
		t.Fatalf("want exactly one text content, got %#v", result)
	}
	text, ok := result.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %#v", result.Content[0])
	}
	return text.Text
}

func TestContractVectors(t *testing.T) {
	data, err := os.ReadFile("../contract/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Tools []toolVector }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Tools) < 10 {
		t.Fatalf("only %d tool vectors", len(file.Tools))
	}
	s := testServer(t)
	for _, v := range file.Tools {
		result := callTool(t, s, v.Tool, v.Arguments)
		if result.IsError {
			t.Errorf("%s: isError %s", v.Name, textOf(t, result))
			continue
		}
		got := textOf(t, result)
		switch {
		case v.Text != nil:
			if got != *v.Text {
				t.Errorf("%s: got\n%s\nwant\n%s", v.Name, got, *v.Text)
			}
		case v.TextSHA256 != nil:
			sum := sha256.Sum256([]byte(got))
			if len(got) != *v.TextBytes || hex.EncodeToString(sum[:]) != *v.TextSHA256 {
				t.Errorf("%s: %d bytes with sha256 %x, want %d bytes %s", v.Name, len(got), sum, *v.TextBytes, *v.TextSHA256)
			}
		default:
			t.Errorf("%s: vector has neither text nor text_sha256", v.Name)
		}
	}
}

func TestListsTheContractsTenToolsAndSchemas(t *testing.T) {
	answer := testServer(t).HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	raw, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &listed); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range listed.Result.Tools {
		names = append(names, tool.Name)
		want := contract.Tools[tool.Name]
		if tool.Description != want.Description || !jsonEqual(t, tool.InputSchema, []byte(want.Schema)) {
			t.Errorf("%s: listed %q %s", tool.Name, tool.Description, tool.InputSchema)
		}
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "checkout,echo,fetch_upstream,fibonacci,get_user,get_user_cart,search_products,sleep,transform_data,validate_document" {
		t.Fatalf("tools %v", names)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		t.Fatalf("not JSON: %s / %s", a, b)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}

func TestWholeNumbersAreIntegersAndFractionsAreRejected(t *testing.T) {
	s := testServer(t)
	for _, args := range []string{`{"n":10}`, `{"n":10.0}`, `{"n":1e1}`} {
		if got := textOf(t, callTool(t, s, "fibonacci", json.RawMessage(args))); got != `{"n":10,"value":55}` {
			t.Errorf("fibonacci %s: %s", args, got)
		}
	}
	for _, call := range [][2]string{
		{"fibonacci", `{"n":10.5}`}, {"fibonacci", `{"n":36}`}, {"fibonacci", `{}`}, {"fibonacci", `{"n":"10"}`},
		{"echo", `{"message":"hi","pad_to_bytes":2.5}`}, {"transform_data", `{"size":0}`}, {"sleep", `{"ms":0.5}`},
	} {
		if result := callTool(t, s, call[0], json.RawMessage(call[1])); !result.IsError {
			t.Errorf("%s %s: not rejected: %s", call[0], call[1], textOf(t, result))
		}
	}
}

func TestBackendToolsWithoutBackendsAreBackendUnavailable(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	t.Setenv("FIXTURE_API_URL", "")
	t.Setenv("DATABASE_URL", "")
	s := testServer(t)
	for tool, args := range map[string]string{
		"fetch_upstream": `{"delay_ms":1}`, "search_products": `{"query":"lamp"}`, "get_user_cart": `{"user_id":1}`,
		"checkout": `{"user_id":1,"items":[{"product_id":1,"quantity":1}]}`, "get_user": `{"id":1}`,
	} {
		result := callTool(t, s, tool, json.RawMessage(args))
		if text := textOf(t, result); !result.IsError || !strings.HasPrefix(text, "backend_unavailable:") {
			t.Errorf("%s: isError=%t %s", tool, result.IsError, text)
		}
	}
}
