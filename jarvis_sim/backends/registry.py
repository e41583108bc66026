"""The simulator backends by name: each imported only when chosen, so a missing optional simulator costs nothing.

Outside packages add backends through the `jarvis.backends` entry-point group.
"""

from __future__ import annotations

from typing import Any

from jarvis_sim.backends.base import Backend, BackendError
from jarvis_sim.registry import PluginUnavailable, Registry

BACKENDS: Registry[type[Backend]] = Registry("backend", entry_point_group="jarvis.backends")
BACKENDS.add("mujoco", lazy="jarvis_sim.backends.mujoco.backend:MujocoBackend",
             install="pip install 'jarvis' (mujoco is a core dependency)")
BACKENDS.add("isaac", lazy="jarvis_sim.backends.isaac.backend:IsaacBackend", install="docker compose (see docker/)")
# A simulator reached over ROS 2: the client of the bridge (skills/ros/bridge.py) that hosts it and the skills.
BACKENDS.add("ros", lazy="jarvis_sim.backends.ros.client:RosBackend",
             install=".ci/ros-setup (pip install 'jarvis[ros]' and ros2_ws/src/jarvis_interfaces)")


def backend_names() -> list[str]:
    """Registered backend names."""
    return BACKENDS.names()


def make_backend(name: str, **kwargs: Any) -> Backend:
    """Instantiate a backend by name; unknown names list the valid ones, missing deps name the install."""
    try:
        cls = BACKENDS.get(name)
    except PluginUnavailable as exc:
        raise BackendError(str(exc)) from exc
    return cls(**kwargs)
