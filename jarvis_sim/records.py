"""The stored record of one episode, for every task family: everything needed to re-score it offline
and to show a person what happened.

Agents write it (one JSON line in a run's episodes.jsonl, artifacts beside it); the evaluator reads it.
Bump EPISODE_RECORD_VERSION when a field changes meaning.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.provenance import PlannerInfo, Provenance

# 2: `provenance` (versions, BLAS kernel, simulator settings); version-1 records read with provenance None.
EPISODE_RECORD_VERSION = 2

EpisodeStatus = Literal["done", "failed", "cancelled"]
Outcome = Literal["ok", "policy_violation", "skill_error", "timeout", "resource_limit", "error", "no_code", "paused"]


class SkillCallRecord(BaseModel):
    """One skill call made by a program, with its result or typed error."""

    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    result: Any = None
    error_kind: str | None = None
    error: str | None = None
    line: int | None = None
    sim_time_s: float = 0.0
    wall_s: float = 0.0
    disturbed: list[str] = Field(default_factory=list, description=(
        "Scheduled perturbations (their kinds) applied just before this call ran."))

    @model_serializer(mode="wrap")
    def _omit_undisturbed(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Calls no perturbation preceded (nearly all) serialise as before the field existed, so records of
        # unperturbed episodes stay readable by earlier versions.
        data: dict[str, Any] = handler(self)
        if not self.disturbed:
            data.pop("disturbed", None)
        return data


class PlacementRecord(BaseModel):
    """A pick-and-place operation a program ended: the brick released and the ground truth just after.

    Ground truth, for the evaluator's effective-action analysis only; never part of agent feedback.
    """

    model_config = ConfigDict(extra="forbid")

    call_index: int = Field(description="Index of the placing call in the round's skill_calls.")
    skill: str = Field(description="The skill that released the brick: place, place_on, place_at, put_down, open_gripper.")
    ok: bool = Field(description="The skill returned (False: it raised a skill error after taking the brick).")
    brick_id: str = Field(description="Ground-truth id of the brick that was in the gripper before the call.")
    state: WorldState = Field(description="Ground truth right after the call.")


class RoundRecord(BaseModel):
    """One reasoning round: the exact prompt, the response, the code run and what came back."""

    model_config = ConfigDict(extra="forbid")

    index: int
    kind: str = Field("attempt", description="'attempt', 'reflective_step' or 'reflection' (R1..Rk).")
    prompt_text: str = ""
    prompt_images: list[str] = Field(default_factory=list, description="Artifact paths relative to the episode dir.")
    response: str = ""
    code: str | None = None
    outcome: Outcome | None = None
    outcome_line: int | None = None
    feedback: str = ""
    stdout: str = ""
    skill_calls: list[SkillCallRecord] = Field(default_factory=list)
    observation_images: list[str] = Field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    wall_s: float = 0.0
    # Per-round state and scores (reflection tables R1..Rk); optional, so older records stay valid.
    final_state: WorldState | None = Field(
        default=None, description="Assembly episodes: ground truth at the end of this round, for re-scoring."
    )
    sim_time_s: float | None = Field(default=None, description="Simulated time at the end of this round, s.")
    scores: dict[str, float] = Field(default_factory=dict, description="Scores of the state after this round.")
    prompt_version: str = Field(
        "", description="Versions of the prompt templates this round's prompt was rendered from ('' if none)."
    )
    placements: list[PlacementRecord] = Field(
        default_factory=list, description="Assembly episodes: each pick-and-place the round's program ended (ground truth)."
    )


class FinalView(BaseModel):
    """A picture of an assembly episode's end, and where each brick lies in it (for scoring overlays)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["camera", "final", "target"] = Field(
        description="'camera': the backend's camera at the end; 'final' and 'target': the bricks built and the "
                    "target, rendered alone from one viewpoint so they compare brick by brick.")
    image: str = Field(description="Artifact path relative to the episode dir.")
    width: int = Field(gt=0)
    height: int = Field(gt=0)
    outlines: dict[str, list[list[tuple[int, int]]]] = Field(
        default_factory=dict,
        description="Brick id (physical in 'camera' and 'final', target id in 'target') -> the polygons of its "
                    "visible parts, pixels (x right, y down).")


class Timings(BaseModel):
    """Wall and simulated time of the episode."""

    model_config = ConfigDict(extra="forbid")

    started_at: str = ""
    finished_at: str = ""
    wall_s: float = 0.0
    sim_time_s: float = 0.0
    budget_s: float | None = None


class TokenAccount(BaseModel):
    """LLM usage over the whole episode."""

    model_config = ConfigDict(extra="forbid")

    input: int = 0
    output: int = 0
    cost_usd: float = 0.0
    requests: int = 0
    cached: int = 0


class EpisodeRecord(BaseModel):
    """One episode of any family (LEGO assembly, VSP, GamiBench)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = EPISODE_RECORD_VERSION
    episode_id: str
    task_id: str
    family: str
    suite: str | None = None
    difficulty: str | None = None
    agent: dict[str, Any] = Field(default_factory=dict, description="The resolved agent config (no secrets).")
    seed: int = 0
    status: EpisodeStatus = "done"
    error: str | None = None
    infrastructure_failure: bool = Field(False, description=(
        "A failed episode ended by the machine, not the agent (a wall-clock safety net tripped): left out of every "
        "score and mean, counted apart; `error` says which net and where."))
    rounds: list[RoundRecord] = Field(default_factory=list)
    answer: str | None = Field(None, description="Question episodes: the final answer text.")
    final_state: WorldState | None = Field(None, description="Assembly episodes: ground truth at the end.")
    scores: dict[str, float] = Field(default_factory=dict, description="Named sub-scores and soft_score, 0-100.")
    score_details: dict[str, Any] = Field(default_factory=dict, description="Per-brick or per-item explanations.")
    scoring_config: dict[str, Any] = Field(default_factory=dict)
    timings: Timings = Timings()
    tokens: TokenAccount = TokenAccount()
    artifacts_dir: str | None = Field(None, description="Relative to the run directory.")
    final_views: list[FinalView] = Field(
        default_factory=list, description="Assembly episodes: pictures of the end state and the target (empty: "
                                          "recorded before they were taken, or the renderer failed).")
    provenance: Provenance | None = Field(
        None, description="Versions, BLAS kernel and simulator settings it ran under (None: recorded before v2)."
    )
    planner: PlannerInfo | None = Field(
        None, description="Assembly episodes: the motion planner the skills moved with (None: recorded before it was "
        "kept, or an episode that drives no arm)."
    )
