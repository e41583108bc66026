"""ScoringConfig: every weight, tolerance and kernel of the JARVIS scores, in one strict object.

It is saved beside every run's results (EpisodeRecord.scoring_config, scoring_config.json) so a number
can always be traced to the rules that produced it. SI units throughout: metres and radians; the
descriptions give the defaults in millimetres and degrees for people editing the JSON.

Bump SCORING_CONFIG_VERSION when a default or a formula changes meaning.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evaluator.kernels import Kernel

SCORING_CONFIG_VERSION = 2  # 2: a held brick earns no pose credit; validity.min_pose_credit

_DEG = math.pi / 180.0


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PoseConfig(_Strict):
    """Pose score of one placed brick: weighted kernels of its errors relative to its intended supports.

    pose = w_plane k_plane(e_plane) + k_gate(e_plane) (w_level k_level + w_yaw k_yaw + w_tilt k_tilt)
           + w_anchor k_anchor(e_abs)

    The gate keeps a brick lying far from its target (never moved, dropped elsewhere) from earning the
    level and orientation credit it may have by accident; a brick one stud off still earns it.
    """

    w_plane: float = Field(default=0.35, ge=0.0, description="Weight of the in-plane error relative to the supports.")
    w_level: float = Field(default=0.25, ge=0.0, description="Weight of the vertical error relative to the supports.")
    w_yaw: float = Field(default=0.2, ge=0.0, description="Weight of the yaw error modulo the part's symmetry.")
    w_tilt: float = Field(default=0.1, ge=0.0, description="Weight of the tilt (angle of the brick's z axis to z).")
    w_anchor: float = Field(default=0.1, ge=0.0, description="Weight of the absolute (world) position error.")
    plane: Kernel = Field(
        default=Kernel(full=0.001, zero=0.008),
        description="In-plane error relative to the supports, m (1 mm full, 8 mm = one stud none).",
    )
    level: Kernel = Field(
        default=Kernel(full=0.0005, zero=0.0032),
        description="Vertical error relative to the supports, m (0.5 mm full, one plate 3.2 mm none; "
        "a brick resting on stud tops, 1.7 mm high, earns about 0.6).",
    )
    yaw: Kernel = Field(
        default=Kernel(full=2 * _DEG, zero=30 * _DEG),
        description="Yaw error modulo 2 pi / symmetry, rad (2 deg full, 30 deg none).",
    )
    tilt: Kernel = Field(default=Kernel(full=2 * _DEG, zero=20 * _DEG), description="Tilt, rad (2 deg full, 20 deg none).")
    anchor: Kernel = Field(
        default=Kernel(full=0.002, zero=0.04), description="Absolute 3D position error, m (2 mm full, 40 mm none)."
    )
    gate: Kernel = Field(
        default=Kernel(full=0.008, zero=0.024, shape="linear"),
        description="In-plane error relative to the supports that gates level and orientation credit, m "
        "(one stud full, three studs none).",
    )

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> PoseConfig:
        total = self.w_plane + self.w_level + self.w_yaw + self.w_tilt + self.w_anchor
        if not math.isclose(total, 1.0, abs_tol=1e-9):
            raise ValueError(f"pose weights must sum to 1, got {total:.6g}")
        return self


class LatticeTolerance(_Strict):
    """How close a brick must be to a lattice pose to count as being there."""

    plane_m: float = Field(default=0.002, gt=0.0, description="In-plane error, m (2 mm: the simulator's snap radius).")
    level_m: float = Field(default=0.001, gt=0.0, description="Vertical error, m (1 mm: seated, not on stud tops).")
    yaw_rad: float = Field(default=5 * _DEG, gt=0.0, description="Yaw error modulo symmetry, rad (5 deg).")
    tilt_rad: float = Field(default=5 * _DEG, gt=0.0, description="Tilt, rad (5 deg).")


class CompletionConfig(_Strict):
    """Completion: a required brick counts when it is connected at its target lattice pose."""

    tolerance: LatticeTolerance = Field(default=LatticeTolerance(), description="Pose tolerance, relative to supports.")
    require_connection: bool = Field(
        default=True, description="Demand connected_to non-empty for bricks above level 0 (level 0 needs none)."
    )


class ValidityConfig(_Strict):
    """Final-state validity of a manipulated brick: moved, on the table, released."""

    move_tolerance_m: float = Field(
        default=0.005, gt=0.0, description="In-plane distance from its start pose beyond which a brick counts as moved, m."
    )
    table_margin_m: float = Field(
        default=0.0, ge=0.0, description="The footprint must lie this far inside the table region, m."
    )
    below_table_m: float = Field(
        default=0.005, gt=0.0, description="A brick whose bottom is this far below the table top has fallen off, m."
    )
    min_pose_credit: float = Field(
        default=0.0, ge=0.0, le=1.0,
        description="Pose credit (0-1) a brick needs to count as valid. 0, the paper's validity: any brick moved "
        "and left on the table unheld is valid, so picking every brick and putting it down again earns 20 points. "
        "The strict profile asks 0.5: about within a stud of the target, at its level and orientation.",
    )


class StabilityConfig(_Strict):
    """Stability: initial bricks still where they were (within the tolerance) at the end."""

    tolerance: LatticeTolerance = Field(
        default=LatticeTolerance(), description="Absolute pose tolerance against each initial brick's start pose."
    )


class SoftScoreConfig(_Strict):
    """soft = (w_pose pose + w_completion completion + w_validity validity) * stability factor.

    stability factor = 1 - stability_penalty * (1 - stability / 100): disturbing the whole initial
    structure costs `stability_penalty` of the score; doing nothing earns nothing, whatever stayed put.
    """

    w_pose: float = Field(default=0.5, ge=0.0, description="Weight of the mean pose score.")
    w_completion: float = Field(default=0.3, ge=0.0, description="Weight of completion.")
    w_validity: float = Field(default=0.2, ge=0.0, description="Weight of final-state validity.")
    stability_penalty: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Share of the score lost when no initial brick stayed in place."
    )

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> SoftScoreConfig:
        total = self.w_pose + self.w_completion + self.w_validity
        if not math.isclose(total, 1.0, abs_tol=1e-9):
            raise ValueError(f"soft-score weights must sum to 1, got {total:.6g}")
        return self


class TimePenaltyConfig(_Strict):
    """A bounded penalty, in score points, only for simulated time beyond the task's budget.

    penalty = max_points * min(1, (elapsed / budget - 1) / full_at_overrun) when elapsed > budget.
    """

    max_points: float = Field(default=20.0, ge=0.0, le=100.0, description="Largest penalty, score points.")
    full_at_overrun: float = Field(
        default=1.0, gt=0.0, description="Overrun (share of the budget) at which the full penalty applies (1.0 = 2x)."
    )


class PlanningConfig(_Strict):
    """Matching a predicted plan step to a manual step (same part and colour, optimal assignment)."""

    match_radius_m: float = Field(
        default=0.016, gt=0.0, description="A predicted step farther than this from its manual step is not matched, m."
    )


class ScoringConfig(_Strict):
    """All scoring rules of JARVIS; saved with every result."""

    version: int = Field(default=SCORING_CONFIG_VERSION, description="Bumped when a default or formula changes meaning.")
    pose: PoseConfig = PoseConfig()
    completion: CompletionConfig = CompletionConfig()
    validity: ValidityConfig = ValidityConfig()
    stability: StabilityConfig = StabilityConfig()
    soft: SoftScoreConfig = SoftScoreConfig()
    time_penalty: TimePenaltyConfig = TimePenaltyConfig()
    planning: PlanningConfig = PlanningConfig()

    def to_json_obj(self) -> dict[str, object]:
        """The config as a plain JSON object (what is stored beside results)."""
        return self.model_dump(mode="json")


STRICT_MIN_POSE_CREDIT = 0.5
SCORING_PROFILES = ("paper", "strict")


def strict_profile(config: ScoringConfig | None = None) -> ScoringConfig:
    """The strict profile of a config: the same rules, except that validity requires pose credit
    (validity.min_pose_credit = 0.5 unless the config already asks more)."""
    base = config or ScoringConfig()
    credit = max(base.validity.min_pose_credit, STRICT_MIN_POSE_CREDIT)
    return base.model_copy(update={"validity": base.validity.model_copy(update={"min_pose_credit": credit})})


def scoring_profile(name: str) -> ScoringConfig:
    """A named scoring profile: `paper` (the default, the paper's definitions) or `strict`."""
    if name == "paper":
        return ScoringConfig()
    if name == "strict":
        return strict_profile()
    raise ValueError(f"unknown scoring profile {name!r}; valid: {', '.join(SCORING_PROFILES)}")


class ScoringConfigError(ValueError):
    """A scoring config file that cannot be used; the message names the file and the field."""


def load_scoring_config(path: Path) -> ScoringConfig:
    """Read a ScoringConfig from JSON; unknown keys and bad values are errors naming the field."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScoringConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise ScoringConfigError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    try:
        return ScoringConfig.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise ScoringConfigError(f"{path}: {where}: {first['msg']} ({exc.error_count()} error(s))") from None
