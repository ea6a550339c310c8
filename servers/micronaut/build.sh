#!/usr/bin/env bash
# The same build as servers/quarkus: Maven, a Java 21+ runtime linked as target/jdk, the AOT cache.
set -euo pipefail
exec "$(dirname "$0")/../quarkus/build.sh" "$(cd "$(dirname "$0")" && pwd)" target/server.jar
