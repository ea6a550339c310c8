"""Every tool vector of servers/contract/vectors.json, through the handlers the MCP server calls."""

import asyncio
import hashlib
import json
from pathlib import Path

import pytest

from perflab_server.backends import Backends
from perflab_server.tools import call_tool, make_handlers
from perflab_server.validate import DocumentValidator

CONTRACT = Path(__file__).resolve().parents[2] / "contract"
VECTORS = json.loads((CONTRACT / "vectors.json").read_text())["tools"]


@pytest.fixture(scope="module")
def handlers():
    return make_handlers(Backends(), DocumentValidator())


def test_vectors_cover_every_cpu_tool():
    assert {v["tool"] for v in VECTORS} == {"echo", "fibonacci", "transform_data", "validate_document"}
    assert len(VECTORS) >= 10


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_tool_result_matches_vector(handlers, vector):
    result = asyncio.run(call_tool(handlers, vector["tool"], vector["arguments"]))
    wire = result.model_dump(by_alias=True, exclude_none=True)
    assert not wire.get("isError")
    assert "structuredContent" not in wire
    assert len(result.content) == 1 and result.content[0].type == "text"
    text = result.content[0].text
    if "text" in vector:
        assert text == vector["text"]
    else:
        data = text.encode()
        assert len(data) == vector["text_bytes"]
        assert hashlib.sha256(data).hexdigest() == vector["text_sha256"]
