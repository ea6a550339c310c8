# JDK 25 and Maven for eclipse-temurin:25 / maven:*-eclipse-temurin-25 builder and runtime stages:
# Debian bookworm's apt has no JDK newer than 17, so the host's Temurin 25 is copied in, as the Rust
# base copies the host's toolchain. Maven comes from apt (it runs on any JDK); the host's Maven
# repository is root's local repository, so builds the host has resolved need no network.
# Context (made by scripts/docker/build-images.ts): temurin/ (the host's JDK: realpath of
# /usr/lib/jvm/temurin-25-jdk-amd64), repository/ (~/.m2/repository) and ca-certificates.crt.
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
COPY ca-certificates.crt /usr/local/share/ca-certificates/host-bundle.crt
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update -q \
 && apt-get install -y -q --no-install-recommends maven ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY temurin /opt/java/openjdk
ENV JAVA_HOME=/opt/java/openjdk \
    PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RUN java -version && mvn -v
# Last, so a refreshed repository rebuilds only this layer.
COPY repository /root/.m2/repository
