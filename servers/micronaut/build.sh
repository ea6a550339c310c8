#!/usr/bin/env bash
# The same build as servers/quarkus (Maven, then a Java 21+ runtime linked as target/jdk).
set -euo pipefail
exec "$(dirname "$0")/../quarkus/build.sh" "$(cd "$(dirname "$0")" && pwd)"
