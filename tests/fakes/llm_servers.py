"""Fake LLM servers speaking the real wire protocols over real HTTP on loopback.

`FakeOpenAIServer` answers `POST .../chat/completions`; `FakeAnthropicServer` answers `POST /v1/messages`.
Each plays a script: a list whose items are answered in order, one per request:
- `Reply(text, ...)` or a plain string: a successful answer with usage numbers;
- `Fail(status, message, headers)`: an HTTP error in the provider's error format (429, 500, 400...);
- `Stall(seconds, then)`: wait before answering (longer than the client timeout = a timeout);
- `Drip(interval_s, then)`: send the whole answer, status line and headers included, one byte every
  `interval_s` (no single read ever waits long: only a total deadline ends it);
- a callable `f(body: dict) -> item`: decide from the request (e.g. answer the prompt's question).
When the script runs out, `default` answers (a 500 naming the exhausted script, unless set).
`latency_s` and `jitter_s` make every answer late, as real multimodal models are (10-60 s): each
request waits latency_s plus a seeded uniform draw in [0, jitter_s) before it is answered.
Requests that break the protocol (missing fields, malformed image parts, no key header) get the 400 a
real server would send, so a passing test shows the client produced the right shape. Every request is
kept in `.requests` (path, headers, parsed body) for assertions.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """A successful answer."""

    text: str
    input_tokens: int = 11
    output_tokens: int = 7
    model: str | None = None  # None: echo the requested model
    finish_reason: str = "stop"
    # OpenAI only: function calls as (name, arguments dict); the answer then finishes with "tool_calls".
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()


@dataclass(frozen=True)
class Fail:
    """An HTTP error answer."""

    status: int
    message: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Stall:
    """Wait `seconds` before answering with `then` (a client with a shorter timeout gives up first)."""

    seconds: float
    then: Reply | Fail | None = None


@dataclass(frozen=True)
class Drip:
    """Answer with `then`, written one byte every `interval_s`, headers included."""

    interval_s: float
    then: Reply | None = None


ScriptItem = Reply | Fail | Stall | Drip | str | Callable[[dict[str, Any]], Any]

LATENCY_ENV = "JARVIS_FAKE_LLM_LATENCY"


def latency_from_env() -> dict[str, float]:
    """Latency settings from $JARVIS_FAKE_LLM_LATENCY ("BASE" or "BASE:JITTER", seconds), or none.

    Lets a whole module of fake-model tests run as slow as a real model answers, e.g.
    `JARVIS_FAKE_LLM_LATENCY=20:5 pytest tests/agent/test_llm_agent.py`.
    """
    import os

    raw = os.environ.get(LATENCY_ENV, "").strip()
    if not raw:
        return {}
    base, _, jitter = raw.partition(":")
    try:
        return {"latency_s": float(base), "jitter_s": float(jitter or 0.0)}
    except ValueError:
        raise ValueError(f"${LATENCY_ENV} must be 'BASE' or 'BASE:JITTER' in seconds, got {raw!r}") from None


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class _FakeLLMServer:
    """Shared machinery: a threaded HTTP server on 127.0.0.1 at a free port, playing a script."""

    endpoint_suffix = ""

    def __init__(
        self, script: list[ScriptItem] | None = None, default: ScriptItem | None = None, *,
        latency_s: float = 0.0, jitter_s: float = 0.0, seed: int = 0,
    ):
        if latency_s < 0 or jitter_s < 0:
            raise ValueError(f"latency_s and jitter_s must be >= 0, got {latency_s} and {jitter_s}")
        self.script: list[ScriptItem] = list(script or [])
        self.default = default
        self.latency_s, self.jitter_s = latency_s, jitter_s
        self._rng = random.Random(seed)
        self.delays: list[float] = []  # what each answered request waited, for assertions
        self.requests: list[ReceivedRequest] = []
        self.dripping = 0  # answers being dripped right now
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        # A short poll interval keeps shutdown (and so every test's teardown) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name=type(self).__name__, daemon=True
        )

    # --- life cycle -------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The base URL to give the SDK client."""
        return f"http://127.0.0.1:{self.port}{self.endpoint_suffix}"

    def start(self) -> _FakeLLMServer:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release stalled handlers."""
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def push(self, *items: ScriptItem) -> None:
        """Append items to the script."""
        with self._lock:
            self.script.extend(items)

    # --- protocol hooks ---------------------------------------------------------------------------
    def handles(self, path: str) -> bool:
        """Whether `path` is this protocol's chat endpoint."""
        raise NotImplementedError

    def protocol_error(self, headers: dict[str, str], body: dict[str, Any]) -> str | None:
        """Why the request breaks the protocol, or None."""
        raise NotImplementedError

    def success_body(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        """The JSON of a successful answer."""
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The JSON of an error answer."""
        raise NotImplementedError

    # --- request handling -------------------------------------------------------------------------
    def _next_item(self, body: dict[str, Any]) -> Reply | Fail | Stall | Drip:
        with self._lock:
            item: Any = self.script.pop(0) if self.script else self.default
        if item is None:
            return Fail(500, "fake server script exhausted")
        while callable(item) and not isinstance(item, Reply | Fail | Stall | Drip):
            item = item(body)
        if isinstance(item, str):
            return Reply(item)
        if not isinstance(item, Reply | Fail | Stall | Drip):
            raise TypeError(f"bad script item {item!r}")
        return item

    def _answer_delay(self) -> float:
        with self._lock:
            delay = self.latency_s + (self._rng.uniform(0.0, self.jitter_s) if self.jitter_s else 0.0)
            self.delays.append(delay)
        return delay

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                if not server.handles(self.path):
                    self._send(404, server.error_body(404, f"no route {self.path}"))
                    return
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    self._send(400, server.error_body(400, "body is not JSON"))
                    return
                server.requests.append(ReceivedRequest(self.path, headers, body))
                problem = server.protocol_error(headers, body)
                if problem is not None:
                    self._send(400, server.error_body(400, problem))
                    return
                item = server._next_item(body)
                delay = server._answer_delay()
                if delay > 0:
                    server._stop.wait(delay)
                if isinstance(item, Stall):
                    server._stop.wait(item.seconds)
                    item = item.then if item.then is not None else Reply("late answer")
                if isinstance(item, Drip):
                    self._drip(item, server.success_body(item.then or Reply("dripped answer " * 40), body))
                    return
                if isinstance(item, Fail):
                    self._send(item.status, server.error_body(item.status, item.message), item.headers)
                else:
                    self._send(200, server.success_body(item, body))

            def _drip(self, item: Drip, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode("utf-8")
                raw = (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                       + f"content-length: {len(data)}\r\n\r\n".encode() + data)
                server.dripping += 1
                try:
                    for k in range(len(raw)):
                        if server._stop.is_set():
                            return
                        self.wfile.write(raw[k:k + 1])
                        self.wfile.flush()
                        server._stop.wait(item.interval_s)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up: what a total deadline should make it do
                finally:
                    server.dripping -= 1
                    self.close_connection = True

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test); nothing to tell it

        return Handler


class FakeOpenAIServer(_FakeLLMServer):
    """Speaks OpenAI chat.completions at `{base_url}/chat/completions` with base_url ending in /v1."""

    endpoint_suffix = "/v1"

    def handles(self, path: str) -> bool:
        """Only the chat-completions route."""
        return path.rstrip("/") == "/v1/chat/completions"

    def protocol_error(self, headers: dict[str, str], body: dict[str, Any]) -> str | None:
        """The checks a real server makes on the fields this project sends."""
        if not headers.get("authorization", "").startswith("Bearer "):
            return "missing bearer token"
        if not isinstance(body.get("model"), str) or not isinstance(body.get("messages"), list) or not body["messages"]:
            return "'model' (string) and 'messages' (non-empty list) are required"
        called: set[str] = set()
        for i, msg in enumerate(body["messages"]):
            if msg.get("role") not in ("system", "user", "assistant", "tool"):
                return f"messages[{i}].role invalid"
            content = msg.get("content")
            if msg["role"] == "assistant" and msg.get("tool_calls"):
                for call in msg["tool_calls"]:
                    fn = call.get("function") or {}
                    if call.get("type") != "function" or not isinstance(fn.get("name"), str) or not isinstance(
                            fn.get("arguments"), str) or not isinstance(call.get("id"), str):
                        return f"messages[{i}].tool_calls: each needs an id, type 'function', a name and string arguments"
                    called.add(call["id"])
                if content is None:
                    continue
            if msg["role"] == "tool" and msg.get("tool_call_id") not in called:
                return f"messages[{i}]: a tool message must answer an earlier tool call's id"
            if isinstance(content, str):
                continue
            if not isinstance(content, list):
                return f"messages[{i}].content must be a string or a list of parts"
            for j, part in enumerate(content):
                if part.get("type") == "text" and isinstance(part.get("text"), str):
                    continue
                if part.get("type") == "image_url":
                    url = (part.get("image_url") or {}).get("url", "")
                    if isinstance(url, str) and ((url.startswith("data:image/") and ";base64," in url) or url.startswith("http")):
                        continue
                    return f"messages[{i}].content[{j}].image_url.url must be a data URL or http URL"
                return f"messages[{i}].content[{j}] has an unknown part type {part.get('type')!r}"
        return None

    def success_body(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        """A chat.completion object."""
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": reply.model or body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text if reply.text or not reply.tool_calls else None, **({"tool_calls": [
                        {"id": f"call_{uuid.uuid4().hex[:10]}", "type": "function",
                         "function": {"name": name, "arguments": json.dumps(args)}}
                        for name, args in reply.tool_calls]} if reply.tool_calls else {})},
                    "finish_reason": "tool_calls" if reply.tool_calls else reply.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": reply.input_tokens,
                "completion_tokens": reply.output_tokens,
                "total_tokens": reply.input_tokens + reply.output_tokens,
            },
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """OpenAI's error envelope."""
        kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_exceeded"}.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


class FakeAnthropicServer(_FakeLLMServer):
    """Speaks Anthropic's Messages API at `{base_url}/v1/messages`."""

    def handles(self, path: str) -> bool:
        """Only the messages route (the SDK may append a query string)."""
        return path.split("?", 1)[0].rstrip("/") == "/v1/messages"

    def protocol_error(self, headers: dict[str, str], body: dict[str, Any]) -> str | None:
        """The checks a real server makes on the fields this project sends."""
        # SDK 1.x sends x-api-key; 2.x sends a bearer token. Either authenticates.
        if not headers.get("x-api-key") and not headers.get("authorization", "").startswith("Bearer "):
            return "missing x-api-key or bearer token"
        if not headers.get("anthropic-version"):
            return "missing anthropic-version header"
        if not isinstance(body.get("model"), str) or not isinstance(body.get("max_tokens"), int):
            return "'model' (string) and 'max_tokens' (integer) are required"
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "'messages' must be a non-empty list"
        if "system" in body and not isinstance(body["system"], str | list):
            return "'system' must be a string or a list of blocks"
        for i, msg in enumerate(messages):
            if msg.get("role") not in ("user", "assistant"):
                return f"messages.{i}.role must be 'user' or 'assistant'"
            content = msg.get("content")
            if isinstance(content, str):
                continue
            if not isinstance(content, list) or not content:
                return f"messages.{i}.content must be a string or a non-empty list of blocks"
            for j, block in enumerate(content):
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    continue
                if block.get("type") == "image":
                    src = block.get("source") or {}
                    if src.get("type") == "base64" and str(src.get("media_type", "")).startswith("image/") and src.get("data"):
                        continue
                    return f"messages.{i}.content.{j}.source must be a base64 image source"
                return f"messages.{i}.content.{j} has an unknown block type {block.get('type')!r}"
        return None

    def success_body(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        """A Message object."""
        stop = {"stop": "end_turn", "length": "max_tokens"}.get(reply.finish_reason, reply.finish_reason)
        return {
            "id": f"msg_{uuid.uuid4().hex[:12]}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or body["model"],
            "content": [{"type": "text", "text": reply.text}],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens},
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """Anthropic's error envelope."""
        kind = {
            400: "invalid_request_error",
            401: "authentication_error",
            404: "not_found_error",
            429: "rate_limit_error",
            529: "overloaded_error",
        }.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
