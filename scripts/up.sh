#!/usr/bin/env bash
# Quick start, command 1: install what is missing, then run perflab (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --servers-in-background
# The stack runs in a session of its own, so Ctrl-C reaches only its supervisor (scripts/stack.ts),
# which stops web, worker, Postgres and Redis in that order instead of every process at once (and
# starts the worker or web app again, after a backoff, if one of them dies meanwhile).
setsid node --import tsx scripts/stack.ts &
stack=$!
trap 'kill -INT "$stack" 2>/dev/null || true' INT TERM HUP
status=0
while kill -0 "$stack" 2>/dev/null; do
  wait "$stack" && status=0 || status=$?
done
exit "$status"
