"""Planning and grounding metrics against the manual."""

from __future__ import annotations

import math

import pytest

from evaluator.planning import PlanStep, score_plan
from tests.evaluator.builders import RED, make_task

TASK = make_task()
ORIGIN = TASK.workspace.lattice_origin


def exact_plan() -> list[PlanStep]:
    return [PlanStep.from_lattice(a.target, ORIGIN) for a in TASK.action_bricks]


def test_exact_plan_matches_everything() -> None:
    s = score_plan(TASK, exact_plan())
    assert (len(s.matches), s.missing, s.extra, s.coverage) == (2, (), (), 100.0)
    assert s.position_error_mm == pytest.approx(0.0) and s.orientation_error_deg == pytest.approx(0.0)


def test_errors_are_reported_in_mm_and_symmetry_aware_degrees() -> None:
    a1, a2 = exact_plan()
    x, y, z = a1.position
    off = a1.model_copy(update={"position": (x + 0.004, y, z), "yaw": a1.yaw + math.pi + math.radians(10)})
    s = score_plan(TASK, [off, a2])
    assert s.position_error_mm == pytest.approx(2.0)  # mean of 4 mm and 0 mm
    assert s.orientation_error_deg == pytest.approx(5.0)  # 190 deg on a 2x4 is 10 deg off; mean with 0


def test_missing_wrong_colour_and_far_steps() -> None:
    a1, a2 = exact_plan()
    wrong_colour = a2.model_copy(update={"color": RED + 1})
    far = a1.model_copy(update={"position": (0.0, 0.0, 0.0)})
    s = score_plan(TASK, [far, wrong_colour])
    assert s.matches == () and set(s.missing) == {"a1", "a2"} and s.extra == (0, 1)
    assert s.coverage == 0.0 and s.position_error_mm is None
    assert "plan_position_error_mm" not in s.scores()


def test_duplicate_predictions_count_once() -> None:
    a1, a2 = exact_plan()
    s = score_plan(TASK, [a1, a1, a2])
    assert len(s.matches) == 2 and s.extra == (1,) and s.coverage == 100.0


def test_empty_plan() -> None:
    s = score_plan(TASK, [])
    assert s.coverage == 0.0 and s.missing == ("a1", "a2") and s.details()["matches"] == []
