"""The episode environment over any backend, with the Gymnasium API: `jarvis/LegoAssembly-v1`.

    import gymnasium, jarvis_sim
    env = gymnasium.make("jarvis/LegoAssembly-v1", task="lego/v7-00009-stairs/000", reward="dense")
    obs, info = env.reset(seed=0)

`import jarvis_sim` registers the id (Gymnasium 1.x has no plugin entry points, so a package import is the
registration hook; `gymnasium.make("jarvis_sim:jarvis/LegoAssembly-v1", ...)` imports it for you). A task is a
registry id or a TaskSpec.

Observations are what a robot could sense: the top-down RGB-D image and proprioception. Actions are
normalised to [-1, 1]:
- action_mode="ee" (7): TCP position (x, y over the table, z from the table top to `EE_Z_MAX_M`), a rotation
  vector in units of pi about the tool frame of the top-down grasp (0 = pointing down, fingers along world y),
  and the gripper (> 0 closes). Every action is a valid pose: no quaternion to normalise.
- action_mode="joint" (8): 7 joint targets scaled onto the backend's joint limits, and the gripper.
Each env step runs `ticks_per_step` control ticks; `render_fps` is the resulting step rate.

Reward is the evaluator's soft score (0-100, time penalty included) divided by 100: with reward="dense" each
step returns its change since the previous step (so an episode's rewards sum to final minus initial score);
with reward="sparse" every step returns 0 except the last (terminated or truncated), which returns the final
score. `terminated` is True once every required brick is complete and valid; `truncated` once the task's time
budget of simulated time is spent. info carries "soft_score" and "complete".

The scorer is injected: jarvis_sim must not import the evaluator (imports flow evaluator -> jarvis_sim), so
the env takes any `Scorer`, a 'module:function' path, or the name of a registered progress scorer: the
evaluator's pure `build_progress` registers itself under that name through the `jarvis.scorers` entry point of
this distribution, as an outside package would.
Ground truth (brick poses, clutch) never enters observations or info: evaluators and named oracles call
`env.unwrapped.ground_truth()`, and skills drive the arm through `env.unwrapped.backend`.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from scipy.spatial.transform import Rotation

from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.registry import Registry, UnknownName
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import seeded_scene

ENV_ID = "jarvis/LegoAssembly-v1"
DEFAULT_SCORER = "build_progress"  # registered by the evaluator through the jarvis.scorers entry point
EE_Z_MAX_M = 0.5  # highest TCP target above the table: above any tower the pool builds, within the Panda's reach
# Observation bounds, so that every Box is finite: sensors saturate there (values are clipped to them).
JOINT_SPEED_MAX = 20.0  # rad/s: 8x the Panda's fastest joint; reached only in a collision
DEPTH_MAX_M = 10.0  # beyond the table from every camera: the far background reads as this
SIM_TIME_MAX_S = 1e6  # simulated seconds: far past any task's budget
_EE_POSE_LOW = np.array([-2.0, -2.0, -2.0, -1.0, -1.0, -1.0, -1.0])  # TCP within 2 m of the base; unit quaternion
_DOWN = np.array([0.0, 1.0, 0.0, 0.0])  # TCP pointing down, fingers closing along world y (w, x, y, z)

# (task, ground-truth state, elapsed simulated seconds) -> (soft score in [0, 100], build complete)
Scorer = Callable[[TaskSpec, WorldState, float], tuple[float, bool]]
PROGRESS_SCORERS: Registry[Scorer] = Registry("progress scorer", entry_point_group="jarvis.scorers")


def _resolve_scorer(scorer: Scorer | str) -> Scorer:
    if callable(scorer):
        return scorer
    if ":" not in scorer:
        try:
            return PROGRESS_SCORERS.get(scorer)
        except UnknownName as exc:
            raise ValueError(f"{ENV_ID}: scorer {scorer!r}: {exc}; or give a callable or 'module:function'") from None
    module, _, name = scorer.partition(":")
    if not module or not name:
        raise ValueError(f"{ENV_ID}: scorer {scorer!r} must be a callable or 'module:function'")
    fn = getattr(importlib.import_module(module), name, None)
    if not callable(fn):
        raise ValueError(f"{ENV_ID}: scorer {scorer!r}: {module} has no function {name!r}")
    return fn  # type: ignore[no-any-return]


def _resolve_task(task: TaskSpec | str) -> TaskSpec:
    if isinstance(task, TaskSpec):
        return task
    if not isinstance(task, str):
        raise TypeError(f"{ENV_ID}: task must be a TaskSpec or a task id string, got {type(task).__name__}")
    from jarvis_sim.tasks.registry import load_task

    loaded = load_task(task)
    if not isinstance(loaded, TaskSpec):
        raise ValueError(f"{ENV_ID}: task {task!r} is a {type(loaded).__name__}, not a LEGO assembly task "
                         "(ids look like lego/<suite>/<name>; list them with `jarvis tasks list`)")
    return loaded


def _turned(base: np.ndarray, rotvec: np.ndarray) -> np.ndarray:
    """The quaternion (w, x, y, z) of `base` followed, in its own frame, by the rotation vector `rotvec`."""
    turned = Rotation.from_quat(base, scalar_first=True) * Rotation.from_rotvec(rotvec)
    return np.asarray(turned.as_quat(scalar_first=True))


class LegoAssemblyEnv(gym.Env[dict[str, np.ndarray], np.ndarray]):
    """A JARVIS assembly episode: one TaskSpec in one backend."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 5}  # noqa: RUF012  (instance copy set in __init__)

    def __init__(self, task: TaskSpec | str, backend: str | Backend = "mujoco",
                 action_mode: Literal["ee", "joint"] = "ee", reward: Literal["dense", "sparse"] = "dense",
                 scorer: Scorer | str = DEFAULT_SCORER, ticks_per_step: int = 10, depth: bool = True,
                 render_mode: str | None = "rgb_array", backend_kwargs: dict[str, Any] | None = None) -> None:
        self.task = _resolve_task(task)
        if action_mode not in ("ee", "joint"):
            raise ValueError(f"{ENV_ID}: action_mode must be 'ee' or 'joint', got {action_mode!r}")
        if reward not in ("dense", "sparse"):
            raise ValueError(f"{ENV_ID}: reward must be 'dense' or 'sparse', got {reward!r}")
        if not isinstance(ticks_per_step, int) or ticks_per_step < 1:
            raise ValueError(f"{ENV_ID}: ticks_per_step must be a positive integer, got {ticks_per_step!r}")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"{ENV_ID}: render_mode must be 'rgb_array' or None, got {render_mode!r}")
        self.scorer = _resolve_scorer(scorer)
        self.backend = backend if isinstance(backend, Backend) else make_backend(backend, **(backend_kwargs or {}))
        self.action_mode = action_mode
        self.reward_mode = reward
        self.ticks_per_step = ticks_per_step
        self.depth = depth
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "render_fps": 1.0 / (self.backend.control_dt * ticks_per_step)}
        self.backend.load(self.task, seed=self.task.scene_seed)  # task.seed is the generation seed, not a scene seed
        self._scene = self.task  # the task as the current scene seed lays it out: what the scorer judges
        self._reset_seed: int | None = None
        self._last_score = 0.0
        ws = self.task.workspace
        self._ee_low = np.array([ws.table_min[0], ws.table_min[1], 0.0])
        self._ee_high = np.array([ws.table_max[0], ws.table_max[1], EE_Z_MAX_M])
        if action_mode == "joint":
            self._q_low, self._q_high = self.backend.joint_limits()
        frame = self.backend.render("top", rgb=True, depth=False)
        h, w = frame.shape
        obs: dict[str, spaces.Space[Any]] = {
            "rgb": spaces.Box(0, 255, (h, w, 3), np.uint8),
            "joint_positions": spaces.Box(-2 * math.pi, 2 * math.pi, (7,), np.float64),
            "joint_velocities": spaces.Box(-JOINT_SPEED_MAX, JOINT_SPEED_MAX, (7,), np.float64),
            "gripper_width": spaces.Box(0.0, 0.1, (1,), np.float64),
            "ee_pose": spaces.Box(_EE_POSE_LOW, -_EE_POSE_LOW, (7,), np.float64),
            "sim_time": spaces.Box(0.0, SIM_TIME_MAX_S, (1,), np.float64),
        }
        if depth:
            obs["depth"] = spaces.Box(0.0, DEPTH_MAX_M, (h, w), np.float32)
        self.observation_space = spaces.Dict(obs)  # type: ignore[assignment]
        self.action_space = spaces.Box(-1.0, 1.0, (7 if action_mode == "ee" else 8,), np.float32)  # type: ignore[assignment]

    def _observation(self) -> dict[str, np.ndarray]:
        frame = self.backend.render("top", rgb=True, depth=self.depth)
        rs = self.backend.robot_state()
        obs = {
            "rgb": frame.rgb,
            "joint_positions": np.asarray(rs.joint_positions, dtype=np.float64),
            "joint_velocities": np.clip(np.asarray(rs.joint_velocities, dtype=np.float64), -JOINT_SPEED_MAX, JOINT_SPEED_MAX),
            "gripper_width": np.array([rs.gripper_width], dtype=np.float64),
            "ee_pose": np.clip(np.concatenate([rs.ee_position, rs.ee_quaternion]), _EE_POSE_LOW, -_EE_POSE_LOW),
            "sim_time": np.array([min(rs.sim_time_s, SIM_TIME_MAX_S)], dtype=np.float64),
        }
        if self.depth:
            obs["depth"] = np.clip(np.asarray(frame.depth, dtype=np.float32), 0.0, DEPTH_MAX_M)
        return obs  # type: ignore[return-value]

    def _score(self) -> tuple[float, bool]:
        score, complete = self.scorer(self._scene, self.backend.world_state(), self.backend.sim_time_s)
        return float(score), bool(complete)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Rebuild the task's initial scene from a seed: the same seed gives the same state.

        Seed 0 is the TaskSpec as written; other seeds scatter the loose bricks and add distractors
        (jarvis_sim.tasks.variation), and the reward judges that scene. Without a seed the first reset uses the
        task's scene seed and later ones draw a fresh seed from the env's generator, so episodes differ.
        """
        super().reset(seed=seed)
        if seed is None:
            seed = self.task.scene_seed if self._reset_seed is None else int(self.np_random.integers(2**31 - 1))
        self._scene = seeded_scene(self.task, seed)  # rejects a negative seed by name
        self._reset_seed = seed
        self.backend.reset(seed=seed)
        self._last_score, complete = self._score()
        return self._observation(), {"task": self.task.public_view(), "seed": seed,
                                     "soft_score": self._last_score, "complete": complete}

    def _command(self, a: np.ndarray) -> None:
        if self.action_mode == "ee":
            position = self._ee_low + (a[:3] + 1.0) / 2.0 * (self._ee_high - self._ee_low)
            quaternion = _turned(_DOWN, math.pi * a[3:6])
            self.backend.set_ee_target(position, quaternion)
        else:
            self.backend.set_joint_targets(self._q_low + (a[:7] + 1.0) / 2.0 * (self._q_high - self._q_low))
        self.backend.set_gripper(bool(a[-1] > 0.0))

    def step(self, action: np.ndarray) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Apply a normalised command, advance ticks_per_step control ticks, score the ground truth."""
        a = np.asarray(action, dtype=np.float64)
        n = self.action_space.shape[0] if self.action_space.shape else 0
        if a.shape != (n,) or not np.isfinite(a).all() or np.abs(a).max() > 1.0 + 1e-6:
            raise ValueError(f"{ENV_ID}: action must be {n} finite numbers in [-1, 1] "
                             f"(action_mode={self.action_mode!r}), got {action!r}")
        self._command(a)
        self.backend.step(self.ticks_per_step)
        return self.outcome()

    def outcome(self, out_of_budget: bool = False) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Observe and score the world as it is now: the step tuple, for wrappers that move the arm themselves.

        `out_of_budget` truncates the episode for a budget the caller keeps (e.g. skill calls).
        """
        score, terminated = self._score()
        truncated = not terminated and (out_of_budget or self.backend.sim_time_s >= self.task.time_budget_s)
        if self.reward_mode == "dense":
            reward = (score - self._last_score) / 100.0
        else:
            reward = score / 100.0 if terminated or truncated else 0.0
        self._last_score = score
        return self._observation(), reward, terminated, truncated, {"soft_score": score, "complete": terminated}

    def render(self) -> np.ndarray | None:  # type: ignore[override]
        """The side view (or top view) as RGB for people watching; not an observation."""
        if self.render_mode is None:
            return None
        cam = "side" if "side" in self.backend.cameras() else "top"
        return self.backend.render(cam, rgb=True, depth=False).rgb

    def ground_truth(self) -> WorldState:
        """EVALUATOR / ORACLE ONLY: exact brick poses, held flags and clutch links."""
        return self.backend.world_state()

    def close(self) -> None:
        """Free the backend."""
        self.backend.close()
