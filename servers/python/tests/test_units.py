"""Pure pieces: padding, generator, aggregation, canonical JSON, validation, argument checks, config."""

import asyncio
from pathlib import Path

import pytest

from perflab_server.backends import Backends
from perflab_server.compute import PAD_ALPHABET, Xorshift32, canonical_json, fibonacci, pad_message, transform_data
from perflab_server.config import Config, ConfigError
from perflab_server.tools import call_tool, make_handlers
from perflab_server.validate import DocumentValidator, ecma_pattern

CONTRACT = Path(__file__).resolve().parents[2] / "contract"
PACKAGE = Path(__file__).resolve().parents[1] / "perflab_server"


@pytest.mark.parametrize("size", [0, 1, 63, 64, 65, 1024, 1048576])
def test_pad_reaches_exact_byte_length(size):
    got = pad_message("hello", size)
    assert len(got.encode()) == max(size, 5)
    assert got.startswith("hello")


def test_pad_counts_utf8_bytes_and_never_truncates():
    assert pad_message("héllo", 8) == "hélloAB"
    assert pad_message("a long message", 3) == "a long message"
    assert pad_message("", 70) == PAD_ALPHABET.decode() + "ABCDEF"


def test_fibonacci_known_values():
    assert [fibonacci(n) for n in (0, 1, 2, 10, 20)] == [0, 1, 1, 55, 6765]


def test_xorshift32_first_outputs_from_seed_42():
    rng = Xorshift32(42)
    assert [rng.next() for _ in range(5)] == [11355432, 2836018348, 476557059, 3648046016, 3759983556]


def test_transform_aggregates_every_record_once_in_category_order():
    groups = transform_data(5000)["groups"]
    assert [g["category"] for g in groups] == sorted(g["category"] for g in groups)
    assert sum(g["count"] for g in groups) == 5000
    for g in groups:
        assert sum(g["regions"].values()) == g["count"]
        assert g["min_amount_cents"] <= g["p50_amount_cents"] <= g["max_amount_cents"]
        assert len(g["top_ids"]) == 3


def test_canonical_json_escapes_only_what_the_contract_says():
    assert canonical_json({"a": "<&>/é\u0001\n\"\\", "b": [1, True, None]}) == '{"a":"<&>/é\\u0001\\n\\"\\\\","b":[1,true,null]}'


def test_document_schema_is_the_contract_copy():
    assert (PACKAGE / "document.schema.json").read_bytes() == (CONTRACT / "document.schema.json").read_bytes()


def test_validator_counts_distinct_failing_locations():
    doc = {
        "id": "x",
        "createdAt": "2024-01-01",
        "status": "paid",
        "customer": {"name": "A", "email": "a@b.co"},
        "items": [{"sku": "ABC-1234", "quantity": 1, "unitPriceCents": -1.5}],
    }
    # type and minimum fail at one place: counted once.
    assert DocumentValidator().validate(doc) == {
        "valid": False,
        "error_count": 2,
        "error_paths": ["/id", "/items/0/unitPriceCents"],
    }


def test_date_format_rejects_a_trailing_newline():
    doc = {
        "id": "3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b",
        "createdAt": "2024-01-01\n",
        "status": "paid",
        "customer": {"name": "A", "email": "a@b.co"},
        "items": [{"sku": "ABC-1234", "quantity": 1, "unitPriceCents": 1}],
    }
    assert DocumentValidator().validate(doc)["error_paths"] == ["/createdAt"]


def test_patterns_end_at_the_end_of_the_string_as_in_ecma_262():
    doc = {
        "id": "3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b",
        "createdAt": "2024-01-01",
        "status": "paid",
        "customer": {"name": "A", "email": "a@b.co", "address": {"street": "s", "city": "c", "country": "GB\n"}},
        "items": [{"sku": "ABC-1234\n", "quantity": 1, "unitPriceCents": 1}],
        "tags": ["ok", "b2b\n"],
    }
    assert DocumentValidator().validate(doc)["error_paths"] == ["/customer/address/country", "/items/0/sku", "/tags/1"]


@pytest.mark.parametrize(
    "pattern,text,matches",
    [
        ("^[A-Z]{2}$", "GB", True),
        ("^[A-Z]{2}$", "GB\n", False),
        ("^[a-z]+$", "ab\ncd", False),
        ("a$|^b", "b\n", True),  # an alternative without `$` is untouched
        ("^[$]$", "$", True),  # `$` in a class is a literal
        ("^a\\$$", "a$", True),  # so is an escaped `$`
        ("^a\\$$", "a$\n", False),
    ],
)
def test_ecma_pattern(pattern, text, matches):
    assert (ecma_pattern(pattern).search(text) is not None) is matches


@pytest.fixture(scope="module")
def handlers():
    return make_handlers(Backends(), DocumentValidator())


@pytest.mark.parametrize(
    "tool,args",
    [
        ("fibonacci", {"n": 36}),
        ("fibonacci", {"n": -1}),
        ("fibonacci", {"n": "5"}),
        ("fibonacci", {"n": True}),
        ("fibonacci", {"n": 5.5}),
        ("fibonacci", {"n": 35.0000001}),
        ("fibonacci", {"n": 36.0}),
        ("fibonacci", {"n": float("inf")}),
        ("fibonacci", {"n": float("nan")}),
        ("echo", {"message": "x", "pad_to_bytes": 2.5}),
        ("checkout", {"user_id": 1, "items": [{"product_id": 1, "quantity": 1.5}]}),
        ("fibonacci", {}),
        ("transform_data", {"size": 10000000}),
        ("echo", {"message": 5}),
        ("echo", {"message": "x", "pad_to_bytes": 1048577}),
        ("echo", {"message": "x" * 1048577}),
        ("validate_document", {"document": [1]}),
        ("sleep", {"ms": 10001}),
        ("search_products", {"query": "Amber"}),
        ("checkout", {"user_id": 1, "items": []}),
        ("checkout", {"user_id": 1, "items": [{"product_id": 1}]}),
    ],
)
def test_bad_arguments_are_tool_errors(handlers, tool, args):
    result = asyncio.run(call_tool(handlers, tool, args))
    assert result.is_error
    assert result.content[0].text.startswith("invalid_argument: ")


@pytest.mark.parametrize(
    "tool,args,text",
    [
        ("fibonacci", {"n": 10.0}, '{"n":10,"value":55}'),
        ("fibonacci", {"n": 1e1}, '{"n":10,"value":55}'),
        ("fibonacci", {"n": -0.0}, '{"n":0,"value":0}'),
        ("echo", {"message": "a", "pad_to_bytes": 3.0}, "aAB"),
        ("transform_data", {"size": 1.0}, None),
    ],
)
def test_whole_number_floats_are_integers(handlers, tool, args, text):
    """JSON Schema's integer is any number with a zero fraction (CONTRACT.md section 3)."""
    result = asyncio.run(call_tool(handlers, tool, args))
    assert not result.is_error, result.content[0].text
    whole = {k: int(v) if isinstance(v, float) else v for k, v in args.items()}
    assert result.content[0].text == asyncio.run(call_tool(handlers, tool, whole)).content[0].text
    if text is not None:
        assert result.content[0].text == text


@pytest.mark.parametrize(
    "tool,args",
    [
        ("fetch_upstream", {"delay_ms": 1}),
        ("search_products", {"query": "amber"}),
        ("get_user_cart", {"user_id": 1}),
        ("checkout", {"user_id": 1, "items": [{"product_id": 1, "quantity": 1}]}),
        ("get_user", {"id": 1}),
    ],
)
def test_io_tools_without_backends_are_backend_unavailable(tool, args, monkeypatch):
    for name in ("REDIS_URL", "FIXTURE_API_URL", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    result = asyncio.run(call_tool(make_handlers(Backends(), DocumentValidator()), tool, args))
    assert result.is_error
    assert result.content[0].text.startswith("backend_unavailable: ")


def test_config_refuses_several_workers_for_stateful_sessions(monkeypatch):
    monkeypatch.delenv("MCP_STATELESS", raising=False)
    monkeypatch.setenv("WEB_CONCURRENCY", "2")
    with pytest.raises(ConfigError):
        Config.from_env()
    monkeypatch.setenv("MCP_STATELESS", "1")
    assert Config.from_env().workers == 2
    monkeypatch.setenv("WEB_CONCURRENCY", "auto")
    assert Config.from_env().workers >= 1
    monkeypatch.delenv("WEB_CONCURRENCY")
    assert Config.from_env().workers == 1


def test_config_rejects_unknown_flag_values(monkeypatch):
    monkeypatch.setenv("MCP_JSON_RESPONSE", "yes")
    with pytest.raises(ConfigError):
        Config.from_env()


def test_gc_pauses_recent_lists_each_forced_collection_once_within_the_total():
    import gc

    from perflab_server.runtime import runtime_info

    def info():
        return runtime_info(parallelism=1, stateless=True, json_response=True, sessions=None)

    before = info()
    last_seen = before["gc_pauses_recent"][-1][0] if before["gc_pauses_recent"] else 0
    for _ in range(5):
        gc.collect()
    after = info()
    fresh = [pause for pause in after["gc_pauses_recent"] if pause[0] > last_seen]
    # One timed pause per collection gc.get_stats() counts: the five forced and any the allocator ran.
    assert len(fresh) == after["gc_count"] - before["gc_count"] >= 5
    assert [n for n, _ in fresh] == list(range(last_seen + 1, last_seen + 1 + len(fresh)))
    longest = max(ms for _, ms in fresh)
    assert 0 < longest <= after["gc_pause_total_ms"] - before["gc_pause_total_ms"]


def test_gc_timer_keeps_the_newest_64_pauses_numbered_from_1():
    from perflab_server.runtime import RECENT_PAUSES_KEPT, GcTimer

    timer = GcTimer()
    for _ in range(RECENT_PAUSES_KEPT + 2):
        timer("start", {})
        timer("stop", {})
    assert timer.count == RECENT_PAUSES_KEPT + 2 and len(timer.recent) == RECENT_PAUSES_KEPT
    assert [n for n, _ in timer.recent] == list(range(3, RECENT_PAUSES_KEPT + 3))


def test_gc_pauses_are_read_while_collections_run():
    import gc

    from perflab_server.runtime import RECENT_PAUSES_KEPT, GcTimer

    timer = GcTimer()
    gc.callbacks.append(timer)
    thresholds = gc.get_threshold()
    try:
        for _ in range(RECENT_PAUSES_KEPT):
            gc.collect()
        # A collection at nearly every allocation: reading must not iterate what the callback appends to.
        gc.set_threshold(1, 1, 1)
        for _ in range(200):
            pauses = timer.pauses()
            assert len(pauses) == RECENT_PAUSES_KEPT
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(timer)
