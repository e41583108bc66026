"""Total deadlines (and a size cap) for model calls: connect, every read and every retry end by one instant.

An HTTP client's timeout is per operation: a server that sends one byte every few seconds never
trips it, and holds the caller for as long as it likes. Here every socket operation of a model call
gets at most the time left before the call's deadline, so the call ends by then whatever the
server does. The deadline lives in a context variable: `LLMClient.chat` sets it for the call (its
own `timeout_s`), and an episode sets an outer one (`episode_deadline`) so that its wall-clock
budget also ends a model call in flight. The SDKs call synchronously in the caller's thread, so the
variable set around the call is the one their socket reads see.
"""

from __future__ import annotations

import contextvars
import math
import time
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

_call_deadline: contextvars.ContextVar[float] = contextvars.ContextVar("jarvis_llm_call_deadline", default=math.inf)
_call_bytes: contextvars.ContextVar[CallBytes | None] = contextvars.ContextVar("jarvis_llm_call_bytes", default=None)
_episode_deadline: contextvars.ContextVar[float] = contextvars.ContextVar("jarvis_episode_deadline", default=math.inf)


def now() -> float:
    """The clock deadlines are measured on (monotonic seconds)."""
    return time.monotonic()


@contextmanager
def episode_deadline(wall_s: float | None, elapsed_s: float = 0.0) -> Iterator[None]:
    """Model calls made inside end when the episode's `wall_s` budget, of which `elapsed_s` is used, runs out
    (no deadline when the episode has no wall budget)."""
    left = math.inf if wall_s is None else max(0.0, wall_s - elapsed_s)
    token = _episode_deadline.set(min(_episode_deadline.get(), now() + left))
    try:
        yield
    finally:
        _episode_deadline.reset(token)


def episode_time_left() -> float:
    """Seconds left of the enclosing episode's budget (infinite outside an episode)."""
    return _episode_deadline.get() - now()


class CallBytes:
    """Bytes one model call has received, against the most an answer may take (a 50 MB answer is refused
    while it arrives, instead of being held whole by the SDK, the cache and the record)."""

    def __init__(self, limit: int):
        self.limit, self.received, self.exceeded = limit, 0, False

    def add(self, n: int, error: type[Exception]) -> None:
        """Count `n` bytes read; raise `error` (the socket layer's) past the limit."""
        self.received += n
        if self.received > self.limit:
            self.exceeded = True
            raise error(f"the answer exceeded {self.limit} bytes")


@contextmanager
def call_deadline(deadline: float, max_bytes: int | None = None) -> Iterator[CallBytes | None]:
    """Socket operations inside end by `deadline` (a `now()` instant) and read at most `max_bytes`."""
    counter = CallBytes(max_bytes) if max_bytes is not None else None
    token = _call_deadline.set(deadline)
    counted = _call_bytes.set(counter)
    try:
        yield counter
    finally:
        _call_deadline.reset(token)
        _call_bytes.reset(counted)


def _bounded(timeout: float | None, kind: type[Exception]) -> float:
    """`timeout` cut to what is left before the current call's deadline; `kind` raised when none is."""
    left = _call_deadline.get() - now()
    if left <= 0:
        raise kind("the model call's total deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream:
    """A socket stream whose every operation ends by the call's deadline.

    `core` is the httpcore module the stream belongs to (httpcore, or httpcore2 under anthropic's httpx2):
    its timeout exceptions are the ones its httpx maps to the SDK's APITimeoutError.
    """

    def __init__(self, inner: Any, core: Any):
        self._inner, self._core = inner, core

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = bytes(self._inner.read(max_bytes, _bounded(timeout, self._core.ReadTimeout)))
        counter = _call_bytes.get()
        if counter is not None:
            counter.add(len(data), self._core.ReadError)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, self._core.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        inner = self._inner.start_tls(ssl_context, server_hostname, _bounded(timeout, self._core.ConnectTimeout))
        return _DeadlineStream(inner, self._core)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend:
    """An httpcore socket backend with every connection's operations bounded by the call's deadline."""

    def __init__(self, inner: Any, core: Any):
        self._inner, self._core = inner, core

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: typing.Iterable[Any] | None = None) -> _DeadlineStream:
        stream = self._inner.connect_tcp(host, port, _bounded(timeout, self._core.ConnectTimeout), local_address,
                                         socket_options)
        return _DeadlineStream(stream, self._core)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: typing.Iterable[Any] | None = None) -> _DeadlineStream:
        stream = self._inner.connect_unix_socket(path, _bounded(timeout, self._core.ConnectTimeout), socket_options)
        return _DeadlineStream(stream, self._core)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def deadline_transport(httpx_module: Any = None) -> Any:
    """An HTTPTransport of `httpx_module` (httpx, or httpx2 for anthropic) obeying the current call's deadline.

    httpx offers no way to pass a network backend, so the pool's is wrapped in place; a version
    without that attribute fails here, loudly, rather than running without deadlines.
    """
    import importlib

    httpx_module = httpx_module or httpx
    transport = httpx_module.HTTPTransport()
    pool: Any = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if backend is None or not hasattr(backend, "connect_tcp"):
        raise RuntimeError(f"{httpx_module.__name__}'s pool keeps no _network_backend: cannot bound model calls")
    core = importlib.import_module(type(pool).__module__.partition(".")[0])
    pool._network_backend = _DeadlineBackend(backend, core)
    return transport


def deadline_http_client(timeout_s: float, httpx_module: Any = None) -> Any:
    """The HTTP client a vendor SDK gets: redirects followed as theirs do, every call bounded in total.

    Environment proxies are not used: their transports would bypass the deadline (set the provider's
    base_url to a proxy instead).
    """
    httpx_module = httpx_module or httpx
    return httpx_module.Client(transport=deadline_transport(httpx_module), timeout=timeout_s, follow_redirects=True,
                               trust_env=False)
