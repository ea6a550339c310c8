"""The contract's files and an in-memory FastMCP client of a fresh server, for the tests."""

import asyncio
import json
import re
from pathlib import Path

from fastmcp import Client

from perflab_fastmcp.server import create_server
from perflab_server.backends import Backends

SERVERS = Path(__file__).resolve().parents[2]
VECTORS = json.loads((SERVERS / "contract" / "vectors.json").read_text())["tools"]
CONTRACT_MD = (SERVERS / "CONTRACT.md").read_text()


def contract_tools() -> dict[str, dict]:
    """Tool descriptions and input schemas as CONTRACT.md section 4 states them."""
    descriptions = dict(re.findall(r"^\|\s*`(\w+)`\s*\|\s*`([^`]+)`\s*\|\s*$", CONTRACT_MD, re.M))
    tools = {}
    for name, block in re.findall(r"^### 4\.\d+ `(\w+)`.*?```json\n(.*?)```", CONTRACT_MD, re.M | re.S):
        tools[name] = {"name": name, "description": descriptions[name], "inputSchema": json.loads(block)}
    assert len(tools) == 10
    return tools


def without_sdk_extras(schema):
    """What CONTRACT.md section 4 lets an SDK add: `title`, `$schema`, `additionalProperties`."""
    if isinstance(schema, list):
        return [without_sdk_extras(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    return {k: without_sdk_extras(v) for k, v in schema.items() if k not in ("title", "$schema", "additionalProperties")}


class Calls:
    """Synchronous calls through FastMCP's in-memory client (one event loop for the module)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.client = Client(create_server(Backends()))
        self.loop.run_until_complete(self.client.__aenter__())

    def call(self, name: str, arguments: dict):
        return self.loop.run_until_complete(self.client.call_tool_mcp(name, arguments))

    def list_tools(self):
        return self.loop.run_until_complete(self.client.list_tools_mcp()).tools

    def close(self) -> None:
        self.loop.run_until_complete(self.client.__aexit__(None, None, None))
        self.loop.close()
