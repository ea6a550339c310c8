#!/usr/bin/env bash
# perflab's CI step (docs/ci.md): measures a server the job started on 127.0.0.1 with perflab's k6
# (the mcp-tool-call scenario, or your own script with PERFLAB_SCRIPT), uploads the output to a lab,
# judges it against a baseline run, freezes it behind a permalink and prints (and posts) the link.
# Exit: 0 pass, no baseline or inconclusive; 1 a regression; 2 anything else went wrong.
set -euo pipefail

fail() { echo "perflab-ci: $*" >&2; exit 2; }

: "${PERFLAB_URL:?the lab, e.g. https://perflab.example.com}"
: "${PERFLAB_SERVER:?the name the results go under}"
PERFLAB_DIR="${PERFLAB_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
K6="${PERFLAB_K6:-$PERFLAB_DIR/.perflab/bin/k6}"
TARGET="${TARGET:-http://127.0.0.1:8080}"
MCP_PATH="${MCP_PATH:-/mcp}"
VUS="${VUS:-10}"
DURATION="${DURATION:-30}"
WARMUP="${WARMUP:-5}"
TOOL="${TOOL:-echo}"
default_args='{"message":"hello"}'
ARGS="${ARGS:-$default_args}"
THINK_MS="${THINK_MS:-0}"
TOLERANCE="${PERFLAB_TOLERANCE:-10}"

# The lab's rule: load goes to loopback only.
case "$TARGET" in
  http://127.0.0.1:* | http://127.0.0.1/* | http://localhost:*) ;;
  *) fail "TARGET must be a server on 127.0.0.1, got $TARGET" ;;
esac
[[ -x "$K6" ]] || fail "perflab's k6 is not at $K6: run scripts/build-k6.sh in the perflab checkout"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

perflab() { node "$PERFLAB_DIR/packages/cli/bin/perflab.mjs" "$@" --url "$PERFLAB_URL"; }

# The run to judge against: PERFLAB_BASELINE, else the newest succeeded run of the base branch.
baseline_run() {
  if [[ -n "${PERFLAB_BASELINE:-}" ]]; then echo "$PERFLAB_BASELINE"; return; fi
  [[ -n "${GITHUB_REPOSITORY:-}" ]] || return 0
  local branch="${PERFLAB_BASELINE_BRANCH:-${GITHUB_BASE_REF:-main}}"
  curl -sf --get "$PERFLAB_URL/api/v1/runs" ${PERFLAB_TOKEN:+-H "authorization: Bearer $PERFLAB_TOKEN"} \
    --data-urlencode "gitRepo=$GITHUB_REPOSITORY" --data-urlencode "gitBranch=$branch" \
    --data-urlencode "status=succeeded" --data-urlencode "limit=1" | jq -r '.runs[0].id // empty' || true
}

# perflab's k6 on the scenario's script, or on the wrapper that runs your own beside it.
measure() {
  local script="$PERFLAB_DIR/packages/scenarios/k6/mcp-tool-call.js"
  if [[ -n "${PERFLAB_SCRIPT:-}" ]]; then
    cp "$PERFLAB_DIR"/packages/scenarios/k6/*.js "$work/"
    cp "$PERFLAB_SCRIPT" "$work/user-script.js"
    script="$work/k6-script.js"
  fi
  env TARGET="$TARGET" MCP_PATH="$MCP_PATH" VUS="$VUS" DURATION="$DURATION" WARMUP="$WARMUP" \
    TOOL="$TOOL" ARGS="$ARGS" THINK_MS="$THINK_MS" SUMMARY_PATH="$work/k6-summary.json" \
    "$K6" run --no-usage-report --quiet --out "perflab=$work/out.ndjson" "$script" >&2 \
    || fail "k6 failed (exit $?)"
}

# Uploads the output, judged against the baseline when there is one: the CLI exits 1 on a regression.
upload() {
  local baseline="$1"
  local args=(upload "$work/out.ndjson" --summary "$work/k6-summary.json" --server "$PERFLAB_SERVER"
    --duration "$DURATION" --warmup "$WARMUP" --vus "$VUS" --json)
  [[ -n "${PERFLAB_SCRIPT:-}" ]] || args+=(--tool "$TOOL" --args "$ARGS")
  [[ -z "$baseline" ]] || args+=(--baseline "$baseline" --tolerance "$TOLERANCE")
  local code=0
  perflab "${args[@]}" >"$work/upload.json" || code=$?
  [[ $code -le 1 || $code -eq 3 ]] || fail "the upload failed (exit $code)"
  jq -e .runId "$work/upload.json" >/dev/null || fail "the upload answered no run: $(cat "$work/upload.json")"
}

# Says the verdict and the link on the job's log, its summary and, on a pull request, a comment.
post() {
  local outcome="$1" url="$2" text
  text="perflab: ${PERFLAB_SERVER} — verdict **${outcome}** — ${url}"
  echo "permalink: $url"
  [[ -z "${GITHUB_STEP_SUMMARY:-}" ]] || echo "$text" >>"$GITHUB_STEP_SUMMARY"
  local pr
  pr="$(sed -n 's|^refs/pull/\([0-9]*\)/.*|\1|p' <<<"${GITHUB_REF:-}")"
  if [[ -n "$pr" && -n "${GITHUB_TOKEN:-}" && -n "${GITHUB_REPOSITORY:-}" ]]; then
    jq -n --arg body "$text" '{body: $body}' | curl -sf -o /dev/null -X POST \
      -H "authorization: Bearer $GITHUB_TOKEN" -H "accept: application/vnd.github+json" \
      "${GITHUB_API_URL:-https://api.github.com}/repos/$GITHUB_REPOSITORY/issues/$pr/comments" -d @- \
      || echo "perflab-ci: the pull request comment could not be posted" >&2
  fi
}

baseline="$(baseline_run)"
measure
upload "$baseline"
run_id="$(jq -r .runId "$work/upload.json")"
outcome="$(jq -r '.verdict.outcome // "no baseline"' "$work/upload.json")"
echo "run: $run_id (baseline: ${baseline:-none}, verdict: $outcome)"
url="$(perflab report "$run_id" --title "${PERFLAB_TITLE:-$PERFLAB_SERVER ${GITHUB_SHA:-}}" --json | jq -r .url)"
post "$outcome" "$url"
[[ "$outcome" != "fail" ]] || { echo "perflab-ci: regression against run $baseline" >&2; exit 1; }
