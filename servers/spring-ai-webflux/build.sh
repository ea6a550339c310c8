#!/usr/bin/env bash
# Builds target/server.jar (Spring Boot's executable jar) with a JDK 21+, links that JDK as
# target/jdk, extracts the jar to target/app and records the JDK's AOT cache there from a training
# start, as Spring Boot's docs deploy it: perflab.json starts target/app with that cache. The first
# build fetches the dependencies from Maven Central (dependency:go-offline); later ones run offline.
set -euo pipefail
cd "$(dirname "$0")"

major() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null; }

find_jdk() {
  local dir
  for dir in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    if [ -n "$dir" ] && [ -x "$dir/bin/javac" ] && [ "$(major "$dir")" -ge 21 ] 2>/dev/null; then
      echo "$dir"
      return
    fi
  done
  echo "spring-ai-webflux needs a JDK 21 or newer (Spring Boot 4 with virtual threads): none found in JAVA_HOME or /usr/lib/jvm" >&2
  exit 1
}

JAVA_HOME=$(find_jdk)
export JAVA_HOME
if ! mvn -q -B -o dependency:go-offline >/dev/null 2>&1; then
  mvn -q -B dependency:go-offline
fi
mvn -q -B -o package -DskipTests
ln -sfn "$JAVA_HOME" target/jdk

# The same JVM flags and relative paths as perflab.json's start: the cache is refused otherwise.
rm -rf target/app
target/jdk/bin/java -Djarmode=tools -jar target/server.jar extract --destination target/app
PORT=$((20000 + RANDOM % 20000)) target/jdk/bin/java -XX:+UseG1GC -XX:MaxRAMPercentage=75 \
  -XX:AOTCacheOutput=target/app/app.aot -Dspring.context.exit=onRefresh -jar target/app/server.jar \
  >target/aot-training.log 2>&1 || { cat target/aot-training.log >&2; exit 1; }
