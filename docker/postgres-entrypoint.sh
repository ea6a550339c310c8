#!/bin/sh
# Initialises the cluster on first start (superuser and database from POSTGRES_USER/PASSWORD/DB), then
# runs postgres in the foreground as the postgres user, listening on PGLISTEN (host networking).
set -eu
: "${POSTGRES_USER:=perflab}" "${POSTGRES_PASSWORD:=perflab}" "${POSTGRES_DB:=perflab}" "${PGLISTEN:=127.0.0.1}"
export PGPASSWORD="$POSTGRES_PASSWORD"
chown -R postgres:postgres "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp) && printf '%s' "$POSTGRES_PASSWORD" > "$pwfile" && chown postgres "$pwfile"
  runuser -u postgres -- initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -A scram-sha-256 -E UTF8 >/dev/null
  rm -f "$pwfile"
  runuser -u postgres -- pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p $PGPORT" -w start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    runuser -u postgres -- psql -q -h /var/run/postgresql -p "$PGPORT" -U "$POSTGRES_USER" -d postgres \
      -c "CREATE DATABASE \"$POSTGRES_DB\""
  fi
  runuser -u postgres -- pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec runuser -u postgres -- postgres -D "$PGDATA" -p "$PGPORT" -c "listen_addresses=$PGLISTEN"
