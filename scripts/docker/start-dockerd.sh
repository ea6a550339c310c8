#!/usr/bin/env bash
# Makes a Docker engine answer on the local socket, idempotently: installs docker.io when dockerd is
# missing and starts it in the background (there is no init system). Bridge and iptables are off:
# perflab's containers use host networking, so load traffic stays on 127.0.0.1.
# With DOCKER_HOST pointing at a remote engine, only checks that it answers.
set -euo pipefail
cd "$(dirname "$0")/../.."

TIMEOUT_SEC=${PERFLAB_DOCKERD_TIMEOUT_SEC:-60}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

engine_answers() { docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; }

if [ -n "${DOCKER_HOST:-}" ] && [[ "$DOCKER_HOST" != unix://* ]]; then
  engine_answers || { echo "Docker engine at $DOCKER_HOST does not answer" >&2; exit 1; }
  echo "docker engine $(docker info --format '{{.ServerVersion}}') at $DOCKER_HOST"
  exit 0
fi

if ! command -v dockerd >/dev/null; then
  echo "» installing docker.io"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q docker.io >/dev/null ||
    { as_root apt-get update -q >/dev/null && as_root apt-get install -y -q docker.io >/dev/null; }
fi

if ! engine_answers; then
  mkdir -p .perflab
  log="$PWD/.perflab/dockerd.log"
  echo "» starting dockerd (log: $log)"
  # setsid: the daemon must outlive this script and the shell that ran it.
  as_root setsid dockerd --bridge=none --iptables=false --ip6tables=false >>"$log" 2>&1 </dev/null &
  deadline=$((SECONDS + TIMEOUT_SEC))
  until engine_answers; do
    if [ $SECONDS -ge $deadline ]; then
      echo "dockerd did not answer within ${TIMEOUT_SEC}s; last log lines:" >&2
      tail -n 20 "$log" >&2
      exit 1
    fi
    sleep 0.5
  done
fi

echo "docker engine $(docker info --format '{{.ServerVersion}}') (cgroup $(docker info --format '{{.CgroupVersion}}'), storage $(docker info --format '{{.Driver}}'))"
