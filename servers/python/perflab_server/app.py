"""The ASGI application: MCP Streamable HTTP at /mcp plus the plain routes."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from sse_starlette.sse import AppStatus

from .backends import BackendError, Backends, NotFound
from .compute import canonical_json
from .runtime import cpu_limit, runtime_info
from .tools import TOOL_DEFS, call_tool, make_handlers
from .validate import DocumentValidator

NAME = "python"
# Bodies up to 4 MiB must be accepted; the SDK's default limit is exactly 4 MiB,
# so leave room for JSON escaping of a 1 MiB message.
MAX_BODY_BYTES = 8 * 1024 * 1024


class ConfigError(Exception):
    pass


def _flag(name: str) -> bool:
    value = os.environ.get(name, "")
    if value not in ("", "0", "1"):
        raise ConfigError(f"{name} must be 1 or 0, got {value!r}")
    return value == "1"


@dataclass(frozen=True)
class Config:
    port: int
    stateless: bool
    json_response: bool
    workers: int

    @classmethod
    def from_env(cls) -> Config:
        raw_port = os.environ.get("PORT") or "8080"
        if not raw_port.isdigit() or not 1 <= int(raw_port) <= 65535:
            raise ConfigError(f"PORT must be 1..65535, got {raw_port!r}")
        stateless = _flag("MCP_STATELESS")
        raw_workers = os.environ.get("WEB_CONCURRENCY", "")
        if raw_workers:
            if not raw_workers.isdigit() or int(raw_workers) < 1:
                raise ConfigError(f"WEB_CONCURRENCY must be a positive integer, got {raw_workers!r}")
            workers = int(raw_workers)
        else:
            # Stateless requests need no shared memory, so one process per CPU of
            # the limit; stateful sessions live in one process's memory.
            workers = cpu_limit() if stateless else 1
        if workers > 1 and not stateless:
            raise ConfigError("WEB_CONCURRENCY > 1 needs MCP_STATELESS=1: sessions live in one process's memory")
        return cls(int(raw_port), stateless, _flag("MCP_JSON_RESPONSE"), workers)


class EventStreams:
    """Open GET event streams of /mcp, ended at once when shutdown starts.

    sse-starlette's own shutdown hook would also cut POST responses that are still
    streaming their result; the contract wants those to finish, so it is turned off
    and only GET streams are ended here.
    """

    def __init__(self) -> None:
        self._scopes: set[anyio.CancelScope] = set()
        self._closing = False

    def close_all(self) -> None:
        self._closing = True
        for scope in self._scopes:
            scope.cancel()

    @contextmanager
    def track(self) -> Iterator[anyio.CancelScope]:
        with anyio.CancelScope() as scope:
            if self._closing:
                scope.cancel()
            self._scopes.add(scope)
            try:
                yield scope
            finally:
                self._scopes.discard(scope)

    def wrap(self, app: ASGIApp) -> ASGIApp:
        return _ClosableStreams(app, self)


class _ClosableStreams:
    # A class, not a function: Starlette treats a plain function endpoint as request -> response.
    def __init__(self, app: ASGIApp, streams: EventStreams) -> None:
        self.app = app
        self.streams = streams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        started = finished = False

        async def tracking_send(message: Message) -> None:
            nonlocal started, finished
            started = started or message["type"] == "http.response.start"
            finished = finished or (message["type"] == "http.response.body" and not message.get("more_body"))
            await send(message)

        with self.streams.track() as cancel_scope:
            await self.app(scope, receive, tracking_send)
        if cancel_scope.cancelled_caught and started and not finished:
            # End the chunked body cleanly so the client sees a closed stream, not an error.
            await send({"type": "http.response.body", "body": b"", "more_body": False})


# One application per worker process; the server's shutdown hook reaches it here.
EVENT_STREAMS = EventStreams()
AppStatus.disable_automatic_graceful_drain()


def json_response(status: int, value: Any) -> Response:
    return Response(canonical_json(value), status_code=status, media_type="application/json")


USER_ID = re.compile(r"[1-9][0-9]{0,8}")


def create_app() -> Starlette:
    """Factory called once per worker process (uvicorn `factory=True`)."""
    cfg = Config.from_env()
    backends = Backends()
    handlers = make_handlers(backends, DocumentValidator())

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOL_DEFS)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await call_tool(handlers, params.name, params.arguments)

    # The low-level server takes the contract's JSON schemas verbatim; MCPServer would
    # derive them from type hints (adding titles) and validate with pydantic instead.
    server = Server(f"perflab-{NAME}", version="1.0.0", on_list_tools=list_tools, on_call_tool=on_call_tool)
    manager = StreamableHTTPSessionManager(
        app=server,
        json_response=cfg.json_response,
        stateless=cfg.stateless,
        # The SDK's loopback DNS-rebinding guard, as it configures for 127.0.0.1.
        security_settings=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        ),
        # Sessions live until DELETE or shutdown (no idle reaping, no cap).
        session_idle_timeout=None,
        max_sessions=None,
        max_request_body_size=MAX_BODY_BYTES,
    )

    async def health(_: Request) -> Response:
        return json_response(200, {"status": "ok"})

    async def rest_time(_: Request) -> Response:
        return json_response(200, {"now_ms": time.time_ns() // 1_000_000})

    async def rest_user(request: Request) -> Response:
        raw = request.path_params["id"]
        if not USER_ID.fullmatch(raw):
            return json_response(400, {"error": "invalid id"})
        try:
            return json_response(200, await backends.lookup_user(int(raw)))
        except NotFound:
            return json_response(404, {"error": "not found"})
        except BackendError:
            return json_response(503, {"error": "database unavailable"})

    async def debug_runtime(_: Request) -> Response:
        # The manager keeps no public session count; its session map is the source.
        sessions = None if cfg.stateless else len(manager._server_instances)
        info = runtime_info(
            parallelism=cfg.workers, stateless=cfg.stateless, json_response=cfg.json_response, sessions=sessions
        )
        return json_response(200, info)

    @asynccontextmanager
    async def lifespan(_: Starlette):
        async with manager.run():
            try:
                yield
            finally:
                await backends.close()

    return Starlette(
        routes=[
            # A Route (not a Mount) so POST /mcp is served as is, never redirected to /mcp/.
            Route("/mcp", endpoint=EVENT_STREAMS.wrap(StreamableHTTPASGIApp(manager))),
            Route("/health", health, methods=["GET"]),
            Route("/rest/time", rest_time, methods=["GET"]),
            Route("/rest/users/{id}", rest_user, methods=["GET"]),
            Route("/debug/runtime", debug_runtime, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
