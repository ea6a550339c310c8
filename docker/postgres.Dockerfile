# PostgreSQL 15 from Debian's apt on the local Debian base (no registry needed).
ARG BASE_IMAGE=perflab/debian-base:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PGDATA=/var/lib/postgresql/data PGPORT=5432 PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ENTRYPOINT ["sh", "/usr/local/bin/postgres-entrypoint.sh"]
