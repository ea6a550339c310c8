# Go toolchain for offline builds: the host's Go copied onto the local Debian base. Context (made
# by scripts/docker/build-images.ts): go/ (GOROOT) and ca-certificates.crt (the host's CA bundle,
# which the module proxy's TLS may need).
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
COPY go /usr/local/go
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV PATH=/usr/local/go/bin:/root/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    GOFLAGS=-buildvcs=false \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
