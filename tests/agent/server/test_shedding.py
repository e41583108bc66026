"""A server that sheds load, on real sockets: idle connections up to and past the fd limit (lowered in the
server's own process, never the host's) cannot starve /healthz or an authenticated POST, dripping headers
are cut off, and the log stays small."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import httpx
import pytest

from tests.agent.server.live_server import live_server

TOKEN = "token-shed-cccccccccccccccc"
NOFILE = 256


@pytest.mark.slow
def test_idle_connections_past_the_fd_limit_do_not_starve_health_or_posts(tmp_path: Path) -> None:
    env = {"JARVIS_API_TOKEN": TOKEN, "JARVIS_HEADER_TIMEOUT_S": "3", "JARVIS_LOG_REPEAT_S": "60"}
    with live_server(tmp_path, env, nofile=NOFILE) as server:
        idle: list[socket.socket] = []
        with httpx.Client(base_url=server.url, timeout=30) as warm:  # the task registry loads on first use
            warm.post("/v1/episodes", json={"task_id": "no/such-task", "agent": {"name": "scripted"}},
                      headers={"Authorization": f"Bearer {TOKEN}"})
        try:
            for _ in range(NOFILE + 100):  # more than the server could ever hold open
                s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
                idle.append(s)
            time.sleep(2.0)  # the server has accepted (and evicted) them all
            timings = {}
            with httpx.Client(base_url=server.url, timeout=5) as client:
                t0 = time.monotonic()
                assert client.get("/healthz").status_code == 200
                timings["healthz_s"] = time.monotonic() - t0
                t0 = time.monotonic()
                r = client.post("/v1/episodes", json={"task_id": "no/such-task", "agent": {"name": "scripted"}},
                                headers={"Authorization": f"Bearer {TOKEN}"})
                timings["post_s"] = time.monotonic() - t0
                assert r.status_code == 404, r.text  # answered by the application, not dropped
            # A client dripping its headers is cut off at the header deadline.
            drip = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            drip.sendall(b"GET /healthz HTTP/1.1\r\n")
            t0 = time.monotonic()
            closed = False
            while time.monotonic() - t0 < 8:
                try:
                    drip.sendall(b"X")
                    time.sleep(0.2)
                except OSError:
                    closed = True
                    break
                drip.settimeout(0.01)
                try:
                    if drip.recv(1) == b"":
                        closed = True
                        break
                except (TimeoutError, BlockingIOError):
                    pass
            timings["drip_cut_after_s"] = time.monotonic() - t0
            drip.close()
        finally:
            for s in idle:
                s.close()
        log = server.log_bytes()
    print(json.dumps({**{k: round(v, 3) for k, v in timings.items()}, "log_bytes": log}))
    assert timings["healthz_s"] < 1.0 and timings["post_s"] < 1.0, timings
    assert closed and timings["drip_cut_after_s"] < 6.0, timings
    assert log < 1 << 20, log
