"""The backends the contract suite runs on, and what each one is for.

Every registered backend must have a case here (a test checks it), so a new simulator cannot skip the contract.
A case says which parts of the protocol it implements: the `ros` backend is the service side of a bridge and
drives no arm itself (the skills run next to the simulator), so for it the contract checks that the motion and
snapshot methods raise BackendError with a message, instead of pretending they work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.registry import make_backend

# One backend and whatever keeps it alive (a bridge process, a simulator app), torn down on exit.
Opener = Callable[[Path], contextlib.AbstractContextManager[Backend]]


@dataclass(frozen=True)
class BackendCase:
    """A backend under contract: how to open a fresh one, and which protocol parts it implements."""

    name: str
    open: Opener
    drives_arm: bool  # step, robot_state, joint/ee/gripper commands, IK, collision queries, home_q
    snapshots: bool  # save_state / restore_state
    perturbs: bool  # displace_brick, knock, drop_held from the caller's side


@contextlib.contextmanager
def _in_process(name: str, _tmp: Path) -> Iterator[Backend]:
    backend = make_backend(name)
    try:
        yield backend
    finally:
        backend.close()


@contextlib.contextmanager
def _over_ros(tmp: Path) -> Iterator[Backend]:
    """A real bridge process with MuJoCo behind it, reached through the `ros` backend over Fast DDS."""
    pytest.importorskip("rclpy", reason="ROS 2 wheels are installed by .ci/ros-setup")
    pytest.importorskip("jarvis_interfaces", reason="jarvis_interfaces is built by .ci/ros-setup")
    from tests.ros.bridge_process import BridgeProcess, use_private_ros_domain

    use_private_ros_domain()
    namespace = f"/jarvis_contract_{tmp.name.replace('-', '_')}"
    bridge = BridgeProcess(namespace, tmp / "bridge.log")
    try:
        bridge.wait_ready()
        backend = make_backend("ros", namespace=namespace, connect_s=60.0)
        try:
            yield backend
        finally:
            backend.close()
    finally:
        bridge.stop()


CASES = [
    BackendCase("mujoco", lambda tmp: _in_process("mujoco", tmp), drives_arm=True, snapshots=True, perturbs=True),
    BackendCase("ros", _over_ros, drives_arm=False, snapshots=False, perturbs=False),
    # On an RTX workstation with Isaac Sim 6.2 (see docker/README.md):
    #   python -m pytest -m isaac tests/jarvis_sim/backends/contract
    BackendCase("isaac", lambda tmp: _in_process("isaac", tmp), drives_arm=True, snapshots=True, perturbs=True),
]

MARKS = {"mujoco": (), "ros": (pytest.mark.ros, pytest.mark.slow), "isaac": (pytest.mark.isaac, pytest.mark.gpu)}


def case_params() -> list[object]:
    """The cases as pytest parameters, each with its markers (CI deselects isaac and gpu)."""
    return [pytest.param(c, id=c.name, marks=MARKS[c.name]) for c in CASES]
