"""The door every request passes before any route runs: the token first, then a bounded body.

An unauthenticated request is answered 401 from its headers alone: its body is never read, so a
100 MB upload without a token costs the server nothing but the headers. An authenticated request's
body is read up to `max_body_bytes` (a Content-Length above that is a 413 at once; a chunked body is
cut off at the limit) and handed to the application from memory. Only liveness (/healthz) and static
assets (the dashboard's, and the API docs' Swagger UI and ReDoc bundles) are public.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote_to_bytes

from agent.server import docs
from agent.server.auth import Unauthorized, identify
from agent.server.dashboard import session as dashboard
from agent.server.settings import ServerSettings
from jarvis_sim.text import json_text_problem

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PUBLIC_PATHS = frozenset({"/healthz"})


class RequestGate:
    """ASGI middleware: authenticate from headers, then cap the body, before the application sees it."""

    def __init__(self, app: ASGIApp, settings: ServerSettings):
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        path = scope.get("path", "")
        if "\x00" in path or b"\x00" in unquote_to_bytes(scope.get("query_string", b"")):
            # No file, task id or database string may hold one; open() would raise deep inside a route.
            await _answer(send, 400, "the URL holds a NUL character (%00)")
            return
        if path not in PUBLIC_PATHS and not dashboard.is_public(path) and not docs.is_public(path):
            # A browser on the dashboard or the API docs presents its token in the sign-in cookie instead of
            # a header; the REST API never takes the cookie (a cross-site form must not be able to act as the
            # user). The docs' schema is a read-only GET, so the cookie may read it.
            authorization = headers.get("authorization", "")
            if not authorization and (dashboard.is_page(path) or docs.takes_cookie(path, scope.get("method", ""))):
                authorization = dashboard.cookie_authorization(headers.get("cookie", ""))
            try:
                scope.setdefault("state", {})["token_id"] = identify(self.settings, authorization)
            except Unauthorized as exc:
                if (dashboard.is_page(path) or path in docs.PAGES) and scope.get("method") == "GET":
                    await _answer(send, 303, "sign in", {"location": dashboard.LOGIN_PATH})
                    return
                await _answer(send, 401, str(exc), {"www-authenticate": "Bearer"})
                return
        limit = self.settings.max_body_bytes
        declared = headers.get("content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                await _answer(send, 400, f"Content-Length {declared[:40]!r} is not a number")
                return
            if size > limit:
                await _answer(send, 413, f"request body of {size} bytes is over this server's limit of {limit} "
                              "bytes (JARVIS_MAX_BODY_BYTES)")
                return
        if scope.get("method") in ("GET", "HEAD", "DELETE", "OPTIONS") and not declared:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        total = 0
        body_deadline = time.monotonic() + self.settings.body_timeout_s
        while True:
            try:  # a stalled or dripping upload holds nothing past the deadline
                message = await asyncio.wait_for(receive(), max(0.0, body_deadline - time.monotonic()))
            except TimeoutError:
                await _answer(send, 408, f"the request body did not arrive within {self.settings.body_timeout_s:g} s "
                              "(JARVIS_BODY_TIMEOUT_S)")
                return
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            total += len(body)
            if total > limit:
                await _answer(send, 413, f"request body is over this server's limit of {limit} bytes "
                              "(JARVIS_MAX_BODY_BYTES)")
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        whole = b"".join(chunks)
        problem = _text_problem(whole, headers.get("content-type", ""))
        if problem is not None:
            await _answer(send, 422, [{"type": "invalid_text", "loc": ["body", problem[0][:200]],
                                       "msg": f"text holds {problem[1]}: send valid Unicode without NUL characters"}])
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()  # after the body: wait for the disconnect, as the server would report it

        await self.app(scope, replay, send)


def _text_problem(body: bytes, content_type: str) -> tuple[str, str] | None:
    """(where, what) of a lone surrogate or NUL in a JSON body's strings, which no route could store or echo."""
    if "json" not in content_type.lower() or b"\\u" not in body:  # both arrive only as \u escapes
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None  # not JSON: the route's own validation says so
    return json_text_problem(data)


async def _answer(send: Send, status: int, detail: Any, extra: dict[str, str] | None = None) -> None:
    """A JSON error response sent straight from the gate."""
    payload = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
               (b"connection", b"close")]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
