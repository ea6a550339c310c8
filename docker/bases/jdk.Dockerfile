# JDK 17 and Maven from Debian's apt, for eclipse-temurin/maven builder stages, with the host's
# Maven repository as root's local repository: builds whose plugins and dependencies the host has
# already resolved (`mvn package` run on the host) need no network; anything missing still comes
# from Maven Central. Context (made by scripts/docker/build-images.ts): repository/ (~/.m2/repository)
# and ca-certificates.crt (Maven Central's TLS may need the host's CA bundle).
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
COPY ca-certificates.crt /usr/local/share/ca-certificates/host-bundle.crt
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update -q \
 && apt-get install -y -q --no-install-recommends openjdk-17-jdk-headless maven ca-certificates-java \
 && rm -rf /var/lib/apt/lists/*
# Last, so a refreshed repository rebuilds only this layer.
COPY repository /root/.m2/repository
