"""The paper's scoring profile and the strict one: validity with and without pose credit; held bricks earn none."""

from __future__ import annotations

import pytest

from evaluator.assembly import score_assembly
from evaluator.config import ScoringConfig, scoring_profile, strict_profile
from tests.evaluator.builders import make_task, perfect_state, shifted, start_state, with_brick

TASK = make_task()
STRICT = scoring_profile("strict")


def test_a_brick_moved_anywhere_is_valid_in_the_paper_profile_only() -> None:
    # Both bricks picked up and put down 60 mm from where they lay: nothing built.
    state = shifted(shifted(start_state(TASK), "a1", dx=0.06), "a2", dx=0.06)
    paper, strict = score_assembly(TASK, state, None), score_assembly(TASK, state, None, STRICT)
    assert paper.validity == 100.0 and paper.soft_score == pytest.approx(20.0)
    assert strict.validity == 0.0 and strict.soft_score == 0.0
    assert any("pose credit" in p for p in strict.bricks[0].problems)


def test_a_built_structure_is_valid_in_both_profiles() -> None:
    state = perfect_state(TASK)
    assert score_assembly(TASK, state, None).soft_score == score_assembly(TASK, state, None, STRICT).soft_score == 100.0


def test_a_held_brick_at_its_target_earns_no_pose_credit_in_either_profile() -> None:
    state = with_brick(perfect_state(TASK), "a1", held=True, connected_to=())
    for config in (ScoringConfig(), STRICT):
        scores = score_assembly(TASK, state, None, config)
        held = next(b for b in scores.bricks if b.target_id == "a1")
        assert held.pose == 0.0 and not held.valid and not held.complete
        assert scores.pose == pytest.approx(50.0)  # the other brick keeps its full credit


def test_profiles_are_named_and_strict_keeps_a_stricter_user_value() -> None:
    assert scoring_profile("paper") == ScoringConfig()
    assert STRICT.validity.min_pose_credit == 0.5 and STRICT.pose == ScoringConfig().pose
    tougher = ScoringConfig.model_validate({"validity": {"min_pose_credit": 0.8}})
    assert strict_profile(tougher).validity.min_pose_credit == 0.8
    with pytest.raises(ValueError, match="valid: paper, strict"):
        scoring_profile("lenient")
