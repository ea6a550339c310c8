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

echo "» k6 with perflab's output"
bash scripts/build-k6.sh

echo "» Prisma client"
pnpm --filter @perflab/db generate >/dev/null

echo "» reference servers and fixtures"
bash servers/fixtures/build.sh
pnpm --silent build:servers

echo "» web app"
pnpm exec turbo run build --filter=@perflab/web --output-logs=errors-only
