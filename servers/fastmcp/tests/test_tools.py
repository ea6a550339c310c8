"""The FastMCP tools in process: golden vectors, the listed schemas and how arguments are read."""

import hashlib

import pytest

from contract import VECTORS, contract_tools, without_sdk_extras


def only_text(result) -> str:
    """CONTRACT.md section 3: one text content, no structuredContent, not an error."""
    assert not result.is_error, result.content
    assert result.structured_content is None
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def test_vectors_cover_every_cpu_tool():
    assert {v["tool"] for v in VECTORS} == {"echo", "fibonacci", "transform_data", "validate_document"}


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_tool_result_matches_vector(calls, vector):
    text = only_text(calls.call(vector["tool"], vector["arguments"]))
    if "text" in vector:
        assert text == vector["text"]
    else:
        data = text.encode()
        assert len(data) == vector["text_bytes"]
        assert hashlib.sha256(data).hexdigest() == vector["text_sha256"]


def test_lists_the_contract_tools_with_their_schemas(calls):
    listed = {
        t.name: {"name": t.name, "description": t.description, "inputSchema": without_sdk_extras(t.input_schema)}
        for t in calls.list_tools()
    }
    assert listed == contract_tools()
    assert all(t.output_schema is None for t in calls.list_tools())


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        ("fibonacci", {"n": 10.0}, '{"n":10,"value":55}'),
        ("fibonacci", {"n": 1e1}, '{"n":10,"value":55}'),
        ("sleep", {"ms": 0, "unknown": [1, 2]}, '{"slept_ms":0}'),
        ("echo", {"message": "hi", "pad_to_bytes": 4.0}, "hiAB"),
    ],
)
def test_whole_numbers_count_as_integers_and_unknown_names_are_ignored(calls, tool, arguments, text):
    assert only_text(calls.call(tool, arguments)) == text


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("fibonacci", {"n": 10.5}),
        ("fibonacci", {"n": "10"}),
        ("fibonacci", {"n": True}),
        ("fibonacci", {"n": 36}),
        ("fibonacci", {"n": 1e30}),
        ("echo", {"message": 42}),
        ("echo", {"message": "x" * ((1 << 20) + 1)}),
        ("get_user", {"id": "42"}),
        ("validate_document", {"document": [1, 2]}),
        ("search_products", {"query": "Lamp"}),
        ("checkout", {"user_id": 1, "items": []}),
        ("checkout", {"user_id": 1, "items": [{"product_id": 1}]}),
    ],
)
def test_bad_arguments_are_error_results(calls, tool, arguments):
    result = calls.call(tool, arguments)
    assert result.is_error and len(result.content) == 1


def test_contract_errors_keep_their_code(calls):
    result = calls.call("get_user", {"id": 1})  # no DATABASE_URL here
    assert result.is_error and result.content[0].text.startswith("backend_unavailable: ")
    assert calls.call("echo", {"message": "é" * (1 << 19) + "x"}).content[0].text.startswith("invalid_argument: ")


def test_an_unknown_tool_is_an_error(calls):
    assert calls.call("no_such_tool", {}).is_error
