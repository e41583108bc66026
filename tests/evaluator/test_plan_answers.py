"""Plan answers: the documented JSON format, prose around it, and parse failures counted, never raised."""

from __future__ import annotations

import json

import pytest

from agent.agents.oracle import oracle_plan
from evaluator.plan_answers import PlanParseError, parse_plan, planning_scores
from tests.evaluator.builders import RED, YELLOW, make_task

TASK = make_task()


def _entries() -> list[dict[str, object]]:
    text = oracle_plan(TASK)
    return list(json.loads(text.removeprefix("```json\n").removesuffix("\n```"))["plan"])


def test_the_oracle_plan_is_in_the_documented_format_and_scores_full_marks() -> None:
    scores, details = planning_scores(TASK, oracle_plan(TASK))
    assert scores["plan_valid"] == 100.0 and scores["plan_coverage"] == 100.0 == scores["soft_score"]
    assert scores["plan_position_error_mm"] == pytest.approx(0.0, abs=1e-6)
    assert details["parse_error"] is None and details["missing"] == []


def test_prose_around_the_json_and_other_spellings_are_read() -> None:
    a1, a2 = _entries()
    a1 = {**a1, "color": RED, "part": "3001.dat", "x_mm": float(a1["x_mm"]) + 4.0}  # type: ignore[arg-type]
    a2 = {**a2, "color": str(YELLOW), "part": 3003}
    del a2["yaw_deg"]  # yaw defaults to 0
    answer = ("Looking at page 1, the red 2x4 goes on top of the blue one. Here is my plan: "
              + json.dumps([a1, a2]) + " I hope this {helps}.")
    plan = parse_plan(answer)
    assert [(s.part, s.color) for s in plan] == [("3001", RED), ("3003", YELLOW)]
    assert plan[1].yaw == 0.0
    scores, _ = planning_scores(TASK, answer)
    assert scores["plan_valid"] == 100.0 and scores["plan_matched"] == 2.0
    assert scores["plan_position_error_mm"] == pytest.approx(2.0)  # 4 mm and 0 mm
    assert scores["plan_orientation_error_deg"] == pytest.approx(0.0, abs=1e-6)  # both targets lie at yaw 0


def test_the_last_fenced_block_wins_over_an_earlier_draft() -> None:
    a1, a2 = _entries()
    draft = json.dumps({"plan": [a1]})
    final = json.dumps({"plan": [a1, a2]})
    answer = f"Draft:\n```json\n{draft}\n```\nCorrected:\n```json\n{final}\n```"
    assert len(parse_plan(answer)) == 2


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("I would put the red brick on the blue one.", "no JSON plan found"),
        ('```json\n{"plan": [{"part": "3001", "color": "red", "x_mm": 1,}]}\n```', "no JSON plan found"),
        ('{"plan": [{"part": "3001", "color": "red", "x_mm": 1, "y_mm": 2}]}', "plan entry 1: missing 'z_mm'"),
        ('{"plan": [{"part": "3001", "color": "red", "x_mm": NaN, "y_mm": 2, "z_mm": 3}]}', "must be finite"),
        ('{"plan": [{"part": "3001", "color": "mauve", "x_mm": 1, "y_mm": 2, "z_mm": 3}]}', "unknown colour 'mauve'"),
        ('{"plan": [{"part": "3001", "color": 4, "x_mm": "near", "y_mm": 2, "z_mm": 3}]}', "'x_mm' must be a number"),
        ('{"plan": [7]}', "plan entry 1: expected an object"),
    ],
)
def test_malformed_answers_are_parse_failures_with_a_reason(answer: str, message: str) -> None:
    with pytest.raises(PlanParseError, match=message):
        parse_plan(answer)
    scores, details = planning_scores(TASK, answer)  # counted, scored as an empty plan, never raised
    assert scores["plan_valid"] == 0.0 and scores["plan_coverage"] == 0.0 and scores["plan_missing"] == 2.0
    assert message.split(":")[0] in details["parse_error"]
