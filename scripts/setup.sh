#!/usr/bin/env bash
# Installs everything the embedded perflab needs, idempotently: system packages, pnpm and the
# workspace, the pinned k6 with perflab's output, the Prisma client, the reference servers and
# the web build. Safe to run again; finished steps are cached.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.8
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_packages=()
command -v redis-server >/dev/null || apt_packages+=(redis-server)
if [ "${PERFLAB_BROWSER_TESTS:-0}" = 1 ] && [ ! -x /usr/bin/chromium ]; then apt_packages+=(chromium); fi
if [ ${#apt_packages[@]} -gt 0 ]; then
  echo "» installing ${apt_packages[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q "${apt_packages[@]}" >/dev/null || { as_root apt-get update -q >/dev/null && as_root apt-get install -y -q "${apt_packages[@]}" >/dev/null; }
fi

if ! command -v pnpm >/dev/null || [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  echo "» installing pnpm $PNPM_VERSION"
  npm install -g "pnpm@$PNPM_VERSION" >/dev/null
fi

echo "» pnpm install"
pnpm install --frozen-lockfile --reporter=silent

# k6 (the longest Go build) compiles while the servers build: two cores, two long jobs.
mkdir -p .perflab/build
echo "» k6 with perflab's output (in the background, log: .perflab/build/k6.log)"
bash scripts/build-k6.sh > .perflab/build/k6.log 2>&1 &
k6_build=$!

echo "» Prisma client"
pnpm --filter @perflab/db generate >/dev/null

echo "» reference servers and fixtures"
bash servers/fixtures/build.sh
pnpm --silent build:servers

if ! wait "$k6_build"; then
  tail -30 .perflab/build/k6.log
  echo "k6 build failed" >&2
  exit 1
fi
tail -1 .perflab/build/k6.log

echo "» web app"
pnpm exec turbo run build --filter=@perflab/web --output-logs=errors-only
