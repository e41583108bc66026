"""Effective-action analysis (JARVIS Table 6): every placement scored on its own, without time penalty.

A placement action is a pick-and-place that was meant to put a brick into the build: a call of
place, place_on or place_at (or, in the generic library, an open_gripper that let a held brick go)
while a brick was in the gripper; put_down sets a brick aside and is not one. The episode kept the
ground truth right after each (RoundRecord.placements). Ground-truth-guided, each action is scored
against the brick it was meant for: the target that the evaluator's own assignment (same part and
colour, least pose error, judged relative to the brick's supports) gives the released brick in the
state just after the action. An action is effective when its skill returned and the released brick
was assigned to a target. Its score is the soft score restricted to that one brick, with the state's
stability factor and no time penalty:

    100 * (w_pose * pose + w_completion * complete + w_validity * valid) * stability factor

Reports average it over the effective actions (pooled over episodes, not per episode).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.assembly import score_assembly
from evaluator.config import ScoringConfig
from jarvis_sim.records import EpisodeRecord, PlacementRecord
from jarvis_sim.tasks.spec import TaskSpec

NOT_TOWARD_THE_BUILD = frozenset({"put_down"})


@dataclass(frozen=True)
class ActionScore:
    """One placement action and how it was judged."""

    round: int
    call_index: int
    skill: str
    brick_id: str
    target_id: str | None  # the brick it was meant for; None: not effective
    score: float | None  # 0-100, effective actions only
    pose: float | None  # 0-100
    complete: bool
    valid: bool
    reason: str  # why it is not effective ('' when it is)

    @property
    def effective(self) -> bool:
        """The skill returned and the released brick was assigned to a target."""
        return self.score is not None

    def explain(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "round": self.round, "call_index": self.call_index, "skill": self.skill, "brick": self.brick_id,
            "target": self.target_id, "effective": self.effective,
            "score": None if self.score is None else round(self.score, 3),
            "pose": None if self.pose is None else round(self.pose, 3),
            "complete": self.complete, "valid": self.valid, "reason": self.reason,
        }


def score_action(task: TaskSpec, placement: PlacementRecord, round_index: int, config: ScoringConfig) -> ActionScore:
    """Score one placement against the target the released brick was assigned to, just after it."""

    def not_effective(reason: str, target: str | None = None) -> ActionScore:
        return ActionScore(round_index, placement.call_index, placement.skill, placement.brick_id, target, None, None,
                           False, False, reason)

    if not placement.ok:
        return not_effective("the skill raised an error")
    result = score_assembly(task, placement.state, None, config)
    brick = next((b for b in result.bricks if b.matched_id == placement.brick_id), None)
    if brick is None:
        return not_effective("the brick is not assigned to any target (an initial or surplus brick)")
    soft = config.soft
    factor = 1.0 - soft.stability_penalty * (1.0 - result.stability / 100.0)
    progress = soft.w_pose * brick.pose + soft.w_completion * brick.complete + soft.w_validity * brick.valid
    score = max(0.0, min(100.0, 100.0 * progress * factor))
    return ActionScore(round_index, placement.call_index, placement.skill, placement.brick_id, brick.target_id, score,
                       100.0 * brick.pose, brick.complete, brick.valid, "")


def score_actions(task: TaskSpec, record: EpisodeRecord, config: ScoringConfig | None = None) -> list[ActionScore]:
    """Every placement action of an episode, in order, scored."""
    cfg = config or ScoringConfig()
    return [
        score_action(task, p, rnd.index, cfg)
        for rnd in record.rounds
        for p in rnd.placements
        if p.skill not in NOT_TOWARD_THE_BUILD
    ]


def effective_action_scores(actions: list[ActionScore]) -> dict[str, float]:
    """Flat numbers for EpisodeRecord.scores (the mean is omitted when no action was effective)."""
    effective = [a.score for a in actions if a.score is not None]
    out = {"placement_actions": float(len(actions)), "effective_actions": float(len(effective))}
    if effective:
        out["effective_action_score"] = sum(effective) / len(effective)
    return out
