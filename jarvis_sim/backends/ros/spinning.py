"""An rclpy executor spun in a thread of its own, with a lock that callers hold while they send action goals.

rclpy's ActionClient (Jazzy, rclpy 7.1) sends a goal or result request and only then registers the future that
its response completes; when another thread spins the executor, a fast response can arrive in between, is
dropped ("Ignoring unexpected goal response"), and the caller waits forever. Measured here: one such loss within
300 go_home goals. Spinning and sending under one lock closes that window; the spinner holds the lock only for one
short wait at a time, so a sender waits at most `period_s`.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class SpinThread:
    """Spins `executor` until `stop()`; `call(fn)` runs fn (a send) while the executor is not processing."""

    def __init__(self, executor: Any, name: str = "ros-spin", period_s: float = 0.005):
        self.executor = executor
        self.period_s = period_s
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from rclpy.executors import ExternalShutdownException

        with contextlib.suppress(ExternalShutdownException):
            while not self._stop.is_set() and self.executor.context.ok():
                with self.lock:
                    self.executor.spin_once(timeout_sec=self.period_s)

    def call(self, fn: Callable[[], T]) -> T:
        """Run fn (e.g. `lambda: client.send_goal_async(goal)`) with the executor paused between two waits."""
        with self.lock:
            return fn()

    def stop(self, timeout_s: float = 1.0) -> None:
        """Stop spinning (the executor and its context stay the caller's to shut down)."""
        self._stop.set()
        self._thread.join(timeout=timeout_s)
