"""The protocol every simulator backend implements (MuJoCo on a CPU, Isaac Sim 6 on a GPU).

Everything an episode needs goes through here: load a TaskSpec, step physics, read the robot, command
the arm (joint targets or a Cartesian end-effector target tracked by the backend's controller) and the
gripper, render cameras, and report ground truth. Ground truth (`world_state`, `held_brick`) is for the
evaluator and named oracles only; the environment keeps it off the observation path.

Tool convention (every backend): the tool-centre point (TCP) lies between the finger pads, its z axis
points out of the hand, its y axis along the finger travel, and the finger tips reach 10 mm below it.
Heights are world z with the table top at z = 0.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.tasks.spec import TaskSpec


@dataclass
class CameraFrame:
    """One rendered view with its calibration.

    `segmentation` holds, per pixel, an index into `segment_ids` (-1 for background); `segment_ids`
    maps it to a brick id or a named object ('table', 'robot'). Intrinsics are pinhole (3x3 K);
    `world_from_camera` is the 4x4 camera pose in the OpenCV convention (x right, y down, z forward).
    """

    name: str
    rgb: np.ndarray | None  # (H, W, 3) uint8
    depth: np.ndarray | None  # (H, W) float32, metres along the optical axis
    segmentation: np.ndarray | None  # (H, W) int32
    segment_ids: dict[int, str]
    intrinsics: np.ndarray  # (3, 3)
    world_from_camera: np.ndarray  # (4, 4)

    @property
    def shape(self) -> tuple[int, int]:
        """(height, width) in pixels."""
        for img in (self.rgb, self.depth, self.segmentation):
            if img is not None:
                return (int(img.shape[0]), int(img.shape[1]))
        raise ValueError("empty camera frame")


@dataclass
class RobotState:
    """Proprioception of the arm and gripper."""

    joint_positions: np.ndarray  # (7,) rad
    joint_velocities: np.ndarray  # (7,) rad/s
    gripper_width: float  # m, distance between the fingers
    ee_position: np.ndarray  # (3,) m, tool centre point in the world
    ee_quaternion: np.ndarray  # (4,) wxyz
    sim_time_s: float
    extra: dict[str, Any] = field(default_factory=dict)


# Bump when what a simulator does changes (physics, contact rules, skills' behaviour at the backend): floor runs
# cached across runs key on it, and provenance records it. 2: every brick dynamic, clutch that breaks, seating by
# press, contact reflex (issue 18); 1: the fused structure with snap seating.
SIMULATOR_REVISION = 2


class BackendError(RuntimeError):
    """A backend could not do what was asked (bad command, missing dependency, simulator failure)."""


class Backend(ABC):
    """A physics simulator hosting one Franka Panda LEGO workspace at a time."""

    name: str = ""

    # --- life cycle ------------------------------------------------------------------------------
    @abstractmethod
    def load(self, task: TaskSpec, seed: int = 0) -> None:
        """Build the scene of a task (table, structure, loose bricks, robot at home) and settle it."""

    @abstractmethod
    def reset(self, seed: int = 0) -> None:
        """Return the loaded task's scene to its initial state; the same seed gives the same state."""

    @abstractmethod
    def close(self) -> None:
        """Free renderers and simulator resources."""

    # --- time ------------------------------------------------------------------------------------
    @abstractmethod
    def step(self, n: int = 1) -> None:
        """Advance physics by n control ticks, tracking the current arm and gripper commands."""

    @property
    @abstractmethod
    def control_dt(self) -> float:
        """Seconds of simulated time per control tick."""

    @property
    @abstractmethod
    def sim_time_s(self) -> float:
        """Simulated seconds since load/reset."""

    # --- robot -----------------------------------------------------------------------------------
    @abstractmethod
    def robot_state(self) -> RobotState:
        """Joint state, gripper opening and end-effector pose."""

    @abstractmethod
    def set_joint_targets(self, q: np.ndarray) -> None:
        """Command the arm's 7 joint position targets (rad)."""

    @abstractmethod
    def set_ee_target(self, position: np.ndarray, quaternion: np.ndarray) -> None:
        """Command a Cartesian tool-centre-point target; the backend's controller tracks it while stepping."""

    @abstractmethod
    def set_gripper(self, closed: bool, force_n: float | None = None, width_m: float | None = None) -> None:
        """Open (to `width_m` between the fingers, default fully), or close with a grip force (None: default).

        Opening only as wide as needed keeps the fingers clear of neighbouring bricks.
        """

    @abstractmethod
    def solve_ik(self, position: np.ndarray, quaternion: np.ndarray, q0: np.ndarray | None = None) -> np.ndarray | None:
        """Joint angles putting the tool centre point at the pose, or None when unreachable."""

    @abstractmethod
    def collisions(self, q: np.ndarray, ignore: tuple[str, ...] = (),
                   clearance_m: float = 0.0) -> list[tuple[str, str]]:
        """Pairs (robot part or held brick, obstacle) in contact if the arm stood at q, or closer than
        clearance_m when that is given (a planner's safety margin); the state is unchanged."""

    @property
    @abstractmethod
    def home_q(self) -> np.ndarray:
        """The arm's home configuration."""

    def joint_limits(self) -> tuple[np.ndarray, np.ndarray]:
        """The arm's 7 joint position limits (lower, upper) in rad; backends that can command joints say them."""
        raise BackendError(f"backend {self.name!r} does not report its joint limits")

    # --- sensing ---------------------------------------------------------------------------------
    @abstractmethod
    def cameras(self) -> list[str]:
        """Camera names; 'top' (top-down RGB-D over the workspace) always exists."""

    @abstractmethod
    def render(self, camera: str = "top", rgb: bool = True, depth: bool = True, segmentation: bool = False) -> CameraFrame:
        """Render one camera."""

    # --- force sensing and the contact reflex ---------------------------------------------------
    def tool_contact_force(self) -> tuple[np.ndarray, str | None, str | None]:
        """External force (N, world frame) on the arm, hand and held brick, with the robot part and obstacle of
        its largest contact (None, None when nothing touches). Guarded moves and presses read it."""
        raise BackendError(f"backend {self.name!r} does not sense contact forces")

    def set_contact_reflex(self, force_n: float | None = None) -> None:
        """Set the contact reflex threshold (N; None: the backend's default). Above it the arm stops."""
        raise BackendError(f"backend {self.name!r} has no contact reflex")

    def collision_event(self, clear: bool = True) -> tuple[str, str, float] | None:
        """(robot part or held brick, obstacle, force N) of the last contact reflex since the last read, or None."""
        return None

    # --- ground truth (evaluator and oracles only) ----------------------------------------------
    @abstractmethod
    def world_state(self) -> WorldState:
        """Every brick's pose, whether it is held, and what it is clutched to."""

    @abstractmethod
    def held_brick(self) -> str | None:
        """Id of the brick between the fingers, if any."""

    # --- state -----------------------------------------------------------------------------------
    @abstractmethod
    def save_state(self) -> Any:
        """An opaque snapshot of the full physical state, clutch included."""

    @abstractmethod
    def restore_state(self, snapshot: Any) -> None:
        """Return to a snapshot taken by save_state on this backend."""

    # --- perturbations ---------------------------------------------------------------------------
    @abstractmethod
    def displace_brick(self, brick_id: str, offset_m: tuple[float, float]) -> None:
        """Move a loose or connected brick sideways on the table (detaching it) for error-recovery studies."""

    @abstractmethod
    def drop_held(self) -> None:
        """Open the gripper at once, dropping whatever it holds."""

    @abstractmethod
    def knock(self, brick_id: str, impulse_n_s: float) -> None:
        """Apply a horizontal impulse to a brick; its connections break only if the blow overloads them."""
