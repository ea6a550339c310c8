# Bun runtime for offline builds: the binary of npm's @oven/bun-linux-x64 on the local Debian base.
# Context: bun and ca-certificates.crt.
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
COPY bun /usr/local/bin/bun
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN ln -s bun /usr/local/bin/bunx && bun --version
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
