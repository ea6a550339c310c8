#!/usr/bin/env bash
# Installs everything the embedded perflab needs, idempotently: system packages, pnpm and the
# workspace, the pinned k6 with perflab's output, the Prisma client, the reference servers and
# the web build. Safe to run again; finished steps are cached.
#
# --servers-in-background (the quick start's): return once k6 and the web app are built and leave the
# reference servers building; the worker holds every cell until those builds end (their markers in
# .perflab/build), so nothing is measured beside a compiler. Without it, every build is waited for.
set -euo pipefail
cd "$(dirname "$0")/.."
servers_in_background=0
[ "${1:-}" = --servers-in-background ] && servers_in_background=1

PNPM_VERSION=10.34.8
# No telemetry notice or upload from turbo and Next.js in an offline lab.
export TURBO_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1
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

# The Go builds need only the module cache: k6 (the longest, minutes on a cold build cache) and the
# fixtures compile in the background from here on, beside pnpm install and everything after it.
mkdir -p .perflab/build
echo "» fixtures and k6 with perflab's output (in the background, logs: .perflab/build/{fixtures,k6}.log)"
(
  bash servers/fixtures/build.sh > .perflab/build/fixtures.log 2>&1 ||
    { tail -30 .perflab/build/fixtures.log; echo "the fixtures did not build" >&2; exit 1; }
  bash scripts/build-k6.sh > .perflab/build/k6.log 2>&1 ||
    { tail -30 .perflab/build/k6.log; echo "k6 did not build" >&2; exit 1; }
) &
go_builds=$!

echo "» pnpm install"
pnpm install --frozen-lockfile --reporter=silent

echo "» Prisma client"
pnpm --filter @perflab/db generate >/dev/null

# The servers build in parallel with each other and with the web app: on 2 cores the Rust release
# build alone takes minutes, and it should not wait for the rest. Each prints its time as it ends.
# Niced, so the web app and k6, which the dashboard needs, come first on a busy machine.
echo "» reference servers (each prints its build time when done; logs: .perflab/build/<server>.log)"
nice -n 10 pnpm --silent build:servers &
servers_build=$!

echo "» web app"
if ! pnpm exec turbo run build --filter=@perflab/web --output-logs=errors-only; then
  kill "$servers_build" 2>/dev/null || true
  exit 1
fi

if ! wait "$go_builds"; then
  kill "$servers_build" 2>/dev/null || true
  exit 1
fi
grep -E '^(built|k6 is up to date)' .perflab/build/k6.log

if [ "$servers_in_background" = 1 ]; then
  building=$(cd .perflab/build && for f in *.building; do if [ -e "$f" ]; then printf '%s ' "${f%.building}"; fi; done)
  if [ -n "$building" ]; then echo "» still building: ${building}— cells wait until these builds end"; fi
else
  wait "$servers_build" || { echo "a reference server did not build" >&2; exit 1; }
fi
