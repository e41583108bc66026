"""The request gate of a real uvicorn server: the token is checked from the headers before any body is read,
bodies are capped, and only liveness is public."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from agent.server.app import create_app
from tests.agent.server.conftest import make_settings

TOKEN = "gate-test-token-0123456789"


@pytest.fixture
def server(tmp_path: Path, quiz_plugin: None) -> Iterator[int]:
    """A real HTTP server (uvicorn in a thread) with a token and a 64 KiB body limit; yields its port."""
    app = create_app(make_settings(tmp_path, workers=0, api_token=TOKEN, max_body_bytes=65_536), start_workers=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not srv.started and time.time() < deadline:
        time.sleep(0.02)
    assert srv.started
    yield port
    srv.should_exit = True
    thread.join(timeout=10)


def _send_head(port: int, head: str, body_start: bytes = b"") -> tuple[str, float]:
    """Send request headers (and the first bytes of a body); the answer that comes back without the rest."""
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(head.encode() + b"\r\n" + body_start)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = sock.recv(65_536)
            if not chunk:
                break
            answer += chunk
    return answer.decode("latin-1"), time.perf_counter() - t0


def _post_head(length: int, token: str | None) -> str:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"POST /v1/episodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{auth}"
            f"Content-Length: {length}\r\n")


def test_an_unauthenticated_100_mb_body_is_refused_from_its_headers(server: int) -> None:
    answer, took = _send_head(server, _post_head(100 * 1024 * 1024, None), b'{"task_id": "')
    assert answer.startswith("HTTP/1.1 401") and "missing bearer token" in answer, answer
    assert took < 3.0  # answered without waiting for the other 99.99 MB
    answer, _ = _send_head(server, _post_head(100 * 1024 * 1024, "wrong-token"), b"{")
    assert answer.startswith("HTTP/1.1 401") and "invalid bearer token" in answer


def test_bodies_over_the_limit_are_413_before_parsing(server: int) -> None:
    answer, took = _send_head(server, _post_head(100 * 1024 * 1024, TOKEN), b"{")
    assert answer.startswith("HTTP/1.1 413") and "JARVIS_MAX_BODY_BYTES" in answer, answer
    assert took < 3.0
    # Chunked (no Content-Length): cut off once it passes the limit.
    chunk = b"x" * 40_000
    body = b"".join(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n" for _ in range(3)) + b"0\r\n\r\n"
    head = (f"POST /v1/episodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {TOKEN}\r\nTransfer-Encoding: chunked\r\n")
    answer, _ = _send_head(server, head, body)
    assert answer.startswith("HTTP/1.1 413"), answer


def test_only_liveness_is_public(server: int) -> None:
    import httpx

    base = f"http://127.0.0.1:{server}"
    live = httpx.get(f"{base}/healthz")
    assert live.status_code == 200 and live.json() == {"status": "ok"}
    for path in ("/metrics", "/openapi.json", "/v1/status", "/v1/suites"):
        assert httpx.get(base + path).status_code == 401, path
    for page in ("/docs", "/redoc"):  # a browser without the sign-in cookie is sent to sign in
        answer = httpx.get(base + page)
        assert answer.status_code == 303 and answer.headers["location"] == "/login", page
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx.get(f"{base}/metrics", headers=auth).status_code == 200
    status = httpx.get(f"{base}/v1/status", headers=auth).json()
    assert status["status"] == "ok" and "sandbox_layers" in status and "queue" in status
    ok = httpx.post(f"{base}/v1/episodes", headers=auth, json={"task_id": "quiz/1", "agent": {"name": "scripted"}})
    assert ok.status_code in (201, 202), ok.text  # a normal body passes the gate intact
