#!/usr/bin/env bash
# Share of k6's own CPU spent in the perflab output, from a pprof CPU profile
# of a running k6. Unlike comparing whole runs, this is not blurred by other
# load on a shared machine.
#
# Env: SECONDS_PROFILED (20), VUS (10), PORT (18091), SERVER (servers/go/bin/server), or TARGET.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROFILED="${SECONDS_PROFILED:-20}"
VUS="${VUS:-10}"
PORT="${PORT:-18091}"
API_PORT="${API_PORT:-16565}"
SERVER="${SERVER:-$root/servers/go/bin/server}"
script="$root/packages/scenarios/k6/mcp-tool-call.js"

bash "$root/scripts/build-k6.sh" >/dev/null
k6="$root/.perflab/bin/k6"

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

if [[ -z "${TARGET:-}" ]]; then
  [[ -x "$SERVER" ]] || { echo "no MCP server at $SERVER: build servers/go or set SERVER / TARGET" >&2; exit 1; }
  PORT="$PORT" "$SERVER" >"$work/server.log" 2>&1 &
  pids+=($!)
  TARGET="http://127.0.0.1:$PORT"
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
    sleep 0.1
  done
fi

TARGET="$TARGET" VUS="$VUS" DURATION=$((PROFILED + 5)) \
  "$k6" run -q --no-usage-report --summary-mode=disabled --profiling-enabled --address "127.0.0.1:$API_PORT" \
  --out "perflab=$work/out.ndjson" "$script" >"$work/k6.log" 2>&1 &
pids+=($!)
sleep 3
curl -sf -o "$work/cpu.pprof" "http://127.0.0.1:$API_PORT/debug/pprof/profile?seconds=$PROFILED"
wait "${pids[-1]}"

cd "$root/packages/k6-output"
total=$(go tool pprof -top -nodecount=1 "$work/cpu.pprof" 2>/dev/null | sed -n "s/.*Total samples = \([0-9.]*m\?s\).*/\1/p")
ours=$(go tool pprof -top -focus='packages/k6-output' -nodefraction=0 -nodecount=1000000 "$work/cpu.pprof" 2>/dev/null |
  sed -n 's/.*Showing nodes accounting for [0-9.]*m\?s, \([0-9.]*\)% of.*/\1/p')
echo "k6 CPU profiled: ${total} over ${PROFILED}s; share in the perflab output: ${ours:-0}%"
go tool pprof -top -cum -focus='packages/k6-output' -nodecount=12 "$work/cpu.pprof" 2>/dev/null | tail -n +6
