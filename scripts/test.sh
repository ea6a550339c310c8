#!/usr/bin/env bash
# Quick start, command 2: the whole test suite — lint, types, unit, integration (real Postgres,
# Redis, k6 and servers) and browser tests (real Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
PERFLAB_BROWSER_TESTS=1 bash scripts/setup.sh
echo "» lint";        pnpm --silent lint
echo "» typecheck";   pnpm exec turbo run typecheck --output-logs=errors-only
echo "» unit";        pnpm exec turbo run test --filter='!@perflab/tests' --output-logs=errors-only
echo "» servers";     (cd servers/go && go test ./...) && (cd servers/fixtures && go test ./...)
echo "» docker engine and images (Go server, fixtures)"
bash scripts/docker/start-dockerd.sh
bash scripts/docker/build-images.sh go fixtures
echo "» integration, conformance, docker and browser"
pnpm --filter @perflab/tests test
