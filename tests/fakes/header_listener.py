"""A loopback HTTP listener that records every request's method, path and headers, then answers as told.

It stands where an attacker's host would: a test points a model string or a named endpoint at it and
then checks who called, with which Authorization header, and what the caller made of the answer.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class Seen:
    """One request the listener received."""

    method: str
    path: str
    headers: dict[str, str]


class HeaderListener:
    """Records requests on 127.0.0.1:<free port>; answers every one with `status` and the JSON `body`."""

    def __init__(self, status: int = 200, body: dict[str, Any] | None = None):
        self.status, self.body = status, body or {}
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                if length:
                    self.rfile.read(length)
                with listener._lock:
                    listener.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
                payload = json.dumps(listener.body).encode()
                self.send_response(listener.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _answer  # http.server dispatches on these names

            def log_message(self, *_args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:PORT/v1"""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def requests(self) -> list[Seen]:
        """What was received so far."""
        with self._lock:
            return list(self.seen)

    def __enter__(self) -> HeaderListener:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()
