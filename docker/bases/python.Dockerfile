# Python 3.11 from Debian's apt (reachable with host networking), matching python:3.11 upstream.
# Context: ca-certificates.crt (PyPI's TLS may need the host's CA bundle).
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends python3 python3-venv python3-pip \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s python3 /usr/bin/python
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    PIP_BREAK_SYSTEM_PACKAGES=1
