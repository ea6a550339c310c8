#!/usr/bin/env bash
# A second Docker engine in a network namespace of its own: a stand-in for a Docker engine on another
# machine. Its containers' 127.0.0.1 is the namespace's loopback, which this machine cannot reach,
# exactly as with a real remote engine; the engine answers on tcp://10.211.0.2:2375 over a veth pair.
# Needs root, iproute2 and nsenter. Used by tests/src/remote-engine.test.ts; by hand:
#   scripts/docker/netns-engine.sh up [images…]   # prints DOCKER_HOST=…; copies the images into it
#   scripts/docker/netns-engine.sh down
set -euo pipefail
cd "$(dirname "$0")/../.."

NS=perflab-remote
HOST_IF=plremote0
NS_IF=plremote1
ADDR=10.211.0.2
ENDPOINT="tcp://$ADDR:2375"
DIR=${PERFLAB_NETNS_ENGINE_DIR:-/var/lib/perflab-netns-engine}
TIMEOUT_SEC=${PERFLAB_DOCKERD_TIMEOUT_SEC:-60}

# The script itself talks to the engine over its unix socket: nothing it sends can leave the machine.
remote() { DOCKER_HOST="unix://$DIR/docker.sock" docker "$@"; }

down() {
  if [ -s "$DIR/docker.pid" ]; then
    pid=$(cat "$DIR/docker.pid")
    # Its containers first (force), then the daemon and its containerd.
    remote ps -aq 2>/dev/null | xargs -r env DOCKER_HOST="unix://$DIR/docker.sock" docker rm -f >/dev/null 2>&1 || true
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  # A daemon that had to be killed leaves its namespace mount behind.
  umount "$DIR/exec/netns/default" 2>/dev/null || true
  ip link del "$HOST_IF" 2>/dev/null || true
  ip netns del "$NS" 2>/dev/null || true
  rm -f "$DIR/docker.pid"
}

up() {
  if ! command -v ip >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q iproute2 >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q iproute2 >/dev/null; }
  fi
  if ! { ip netns list | grep -qw "$NS" && remote info >/dev/null 2>&1; }; then
    down
    ip netns add "$NS"
    ip link add "$HOST_IF" type veth peer name "$NS_IF"
    ip link set "$NS_IF" netns "$NS"
    ip addr add 10.211.0.1/30 dev "$HOST_IF"
    ip link set "$HOST_IF" up
    ip -n "$NS" addr add "$ADDR/30" dev "$NS_IF"
    ip -n "$NS" link set "$NS_IF" up
    ip -n "$NS" link set lo up
    mkdir -p "$DIR"
    # nsenter joins the network namespace only (`ip netns exec` would remount /sys and hide the cgroups).
    nsenter --net="/var/run/netns/$NS" setsid dockerd \
      --data-root "$DIR/data" --exec-root "$DIR/exec" --pidfile "$DIR/docker.pid" \
      -H "unix://$DIR/docker.sock" -H "$ENDPOINT" \
      --bridge=none --iptables=false --ip6tables=false >>"$DIR/dockerd.log" 2>&1 </dev/null &
    deadline=$((SECONDS + TIMEOUT_SEC))
    until remote info >/dev/null 2>&1; do
      if [ $SECONDS -ge $deadline ]; then
        echo "the namespaced dockerd did not answer within ${TIMEOUT_SEC}s:" >&2
        tail -n 20 "$DIR/dockerd.log" >&2
        exit 1
      fi
      sleep 0.5
    done
  fi
  # Images come from this machine's engine (a real remote engine builds them with build-images.sh).
  missing=()
  for image in "$@"; do remote image inspect "$image" >/dev/null 2>&1 || missing+=("$image"); done
  if [ ${#missing[@]} -gt 0 ]; then docker save "${missing[@]}" | remote load -q >/dev/null; fi
  echo "DOCKER_HOST=$ENDPOINT"
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) down ;;
  *) echo "usage: $0 up [images…] | down" >&2; exit 2 ;;
esac
