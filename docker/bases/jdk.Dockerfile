# JDK 17 and Maven from Debian's apt, for eclipse-temurin/maven builder stages.
# Context: ca-certificates.crt (Maven Central's TLS may need the host's CA bundle).
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
COPY ca-certificates.crt /usr/local/share/ca-certificates/host-bundle.crt
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update -q \
 && apt-get install -y -q --no-install-recommends openjdk-17-jdk-headless maven ca-certificates-java \
 && rm -rf /var/lib/apt/lists/*
