"""Lazily created Redis, Postgres and HTTP clients, one set per worker process."""

from __future__ import annotations

import asyncio
import os
from datetime import timezone
from typing import Any

import asyncpg
import httpx
import redis.asyncio as redis


class BackendError(Exception):
    """A failure of Redis, the fixture API or Postgres; its text starts with a contract error code."""

    def __init__(self, message: str, code: str = "backend_unavailable") -> None:
        super().__init__(f"{code}: {message}")


class NotFound(Exception):
    pass


USER_QUERY = "SELECT id, name, email, created_at FROM users WHERE id = $1"

# Queries a pooled Postgres connection serves before asyncpg closes it and opens another
# (asyncpg's default is 50,000); effectively never, as the other servers' pools.
PG_MAX_QUERIES = 2**62


async def _no_reset(conn: asyncpg.Connection) -> None:
    """Sends nothing when a connection goes back to the pool.

    asyncpg's default reset runs `SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *;
    RESET ALL;`, a second round trip per lookup that pgxpool, pg.Pool, deadpool (Fast
    recycling) and HikariCP do not make. The role may only SELECT and the server only runs
    USER_QUERY, outside any transaction: no lock, cursor, LISTEN or SET is ever left to undo.
    (asyncpg still rolls back an open transaction and drops listeners itself, with no query
    unless a transaction is open.)
    """


class Backends:
    """Nothing connects at start, so the server and its CPU tools run without fixtures."""

    def __init__(self) -> None:
        self.api_url = os.environ.get("FIXTURE_API_URL", "")
        self._redis_url = os.environ.get("REDIS_URL", "")
        self._database_url = os.environ.get("DATABASE_URL", "")
        self._redis: redis.Redis | None = None
        self._pg: asyncpg.Pool | None = None
        self._pg_lock = asyncio.Lock()
        # One pooled client for every upstream call: no cap on open connections (as
        # Go, Node, Rust and Java, so a burst never queues inside the client), up to
        # 8,192 kept alive (contract: more than the matrix's 5,000 VUs), idle ones
        # kept 90 s, 15 s per request.
        # trust_env=False keeps proxy variables from rerouting loopback traffic.
        self._http = httpx.AsyncClient(
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=8192, keepalive_expiry=90),
            timeout=httpx.Timeout(15, connect=2),
            trust_env=False,
        )

    def redis(self) -> redis.Redis:
        if self._redis is None:
            if not self._redis_url:
                raise BackendError("REDIS_URL is not set")
            try:
                # A blocking pool waits for a free connection instead of failing
                # when all 64 are busy (the default pool raises "Too many connections").
                pool = redis.BlockingConnectionPool.from_url(
                    self._redis_url,
                    max_connections=64,
                    timeout=5,
                    socket_connect_timeout=2,
                    socket_timeout=5,
                    decode_responses=True,
                )
            except ValueError as exc:
                raise BackendError(f"REDIS_URL: {exc}") from exc
            self._redis = redis.Redis(connection_pool=pool)
        return self._redis

    async def pg(self) -> asyncpg.Pool:
        if self._pg is None:
            if not self._database_url:
                raise BackendError("DATABASE_URL is not set")
            async with self._pg_lock:
                if self._pg is None:
                    try:
                        # min_size=0: connections open on demand, up to 25; asyncpg
                        # prepares and caches the statement per connection. No reset
                        # query on release and no reconnect every 50,000 queries (see
                        # _no_reset): like pgxpool, pg.Pool, deadpool and HikariCP.
                        self._pg = await asyncpg.create_pool(
                            self._database_url,
                            min_size=0,
                            max_size=25,
                            max_queries=PG_MAX_QUERIES,
                            reset=_no_reset,
                            timeout=2,
                            command_timeout=5,
                        )
                    except (ValueError, asyncpg.PostgresError, OSError) as exc:
                        raise BackendError(f"postgres: {exc}") from exc
        return self._pg

    async def api(self, method: str, path: str, body: bytes | None = None) -> bytes:
        """Calls the fixture API and returns the body of a 2xx answer."""
        if not self.api_url:
            raise BackendError("FIXTURE_API_URL is not set")
        headers = {"Content-Type": "application/json"} if body is not None else None
        try:
            resp = await self._http.request(method, self.api_url + path, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise BackendError(f"fixture API: {exc!r}") from exc
        if not 200 <= resp.status_code < 300:
            raise BackendError(f"fixture API {method} {path} answered HTTP {resp.status_code}", "upstream_error")
        return resp.content

    async def lookup_user(self, user_id: int) -> dict[str, Any]:
        pool = await self.pg()
        try:
            # Both the wait for a pooled connection and the query are bounded.
            async with pool.acquire(timeout=5) as conn:
                row = await conn.fetchrow(USER_QUERY, user_id, timeout=5)
        except Exception as exc:
            raise BackendError(f"postgres: {exc!r}") from exc
        if row is None:
            raise NotFound(f"not_found: user {user_id}")
        created = row["created_at"].astimezone(timezone.utc)
        return {
            "id": row["id"],
            "name": row["name"],
            "email": row["email"],
            "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }

    async def close(self) -> None:
        await self._http.aclose()
        if self._redis is not None:
            await self._redis.aclose()
        if self._pg is not None:
            await self._pg.close()
