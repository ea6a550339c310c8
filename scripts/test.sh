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
# The Python and Java servers' own suites (Node's and Bun's run with the unit tests above; Rust's
# needs a second multi-minute cargo build and runs by hand: servers/rust/README.md).
(cd servers/python && .venv/bin/pip install --disable-pip-version-check -q -r requirements-test.txt && .venv/bin/python -m pytest -q -p no:cacheprovider)
(cd servers/java && mvn -q -B test)
echo "» docker engine, docker-compose and images (every server, fixtures, k6; app, Postgres, Redis for compose)"
bash scripts/docker/start-dockerd.sh
if ! command -v docker-compose >/dev/null; then
  echo "» installing docker-compose"
  as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q docker-compose >/dev/null ||
    { as_root apt-get update -q >/dev/null && as_root apt-get install -y -q docker-compose >/dev/null; }
fi
# --apps needs the web build of setup.sh above; the app image is rebuilt each time (~2 min here), and
# Rust's release build in its image takes ~6 min on the first run (cached by source hash after).
bash scripts/docker/build-images.sh --apps go node bun python java rust fixtures k6
echo "» integration, conformance, docker and browser"
pnpm --filter @perflab/tests test
