"""Effective-action analysis: each placement scored against its brick's target, no time penalty."""

from __future__ import annotations

import pytest

from evaluator.action_report import effective_actions_section
from evaluator.assembly import score_assembly
from evaluator.effective_actions import score_actions
from evaluator.episode import score_episode
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.records import EpisodeRecord, PlacementRecord, RoundRecord
from tests.evaluator.builders import make_task, perfect_state, shifted, start_state

TASK = make_task()


def _placement(index: int, skill: str, brick: str, state: WorldState, ok: bool = True) -> PlacementRecord:
    return PlacementRecord(call_index=index, skill=skill, ok=ok, brick_id=brick, state=state)


def _record(*placements: PlacementRecord, final: WorldState | None = None) -> EpisodeRecord:
    done = perfect_state(TASK)
    return EpisodeRecord(
        episode_id="e1", task_id=TASK.id, family="lego", difficulty="easy",
        rounds=[RoundRecord(index=0, code="build()", outcome="ok", placements=list(placements))],
        final_state=final or done,
    )


def test_each_placement_is_scored_against_its_target_in_the_state_just_after_it() -> None:
    start, done = start_state(TASK), perfect_state(TASK)
    # Just after a1 went down 3 mm off its target; a2 still lies at its start pose.
    off = shifted(done, "a1", dx=0.003)
    after_a1 = off.model_copy(update={"bricks": [b for b in off.bricks if b.id != "a2"]
                                      + [b for b in start.bricks if b.id == "a2"]})
    rec = _record(
        _placement(2, "place_on", "a1", after_a1),
        _placement(5, "put_down", "a2", start),  # sets a brick aside: not an action toward the build
        _placement(8, "place_at", "a2", done, ok=False),  # raised a skill error: an action, not effective
        _placement(11, "place_at", "a2", done),
        _placement(14, "place_at", "i1", done),  # an initial brick moved: assigned to no target
    )
    actions = score_actions(TASK, rec)
    assert [a.skill for a in actions] == ["place_on", "place_at", "place_at", "place_at"]
    assert [a.effective for a in actions] == [True, False, True, False]
    first, failed, second, initial = actions
    assert first.target_id == "a1" and second.target_id == "a2" and initial.target_id is None
    assert "error" in failed.reason and "not assigned" in initial.reason
    # The exact placement scores 100; the offset one scores what the whole-state evaluator gives a1 there.
    assert second.score == pytest.approx(100.0)
    a1 = next(b for b in score_assembly(TASK, after_a1, None).bricks if b.target_id == "a1")
    assert first.pose == pytest.approx(100.0 * a1.pose) and first.score is not None and first.score < 100.0

    scored = score_episode(rec, TASK)
    assert scored.scores["placement_actions"] == 4.0 and scored.scores["effective_actions"] == 2.0
    assert scored.scores["effective_action_score"] == pytest.approx((first.score + 100.0) / 2)
    assert len(scored.score_details["effective_actions"]) == 4


def test_no_time_penalty_enters_an_action_score() -> None:
    done = perfect_state(TASK).model_copy(update={"sim_time_s": 10 * TASK.time_budget_s})
    rec = _record(_placement(0, "place_at", "a1", done), final=done)
    rec = rec.model_copy(update={"timings": rec.timings.model_copy(update={"sim_time_s": 10 * TASK.time_budget_s})})
    scored = score_episode(rec, TASK)
    assert scored.scores["time_penalty"] > 0 and scored.scores["effective_action_score"] == pytest.approx(100.0)


def test_episodes_without_programs_or_placements() -> None:
    bare = EpisodeRecord(episode_id="e0", task_id=TASK.id, family="lego", final_state=perfect_state(TASK))
    assert "placement_actions" not in score_episode(bare, TASK).scores
    none = score_episode(_record(), TASK)
    assert none.scores["placement_actions"] == 0.0 and "effective_action_score" not in none.scores


def test_report_section_pools_effective_actions_over_episodes() -> None:
    start, done = start_state(TASK), perfect_state(TASK)
    good = score_episode(_record(_placement(0, "place_at", "a1", done), _placement(1, "place_at", "a2", done)), TASK)
    bad = score_episode(_record(_placement(0, "place_at", "a1", start, ok=False), final=start), TASK)
    text = effective_actions_section([good, bad])
    assert "## Effective actions (JARVIS Table 6)" in text
    overall = next(line for line in text.splitlines() if line.startswith("| Overall"))
    cells = [c.strip() for c in overall.strip("|").split("|")]
    assert cells[1:6] == ["2", "3", "2", "66.7", "100.0 [100.0, 100.0]"]
    assert effective_actions_section([EpisodeRecord(episode_id="x", task_id=TASK.id, family="lego")]) == ""
