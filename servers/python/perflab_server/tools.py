"""The ten contract tools: definitions, argument checks and handlers."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from .backends import BackendError, Backends, NotFound
from .compute import MAX_ECHO_BYTES, canonical_json, fibonacci, pad_message, transform_data
from .validate import DocumentValidator

log = logging.getLogger(__name__)


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _int(lo: int, hi: int, **extra: Any) -> dict[str, Any]:
    return {"type": "integer", "minimum": lo, "maximum": hi, **extra}


# Descriptions and input schemas exactly as CONTRACT.md lists them, so tools/list
# is the same on every server.
TOOL_DEFS: list[types.Tool] = [
    types.Tool(
        name="echo",
        description="Returns the message, padded to pad_to_bytes bytes.",
        input_schema=_schema({"message": {"type": "string"}, "pad_to_bytes": _int(0, 1048576)}, ["message"]),
    ),
    types.Tool(
        name="fibonacci",
        description="Computes the n-th Fibonacci number by naive recursion.",
        input_schema=_schema({"n": _int(0, 35)}, ["n"]),
    ),
    types.Tool(
        name="validate_document",
        description="Validates a document against the perflab order schema.",
        input_schema=_schema({"document": {"type": "object"}}, ["document"]),
    ),
    types.Tool(
        name="transform_data",
        description="Generates, sorts, groups and aggregates size records.",
        input_schema=_schema({"size": _int(1, 100000)}, ["size"]),
    ),
    types.Tool(
        name="sleep",
        description="Waits ms milliseconds, like a database call.",
        input_schema=_schema({"ms": _int(0, 10000)}, ["ms"]),
    ),
    types.Tool(
        name="fetch_upstream",
        description="Fetches the fixture API's /delay endpoint.",
        input_schema=_schema({"delay_ms": _int(0, 10000)}, ["delay_ms"]),
    ),
    types.Tool(
        name="search_products",
        description="Searches products and returns the most popular ones.",
        input_schema=_schema(
            {"query": {"type": "string", "pattern": "^[a-z]{1,32}$"}, "limit": _int(1, 50, default=10)}, ["query"]
        ),
    ),
    types.Tool(
        name="get_user_cart",
        description="Returns a user's cart, recommended product and recent orders.",
        input_schema=_schema({"user_id": _int(1, 1000)}, ["user_id"]),
    ),
    types.Tool(
        name="checkout",
        description="Prices items and records an order for a user.",
        input_schema=_schema(
            {
                "user_id": _int(1, 1000),
                "items": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 10,
                    "items": _schema(
                        {"product_id": _int(1, 100000), "quantity": _int(1, 10)}, ["product_id", "quantity"]
                    ),
                },
            },
            ["user_id", "items"],
        ),
    ),
    types.Tool(
        name="get_user",
        description="Looks up a user by primary key in Postgres.",
        input_schema=_schema({"id": _int(1, 100000)}, ["id"]),
    ),
]


class InvalidArgument(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(f"invalid_argument: {message}")


class UpstreamError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(f"upstream_error: {message}")


_MISSING = object()


def int_arg(args: dict[str, Any], name: str, lo: int, hi: int, default: Any = _MISSING) -> int:
    """The SDK's low-level server does not validate arguments, so every handler checks its own."""
    value = args.get(name, default)
    if value is _MISSING:
        raise InvalidArgument(f"{name} is required")
    # JSON Schema counts a number with a zero fraction as an integer (10.0, 1e1;
    # CONTRACT.md section 3); json parses those as float. bool is a subclass of
    # int in Python, but not a JSON integer.
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is not int or not lo <= value <= hi:
        raise InvalidArgument(f"{name} must be an integer in {lo}..{hi}")
    return value


def str_arg(args: dict[str, Any], name: str) -> str:
    value = args.get(name, _MISSING)
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} must be a string")
    return value


QUERY_SYNTAX = re.compile(r"[a-z]{1,32}")
PRODUCT_KEYS = ("id", "name", "category", "price_cents", "stock")


def recommended_product(user_id: int) -> int:
    return 1 + (user_id * 7919) % 100000


def _upstream_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError as exc:
        raise UpstreamError(f"fixture API answered malformed JSON: {exc}") from exc


def _product(value: Any) -> dict[str, Any]:
    try:
        return {key: value[key] for key in PRODUCT_KEYS}
    except (KeyError, TypeError) as exc:
        raise UpstreamError(f"fixture API answered a malformed product: {exc!r}") from exc


def _first_error(*results: Any) -> None:
    """Raises the first failure of a gather(return_exceptions=True), as a contract error."""
    for result in results:
        if isinstance(result, (BackendError, UpstreamError, NotFound)):
            raise result
        if isinstance(result, BaseException):
            raise BackendError(f"redis: {result!r}") from result


Handler = Callable[[dict[str, Any]], Awaitable[str]]


def make_handlers(backends: Backends, validator: DocumentValidator) -> dict[str, Handler]:
    async def echo(args: dict[str, Any]) -> str:
        message = str_arg(args, "message")
        pad_to = int_arg(args, "pad_to_bytes", 0, MAX_ECHO_BYTES, default=0)
        try:
            size = len(message) if message.isascii() else len(message.encode())
        except UnicodeEncodeError as exc:
            raise InvalidArgument("message is not valid Unicode") from exc
        if size > MAX_ECHO_BYTES:
            raise InvalidArgument(f"message is longer than {MAX_ECHO_BYTES} bytes")
        return pad_message(message, pad_to, size)

    async def fibonacci_tool(args: dict[str, Any]) -> str:
        n = int_arg(args, "n", 0, 35)
        # Runs on the event loop on purpose: CPU work competes with request handling.
        return canonical_json({"n": n, "value": fibonacci(n)})

    async def validate_document(args: dict[str, Any]) -> str:
        document = args.get("document")
        if not isinstance(document, dict):
            raise InvalidArgument("document must be an object")
        return canonical_json(validator.validate(document))

    async def transform(args: dict[str, Any]) -> str:
        return canonical_json(transform_data(int_arg(args, "size", 1, 100000)))

    async def sleep(args: dict[str, Any]) -> str:
        ms = int_arg(args, "ms", 0, 10000)
        await asyncio.sleep(ms / 1000)
        return canonical_json({"slept_ms": ms})

    async def fetch_upstream(args: dict[str, Any]) -> str:
        delay = int_arg(args, "delay_ms", 0, 10000)
        return (await backends.api("GET", f"/delay?ms={delay}")).decode()

    async def search_products(args: dict[str, Any]) -> str:
        query = str_arg(args, "query")
        if not QUERY_SYNTAX.fullmatch(query):
            raise InvalidArgument("query must match ^[a-z]{1,32}$")
        limit = int_arg(args, "limit", 1, 50, default=10)
        rdb = backends.redis()
        found, top = await asyncio.gather(
            backends.api("GET", f"/products/search?q={query}&limit={limit}"),
            rdb.zrange("products:popularity", 0, 4, desc=True, withscores=True),
            return_exceptions=True,
        )
        _first_error(found, top)
        body = _upstream_json(found)
        try:
            total, items = body["total"], [_product(item) for item in body["items"]]
            popular = [{"product_id": int(member), "score": int(score)} for member, score in top]
        except (KeyError, TypeError) as exc:
            raise UpstreamError(f"fixture API answered a malformed search: {exc!r}") from exc
        except ValueError as exc:
            raise BackendError(f"malformed popularity member: {exc}") from exc
        return canonical_json({"query": query, "total": total, "items": items, "popular": popular})

    async def get_user_cart(args: dict[str, Any]) -> str:
        user_id = int_arg(args, "user_id", 1, 1000)
        rdb = backends.redis()
        cart, product, history = await asyncio.gather(
            rdb.hgetall(f"user:{user_id}:cart"),
            backends.api("GET", f"/products/{recommended_product(user_id)}"),
            rdb.lrange(f"user:{user_id}:history", -5, -1),
            return_exceptions=True,
        )
        _first_error(cart, product, history)
        try:
            items = sorted(({"product_id": int(k), "quantity": int(v)} for k, v in cart.items()),
                           key=lambda item: item["product_id"])
            orders = [json.loads(entry) for entry in history]
        except ValueError as exc:
            raise BackendError(f"malformed cart or history entry: {exc}") from exc
        return canonical_json(
            {
                "user_id": user_id,
                "items": items,
                "item_count": sum(item["quantity"] for item in items),
                "recommended": _product(_upstream_json(product)),
                # Stored entries are canonical JSON, so parsing and re-encoding keeps them byte for byte.
                "recent_orders": orders,
            }
        )

    async def checkout(args: dict[str, Any]) -> str:
        user_id = int_arg(args, "user_id", 1, 1000)
        raw_items = args.get("items")
        if not isinstance(raw_items, list) or not 1 <= len(raw_items) <= 10:
            raise InvalidArgument("items must be an array of 1..10 entries")
        items = []
        for raw in raw_items:
            if not isinstance(raw, dict):
                raise InvalidArgument("items must hold objects")
            items.append(
                {"product_id": int_arg(raw, "product_id", 1, 100000), "quantity": int_arg(raw, "quantity", 1, 10)}
            )
        order = canonical_json({"items": items})
        history = f"user:{user_id}:history"

        async def record() -> list[Any]:
            # One round trip; MULTI is not needed (CONTRACT.md 4.9).
            async with backends.redis().pipeline(transaction=False) as pipe:
                pipe.incr("orders:count")
                pipe.rpush(history, order)
                pipe.ltrim(history, -50, -1)
                for item in items:
                    pipe.zincrby("products:popularity", item["quantity"], str(item["product_id"]))
                return await pipe.execute()

        priced, recorded = await asyncio.gather(
            backends.api("POST", "/cart/calculate", order.encode()), record(), return_exceptions=True
        )
        _first_error(priced, recorded)
        body = _upstream_json(priced)
        try:
            return canonical_json(
                {
                    "order_number": recorded[0],
                    "user_id": user_id,
                    "item_count": sum(item["quantity"] for item in items),
                    "subtotal_cents": body["subtotal_cents"],
                    "tax_cents": body["tax_cents"],
                    "total_cents": body["total_cents"],
                }
            )
        except (KeyError, TypeError) as exc:
            raise UpstreamError(f"fixture API answered a malformed price: {exc!r}") from exc

    async def get_user(args: dict[str, Any]) -> str:
        return canonical_json(await backends.lookup_user(int_arg(args, "id", 1, 100000)))

    return {
        "echo": echo,
        "fibonacci": fibonacci_tool,
        "validate_document": validate_document,
        "transform_data": transform,
        "sleep": sleep,
        "fetch_upstream": fetch_upstream,
        "search_products": search_products,
        "get_user_cart": get_user_cart,
        "checkout": checkout,
        "get_user": get_user,
    }


def text_result(text: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)


async def call_tool(handlers: dict[str, Handler], name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    handler = handlers.get(name)
    if handler is None:
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")
    try:
        return text_result(await handler(arguments or {}))
    except (InvalidArgument, UpstreamError, BackendError, NotFound) as exc:
        return text_result(str(exc), is_error=True)
    except Exception as exc:
        # Anything else is a bug, but the caller still gets an answer and the process stays up.
        log.exception("tool %s failed", name)
        return text_result(f"internal_error: {exc!r}", is_error=True)
