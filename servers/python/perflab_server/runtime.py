"""/debug/runtime and the effective parallelism (CONTRACT.md sections 1 and 7)."""

from __future__ import annotations

import gc
import math
import os
import platform
import time
from collections import deque
from typing import Any

_STARTED = time.monotonic()
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
RECENT_PAUSES_KEPT = 64  # the contract's cap on gc_pauses_recent


class GcTimer:
    """Times each collection from gc.callbacks' start to stop: CPython keeps no pause figures.

    A collection runs with the GIL held, so the whole interpreter stands still for its length.
    """

    def __init__(self) -> None:
        self.count = 0
        self.total_ms = 0.0
        self.recent: deque[list[float]] = deque(maxlen=RECENT_PAUSES_KEPT)
        self._started = 0.0

    def __call__(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        ms = (time.perf_counter() - self._started) * 1000
        self.count += 1
        self.total_ms += ms
        self.recent.append([self.count, ms])

    def pauses(self) -> list[list[float]]:
        """The recent pauses, copied before they are read: a collection may run (and append) while
        the copies are made, and a deque changed mid-iteration raises."""
        snapshot = list(self.recent)  # copied in C, allocating nothing that could start a collection
        return [list(pause) for pause in snapshot]


_GC_TIMER = GcTimer()
gc.callbacks.append(_GC_TIMER)


def cpu_limit() -> int:
    """CPUs this process may use: affinity, lowered by a cgroup v2 or v1 CPU quota (rounded up)."""
    cpus = len(os.sched_getaffinity(0))
    quota = _cgroup_quota()
    if quota is not None:
        cpus = min(cpus, max(1, math.ceil(quota)))
    return cpus


def _cgroup_quota() -> float | None:
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            limit, period = f.read().split()[:2]
        return None if limit == "max" else int(limit) / int(period)
    except (OSError, ValueError):
        pass
    try:
        with open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") as f:
            limit = int(f.read())
        with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us") as f:
            period = int(f.read())
        return None if limit <= 0 else limit / period
    except (OSError, ValueError):
        return None


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE_SIZE


def _threads() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return -1


def runtime_info(*, parallelism: int, stateless: bool, json_response: bool, sessions: int | None) -> dict[str, Any]:
    return {
        "runtime": {"name": "python", "version": platform.python_version()},
        "pid": os.getpid(),
        "uptime_ms": int((time.monotonic() - _STARTED) * 1000),
        "parallelism": parallelism,
        # CPython has no separately sized managed heap.
        "heap_used_bytes": None,
        "heap_total_bytes": None,
        "rss_bytes": _rss_bytes(),
        "gc_count": sum(generation["collections"] for generation in gc.get_stats()),
        "gc_pause_total_ms": _GC_TIMER.total_ms,
        "gc_pauses_recent": _GC_TIMER.pauses(),
        "threads": _threads(),
        "goroutines": None,
        "mcp": {"stateless": stateless, "json_response": json_response, "sessions": sessions},
    }
