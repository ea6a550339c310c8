# JRE 17 from Debian's apt, for eclipse-temurin:*-jre runtime stages.
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update -q \
 && apt-get install -y -q --no-install-recommends openjdk-17-jre-headless \
 && rm -rf /var/lib/apt/lists/*
