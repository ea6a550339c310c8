"""Entry point: `python -m perflab_server` serves the app with uvicorn (uvloop + httptools)."""

from __future__ import annotations

import logging
import signal
import socket
import sys

import uvicorn
from uvicorn.supervisors import Multiprocess

from .config import Config, ConfigError


def _start_line(cfg: Config, name: str) -> str:
    return (
        f"perflab {name} server listening on http://127.0.0.1:{cfg.port} "
        f"(stateless={str(cfg.stateless).lower()} json_response={str(cfg.json_response).lower()} "
        f"workers={cfg.workers})"
    )


class _Server(uvicorn.Server):
    """Prints the contract's start line once serving, and ends GET event streams when shutdown starts."""

    def __init__(self, config: uvicorn.Config, start_line: str) -> None:
        super().__init__(config)
        self._start_line = start_line

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(self._start_line, flush=True)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # Event streams never end on their own; in-flight POSTs are left to finish.
        from .app import EVENT_STREAMS  # loaded by now: this server runs the app in-process

        EVENT_STREAMS.close_all()
        await super().shutdown(sockets)


class _Supervisor(Multiprocess):
    """uvicorn's worker supervisor, printing the start line once every worker serves."""

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket], start_line: str) -> None:
        super().__init__(config, sockets)
        self._start_line = start_line
        self.failed = False

    def init_processes(self) -> None:
        super().init_processes()
        if all(p.wait_until_ready(60, self.should_exit) for p in self.processes):
            print(self._start_line, flush=True)
        else:
            print("a worker process failed to start", file=sys.stderr, flush=True)
            self.failed = True
            self.should_exit.set()


def main(app: str = "perflab_server.app:create_app", name: str = "python") -> int:
    """Serves `app` (an app factory's import path); servers/fastmcp runs its own app through it too."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        cfg = Config.from_env()
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr, flush=True)
        return 2

    config = uvicorn.Config(
        app,
        factory=True,
        host="127.0.0.1",
        port=cfg.port,
        workers=cfg.workers,
        loop="uvloop",
        http="httptools",
        ws="none",
        lifespan="on",
        log_config=None,
        log_level="warning",
        access_log=False,
        server_header=False,
        # Idle keep-alive connections stay 120 s, as in the Go server, so clients reuse them alike.
        timeout_keep_alive=120,
        # In-flight requests get 4 s, which keeps the whole exit inside the contract's 5 s.
        timeout_graceful_shutdown=4,
    )
    try:
        sock = config.bind_socket()
    except SystemExit:
        return 1  # uvicorn has printed why the port could not be bound

    # uvicorn re-raises the signal it caught once its graceful shutdown is done;
    # with these no-op handlers that ends in a clean return, so the exit code is 0.
    signal.signal(signal.SIGTERM, lambda *_: None)
    signal.signal(signal.SIGINT, lambda *_: None)

    if cfg.workers == 1:
        server = _Server(config, _start_line(cfg, name))
        server.run(sockets=[sock])
        return 0 if server.started else 1

    # Stateless only (Config enforces it): the workers share the bound socket and
    # the kernel spreads connections across them.
    supervisor = _Supervisor(config, [sock], _start_line(cfg, name))
    supervisor.run()
    return 1 if supervisor.failed else 0


if __name__ == "__main__":
    sys.exit(main())
