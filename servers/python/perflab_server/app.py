"""The ASGI application: MCP Streamable HTTP at /mcp plus the plain routes."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
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
from .config import Config
from .runtime import runtime_info
from .tools import TOOL_DEFS, call_tool, make_handlers
from .validate import DocumentValidator

NAME = "python"
# The contract's body limit (the SDK's default is 4 MiB): a 1 MiB echo message of
# control characters is 6 MiB once JSON-escaped. The SDK answers 413 above it.
MAX_BODY_BYTES = 8 * 1024 * 1024


class EventStreams:
    """Open GET event streams of /mcp, ended at once when shutdown starts.

    sse-starlette's own shutdown hook would also cut POST responses that are still
    streaming their result; the contract wants those to finish, so that hook is
    turned off and only GET streams are ended here.
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


class McpEndpoint:
    """/mcp: the SDK's Streamable HTTP app, plus what the contract adds around it."""

    # A class, not a function: Starlette treats a plain function endpoint as request -> response.
    def __init__(self, app: ASGIApp, streams: EventStreams, stateless: bool) -> None:
        self.app = app
        self.streams = streams
        self.stateless = stateless

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        if self.stateless and method in ("GET", "DELETE"):
            # The SDK would open an event stream that no session owns; the contract says 405.
            await METHOD_NOT_ALLOWED(scope, receive, send)
            return
        if method != "GET":
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


def json_response(status: int, value: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(canonical_json(value), status_code=status, headers=headers, media_type="application/json")


METHOD_NOT_ALLOWED = json_response(405, {"error": "method not allowed"}, {"Allow": "POST"})


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
            Route("/mcp", endpoint=McpEndpoint(StreamableHTTPASGIApp(manager), EVENT_STREAMS, cfg.stateless)),
            Route("/health", health, methods=["GET"]),
            Route("/rest/time", rest_time, methods=["GET"]),
            Route("/rest/users/{id}", rest_user, methods=["GET"]),
            Route("/debug/runtime", debug_runtime, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
