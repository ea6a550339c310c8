# Go toolchain for offline builds: the host's Go copied onto the local Debian base. Context (made
# by scripts/docker/build-images.ts): go/ (GOROOT), download/ (the host's module download cache,
# served as a file proxy so `go mod download` rarely leaves the image) and ca-certificates.crt.
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
COPY go /usr/local/go
COPY download /usr/local/share/goproxy
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV PATH=/usr/local/go/bin:/root/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    GOFLAGS=-buildvcs=false \
    GOPROXY=file:///usr/local/share/goproxy,https://proxy.golang.org,direct \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
