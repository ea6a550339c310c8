"""The FastMCP server: the contract's ten tools as decorated, typed functions.

The signatures are what FastMCP turns into input schemas and validates with pydantic; the work
behind them is servers/python's (`perflab_server`), so both Python servers do the same work and a
comparison of them measures the frameworks.
"""

from __future__ import annotations

import inspect
import logging
from typing import Annotated, Any

from typing_extensions import TypedDict

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from mcp_types import CallToolRequestParams
from pydantic import BeforeValidator, Field

from perflab_server.backends import BackendError, Backends, NotFound
from perflab_server.compute import MAX_ECHO_BYTES
from perflab_server.tools import InvalidArgument, UpstreamError, make_handlers
from perflab_server.validate import DocumentValidator

NAME = "fastmcp"
# The errors whose text starts with the contract's code (CONTRACT.md section 3).
CONTRACT_ERRORS = (InvalidArgument, UpstreamError, BackendError, NotFound)


def _json_number(value: Any) -> Any:
    # pydantic's lax mode would read "42" as 42 and true as 1; a JSON Schema integer is a
    # number with no fraction, so 10.0 stays accepted (as 10) and strings and booleans are not.
    if isinstance(value, (str, bool)):
        raise ValueError("must be a JSON number")
    return value


NUMBER = BeforeValidator(_json_number)


class OrderItem(TypedDict):
    product_id: Annotated[int, Field(ge=1, le=100000), NUMBER]
    quantity: Annotated[int, Field(ge=1, le=10), NUMBER]


class IgnoreUnknownArguments(Middleware):
    """Drops argument names a tool does not declare, which CONTRACT.md section 3 ignores.

    FastMCP validates a call like a Python call, so an unknown keyword would be an error.
    """

    def __init__(self, parameters: dict[str, frozenset[str]]) -> None:
        self.parameters = parameters

    async def on_call_tool(
        self, context: MiddlewareContext[CallToolRequestParams], call_next: CallNext[CallToolRequestParams, ToolResult]
    ) -> ToolResult:
        arguments, known = context.message.arguments, self.parameters.get(context.message.name)
        if arguments and known is not None and not arguments.keys() <= known:
            message = context.message.model_copy(update={"arguments": {k: v for k, v in arguments.items() if k in known}})
            context = context.copy(message=message)
        return await call_next(context)


# FastMCP registers these for every server (empty lists when nothing is registered) and so
# advertises the prompts and resources capabilities; the contract's servers offer tools only.
NOT_OFFERED = ("prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read")


def _serve_tools_only(mcp: FastMCP) -> None:
    # The SDK's low-level server derives its capabilities from its handlers and has no public remover.
    for method in NOT_OFFERED:
        mcp._mcp_server._request_handlers.pop(method, None)


def create_server(backends: Backends) -> FastMCP:
    """One server per worker process; the backend clients are its caller's (shared with the plain routes)."""
    handlers = make_handlers(backends, DocumentValidator())
    mcp = FastMCP(f"perflab-{NAME}", version="1.0.0")

    async def run(tool: str, arguments: dict[str, Any]) -> str:
        # The shared handlers re-check every range (CONTRACT.md section 3 asks servers to).
        try:
            return await handlers[tool](arguments)
        except CONTRACT_ERRORS as exc:
            # An expected answer, not a crash: FastMCP logs a ToolError at its own level.
            raise ToolError(str(exc), log_level=logging.DEBUG) from exc

    # output_schema=None: the result is the TEXT alone, with no structuredContent (section 3).
    @mcp.tool(output_schema=None)
    async def echo(
        message: str,
        # A default_factory, not `= 0`: the contract's schema publishes no default here.
        pad_to_bytes: Annotated[int, Field(ge=0, le=MAX_ECHO_BYTES, default_factory=int), NUMBER],
    ) -> str:
        """Returns the message, padded to pad_to_bytes bytes."""
        return await run("echo", {"message": message, "pad_to_bytes": pad_to_bytes})

    @mcp.tool(output_schema=None)
    async def fibonacci(n: Annotated[int, Field(ge=0, le=35), NUMBER]) -> str:
        """Computes the n-th Fibonacci number by naive recursion."""
        return await run("fibonacci", {"n": n})

    @mcp.tool(output_schema=None)
    async def validate_document(document: dict[str, Any]) -> str:
        """Validates a document against the perflab order schema."""
        return await run("validate_document", {"document": document})

    @mcp.tool(output_schema=None)
    async def transform_data(size: Annotated[int, Field(ge=1, le=100000), NUMBER]) -> str:
        """Generates, sorts, groups and aggregates size records."""
        return await run("transform_data", {"size": size})

    @mcp.tool(output_schema=None)
    async def sleep(ms: Annotated[int, Field(ge=0, le=10000), NUMBER]) -> str:
        """Waits ms milliseconds, like a database call."""
        return await run("sleep", {"ms": ms})

    @mcp.tool(output_schema=None)
    async def fetch_upstream(delay_ms: Annotated[int, Field(ge=0, le=10000), NUMBER]) -> str:
        """Fetches the fixture API's /delay endpoint."""
        return await run("fetch_upstream", {"delay_ms": delay_ms})

    @mcp.tool(output_schema=None)
    async def search_products(
        query: Annotated[str, Field(pattern=r"^[a-z]{1,32}$")],
        limit: Annotated[int, Field(ge=1, le=50), NUMBER] = 10,
    ) -> str:
        """Searches products and returns the most popular ones."""
        return await run("search_products", {"query": query, "limit": limit})

    @mcp.tool(output_schema=None)
    async def get_user_cart(user_id: Annotated[int, Field(ge=1, le=1000), NUMBER]) -> str:
        """Returns a user's cart, recommended product and recent orders."""
        return await run("get_user_cart", {"user_id": user_id})

    @mcp.tool(output_schema=None)
    async def checkout(
        user_id: Annotated[int, Field(ge=1, le=1000), NUMBER],
        items: Annotated[list[OrderItem], Field(min_length=1, max_length=10)],
    ) -> str:
        """Prices items and records an order for a user."""
        return await run("checkout", {"user_id": user_id, "items": items})

    @mcp.tool(output_schema=None)
    async def get_user(id: Annotated[int, Field(ge=1, le=100000), NUMBER]) -> str:  # noqa: A002 (the contract's name)
        """Looks up a user by primary key in Postgres."""
        return await run("get_user", {"id": id})

    _serve_tools_only(mcp)
    tools = (echo, fibonacci, validate_document, transform_data, sleep, fetch_upstream)
    tools += (search_products, get_user_cart, checkout, get_user)
    mcp.add_middleware(IgnoreUnknownArguments({t.__name__: frozenset(inspect.signature(t).parameters) for t in tools}))
    return mcp
