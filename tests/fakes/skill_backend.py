"""A backend without physics that records what the skill context asks of it (for tests of skills.context)."""

from __future__ import annotations

from typing import Any

import numpy as np

from jarvis_sim.backends.base import Backend, CameraFrame, RobotState
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.tasks.spec import TaskSpec


class RecordingBackend(Backend):
    """Time advances only through step(); perturbation commands are recorded, never simulated."""

    name = "recording"

    def __init__(self, control_dt: float = 0.01) -> None:
        self._dt = control_dt
        self._ticks = 0
        self.events: list[tuple[Any, ...]] = []  # ("drop_held",), ("displace", id, offset), ("knock", id, impulse)
        self.steps: list[int] = []

    # life cycle
    def load(self, task: TaskSpec, seed: int = 0) -> None:
        """Nothing to build."""

    def reset(self, seed: int = 0) -> None:
        """Back to time zero."""
        self._ticks = 0

    def close(self) -> None:
        """Nothing to free."""

    # time
    def step(self, n: int = 1) -> None:
        """Advance the clock by n ticks and remember the request."""
        self.steps.append(n)
        self._ticks += n

    @property
    def control_dt(self) -> float:
        """Seconds per tick."""
        return self._dt

    @property
    def sim_time_s(self) -> float:
        """Ticks times the tick length."""
        return self._ticks * self._dt

    def advance(self, seconds: float) -> None:
        """Jump the clock forward without recording a step (a test's stand-in for a long skill)."""
        self._ticks += round(seconds / self._dt)

    # robot
    def robot_state(self) -> RobotState:
        """The arm at rest at home."""
        return RobotState(joint_positions=self.home_q, joint_velocities=np.zeros(7), gripper_width=0.08,
                          ee_position=np.array([0.3, 0.0, 0.4]), ee_quaternion=np.array([0.0, 1.0, 0.0, 0.0]),
                          sim_time_s=self.sim_time_s)

    def set_joint_targets(self, q: np.ndarray) -> None:
        """Ignored."""

    def set_ee_target(self, position: np.ndarray, quaternion: np.ndarray) -> None:
        """Ignored."""

    def set_gripper(self, closed: bool, force_n: float | None = None, width_m: float | None = None) -> None:
        """Ignored."""

    def solve_ik(self, position: np.ndarray, quaternion: np.ndarray, q0: np.ndarray | None = None) -> np.ndarray | None:
        """Every pose is reachable at home."""
        return self.home_q

    def collisions(self, q: np.ndarray, ignore: tuple[str, ...] = (),
                   clearance_m: float = 0.0) -> list[tuple[str, str]]:
        """Nothing to hit."""
        return []

    @property
    def home_q(self) -> np.ndarray:
        """Zeros."""
        return np.zeros(7)

    # sensing
    def cameras(self) -> list[str]:
        """Only the top camera."""
        return ["top"]

    def render(self, camera: str = "top", rgb: bool = True, depth: bool = True, segmentation: bool = False) -> CameraFrame:
        """No renderer here."""
        raise NotImplementedError("RecordingBackend does not render")

    # ground truth
    def world_state(self) -> WorldState:
        """An empty world."""
        return WorldState(bricks=[], sim_time_s=self.sim_time_s)

    def held_brick(self) -> str | None:
        """Nothing is ever held."""
        return None

    # state
    def save_state(self) -> Any:
        """The clock."""
        return self._ticks

    def restore_state(self, snapshot: Any) -> None:
        """Set the clock back."""
        self._ticks = int(snapshot)

    # perturbations
    def displace_brick(self, brick_id: str, offset_m: tuple[float, float]) -> None:
        """Record the request."""
        self.events.append(("displace", brick_id, offset_m))

    def drop_held(self) -> None:
        """Record the request."""
        self.events.append(("drop_held",))

    def knock(self, brick_id: str, impulse_n_s: float) -> None:
        """Record the request."""
        self.events.append(("knock", brick_id, impulse_n_s))
