# Rust toolchain for offline builds, standing in for rust:<version>-bookworm: the host's rustup
# toolchain (rustc, cargo, the x86_64 std and rust-lld; no docs, rustdoc, clippy or rustfmt) on the
# local Debian base, gcc and libc6-dev from apt (the linker driver and glibc, libc.a included for
# `+crt-static`), and the host's crates.io index and .crate cache. Cargo runs offline
# (CARGO_NET_OFFLINE), so `cargo fetch --locked` takes crates only from that cache: a crate the host
# has not downloaded fails the build by name; fetch it on the host, then remove this image.
# Context (made by scripts/docker/build-images.ts): rust/ (the toolchain), index/ and cache/ (from
# ~/.cargo/registry) and ca-certificates.crt.
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY rust /usr/local/rust
ENV CARGO_HOME=/usr/local/cargo \
    PATH=/usr/local/cargo/bin:/usr/local/rust/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    CARGO_NET_OFFLINE=true \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
# Last, so a refreshed crate cache rebuilds only this layer.
COPY index /usr/local/cargo/registry/index
COPY cache /usr/local/cargo/registry/cache
RUN rustc --version && cargo --version
