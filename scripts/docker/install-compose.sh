#!/usr/bin/env bash
# Compose v2 — the `docker compose` plugin Docker ships today — built from its Go module at a pinned
# version into .perflab/bin/docker-compose-v2 (Debian bookworm packages only Compose v1, as
# `docker-compose`). The binary runs on its own or as a Docker CLI plugin:
#   mkdir -p ~/.docker/cli-plugins && cp .perflab/bin/docker-compose-v2 ~/.docker/cli-plugins/docker-compose
# Idempotent: a binary that already reports the pinned version is kept. Needs Go ≥ 1.26.8 and the Go
# module proxy (about 1.5 min and 800 MB of module and build cache the first time).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

VERSION=v5.6.0
MODULE=github.com/docker/compose/v5
out=.perflab/bin/docker-compose-v2

if [ -x "$out" ] && [ "$("$out" version --short 2>/dev/null)" = "${VERSION#v}" ]; then
  echo "compose $VERSION: $out"
  exit 0
fi
mkdir -p .perflab/bin
# `go install mod@version` refuses modules whose go.mod has exclude/replace directives (Compose's has),
# so the module is downloaded and built as the main module, with its own go.sum.
dir=$(go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$dir" ] || { echo "go mod download $MODULE@$VERSION gave no directory" >&2; exit 1; }
started=$(date +%s)
(cd "$dir" && go build -trimpath -ldflags "-s -w -X $MODULE/internal.Version=$VERSION" -o "$root/$out.tmp" ./cmd)
mv "$out.tmp" "$out"
echo "compose $VERSION: built $out in $(($(date +%s) - started)) s"
