"""What a running episode has done so far, as the REST API's `progress` field shows it.

The episode machinery reports events (a phase begins, a round ends, a skill is called) to an
`EpisodeProgress` carried by the job; whoever runs the episode reads a snapshot when it wants one
(the server's worker writes it to the database with each lease renewal). Nothing here blocks or
touches the database: an episode run without a reader pays a lock and a dict update per event.

Phases, in the order an assembly episode passes them:
  starting   claimed by a worker, the task being loaded
  loading    the scene being loaded in the simulator
  thinking   the agent is deciding (a model call, or an external agent writing its next program)
  executing  a program runs in the sandbox against the skills
  answering  a question or planning episode waits for the agent's one answer
  scoring    the evaluator scores the final state or the answer
  finished   the record is written (the row's status then says how it ended)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Literal

Phase = Literal["starting", "loading", "thinking", "executing", "answering", "scoring", "finished"]


class EpisodeProgress:
    """A thread-safe tally of one episode's phase, rounds, skill calls and manual steps done."""

    def __init__(self, rounds_total: int, *, track_steps: bool = True,
                 on_change: Callable[[], None] | None = None):
        # Interactive episodes do not track steps: the evaluator's verdict on each step mid-episode would
        # be feedback that built-in agents never get, so the external agent's view stays on equal terms.
        self.track_steps = track_steps
        self._on_change = on_change
        self._lock = threading.Lock()
        self._fields: dict[str, Any] = {
            "phase": "starting", "round": 0, "rounds_done": 0, "rounds_total": rounds_total,
            "skill_calls": 0, "steps_done": None, "steps_total": None, "sim_time_s": None,
            "updated_at": time.time(),
        }

    def update(self, **fields: Any) -> None:
        """Set some fields (unknown names are a programming error) and tell the reader."""
        with self._lock:
            unknown = set(fields) - set(self._fields)
            if unknown:
                raise KeyError(f"unknown progress field(s) {sorted(unknown)}; known: {sorted(self._fields)}")
            self._fields.update(fields, updated_at=time.time())
        if self._on_change is not None:
            self._on_change()

    def phase(self, name: Phase, **fields: Any) -> None:
        """Enter a phase (and set other fields with it)."""
        self.update(phase=name, **fields)

    def skill_called(self) -> None:
        """Count one skill call of the running program."""
        with self._lock:
            self._fields["skill_calls"] += 1
            self._fields["updated_at"] = time.time()
        if self._on_change is not None:
            self._on_change()

    def snapshot(self) -> dict[str, Any]:
        """The fields as JSON-ready values; steps are left out where they are not tracked or not known."""
        with self._lock:
            out = dict(self._fields)
        if not self.track_steps or out["steps_total"] is None:
            out.pop("steps_done")
            if out["steps_total"] is None:
                out.pop("steps_total")
        if out["sim_time_s"] is None:
            out.pop("sim_time_s")
        return out


def report(progress: EpisodeProgress | None, name: Phase, **fields: Any) -> None:
    """Enter a phase when the episode has a progress reader (most callers may have none)."""
    if progress is not None:
        progress.phase(name, **fields)
