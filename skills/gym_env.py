"""The skill-level Gymnasium env `jarvis/LegoAssemblySkills-v1`: one action is one verified skill call.

    import gymnasium, skills
    env = gymnasium.make("jarvis/LegoAssemblySkills-v1", task="lego/v7-00009-stairs/000")

It wraps `jarvis/LegoAssembly-v1` (same task, backend, seeds, reward and termination) for agents that act
by skills, not by motor commands. The action is MultiDiscrete
`[skill, brick, stud_x, stud_y, level, rotation]`: skill 0 is `pick(brick)` where `brick` indexes the
bricks of the last observation (in perception-id order), skill 1 is `place_at(stud_x, stud_y, level,
rotation)` on the build area's lattice; fields a skill does not use are ignored. The stud and level fields span
the whole lattice any task may use (jarvis_sim.lego.assembly.LATTICE_LIMIT: studs -LIMIT..LIMIT, negative
ones included, as an imported model's are, and levels 0..LIMIT), the same space for every task, so one policy
can act on any of them (MultiDiscrete's `start` holds the negative lower bounds). Every step ends with an
`observe()`, whose bricks fill the "bricks" observation (MAX_BRICKS rows of BRICK_FEATURES, unused rows 0),
beside the camera and proprioception of the motor-level env. A skill's refusal (nothing held, brick not free,
place off the studs) is not an exception: the step returns it as info["skill_error"] with its kind, as the
agent prompt would. The episode is truncated when the task's time budget or the skill-call budget is spent.
It lives in `skills`, not `jarvis_sim`, because imports flow skills -> jarvis_sim.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from jarvis_sim.env import LegoAssemblyEnv
from jarvis_sim.lego.assembly import LATTICE_LIMIT
from jarvis_sim.tasks.spec import TaskSpec
from skills.context import SkillContext
from skills.errors import BudgetExceeded, InvalidArgument, SkillError
from skills.libraries import bind
from skills.types import BrickDescriptor

SKILL_ENV_ID = "jarvis/LegoAssemblySkills-v1"
SKILLS = ("pick", "place_at")
MAX_BRICKS = 32  # rows of the "bricks" observation: more than any pool task has on the table
# place_at's stud_x, stud_y and level: every lattice position an Assembly can hold (its own validation bounds).
STUD_MIN, STUD_MAX = -LATTICE_LIMIT, LATTICE_LIMIT
LEVEL_MAX = LATTICE_LIMIT
# Per observed brick: present, x_mm, y_mm, top_z_mm, yaw_deg, size long, size short, in_structure, free_to_grasp
BRICK_FEATURES = 9
_FEATURE_MAX = np.array([1, 2000, 2000, 1000, 180, 16, 16, 1, 1], np.float32)
_FEATURE_MIN = np.array([0, -2000, -2000, -1000, 0, 0, 0, 0, 0], np.float32)


def _features(d: BrickDescriptor) -> np.ndarray:
    return np.array([1.0, d.x_mm, d.y_mm, d.top_z_mm, d.yaw_deg, d.size[0], d.size[1], d.in_structure,
                     d.free_to_grasp], np.float32)


class SkillAssemblyEnv(gym.Wrapper[dict[str, np.ndarray], np.ndarray, dict[str, np.ndarray], np.ndarray]):
    """Verified skills as the action space over a LegoAssemblyEnv."""

    def __init__(self, env: LegoAssemblyEnv, max_calls: int = 400) -> None:
        super().__init__(env)
        self.base = env
        self.max_calls = max_calls
        studs = STUD_MAX - STUD_MIN + 1
        self.action_space = spaces.MultiDiscrete(  # type: ignore[assignment]
            [len(SKILLS), MAX_BRICKS, studs, studs, LEVEL_MAX + 1, 4], start=[0, 0, STUD_MIN, STUD_MIN, 0, 0])
        obs = dict(env.observation_space.spaces)  # type: ignore[attr-defined]
        obs["bricks"] = spaces.Box(np.tile(_FEATURE_MIN, (MAX_BRICKS, 1)), np.tile(_FEATURE_MAX, (MAX_BRICKS, 1)),
                                   (MAX_BRICKS, BRICK_FEATURES), np.float32)
        obs["held"] = spaces.MultiBinary(1)
        self.observation_space = spaces.Dict(obs)  # type: ignore[assignment]
        self._new_context()

    def _new_context(self) -> None:
        task: TaskSpec = self.base.task
        self.ctx = SkillContext(backend=self.base.backend, workspace=task.workspace, max_calls=self.max_calls,
                                max_sim_s=task.time_budget_s)
        self.skills = bind("task", self.ctx)
        self._order: list[str] = []

    def _with_bricks(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        found = sorted(self.ctx.perceived.descriptors.values(), key=lambda d: int(d.id[1:]))[:MAX_BRICKS]
        self._order = [d.id for d in found]
        table = np.zeros((MAX_BRICKS, BRICK_FEATURES), np.float32)
        for k, d in enumerate(found):
            table[k] = np.clip(_features(d), _FEATURE_MIN, _FEATURE_MAX)
        return {**obs, "bricks": table, "held": np.array([self.ctx.held is not None], np.int8)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Reset the world, start a fresh skill context and observe."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._new_context()
        self.skills["observe"]()
        return self._with_bricks(obs), info

    def step(self, action: np.ndarray) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Run one skill, observe, and score the world (reward and termination as the motor-level env)."""
        a = np.asarray(action)
        if a.shape != (6,) or not self.action_space.contains(a.astype(np.int64)):
            space: spaces.MultiDiscrete = self.action_space  # type: ignore[assignment]
            bounds = [[int(lo), int(lo + n - 1)] for lo, n in zip(space.start, space.nvec, strict=True)]
            raise ValueError(f"{SKILL_ENV_ID}: action must be 6 integers within {bounds} "
                             f"([skill, brick, stud_x, stud_y, level, rotation]), got {action!r}")
        skill, brick, sx, sy, level, rotation = (int(v) for v in a)
        error: dict[str, str] | None = None
        out_of_budget = False
        try:
            if SKILLS[skill] == "pick":
                if brick >= len(self._order):
                    raise InvalidArgument(f"brick slot {brick} is empty: the last observation has {len(self._order)} bricks")
                self.skills["pick"](self._order[brick])
            else:
                self.skills["place_at"](sx, sy, level, rotation)
        except BudgetExceeded as exc:
            error, out_of_budget = {"kind": exc.kind, "message": exc.message}, True
        except SkillError as exc:
            error = {"kind": exc.kind, "message": exc.message}
        try:
            self.skills["observe"]()
        except BudgetExceeded:
            out_of_budget = True
        obs, reward, terminated, truncated, info = self.base.outcome(out_of_budget=out_of_budget)
        if error is not None:
            info["skill_error"] = error
        return self._with_bricks(obs), reward, terminated, truncated, {**info, "skill": SKILLS[skill]}


def make_skill_env(task: TaskSpec | str, max_calls: int = 400, **kwargs: Any) -> SkillAssemblyEnv:
    """The registered entry point: a LegoAssemblyEnv (kwargs as for it) wrapped in skills."""
    return SkillAssemblyEnv(LegoAssemblyEnv(task, **kwargs), max_calls=max_calls)
