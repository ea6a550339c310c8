"""The real process over HTTP: FastAPI + FastMCP under uvicorn, in both modes, with the contract's limits."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
ACCEPT = "application/json, text/event-stream"
VERSION = "2025-06-18"
# As perflab.json starts it: servers/python's package beside this folder.
ENV = {"PYTHONPATH": "../python"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, **env: str) -> None:
        self.port = free_port()
        full_env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "FIXTURE_API_URL", "DATABASE_URL")}
        full_env.update(ENV, PORT=str(self.port), **{"WEB_CONCURRENCY": "1", **env})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "perflab_fastmcp"], cwd=ROOT, env=full_env, stdout=subprocess.PIPE, text=True
        )
        line = self.proc.stdout.readline()
        assert f"perflab fastmcp server listening on http://127.0.0.1:{self.port}" in line, line
        self.base = f"http://127.0.0.1:{self.port}"
        self.http = httpx.Client(base_url=self.base, timeout=10)

    def stop(self) -> tuple[int, float]:
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=10)
        self.http.close()
        return code, time.monotonic() - started


@pytest.fixture
def stateful():
    server = Server()
    yield server
    if server.proc.poll() is None:
        server.stop()


def rpc(server: Server, method: str, params=None, session: str | None = None, id_: int | None = 1, **headers: str):
    headers = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": VERSION, **headers}
    if session:
        headers["Mcp-Session-Id"] = session
    message = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        message["id"] = id_
    if params is not None:
        message["params"] = params
    return server.http.post("/mcp", content=json.dumps(message), headers=headers)


def message_of(resp: httpx.Response) -> dict:
    if resp.headers["content-type"].startswith("application/json"):
        return resp.json()
    data = [line[5:].strip() for line in resp.text.splitlines() if line.startswith("data:") and line[5:].strip()]
    assert len(data) == 1, resp.text
    return json.loads(data[0])


def initialize(server: Server) -> str | None:
    params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    resp = rpc(server, "initialize", params)
    assert resp.status_code == 200
    result = message_of(resp)["result"]
    assert result["serverInfo"] == {"name": "perflab-fastmcp", "version": "1.0.0"}
    assert "tools" in result["capabilities"] and "instructions" not in result
    assert "prompts" not in result["capabilities"] and "resources" not in result["capabilities"]
    session = resp.headers.get("mcp-session-id")
    assert rpc(server, "notifications/initialized", session=session, id_=None).status_code == 202
    return session


def test_stateful_lifecycle_with_event_stream_and_delete(stateful):
    session = initialize(stateful)
    assert session
    resp = rpc(stateful, "tools/call", {"name": "fibonacci", "arguments": {"n": 20}}, session=session)
    assert resp.headers["content-type"].startswith("text/event-stream")
    assert message_of(resp)["result"]["content"] == [{"type": "text", "text": '{"n":20,"value":6765}'}]

    with stateful.http.stream("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session}) as s:
        assert s.status_code == 200 and s.headers["content-type"].startswith("text/event-stream")
    assert stateful.http.get("/debug/runtime").json()["mcp"]["sessions"] == 1

    assert stateful.http.request("DELETE", "/mcp", headers={"Mcp-Session-Id": session}).status_code in (200, 204)
    assert rpc(stateful, "tools/list", session=session).status_code == 404
    assert stateful.http.get("/debug/runtime").json()["mcp"]["sessions"] == 0


def test_foreign_hosts_are_refused(stateful):
    params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    for headers in ({"Host": "rebound.example"}, {"Origin": "http://rebound.example"}):
        resp = rpc(stateful, "initialize", params, **headers)
        assert resp.status_code in (403, 421) and "mcp-session-id" not in resp.headers


def test_plain_routes(stateful):
    assert stateful.http.get("/health").text == '{"status":"ok"}'
    assert abs(stateful.http.get("/rest/time").json()["now_ms"] - time.time() * 1000) < 60_000
    for bad in ("0", "01", "+1", "%2B1", "1e3", "-1", "1234567890"):
        answer = stateful.http.get(f"/rest/users/{bad}")
        assert (answer.status_code, answer.text) == (400, '{"error":"invalid id"}'), bad
    assert stateful.http.get("/rest/users/1").text == '{"error":"database unavailable"}'  # no DATABASE_URL
    info = stateful.http.get("/debug/runtime").json()
    assert list(info) == [
        "runtime", "pid", "uptime_ms", "parallelism", "heap_used_bytes", "heap_total_bytes", "rss_bytes",
        "gc_count", "gc_pause_total_ms", "gc_pauses_recent", "threads", "goroutines", "mcp",
    ]  # fmt: skip
    assert info["runtime"]["name"] == "python" and info["pid"] == stateful.proc.pid and info["parallelism"] == 1
    assert info["mcp"] == {"stateless": False, "json_response": False, "sessions": 0}


def test_bodies_up_to_8_mib_are_accepted_and_larger_ones_refused(stateful):
    session = initialize(stateful)
    message = "\x01" * (1 << 20)  # 1 MiB that JSON-escapes to 6 MiB, above FastMCP's own 4 MiB
    resp = rpc(stateful, "tools/call", {"name": "echo", "arguments": {"message": message}}, session=session)
    assert resp.status_code == 200 and not resp.history
    assert message_of(resp)["result"]["content"][0]["text"] == message
    too_big = rpc(stateful, "tools/call", {"name": "echo", "arguments": {"message": "x" * (8 << 20)}}, session=session)
    assert too_big.status_code == 413


def test_sigterm_closes_event_streams_lets_requests_finish_and_exits_zero(stateful):
    session = initialize(stateful)
    results, stream_open = {}, threading.Event()

    def slow_call():
        resp = rpc(stateful, "tools/call", {"name": "sleep", "arguments": {"ms": 1000}}, session=session, id_=7)
        results["sleep"] = message_of(resp)["result"]["content"][0]["text"]

    def event_stream():
        headers = {"Accept": "text/event-stream", "Mcp-Session-Id": session}
        with httpx.stream("GET", stateful.base + "/mcp", headers=headers, timeout=10) as s:
            results["stream_status"] = s.status_code
            stream_open.set()
            for _ in s.iter_bytes():
                pass
            results["stream_closed"] = True

    threads = [threading.Thread(target=event_stream), threading.Thread(target=slow_call)]
    threads[0].start()
    # As the conformance suite does: the stream is open, then the call is sent and reaches the server.
    assert stream_open.wait(10)
    threads[1].start()
    time.sleep(0.5)
    code, elapsed = stateful.stop()
    for t in threads:
        t.join(timeout=5)
    assert code == 0 and elapsed < 5
    assert results == {"sleep": '{"slept_ms":1000}', "stream_status": 200, "stream_closed": True}


def test_stateless_json_mode_answers_without_a_session():
    server = Server(MCP_STATELESS="1", MCP_JSON_RESPONSE="1")
    try:
        resp = rpc(server, "tools/call", {"name": "transform_data", "arguments": {"size": 1}})
        assert resp.headers["content-type"].startswith("application/json")
        assert "mcp-session-id" not in resp.headers
        assert json.loads(message_of(resp)["result"]["content"][0]["text"])["size"] == 1
        assert initialize(server) is None
        assert server.http.get("/mcp", headers={"Accept": "text/event-stream"}).status_code == 405
        assert server.http.request("DELETE", "/mcp").status_code == 405
        assert server.http.get("/debug/runtime").json()["mcp"] == {"stateless": True, "json_response": True, "sessions": None}
    finally:
        assert server.stop()[0] == 0


def test_workers_serve_stateless_and_refuse_sessions():
    server = Server(MCP_STATELESS="1", WEB_CONCURRENCY="2")
    try:
        pids = {server.http.get("/debug/runtime").json()["pid"] for _ in range(20)}
        assert pids and server.proc.pid not in pids
        assert server.http.get("/debug/runtime").json()["parallelism"] == 2
        resp = rpc(server, "tools/call", {"name": "fibonacci", "arguments": {"n": 10}})
        assert message_of(resp)["result"]["content"][0]["text"] == '{"n":10,"value":55}'
    finally:
        assert server.stop()[0] == 0
    env = dict(os.environ, **ENV, PORT=str(free_port()), WEB_CONCURRENCY="2")
    env.pop("MCP_STATELESS", None)
    cmd = [sys.executable, "-m", "perflab_fastmcp"]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0 and "WEB_CONCURRENCY" in proc.stderr
