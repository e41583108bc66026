"""Built-in Inspect Robots policies for Franka-like joint-position embodiments (`jarvis-hold`, `jarvis-sweep`).

Inspect Robots' own `noop`, `random` and `scripted` speak the CubePick toy's 2-D end-effector deltas, which
its compatibility check rightly refuses on an 8-D joint-position arm. These are their counterparts for the
`jarvis-mujoco` embodiment (and any embodiment with the Franka adapters' packing): the floor that holds
still, and a scripted open-loop sweep that moves every joint and the hand. Neither reads ground truth and
neither builds anything: they exercise the loop end to end and score the floor.
"""

from __future__ import annotations

import numpy as np
from inspect_robots.policy import PolicyConfig, PolicyInfo
from inspect_robots.scene import Scene
from inspect_robots.spaces import ActionSemantics, Box, ObservationSpace
from inspect_robots.types import Action, ActionChunk, Observation

from agent.integrations.robots_embodiment import DIM_LABELS

_ACTION_SPACE = Box(shape=(8,), semantics=ActionSemantics(
    control_mode="joint_pos", rotation_repr="none", gripper="continuous", frame="base", dim_labels=DIM_LABELS))
_OBSERVATION = ObservationSpace(state_keys=frozenset({"joint_pos"}))


def _joint_pos(observation: Observation) -> np.ndarray:
    q = np.asarray(observation.state["joint_pos"], dtype=np.float64)
    if q.shape != (8,):
        raise ValueError(f"joint_pos must be 8 numbers (7 joints and the gripper), got shape {q.shape}")
    return q


class HoldPolicy:
    """Hold the first observed pose: absolute joint control's no-op (a zero action would fold the arm)."""

    def __init__(self, *, chunk_size: int = 15) -> None:
        self.chunk_size = int(chunk_size)
        self.info = PolicyInfo(name="jarvis-hold", action_space=_ACTION_SPACE, observation_space=_OBSERVATION)
        self.config = PolicyConfig(action_horizon=self.chunk_size)
        self._hold: np.ndarray | None = None

    def reset(self, scene: Scene) -> None:
        """Forget the held pose; the next observation sets it."""
        self._hold = None

    def act(self, observation: Observation) -> ActionChunk:
        """The held pose, chunk_size times."""
        if self._hold is None:
            self._hold = _joint_pos(observation).copy()
        return ActionChunk(actions=[Action(data=self._hold.copy()) for _ in range(self.chunk_size)])


class SweepPolicy:
    """Scripted, open loop: from the first pose, swing each joint by `amplitude` rad and back, with the
    hand closing in the middle of the sweep and opening at its end; then hold."""

    def __init__(self, *, amplitude: float = 0.15, steps_per_joint: int = 10, chunk_size: int = 5) -> None:
        if not (0 < amplitude <= 0.5 and steps_per_joint >= 2 and chunk_size >= 1):
            raise ValueError("need 0 < amplitude <= 0.5 rad, steps_per_joint >= 2 and chunk_size >= 1")
        self.amplitude, self.steps_per_joint, self.chunk_size = float(amplitude), int(steps_per_joint), int(chunk_size)
        self.info = PolicyInfo(name="jarvis-sweep", action_space=_ACTION_SPACE, observation_space=_OBSERVATION)
        self.config = PolicyConfig(action_horizon=self.chunk_size)
        self._plan: list[np.ndarray] = []
        self._t = 0

    def reset(self, scene: Scene) -> None:
        """Plan again from the next observation."""
        self._plan, self._t = [], 0

    def _make_plan(self, start: np.ndarray) -> list[np.ndarray]:
        plan = []
        for j in range(7):
            for k in range(self.steps_per_joint):
                q = start.copy()
                q[j] += self.amplitude * np.sin(np.pi * k / (self.steps_per_joint - 1))
                q[7] = 0.0 if j == 3 else 1.0  # the hand closes while joint 4 swings
                plan.append(q)
        return plan

    def act(self, observation: Observation) -> ActionChunk:
        """The next chunk of the sweep (the last pose once it is done)."""
        if not self._plan:
            self._plan = self._make_plan(_joint_pos(observation))
        chunk = []
        for _ in range(self.chunk_size):
            chunk.append(Action(data=self._plan[min(self._t, len(self._plan) - 1)].copy()))
            self._t += 1
        return ActionChunk(actions=chunk)
