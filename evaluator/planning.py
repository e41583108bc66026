"""Planning and grounding metrics (paper Table 4): an agent's predicted plan against the manual.

A plan is a list of steps (which brick, which target pose) the agent states before executing. Each
predicted step is matched to a manual step of the same part and colour by optimal assignment on pose
error; a pair farther apart than the config's match radius is not a match. Reported: matched, missing
and extra steps, coverage (matched / required) and, over matched steps, the mean position error in
millimetres and the symmetry-aware yaw error in degrees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy.optimize import linear_sum_assignment

from evaluator.config import ScoringConfig
from evaluator.geometry import task_geometry, yaw_error
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import LatticeBrick, brick_pose_in_world
from jarvis_sim.tasks.spec import TaskSpec

_YAW_COST_M_PER_RAD = u.STUD_PITCH_M / (math.pi / 2)


class PlanStep(BaseModel):
    """One predicted step: a brick (part, colour; id if the agent gave one) and its target world pose."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    brick_id: str | None = Field(default=None, description="The agent's brick id, if it named one.")
    part: str = Field(description="LDraw part number.")
    color: int = Field(description="LDraw colour code.")
    position: tuple[float, float, float] = Field(description="World position of the bottom-face centre, m.")
    yaw: float = Field(default=0.0, description="Yaw about z, rad.")

    @classmethod
    def from_lattice(cls, brick: LatticeBrick, origin: tuple[float, float, float]) -> PlanStep:
        """A step placing a lattice brick, posed in the world through the lattice origin."""
        pos, _ = brick_pose_in_world(brick, origin)
        return cls(brick_id=brick.id, part=brick.part, color=brick.color, position=pos, yaw=brick.yaw_rad)


@dataclass(frozen=True)
class StepMatch:
    """A predicted step paired with a manual step, and their pose differences."""

    predicted: int  # index into the predicted plan
    target_id: str
    position_error_m: float
    yaw_error_rad: float


@dataclass(frozen=True)
class PlanningScores:
    """Matched / missing / extra steps, coverage (0-100) and mean errors over matched steps."""

    n_required: int
    n_predicted: int
    matches: tuple[StepMatch, ...]
    missing: tuple[str, ...]  # manual brick ids with no matched step
    extra: tuple[int, ...]  # predicted step indices with no manual step

    @property
    def coverage(self) -> float:
        """Matched steps as a percentage of required steps."""
        return 100.0 * len(self.matches) / self.n_required if self.n_required else 100.0

    @property
    def position_error_mm(self) -> float | None:
        """Mean position error over matched steps, mm (None when nothing matched)."""
        if not self.matches:
            return None
        return 1000.0 * sum(m.position_error_m for m in self.matches) / len(self.matches)

    @property
    def orientation_error_deg(self) -> float | None:
        """Mean yaw error modulo symmetry over matched steps, degrees (None when nothing matched)."""
        if not self.matches:
            return None
        return math.degrees(sum(m.yaw_error_rad for m in self.matches) / len(self.matches))

    def scores(self) -> dict[str, float]:
        """Flat numbers for a record (errors omitted when nothing matched)."""
        out = {
            "plan_matched": float(len(self.matches)),
            "plan_missing": float(len(self.missing)),
            "plan_extra": float(len(self.extra)),
            "plan_coverage": self.coverage,
        }
        if self.position_error_mm is not None and self.orientation_error_deg is not None:
            out["plan_position_error_mm"] = self.position_error_mm
            out["plan_orientation_error_deg"] = self.orientation_error_deg
        return out

    def details(self) -> dict[str, Any]:
        """Per-step explanation."""
        return {
            "matches": [
                {
                    "predicted": m.predicted,
                    "target": m.target_id,
                    "position_error_mm": round(1000.0 * m.position_error_m, 3),
                    "yaw_error_deg": round(math.degrees(m.yaw_error_rad), 3),
                }
                for m in self.matches
            ],
            "missing": list(self.missing),
            "extra": list(self.extra),
        }


def score_plan(task: TaskSpec, plan: list[PlanStep], config: ScoringConfig | None = None) -> PlanningScores:
    """Compare a predicted plan with the task's manual steps."""
    cfg = config or ScoringConfig()
    radius = cfg.planning.match_radius_m
    geo = task_geometry(task)
    by_key: dict[tuple[str, int], list[int]] = {}
    for k, step in enumerate(plan):
        by_key.setdefault((step.part, step.color), []).append(k)
    matches: list[StepMatch] = []
    for key, idx in geo.groups.items():
        preds = by_key.get(key, [])
        if not preds:
            continue
        pos_err = np.empty((len(idx), len(preds)))
        yaw_err = np.empty_like(pos_err)
        for i, a in enumerate(idx):
            t = geo.actions[a].pose
            for j, p in enumerate(preds):
                x, y, z = plan[p].position
                pos_err[i, j] = math.sqrt((x - t.x) ** 2 + (y - t.y) ** 2 + (z - t.z) ** 2)
                yaw_err[i, j] = yaw_error(plan[p].yaw, t.yaw, t.period)
        cost = pos_err + _YAW_COST_M_PER_RAD * yaw_err
        # Pairs outside the radius can never match; cost them so the assignment prefers real matches.
        cost = np.where(np.isfinite(cost) & (pos_err <= radius), cost, 1e6)
        rows, cols = linear_sum_assignment(cost)
        for i, j in zip(rows, cols, strict=True):
            if pos_err[i, j] <= radius:
                matches.append(StepMatch(preds[j], geo.actions[idx[i]].id, float(pos_err[i, j]), float(yaw_err[i, j])))
    matched_targets = {m.target_id for m in matches}
    matched_preds = {m.predicted for m in matches}
    order = {a.id: k for k, a in enumerate(geo.actions)}
    matches.sort(key=lambda m: order[m.target_id])
    return PlanningScores(
        n_required=len(geo.actions),
        n_predicted=len(plan),
        matches=tuple(matches),
        missing=tuple(a.id for a in geo.actions if a.id not in matched_targets),
        extra=tuple(k for k in range(len(plan)) if k not in matched_preds),
    )
