"""JARVIS's MuJoCo world as an Inspect Robots embodiment (`--embodiment jarvis-mujoco`).

The action and observation contract is the Franka adapters' (inspect-robots-franka, inspect-robots-isaacsim):
an 8-D absolute joint-position action `[joint1..joint7, gripper]` in the base frame, bounded by the Panda's
published joint limits, and proprioception `joint_pos` packed the same way (the gripper slot normalised, 0
closed, 1 open). Cameras are JARVIS's own: `top` (top-down over the table) and `side` (oblique from the front).

Capabilities are what the backend really has: seedable (a seed lays out the scene as JARVIS's
`seeded_scene` does), resettable, renderable, and privileged success (the evaluator's `complete` on the
ground truth after every step). It is not self-paced: it steps simulated time as fast as the CPU allows.
Ground truth goes into each StepResult's `info["jarvis"]` (for scorers, never the observation).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from inspect_robots.embodiment import PRIVILEGED_SUCCESS, RENDERABLE, RESETTABLE, SEEDABLE, EmbodimentInfo
from inspect_robots.scene import Scene
from inspect_robots.spaces import ActionSemantics, Box, CameraSpec, ObservationSpace, StateField, StateSpec
from inspect_robots.types import Action, Observation, StepResult

from evaluator.assembly import build_progress
from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.mujoco.panda import FINGER_MAX_M, Q_LOWER, Q_UPPER
from jarvis_sim.backends.mujoco.scene import SimConfig
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.tasks.registry import load_task
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import seeded_scene

NAME = "jarvis-mujoco"
TASK_KEY = "jarvis_task_id"  # Scene.metadata key naming the JARVIS task a scene plays
INFO_KEY = "jarvis"  # StepResult.info key with the ground truth the scorers read
DIM_LABELS = (*(f"joint{i}" for i in range(1, 8)), "gripper")  # the Franka adapters' packing
GRIPPER_MAX_M = 2 * FINGER_MAX_M  # Franka Hand: 80 mm maximum opening (the Panda model's finger travel, 2 x 40 mm)
GRIP_THRESHOLD = 0.5  # gripper slot below this closes with the grip force; at or above it opens to that fraction
CAMERAS = ("top", "side")

_DOCS = f"""JARVIS's MuJoCo LEGO workspace: a simulated 7-DoF Franka Panda with a parallel-jaw hand over a table.
Actions and state use absolute joint positions in the robot base frame (radians), joint1..joint7 as on the
Franka arm, then the gripper slot: below {GRIP_THRESHOLD} the hand closes with its grip force (a force-controlled
grasp); from {GRIP_THRESHOLD} to 1 it opens to that fraction of 80 mm. State `joint_pos` packs the same way, the
gripper slot being the measured opening over 80 mm. Cameras: `top` looks straight down at the table, `side`
obliquely from the front. Bricks clutch only when pressed onto studs; move in small steps near the table."""


def _state_spec() -> StateSpec:
    return StateSpec(fields=(
        StateField("joint_pos", (8,), "rad+normalized"),
        StateField("joint_vel", (7,), "rad/s"),
        StateField("eef_pos", (3,), "m"),
        StateField("eef_quat", (4,), "unit_quat"),
    ))


class JarvisEmbodiment:
    """The MuJoCo backend behind the Inspect Robots Embodiment protocol; one JARVIS task per scene."""

    def __init__(self, *, control_hz: float = 15.0, cam_height: int = 240, cam_width: int = 320,
                 task: str | None = None) -> None:
        if not (np.isfinite(control_hz) and control_hz > 0):
            raise ValueError(f"{NAME}: control_hz must be finite and > 0, got {control_hz!r}")
        if cam_height < 16 or cam_width < 16:
            raise ValueError(f"{NAME}: cameras need at least 16x16 pixels, got {cam_height}x{cam_width}")
        self._control_hz = float(control_hz)
        self._sim_config = {"image_width": int(cam_width), "image_height": int(cam_height)}
        # The hand's opening changes at most 2 x the finger speed the backend ramps at: declared so guardrails and
        # the LLM agent policy pace the gripper slot as fast as the hand moves, not at a fraction of its range.
        grip_step = 2 * SimConfig().finger_speed_m_s / GRIPPER_MAX_M / self._control_hz
        self._default_task = task  # for ad-hoc scenes (`inspect-robots run --instruction ...`) that name none
        self._backend: Backend | None = None
        self._loaded: TaskSpec | None = None
        self._scene: TaskSpec | None = None  # the task as the reset's seed lays it out: what the evaluator judges
        self._seed = 0
        self._instruction: str | None = None
        self.info = EmbodimentInfo(
            name=NAME,
            action_space=Box(
                shape=(8,),
                low=np.concatenate([Q_LOWER, [0.0]]).astype(np.float64),
                high=np.concatenate([Q_UPPER, [1.0]]).astype(np.float64),
                semantics=ActionSemantics(control_mode="joint_pos", rotation_repr="none", gripper="continuous",
                                          frame="base", dim_labels=DIM_LABELS,
                                          max_step=(*(None,) * 7, grip_step)),
            ),
            observation_space=ObservationSpace(
                cameras=tuple(CameraSpec(c, int(cam_height), int(cam_width), 3) for c in CAMERAS),
                state=_state_spec(),
            ),
            control_hz=self._control_hz,
            is_simulated=True,
            capabilities=frozenset({SEEDABLE, RESETTABLE, RENDERABLE, PRIVILEGED_SUCCESS}),
            supported_target_kinds=frozenset({"jarvis_assembly"}),
            docs=_DOCS,
            environment_id="jarvis-mujoco",
        )

    # --- protocol --------------------------------------------------------------------------------
    def reset(self, scene: Scene, *, seed: int | None = None) -> Observation:
        """Load the scene's JARVIS task (once per task) and lay it out for this seed."""
        task_id = scene.metadata.get(TASK_KEY) or (scene.target.spec.get("task_id") if scene.target else None)
        task_id = task_id or self._default_task
        if not task_id:
            raise ValueError(f"{NAME}: scene {scene.id!r} names no JARVIS task (metadata {TASK_KEY!r}); use a "
                             "jarvis-* task set or pass -E task=lego/...")
        spec = load_task(str(task_id))
        if not isinstance(spec, TaskSpec):
            raise ValueError(f"{NAME}: {task_id!r} is a question item, not a LEGO assembly task")
        backend = self._ensure_backend()
        self._seed = 0 if seed is None else int(seed) % (2**31 - 1)  # the backend takes a non-negative int32
        if self._loaded is None or self._loaded.id != spec.id:
            backend.load(spec, seed=spec.scene_seed)
            self._loaded = spec
        backend.reset(seed=self._seed)
        self._scene = seeded_scene(spec, self._seed)
        self._instruction = scene.instruction
        return self._observe(scene.instruction)

    def step(self, action: Action) -> StepResult:
        """Command the joint targets and the hand, advance one control period, judge the ground truth."""
        backend = self._require()
        a = np.asarray(action.data, dtype=np.float64)
        if a.shape != (8,) or not np.isfinite(a).all():
            raise ValueError(f"{NAME}: action must be 8 finite numbers {DIM_LABELS}, got shape {a.shape}")
        a = np.clip(a, self.info.action_space.low, self.info.action_space.high)  # type: ignore[arg-type]
        backend.set_joint_targets(a[:7])
        if a[7] < GRIP_THRESHOLD:
            backend.set_gripper(True)
        else:
            backend.set_gripper(False, width_m=float(a[7]) * GRIPPER_MAX_M)
        ticks = max(1, round(1.0 / (self._control_hz * backend.control_dt)))
        backend.step(ticks)
        truth = self.ground_truth()
        complete = bool(truth["complete"])
        assert self._scene is not None
        out_of_time = backend.sim_time_s >= self._scene.time_budget_s
        return StepResult(
            observation=self._observe(self._instruction),
            reward=truth["soft_score"] / 100.0,
            terminated=complete,
            termination_reason="success" if complete else None,
            truncated=out_of_time and not complete,
            info={"success": complete, INFO_KEY: truth},
        )

    def close(self) -> None:
        """Free the simulator and its renderers."""
        if self._backend is not None:
            self._backend.close()
        self._backend, self._loaded, self._scene = None, None, None

    # --- ground truth (scorers only) --------------------------------------------------------------
    def ground_truth(self) -> dict[str, Any]:
        """The task, seed, world state and elapsed simulated time the evaluator scores, with its verdict now."""
        backend, scene = self._require(), self._scene
        assert scene is not None
        state = backend.world_state()
        soft, complete = build_progress(scene, state, backend.sim_time_s)
        return {"task_id": scene.id, "seed": self._seed, "elapsed_s": backend.sim_time_s,
                "world_state": state.model_dump(mode="json"), "soft_score": soft, "complete": complete}

    # --- internals -------------------------------------------------------------------------------
    def _ensure_backend(self) -> Backend:
        if self._backend is None:
            self._backend = make_backend("mujoco", config=self._sim_config)
        return self._backend

    def _require(self) -> Backend:
        if self._backend is None or self._scene is None:
            raise RuntimeError(f"{NAME}: step() before reset() (or after close())")
        return self._backend

    def _observe(self, instruction: str | None) -> Observation:
        backend = self._require()
        rs = backend.robot_state()
        grip = float(np.clip(rs.gripper_width / GRIPPER_MAX_M, 0.0, 1.0))
        images = {}
        for cam in CAMERAS:
            frame = backend.render(cam, rgb=True, depth=False)
            assert frame.rgb is not None
            images[cam] = np.ascontiguousarray(frame.rgb, dtype=np.uint8)
        t = float(rs.sim_time_s)
        return Observation(
            images=images,
            state={
                "joint_pos": np.concatenate([np.asarray(rs.joint_positions, dtype=np.float64), [grip]]),
                "joint_vel": np.asarray(rs.joint_velocities, dtype=np.float64),
                "eef_pos": np.asarray(rs.ee_position, dtype=np.float64),
                "eef_quat": np.asarray(rs.ee_quaternion, dtype=np.float64),
            },
            instruction=instruction,
            image_times=dict.fromkeys(images, t),
            state_time=t,
        )
