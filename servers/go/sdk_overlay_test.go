package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSDKOverlayIsTheSDKsFilePlusItsSwitch keeps _sdk/internal_json.go honest: without its
// perflab blocks (and the blank lines gofmt puts around them) it is byte for byte the
// internal/json/json.go of the SDK version go.mod names, so an SDK upgrade that changes that file
// fails here instead of building on a stale copy.
func TestSDKOverlayIsTheSDKsFilePlusItsSwitch(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/modelcontextprotocol/go-sdk").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sdkFile, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "internal", "json", "json.go"))
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := os.ReadFile(filepath.Join("_sdk", "internal_json.go"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	inBlock := false
	for _, line := range strings.SplitAfter(string(overlay), "\n") {
		switch strings.TrimSpace(line) {
		case "// perflab: begin":
			if inBlock {
				t.Fatal("nested perflab: begin")
			}
			inBlock = true
		case "// perflab: end":
			if !inBlock {
				t.Fatal("perflab: end without begin")
			}
			inBlock = false
		default:
			if !inBlock {
				kept = append(kept, line)
			}
		}
	}
	if inBlock {
		t.Fatal("perflab: begin without end")
	}
	oneBlank := regexp.MustCompile(`\n{3,}`)
	if got := oneBlank.ReplaceAllString(strings.Join(kept, ""), "\n\n"); got != oneBlank.ReplaceAllString(string(sdkFile), "\n\n") {
		t.Fatalf("_sdk/internal_json.go without its perflab blocks differs from the SDK's internal/json/json.go:\n%s", got)
	}
	if !strings.Contains(string(overlay), `os.Getenv("GO_SDK_DIRECT_JSON") == "1"`) {
		t.Fatal("the overlay no longer reads GO_SDK_DIRECT_JSON")
	}
}
