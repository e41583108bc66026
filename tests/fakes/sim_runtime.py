"""An episode runtime over one simulator the test module owns (agent.episodes.observation's runtime protocol)."""

from __future__ import annotations

from jarvis_sim.backends.base import Backend


class OneBackendRuntime:
    """Hands every episode the same, already started backend (WorkerRuntime starts its own)."""

    def __init__(self, backend: Backend):
        self._backend = backend

    def backend(self) -> Backend:
        """The module's simulator."""
        return self._backend
