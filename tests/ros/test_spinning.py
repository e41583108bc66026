"""The spinner's lock keeps sends out of the executor's processing (the rclpy ActionClient race it closes)."""

from __future__ import annotations

import time

from jarvis_sim.backends.ros.spinning import SpinThread
from tests.fakes.executor import OverlapDetectingExecutor


def test_sends_never_overlap_the_executor_and_spinning_goes_on() -> None:
    executor = OverlapDetectingExecutor()
    spinner = SpinThread(executor, period_s=0.001)  # type: ignore[arg-type]
    try:
        seen = []
        for _ in range(200):  # a send, then a short wait as for its response (which the spinner delivers)
            seen.append(spinner.call(executor.send))
            time.sleep(0.0005)
    finally:
        spinner.stop()
    assert executor.overlaps == 0
    assert seen[-1] > seen[0] and executor.spins > 10  # the executor kept spinning between the sends


def test_without_the_lock_the_overlap_happens() -> None:
    """The same load without taking the lock does overlap: the test above can fail."""
    executor = OverlapDetectingExecutor(busy_s=0.002)
    spinner = SpinThread(executor, period_s=0.001)  # type: ignore[arg-type]
    try:
        deadline = time.monotonic() + 2.0
        while executor.overlaps == 0 and time.monotonic() < deadline:
            executor.send()
            time.sleep(0.0003)
    finally:
        spinner.stop()
    assert executor.overlaps > 0
