#!/usr/bin/env bash
# Builds perflab's images offline (see build-images.ts); existing tags are kept, so a second run is instant.
# Usage: scripts/docker/build-images.sh [--apps] [--only-apps] [server names | fixtures | k6 ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
exec pnpm --silent exec tsx scripts/docker/build-images.ts "$@"
