"""TaskSpec: one JARVIS assembly task, as versioned JSON.

A task is a segment of a build sequence: the structure already built (`initial`), the bricks to add
(`action_bricks`, each with where it lies on the table and where it goes on the lattice), the manual
steps that show them, and a time budget. The target assembly is derived (initial + action targets),
so the two can never disagree.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from jarvis_sim.lego.assembly import Assembly, LatticeBrick, brick_pose_in_world

TASKSPEC_VERSION = 1
MAX_TASK_BRICKS = 1000  # initial + action: the pool's largest tasks hold ~750; MuJoCo aborts near 5,000
WORLD_LIMIT_M = 10.0  # any pose or workspace coordinate beyond 10 m is a broken file, not a table

Difficulty = Literal["easy", "medium", "hard"]


class TablePose(BaseModel):
    """A brick lying right side up on the table: centre (x, y) in metres, yaw in radians."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    x: float = Field(ge=-WORLD_LIMIT_M, le=WORLD_LIMIT_M, allow_inf_nan=False)
    y: float = Field(ge=-WORLD_LIMIT_M, le=WORLD_LIMIT_M, allow_inf_nan=False)
    yaw: float = Field(0.0, ge=-100.0, le=100.0, allow_inf_nan=False, description="Radians.")


class Workspace(BaseModel):
    """Where things are on the table, in the world frame (robot base at the origin, table top z = 0)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table_min: tuple[float, float] = (-0.3, -0.6)
    table_max: tuple[float, float] = (0.9, 0.6)
    lattice_origin: tuple[float, float, float] = Field(
        (0.40, -0.20, 0.0), description="World position of lattice point (0, 0, level 0), m."
    )
    staging_min: tuple[float, float] = (0.30, 0.18)
    staging_max: tuple[float, float] = (0.62, 0.42)

    @model_validator(mode="after")
    def _finite(self) -> Workspace:
        for name in ("table_min", "table_max", "lattice_origin", "staging_min", "staging_max"):
            for k, v in enumerate(getattr(self, name)):
                if not math.isfinite(v) or abs(v) > WORLD_LIMIT_M:
                    raise ValueError(f"workspace.{name}[{k}] = {v!r}: expected a finite coordinate within "
                                     f"{WORLD_LIMIT_M} m")
        for lo, hi in (("table_min", "table_max"), ("staging_min", "staging_max")):
            a, b = getattr(self, lo), getattr(self, hi)
            if a[0] >= b[0] or a[1] >= b[1]:
                raise ValueError(f"workspace.{lo} {a} must lie below workspace.{hi} {b} on both axes")
        return self


class ActionBrick(BaseModel):
    """A loose brick the agent must place: where it starts on the table and its lattice target."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    start: TablePose
    target: LatticeBrick

    @property
    def id(self) -> str:
        """The brick id (same as its target's)."""
        return self.target.id


class Distractor(BaseModel):
    """A loose brick on the table that is in no manual step (seeded scene variation adds them)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    part: str
    color: int
    start: TablePose


class ManualStep(BaseModel):
    """One step of the visual manual: the bricks added at that step."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    brick_ids: list[str] = Field(min_length=1)


class Perturbation(BaseModel):
    """A disturbance injected before a skill call (error-recovery studies): at exactly `after_skill_calls`
    calls, or, with `when`, at the first call from then on at which `when_brick` is held or placed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["displace_brick", "drop_held", "knock_structure"]
    after_skill_calls: int = Field(ge=0)
    brick_id: str | None = None
    offset_m: tuple[float, float] = (0.0, 0.0)
    impulse_n_s: float = Field(0.0, ge=0.0, le=10.0, allow_inf_nan=False,
                               description="For knock_structure: horizontal impulse.")
    when: Literal["held", "placed"] | None = Field(None, description=(
        "Fire once when_brick is in the gripper ('held') or seated on the structure and not held ('placed'), "
        "whatever calls the agent made before; None: at exactly after_skill_calls calls."))
    when_brick: str | None = Field(None, description="The brick whose state `when` waits for.")

    @model_validator(mode="after")
    def _finite_offset(self) -> Perturbation:
        if not all(math.isfinite(v) and abs(v) <= 1.0 for v in self.offset_m):
            raise ValueError(f"offset_m {self.offset_m}: expected finite metres within 1 m")
        if (self.when is None) != (self.when_brick is None):
            raise ValueError("when and when_brick go together: give both or neither")
        return self


class DifficultyFields(BaseModel):
    """Inputs and result of the difficulty formula (see jarvis_sim.tasks.difficulty)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    initial_complexity: int = Field(ge=0, description="Bricks present at the start.")
    workload: int = Field(ge=1, description="Action bricks to place.")
    complexity_norm: float = Field(ge=0.0, le=1.0)
    workload_norm: float = Field(ge=0.0, le=1.0)
    score: float = Field(ge=0.0, le=1.0, description="D_i")


class TaskSpec(BaseModel):
    """A JARVIS assembly task. Ground truth (the targets) must reach only evaluators and oracles."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1  # TASKSPEC_VERSION; bump both when a field changes meaning
    id: str
    family: Literal["lego"] = "lego"
    difficulty: Difficulty | None = None
    difficulty_fields: DifficultyFields | None = None
    source_assembly: str
    baseplate: bool = False
    workspace: Workspace = Workspace()
    initial: list[LatticeBrick]
    action_bricks: list[ActionBrick] = Field(min_length=1)
    manual_steps: list[ManualStep] = Field(min_length=1)
    time_budget_s: float = Field(gt=0, le=86_400.0, allow_inf_nan=False,
                                 description="Simulated seconds allowed before the time penalty.")
    perturbations: list[Perturbation] = Field(default_factory=list)
    seed: int = 0
    scene_seed: int = Field(0, ge=0, description="The scene variation seed the loose bricks' start poses and the "
                            "distractors were drawn with (jarvis_sim.tasks.variation); 0: the task as generated.")
    distractors: list[Distractor] = Field(default_factory=list, description="Loose bricks in no manual step.")

    @model_validator(mode="after")
    def _consistent(self) -> TaskSpec:
        n_bricks = len(self.initial) + len(self.action_bricks)
        if n_bricks > MAX_TASK_BRICKS:
            raise ValueError(f"task {self.id}: {n_bricks} bricks (initial + action); a task holds at most "
                             f"{MAX_TASK_BRICKS}")
        action_ids = [a.id for a in self.action_bricks]
        stepped = [i for s in self.manual_steps for i in s.brick_ids]
        if sorted(stepped) != sorted(action_ids):
            raise ValueError(
                f"task {self.id}: manual steps cover {sorted(stepped)} but the action bricks are {sorted(action_ids)}"
            )
        initial_ids = {b.id for b in self.initial}
        clash = initial_ids.intersection(action_ids)
        if clash:
            raise ValueError(f"task {self.id}: ids both initial and action: {sorted(clash)}")
        distractor_ids = [d.id for d in self.distractors]
        clash = set(distractor_ids).intersection(initial_ids | set(action_ids))
        if clash or len(set(distractor_ids)) != len(distractor_ids):
            raise ValueError(f"task {self.id}: distractor ids repeat or name manual bricks: {sorted(distractor_ids)}")
        for p in self.perturbations:
            for named in (p.brick_id, p.when_brick):
                if named is not None and named not in initial_ids and named not in action_ids:
                    raise ValueError(f"task {self.id}: perturbation names unknown brick {named!r}")
        return self

    @model_serializer(mode="wrap")
    def _omit_unvaried_scene(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A task as generated serialises as it did before scene variation existed, so the shipped suite files
        # (and every hash of them) stay byte-identical; only a varied scene carries the two fields.
        data: dict[str, Any] = handler(self)
        if self.scene_seed == 0 and not self.distractors:
            data.pop("scene_seed", None)
            data.pop("distractors", None)
        return data

    @cached_property
    def initial_assembly(self) -> Assembly:
        """The structure present at the start."""
        return Assembly(self.initial, self.baseplate, self.source_assembly)

    @cached_property
    def target_assembly(self) -> Assembly:
        """Initial structure plus every action brick at its target, in manual order."""
        by_id = {a.id: a.target for a in self.action_bricks}
        ordered = [by_id[i] for s in self.manual_steps for i in s.brick_ids]
        return Assembly([*self.initial, *ordered], self.baseplate, self.source_assembly)

    def target_world_pose(
        self, brick_id: str
    ) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        """World pose (bottom-face centre, wxyz) of a brick in the target assembly."""
        return brick_pose_in_world(self.target_assembly[brick_id], self.workspace.lattice_origin)

    def public_view(self) -> dict[str, object]:
        """What an agent may see: ids, parts, colours, start poses, steps, budget; never the targets."""
        return {
            "id": self.id,
            "family": self.family,
            "difficulty": self.difficulty,
            "baseplate": self.baseplate,
            "n_initial_bricks": len(self.initial),
            "action_bricks": [
                {"id": a.id, "part": a.target.part, "color": a.target.color} for a in self.action_bricks
            ],
            "manual_steps": [s.model_dump() for s in self.manual_steps],
            "time_budget_s": self.time_budget_s,
        }


def time_budget_s(n_action_bricks: int) -> float:
    """Simulated-time budget: 30 s of set-up plus 25 s per action brick (a pick-and-place takes ~12 s)."""
    return 30.0 + 25.0 * n_action_bricks


def yaw_distance(a: float, b: float, symmetry: int = 1) -> float:
    """Smallest absolute yaw difference in radians, modulo 2*pi/symmetry."""
    period = 2 * math.pi / symmetry
    d = (a - b) % period
    return min(d, period - d)
