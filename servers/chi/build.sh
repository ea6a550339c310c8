#!/bin/sh
# Builds the server (bin/server, or the path given): static, trimmed. Used by perflab.json and the Dockerfile.
set -eu
out=${1:-bin/server}
mkdir -p "$(dirname "$out")"
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$out" .
