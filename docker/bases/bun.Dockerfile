# Bun runtime for offline builds: the binary of npm's @oven/bun-linux-x64 on the local Debian base.
# Context: bun and ca-certificates.crt.
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
COPY bun /usr/local/bin/bun
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# The official image's `bun` user (uid 1000), which Dockerfiles may name in USER.
RUN ln -s bun /usr/local/bin/bunx \
 && useradd --uid 1000 --user-group --create-home --shell /bin/bash bun \
 && bun --version
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
