"""The Isaac backend's pure parts are checked against the MuJoCo backend: both describe the same Panda, table,
bricks and cameras, so the MuJoCo scene is the reference here (no Isaac Sim needed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jarvis_sim.backends.mujoco.backend import MujocoBackend
from jarvis_sim.tasks.spec import TaskSpec
from tests.fakes.lego_tasks import stack_task


@pytest.fixture(scope="package")
def task() -> TaskSpec:
    return stack_task(4, 2, baseplate=True)


@pytest.fixture(scope="package")
def mujoco(task: TaskSpec) -> Iterator[MujocoBackend]:
    backend = MujocoBackend()
    backend.load(task, seed=0)
    yield backend
    backend.close()
