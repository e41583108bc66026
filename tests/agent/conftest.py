"""Fixtures the agent tests share: one MuJoCo simulator per test module, and jarvis-mini's first task."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.suites import load_suite


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    """One simulator for the module's episodes (each episode reloads its task)."""
    b = make_backend("mujoco")
    yield b
    b.close()


@pytest.fixture(scope="module")
def task() -> TaskSpec:
    """The first jarvis-mini task (two action bricks)."""
    return load_suite("jarvis-mini")[0]
