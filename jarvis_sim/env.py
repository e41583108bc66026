"""The episode environment over any backend, with the Gymnasium API: `jarvis/LegoAssembly-v1`.

    import gymnasium, jarvis_sim.env
    env = gymnasium.make("jarvis/LegoAssembly-v1", task=task_spec, backend="mujoco")
    obs, info = env.reset(seed=0)

Observations are what a robot could sense: the top-down RGB-D image and proprioception. Actions are a
Cartesian TCP target (x, y, z, qw, qx, qy, qz) plus a gripper command (> 0.5 closes), or with
action_mode="joint" 7 joint targets plus the gripper; each env step runs `ticks_per_step` control ticks.
Ground truth (brick poses, clutch) never enters observations or info: evaluators and named oracles call
`env.unwrapped.ground_truth()`, and skills drive the arm through `env.unwrapped.backend`.
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from jarvis_sim.backends.base import Backend, make_backend
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.tasks.spec import TaskSpec

ENV_ID = "jarvis/LegoAssembly-v1"


class LegoAssemblyEnv(gym.Env[dict[str, np.ndarray], np.ndarray]):
    """A JARVIS assembly episode: one TaskSpec in one backend."""

    metadata = {"render_modes": ["rgb_array"]}  # noqa: RUF012  (gymnasium declares it an instance attribute)

    def __init__(self, task: TaskSpec, backend: str | Backend = "mujoco", action_mode: Literal["ee", "joint"] = "ee",
                 ticks_per_step: int = 10, depth: bool = True, render_mode: str | None = "rgb_array",
                 backend_kwargs: dict[str, Any] | None = None) -> None:
        if not isinstance(task, TaskSpec):
            raise TypeError(f"{ENV_ID}: task must be a TaskSpec, got {type(task).__name__}")
        if action_mode not in ("ee", "joint"):
            raise ValueError(f"{ENV_ID}: action_mode must be 'ee' or 'joint', got {action_mode!r}")
        self.task = task
        self.backend = backend if isinstance(backend, Backend) else make_backend(backend, **(backend_kwargs or {}))
        self.action_mode = action_mode
        self.ticks_per_step = ticks_per_step
        self.depth = depth
        self.render_mode = render_mode
        self.backend.load(task, seed=task.scene_seed)  # task.seed is the generation seed, not a scene seed
        frame = self.backend.render("top", rgb=True, depth=False)
        h, w = frame.shape
        obs: dict[str, spaces.Space[Any]] = {
            "rgb": spaces.Box(0, 255, (h, w, 3), np.uint8),
            "joint_positions": spaces.Box(-np.inf, np.inf, (7,), np.float64),
            "joint_velocities": spaces.Box(-np.inf, np.inf, (7,), np.float64),
            "gripper_width": spaces.Box(0.0, 0.1, (1,), np.float64),
            "ee_pose": spaces.Box(-np.inf, np.inf, (7,), np.float64),
            "sim_time": spaces.Box(0.0, np.inf, (1,), np.float64),
        }
        if depth:
            obs["depth"] = spaces.Box(0.0, np.inf, (h, w), np.float32)
        self.observation_space = spaces.Dict(obs)  # type: ignore[assignment]
        self.action_space = spaces.Box(-np.inf, np.inf, (8,), np.float64)

    def _observation(self) -> dict[str, np.ndarray]:
        frame = self.backend.render("top", rgb=True, depth=self.depth)
        rs = self.backend.robot_state()
        obs = {
            "rgb": frame.rgb,
            "joint_positions": rs.joint_positions,
            "joint_velocities": rs.joint_velocities,
            "gripper_width": np.array([rs.gripper_width]),
            "ee_pose": np.concatenate([rs.ee_position, rs.ee_quaternion]),
            "sim_time": np.array([rs.sim_time_s]),
        }
        if self.depth:
            obs["depth"] = frame.depth
        return obs  # type: ignore[return-value]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Rebuild the task's initial scene; the same seed gives the same state."""
        super().reset(seed=seed)
        self.backend.reset(seed=self.task.scene_seed if seed is None else seed)
        return self._observation(), {"task": self.task.public_view()}

    def step(self, action: np.ndarray) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Apply a command, advance ticks_per_step control ticks; truncated once the time budget is spent."""
        a = np.asarray(action, dtype=float)
        if a.shape != (8,) or not np.isfinite(a).all():
            raise ValueError(f"{ENV_ID}: action must be 8 finite numbers, got {action!r}")
        if self.action_mode == "ee":
            self.backend.set_ee_target(a[:3], a[3:7])
        else:
            self.backend.set_joint_targets(a[:7])
        self.backend.set_gripper(bool(a[7] > 0.5))
        self.backend.step(self.ticks_per_step)
        truncated = self.backend.sim_time_s >= self.task.time_budget_s
        return self._observation(), 0.0, False, truncated, {}

    def render(self) -> np.ndarray | None:  # type: ignore[override]
        """The side view (or top view) as RGB for people watching; not an observation."""
        cam = "side" if "side" in self.backend.cameras() else "top"
        return self.backend.render(cam, rgb=True, depth=False).rgb

    def ground_truth(self) -> WorldState:
        """EVALUATOR / ORACLE ONLY: exact brick poses, held flags and clutch links."""
        return self.backend.world_state()

    def close(self) -> None:
        """Free the backend."""
        self.backend.close()


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="jarvis_sim.env:LegoAssemblyEnv", disable_env_checker=True)
