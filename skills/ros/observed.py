"""Wrappers that let the bridge speak while a skill runs: the backend reports every physics tick (so the robot
topics and action feedback are published from inside a skill's steps) and the planner reports its phases."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from jarvis_sim.backends.base import Backend, CameraFrame, RobotState
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.provenance import PlannerInfo
from jarvis_sim.tasks.spec import TaskSpec
from skills.motion import MotionPlanner


class ObservedBackend(Backend):
    """A backend that calls `on_tick` after every control tick and `on_phase` when a skill starts a phase."""

    def __init__(self, inner: Backend, on_tick: Callable[[], None], on_phase: Callable[[str], None]):
        self.inner, self.on_tick, self.on_phase = inner, on_tick, on_phase
        self.name = inner.name

    def load(self, task: TaskSpec, seed: int = 0) -> None:
        self.inner.load(task, seed)

    def reset(self, seed: int = 0) -> None:
        self.inner.reset(seed)

    def close(self) -> None:
        self.inner.close()

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            self.inner.step(1)
            self.on_tick()

    @property
    def control_dt(self) -> float:
        return self.inner.control_dt

    @property
    def sim_time_s(self) -> float:
        return self.inner.sim_time_s

    def robot_state(self) -> RobotState:
        return self.inner.robot_state()

    def set_joint_targets(self, q: np.ndarray) -> None:
        self.inner.set_joint_targets(q)

    def set_ee_target(self, position: np.ndarray, quaternion: np.ndarray) -> None:
        self.inner.set_ee_target(position, quaternion)

    def set_gripper(self, closed: bool, force_n: float | None = None, width_m: float | None = None) -> None:
        self.on_phase("gripper_close" if closed else "gripper_open")
        self.inner.set_gripper(closed, force_n, width_m)

    def solve_ik(self, position: np.ndarray, quaternion: np.ndarray, q0: np.ndarray | None = None) -> np.ndarray | None:
        return self.inner.solve_ik(position, quaternion, q0)

    def collisions(self, q: np.ndarray, ignore: tuple[str, ...] = (),
                   clearance_m: float = 0.0) -> list[tuple[str, str]]:
        return self.inner.collisions(q, ignore, clearance_m)

    @property
    def home_q(self) -> np.ndarray:
        return self.inner.home_q

    def cameras(self) -> list[str]:
        return self.inner.cameras()

    def render(self, camera: str = "top", rgb: bool = True, depth: bool = True, segmentation: bool = False) -> CameraFrame:
        if segmentation:
            self.on_phase("perceive")
        return self.inner.render(camera, rgb, depth, segmentation)

    def world_state(self) -> WorldState:
        return self.inner.world_state()

    def held_brick(self) -> str | None:
        return self.inner.held_brick()

    def save_state(self) -> Any:
        return self.inner.save_state()

    def restore_state(self, snapshot: Any) -> None:
        self.inner.restore_state(snapshot)

    def displace_brick(self, brick_id: str, offset_m: tuple[float, float]) -> None:
        self.inner.displace_brick(brick_id, offset_m)

    def drop_held(self) -> None:
        self.inner.drop_held()

    def knock(self, brick_id: str, impulse_n_s: float) -> None:
        self.inner.knock(brick_id, impulse_n_s)

    def tool_contact_force(self) -> tuple[np.ndarray, str | None, str | None]:
        return self.inner.tool_contact_force()

    def set_contact_reflex(self, force_n: float | None = None) -> None:
        self.inner.set_contact_reflex(force_n)

    def collision_event(self, clear: bool = True) -> tuple[str, str, float] | None:
        return self.inner.collision_event(clear)

    def joint_limits(self) -> tuple[np.ndarray, np.ndarray]:
        return self.inner.joint_limits()

    def __getattr__(self, name: str) -> Any:
        # Backend-specific extras the skills probe with getattr (ee_target_reached, ...): the inner backend's.
        if name in ("inner", "on_tick", "on_phase"):
            raise AttributeError(name)
        return getattr(self.inner, name)


class PhaseReportingPlanner(MotionPlanner):
    """Delegates to a planner and reports each arm motion as an `arm_move` phase."""

    def __init__(self, inner: MotionPlanner, on_phase: Callable[[str], None]):
        self.inner, self.on_phase = inner, on_phase

    def move_to(self, ctx: Any, position: np.ndarray, quaternion: np.ndarray, speed: float = 0.2,
                check_collisions: bool = True, ignore: tuple[str, ...] = ()) -> None:
        self.on_phase("arm_move")
        self.inner.move_to(ctx, position, quaternion, speed, check_collisions, ignore)

    def describe(self) -> PlannerInfo:
        return self.inner.describe()
