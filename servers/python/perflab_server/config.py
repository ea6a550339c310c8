"""Configuration from the environment (CONTRACT.md section 1); light, so the worker supervisor can import it."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .runtime import cpu_limit


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
        if raw_workers == "auto":
            workers = cpu_limit()
        elif raw_workers:
            if not raw_workers.isdigit() or int(raw_workers) < 1:
                raise ConfigError(f"WEB_CONCURRENCY must be a positive integer or auto, got {raw_workers!r}")
            workers = int(raw_workers)
        else:
            # One event loop by default, as the Node server; several only when asked.
            workers = 1
        if workers > 1 and not stateless:
            raise ConfigError("WEB_CONCURRENCY > 1 needs MCP_STATELESS=1: sessions live in one process's memory")
        return cls(int(raw_port), stateless, _flag("MCP_JSON_RESPONSE"), workers)
