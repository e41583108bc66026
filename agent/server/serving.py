"""How `jarvis serve` meets the network: a server that sheds load instead of falling over.

uvicorn alone keeps every connection until its client leaves: 20,000 idle sockets reached the
file-descriptor limit, after which /healthz and every POST timed out and asyncio logged a traceback
per refused accept (45 MB of log in 45 s). Here:
- a connection must deliver its request headers within `header_timeout_s` (first request and every
  keep-alive one): idle and dripping connections are closed;
- at most `max_connections` connections are held (never more than the fd limit minus a margin);
  a new one beyond that evicts the connection idle longest, so a new client always gets in;
- the body is read within `body_timeout_s` (agent.server.gate);
- a log line repeated within `log_repeat_s` is dropped and counted (`agent.server.repeats`).
Behind a reverse proxy the same limits hold for the proxy's connections.
"""

from __future__ import annotations

import asyncio
import os
import resource
import time
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from agent.server.settings import ServerSettings

FD_MARGIN = 64  # descriptors kept, beyond those open at start, for the database, simulators and sandbox pipes


def connection_cap(settings: ServerSettings) -> int:
    """The connections this process may hold: the setting, but never past the fd limit minus what is open
    already and a margin (an accept that hits EMFILE makes asyncio stop accepting for a second)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return settings.max_connections
    try:
        in_use = len(os.listdir("/proc/self/fd"))
    except OSError:
        in_use = 0
    return max(8, min(settings.max_connections, soft - in_use - FD_MARGIN))


def protocol_class(settings: ServerSettings) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a header deadline and a connection cap that evicts the idlest."""
    header_timeout = settings.header_timeout_s
    cap = connection_cap(settings)
    open_since: dict[H11Protocol, float] = {}  # connections not in a request, by when they went idle

    class SheddingProtocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > cap:
                idlest = min(open_since, key=open_since.__getitem__, default=None)
                if idlest is not None and idlest is not self:
                    open_since.pop(idlest, None)
                    idlest.transport.close()
            self._arm()

        def _arm(self) -> None:
            open_since[self] = time.monotonic()
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(header_timeout, self._headers_late)

        def _headers_late(self) -> None:
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()

        def handle_events(self) -> None:
            super().handle_events()
            if self.cycle is not None and not self.cycle.response_complete:  # a request is under way
                open_since.pop(self, None)
                if self._deadline is not None:
                    self._deadline.cancel()
                    self._deadline = None

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request's headers have the same deadline

        def connection_lost(self, exc: Exception | None) -> None:
            open_since.pop(self, None)
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

    return SheddingProtocol
