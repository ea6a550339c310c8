# Redis 7 from Debian's apt on the local Debian base. perflab's queue needs AOF and noeviction:
# queued cells must survive a restart and never be evicted.
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
USER redis
WORKDIR /data
ENTRYPOINT ["redis-server", "--dir", "/data", "--appendonly", "yes", "--maxmemory-policy", "noeviction", "--save", ""]
CMD ["--bind", "127.0.0.1", "--port", "6379"]
