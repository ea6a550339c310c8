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
echo "» integration and browser"
pnpm --filter @perflab/tests test
