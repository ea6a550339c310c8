#!/usr/bin/env bash
# Measures what k6's output path costs k6 itself: CPU seconds (user+sys) of the
# same fixed amount of work (shared-iterations) with no output, with
# `--out perflab` and with `--out json`, interleaved over several rounds.
#
# Env: ROUNDS (6), ITERATIONS (30000), VUS (10), PORT (18090),
#      SERVER (servers/go/bin/server; started here with PORT), or TARGET to use
#      an already running server instead.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-6}"
export ITERATIONS="${ITERATIONS:-30000}"
VUS="${VUS:-10}"
PORT="${PORT:-18090}"
SERVER="${SERVER:-$root/servers/go/bin/server}"
script="$root/packages/scenarios/k6/mcp-tool-call.js"

bash "$root/scripts/build-k6.sh" >/dev/null
k6="$root/.perflab/bin/k6"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

if [[ -z "${TARGET:-}" ]]; then
  if [[ ! -x "$SERVER" ]]; then
    echo "no MCP server at $SERVER: build servers/go or set SERVER / TARGET" >&2
    exit 1
  fi
  PORT="$PORT" "$SERVER" >"$work/server.log" 2>&1 &
  server_pid=$!
  TARGET="http://127.0.0.1:$PORT"
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
    sleep 0.1
  done
fi

# Prints "<cpu seconds> <wall seconds>" of one k6 run. `times` in the subshell
# reports exactly the CPU of its finished children, i.e. of k6.
run_k6() {
  local variant="$1" out=()
  case "$variant" in
  none) ;;
  perflab) out=(--out "perflab=$work/perflab.ndjson") ;;
  json) out=(--out "json=/dev/null") ;;
  esac
  : >"$work/perflab.ndjson"
  local start end cpu
  start=$(date +%s.%N)
  # `times` must run in the subshell itself (not in a pipe, which would fork
  # again and see no children).
  cpu=$(
    TARGET="$TARGET" VUS="$VUS" ITERATIONS="$ITERATIONS" \
      "$k6" run -q --no-usage-report --summary-mode=disabled "${out[@]}" "$script" >"$work/k6-$variant.log" 2>&1 || {
      echo "k6 failed ($variant), see log:" >&2
      tail -20 "$work/k6-$variant.log" >&2
      exit 1
    }
    times
  )
  cpu=$(echo "$cpu" | tail -1 | awk '{
    split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2]
  }')
  end=$(date +%s.%N)
  echo "$cpu $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')"
}

# The perflab run must have produced a complete file with every request in it.
check_perflab_file() {
  local want=$((ITERATIONS + 2 * VUS))
  local got
  got=$(grep -o '"requests":[0-9]*' "$work/perflab.ndjson" | awk -F: '{ n += $2 } END { print n + 0 }')
  if ! tail -1 "$work/perflab.ndjson" | grep -q '"type":"end"' || [[ "$got" -ne "$want" ]]; then
    echo "perflab output incomplete: $got requests counted, want $want" >&2
    exit 1
  fi
}

variants=(none perflab json)
echo "k6 CPU per run: $ITERATIONS iterations, $VUS VUs, $ROUNDS rounds, target $TARGET ($(nproc) cores)"
"$k6" version | head -1
# One unmeasured run warms the server, page cache and CPU frequency.
run_k6 none >/dev/null
: >"$work/results"
for ((r = 0; r < ROUNDS; r++)); do
  # Rotate the order each round so no variant always runs first or last.
  for ((i = 0; i < 3; i++)); do
    v="${variants[$(((i + r) % 3))]}"
    run_k6 "$v" >"$work/one"
    read -r cpu wall <"$work/one"
    [[ "$v" == perflab ]] && check_perflab_file
    printf '  round %d  %-8s cpu %7.3f s  wall %6.2f s\n' "$((r + 1))" "$v" "$cpu" "$wall"
    echo "$r $v $cpu" >>"$work/results"
  done
done

# Mean/std-dev per variant, plus the median of per-round ratios: pairing runs
# of the same round cancels slow drifts of a shared machine's load.
awk '
  { v = $2; n[v]++; sum[v] += $3; sq[v] += $3 * $3; cpu[$1, v] = $3; rounds = $1 + 1 }
  function median(a, k,   i, j, t) {
    for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    for (v in n) {
      mean[v] = sum[v] / n[v]
      sd[v] = n[v] > 1 ? sqrt((sq[v] - n[v] * mean[v] * mean[v]) / (n[v] - 1)) : 0
    }
    printf "\n%-8s %4s %10s %9s %10s %12s %16s\n", "variant", "n", "mean cpu", "std-dev", "overhead", "+/- 1 s.e.", "median paired"
    split("none perflab json", order, " ")
    for (i = 1; i <= 3; i++) {
      v = order[i]
      if (i == 1) { printf "%-8s %4d %9.3fs %8.3fs %10s %12s %16s\n", v, n[v], mean[v], sd[v], "-", "-", "-"; continue }
      over = (mean[v] / mean["none"] - 1) * 100
      se = sqrt(sd[v] ^ 2 / n[v] + sd["none"] ^ 2 / n["none"]) / mean["none"] * 100
      delete r
      for (k = 0; k < rounds; k++) r[k + 1] = (cpu[k, v] / cpu[k, "none"] - 1) * 100
      printf "%-8s %4d %9.3fs %8.3fs %+9.2f%% %11.2f%% %+15.2f%%\n", v, n[v], mean[v], sd[v], over, se, median(r, rounds)
    }
    printf "\nk6 CPU per iteration without output: %.0f us (includes k6 start-up)\n", mean["none"] / ENVIRON["ITERATIONS"] * 1e6
  }
' "$work/results"
