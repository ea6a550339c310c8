package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"perflab/servers/go-common/compute"
	"perflab/servers/go-common/validate"
)

var update = flag.Bool("update", false, "rewrite ../contract/vectors.json from this implementation")

const vectorsPath = "../contract/vectors.json"

func TestModeFlagsAcceptOnlyZeroOrOne(t *testing.T) {
	t.Setenv("PORT", "")
	for value, want := range map[string]bool{"": false, "0": false, "1": true} {
		t.Setenv("MCP_STATELESS", value)
		t.Setenv("MCP_JSON_RESPONSE", value)
		cfg, err := loadConfig()
		if err != nil || cfg.stateless != want || cfg.jsonResponse != want {
			t.Fatalf("%q: got %+v, %v", value, cfg, err)
		}
	}
	for _, name := range []string{"MCP_STATELESS", "MCP_JSON_RESPONSE"} {
		for _, value := range []string{"true", "yes", "2", " 1"} {
			t.Setenv("MCP_STATELESS", "")
			t.Setenv("MCP_JSON_RESPONSE", "")
			t.Setenv(name, value)
			if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), name+" must be 0 or 1") {
				t.Fatalf("%s=%q: want a configuration error, got %v", name, value, err)
			}
		}
	}
}

func TestSearchLimitDefaultsOnlyWhenAbsent(t *testing.T) {
	for args, want := range map[string]int{`{"query":"lamp"}`: 10, `{"query":"lamp","limit":3}`: 3, `{"query":"lamp","limit":0}`: 0} {
		var in searchIn
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			t.Fatal(err)
		}
		if got := searchLimit(in.Limit); got != want {
			t.Fatalf("%s: limit %d, want %d", args, got, want)
		}
	}
	var in searchIn
	_ = json.Unmarshal([]byte(`{"query":"lamp","limit":0}`), &in)
	if err := inRange("limit", searchLimit(in.Limit), 1, 50); err == nil {
		t.Fatal("an explicit limit 0 passed the range check")
	}
}

// callTool runs a contract vector through the same functions the MCP handlers use.
func callTool(t *testing.T, dv *validate.Validator, tool string, args json.RawMessage) string {
	t.Helper()
	var out any
	switch tool {
	case "echo":
		var in echoIn
		mustUnmarshal(t, args, &in)
		return compute.PadMessage(in.Message, in.PadToBytes)
	case "fibonacci":
		var in fibonacciIn
		mustUnmarshal(t, args, &in)
		out = struct {
			N     int   `json:"n"`
			Value int64 `json:"value"`
		}{in.N, compute.Fibonacci(in.N)}
	case "transform_data":
		var in transformIn
		mustUnmarshal(t, args, &in)
		out = compute.TransformData(in.Size)
	case "validate_document":
		var in validateIn
		mustUnmarshal(t, args, &in)
		v, err := dv.Validate(in.Document)
		if err != nil {
			t.Fatal(err)
		}
		out = v
	default:
		t.Fatalf("no pure implementation for %s", tool)
	}
	s, err := compute.CanonicalJSON(out)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustUnmarshal(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

type toolVector struct {
	Name       string          `json:"name"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	Text       *string         `json:"text,omitempty"`
	TextBytes  *int            `json:"text_bytes,omitempty"`
	TextSHA256 *string         `json:"text_sha256,omitempty"`
}

type vectorFile struct {
	Comment  string          `json:"comment"`
	Tools    []toolVector    `json:"tools"`
	Fixtures json.RawMessage `json:"fixtures"`
}

func TestContractVectors(t *testing.T) {
	if *update {
		writeVectors(t)
	}
	data, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var vf vectorFile
	mustUnmarshal(t, data, &vf)
	dv, err := validate.New()
	if err != nil {
		t.Fatal(err)
	}
	if len(vf.Tools) < 10 {
		t.Fatalf("only %d tool vectors", len(vf.Tools))
	}
	for _, v := range vf.Tools {
		got := callTool(t, dv, v.Tool, v.Arguments)
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
	t.Run("fixtures", func(t *testing.T) {
		want, err := json.Marshal(fixtureVectors())
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		mustUnmarshal(t, want, &a)
		mustUnmarshal(t, vf.Fixtures, &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatal("fixture vectors differ from the generator in fixtures_test.go")
		}
	})
}
