"""Shared helpers for benchmarks: every figure is printed as one JSON object on its own line."""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any


def emit(name: str, value: float, unit: str, **extra: Any) -> None:
    """Print one figure as a JSON object: its name, value and unit, plus context."""
    record = {"name": name, "value": round(value, 6) if isinstance(value, float) else value, "unit": unit}
    record.update(extra)
    print(json.dumps(record), flush=True)


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    """Wall times in seconds of `repeat` calls of fn."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def median_ms(samples: list[float]) -> float:
    """Median of seconds samples, in ms."""
    return statistics.median(samples) * 1000.0


def machine() -> dict[str, str]:
    """Where the figures were measured."""
    return {"python": sys.version.split()[0], "machine": platform.machine(), "node": platform.node()}
