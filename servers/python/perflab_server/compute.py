"""Pure work of the CPU tools: echo padding, fibonacci, xorshift32, transform_data, canonical JSON."""

from __future__ import annotations

import json
from typing import Any

PAD_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
MAX_ECHO_BYTES = 1 << 20

CATEGORIES = ("books", "electronics", "garden", "grocery", "health", "home", "sports", "toys")
REGIONS = ("apac", "emea", "latam", "na")
TRANSFORM_SEED = 42
_U32 = 0xFFFFFFFF

# The contract's canonical JSON: no whitespace, non-ASCII kept, control
# characters as \n/\t/... or lowercase \u00xx (Python's own escapes match).
_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)


def canonical_json(value: Any) -> str:
    return _encoder.encode(value)


def pad_message(message: str, pad_to: int, size: int | None = None) -> str:
    """Appends PAD_ALPHABET bytes until the UTF-8 length is pad_to; never truncates.

    `size` is the message's UTF-8 length when the caller has it (echo measured it already), so a
    1 MiB message is not encoded a second time."""
    missing = pad_to - (len(message.encode()) if size is None else size)
    if missing <= 0:
        return message
    reps, rest = divmod(missing, len(PAD_ALPHABET))
    # The padding is ASCII, so appending it as str keeps the byte count exact.
    return message + (PAD_ALPHABET * reps + PAD_ALPHABET[:rest]).decode("ascii")


def fibonacci(n: int) -> int:
    # Deliberately naive double recursion: the CPU workload every server runs identically.
    if n < 2:
        return n
    return fibonacci(n - 1) + fibonacci(n - 2)


class Xorshift32:
    """Marsaglia's 13/17/5 generator on unsigned 32-bit integers."""

    __slots__ = ("x",)

    def __init__(self, seed: int) -> None:
        self.x = seed & _U32

    def next(self) -> int:
        x = self.x
        x ^= (x << 13) & _U32
        x ^= x >> 17
        x ^= (x << 5) & _U32
        self.x = x
        return x


def transform_data(size: int) -> dict[str, Any]:
    """Generates, sorts, groups and aggregates size records (CONTRACT.md 4.4)."""
    rng = Xorshift32(TRANSFORM_SEED)
    nxt = rng.next
    # One tuple per record: (id, category, region index, amount_cents, quantity).
    records = [(i, CATEGORIES[nxt() % 8], nxt() % 4, nxt() % 100000, 1 + nxt() % 20) for i in range(size)]
    records.sort(key=lambda r: (r[1], -r[3], r[0]))

    groups = []
    start, total = 0, len(records)
    while start < total:
        category = records[start][1]
        end = start
        while end < total and records[end][1] == category:
            end += 1
        group = records[start:end]
        count = len(group)
        amount_sum = quantity_sum = revenue = 0
        regions = [0, 0, 0, 0]
        for _, _, region, amount, quantity in group:
            amount_sum += amount
            quantity_sum += quantity
            revenue += amount * quantity
            regions[region] += 1
        groups.append(
            {
                "category": category,
                "count": count,
                "total_amount_cents": amount_sum,
                "total_quantity": quantity_sum,
                "revenue_cents": revenue,
                "min_amount_cents": group[-1][3],
                "max_amount_cents": group[0][3],
                "mean_amount_cents": amount_sum // count,
                "p50_amount_cents": group[count // 2][3],
                "top_ids": [r[0] for r in group[:3]],
                "regions": dict(zip(REGIONS, regions)),
            }
        )
        start = end
    return {"size": size, "groups": groups}
