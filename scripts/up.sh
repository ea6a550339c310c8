#!/usr/bin/env bash
# Quick start, command 1: install what is missing, then run perflab (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec pnpm --silent stack
