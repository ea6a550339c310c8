"""The FastAPI application: the plain routes, with the FastMCP server's Streamable HTTP app mounted."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import fastmcp
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from fastmcp.server.http import StreamableHTTPASGIApp
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.middleware import Middleware
from starlette.routing import Route

from perflab_server.app import EVENT_STREAMS, McpEndpoint
from perflab_server.backends import BackendError, Backends, NotFound
from perflab_server.config import Config
from perflab_server.runtime import runtime_info

from .server import create_server

# The contract's body limit; the SDK's default, which FastMCP keeps, is 4 MiB.
MAX_BODY_BYTES = 8 * 1024 * 1024
USER_ID = re.compile(r"[1-9][0-9]{0,8}")

# Warnings and errors only: no line per request.
logging.getLogger("fastmcp").setLevel(logging.WARNING)
# Sessions live until DELETE or shutdown (CONTRACT.md section 2), where FastMCP would reap idle ones.
fastmcp.settings.http_session_idle_timeout = None


def _session_endpoint(mcp_app: Any) -> StreamableHTTPASGIApp:
    return next(r.endpoint for r in mcp_app.routes if isinstance(r, Route) and r.path == "/mcp")


def _apply_contract_limits(manager: StreamableHTTPSessionManager) -> None:
    """Limits http_app() does not pass on to the SDK's session manager, set once it exists.

    No cap on open sessions (the SDK's default is 10,000) and 8 MiB bodies (413 above).
    """
    manager.max_sessions = None
    manager.asgi_app.max_body_size = MAX_BODY_BYTES  # the SDK's RequestBodyLimitMiddleware


def create_app() -> FastAPI:
    """Factory called once per worker process (uvicorn `factory=True`)."""
    cfg = Config.from_env()
    backends = Backends()
    mcp = create_server(backends)
    mcp_app = mcp.http_app(
        path="/mcp",
        json_response=cfg.json_response,
        stateless_http=cfg.stateless,
        # FastMCP's Host/Origin guard (DNS rebinding): loopback hosts only, 421 or 403 otherwise.
        host_origin_protection=True,
        # Ends GET event streams when shutdown starts (see perflab_server.app.EventStreams);
        # stateless, GET and DELETE answer 405 as in servers/python.
        middleware=[Middleware(McpEndpoint, streams=EVENT_STREAMS, stateless=cfg.stateless)],
    )
    endpoint = _session_endpoint(mcp_app)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with mcp_app.lifespan(app):
            _apply_contract_limits(endpoint.session_manager)
            try:
                yield
            finally:
                await backends.close()

    app = FastAPI(lifespan=lifespan)
    add_plain_routes(app, cfg, endpoint, backends)
    # Last, so the plain routes above match first; the MCP endpoint is /mcp itself (no redirect).
    app.mount("/", mcp_app)
    return app


def add_plain_routes(app: FastAPI, cfg: Config, endpoint: StreamableHTTPASGIApp, backends: Backends) -> None:
    """CONTRACT.md section 7; FastAPI's JSONResponse writes canonical JSON (no spaces, UTF-8)."""

    @app.get("/health")
    async def health() -> JSONResponse:
        return JSONResponse({"status": "ok"})

    @app.get("/rest/time")
    async def rest_time() -> JSONResponse:
        return JSONResponse({"now_ms": time.time_ns() // 1_000_000})

    @app.get("/rest/users/{user_id}")
    async def rest_user(user_id: str) -> JSONResponse:
        if not USER_ID.fullmatch(user_id):
            return JSONResponse({"error": "invalid id"}, status_code=400)
        try:
            return JSONResponse(await backends.lookup_user(int(user_id)))
        except NotFound:
            return JSONResponse({"error": "not found"}, status_code=404)
        except BackendError:
            return JSONResponse({"error": "database unavailable"}, status_code=503)

    @app.get("/debug/runtime")
    async def debug_runtime() -> JSONResponse:
        # The session manager keeps no public count; its session map is the source.
        manager = endpoint.session_manager
        sessions = None if cfg.stateless or manager is None else len(manager._server_instances)
        info = runtime_info(
            parallelism=cfg.workers, stateless=cfg.stateless, json_response=cfg.json_response, sessions=sessions
        )
        return JSONResponse(info)

