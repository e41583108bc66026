"""A stand-in for an rclpy executor that notices when a send overlaps its processing (jarvis_sim/backends/ros/spinning.py)."""

from __future__ import annotations

import threading
import time


class _Context:
    def __init__(self) -> None:
        self.alive = True

    def ok(self) -> bool:
        return self.alive


class OverlapDetectingExecutor:
    """`spin_once` marks itself busy for a while (as processing a response would); `overlaps` counts sends that
    found it busy."""

    def __init__(self, busy_s: float = 0.001):
        self.context = _Context()
        self.busy_s = busy_s
        self.busy = False
        self.spins = 0
        self.overlaps = 0
        self._guard = threading.Lock()

    def spin_once(self, timeout_sec: float | None = None) -> None:
        with self._guard:
            self.busy = True
        time.sleep(self.busy_s)
        with self._guard:
            self.busy = False
            self.spins += 1

    def send(self) -> int:
        with self._guard:
            if self.busy:
                self.overlaps += 1
        return self.spins
