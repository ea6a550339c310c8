#!/usr/bin/env bash
# Builds the pinned k6 with the perflab output extension into .perflab/bin/k6.
# Skips the build when the binary exists and its stamp matches the sources.
# Offline-safe: only the Go module proxy is needed (no xk6).
set -euo pipefail

K6_VERSION="v1.8.1"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ext="$root/packages/k6-output"
bin_dir="$root/.perflab/bin"
bin="$bin_dir/k6"
stamp="$bin_dir/k6.stamp"

export GOFLAGS=-mod=mod
# A newer toolchain download would need more than the module proxy.
export GOTOOLCHAIN=local

# The stamp covers what ends up in the binary: extension sources (not tests),
# the module graph, the pinned k6 version and the Go toolchain.
hash_inputs() {
  (
    cd "$ext"
    printf 'k6 %s\n%s\n' "$K6_VERSION" "$(go env GOVERSION)"
    find . -path ./test -prune -o -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) ! -name '*_test.go' -print |
      LC_ALL=C sort | xargs sha256sum
  ) | sha256sum | cut -d' ' -f1
}

want="$(hash_inputs)"
if [[ -x "$bin" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "k6 is up to date: $bin"
else
  if ! grep -q "go.k6.io/k6 $K6_VERSION\$" "$ext/go.mod"; then
    echo "packages/k6-output/go.mod does not require go.k6.io/k6 $K6_VERSION" >&2
    exit 1
  fi
  echo "building k6 $K6_VERSION with the perflab output (a few minutes on a cold cache)..."
  mkdir -p "$bin_dir"
  start=$SECONDS
  (cd "$ext" && go build -trimpath -ldflags '-s -w' -o "$bin.tmp" ./cmd/k6)
  mv -f "$bin.tmp" "$bin"
  echo "$want" >"$stamp"
  echo "built $bin in $((SECONDS - start)) s"
fi

"$bin" version
