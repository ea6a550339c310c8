#!/bin/sh
# Builds the Go server (bin/server, or the path given) on the official SDK with one of its files
# replaced by _sdk/internal_json.go, which adds the GO_SDK_DIRECT_JSON switch and changes nothing
# while it is unset (README.md, "SDK JSON decoding"). The SDK is copied from the module cache into
# .sdk-build/ and the build reads a copy of go.mod that points there (a relative path, so the binary
# records the same one on every machine); go.mod, go.sum and the module cache stay as they are.
# Used by perflab.json and the Dockerfile.
set -eu
out=${1:-bin/server}
module=github.com/modelcontextprotocol/go-sdk
go mod download "$module"
sdk=$(go list -m -f '{{.Dir}}' "$module")
[ -f "$sdk/internal/json/json.go" ] || { echo "build.sh: no internal/json/json.go in $sdk" >&2; exit 1; }
scratch=.sdk-build
[ ! -d "$scratch" ] || { chmod -R u+w "$scratch"; rm -rf "$scratch"; }
mkdir "$scratch"
trap 'chmod -R u+w "$scratch"; rm -rf "$scratch"' EXIT
cp -R "$sdk" "$scratch/go-sdk"
chmod -R u+w "$scratch/go-sdk"
cp _sdk/internal_json.go "$scratch/go-sdk/internal/json/json.go"
cp go.mod "$scratch/build.mod"
cp go.sum "$scratch/build.sum"
go mod edit -modfile="$scratch/build.mod" -replace="$module=./$scratch/go-sdk"
mkdir -p "$(dirname "$out")"
CGO_ENABLED=0 go build -modfile="$scratch/build.mod" -trimpath \
  -ldflags='-s -w -X main.sdkOverlay=direct-json' -o "$out" .
