"""VSP answer parsing and the two scoring modes, on hand-made items (no dataset needed)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.answers import score_answer
from evaluator.vsp import main_task_table, results_by_task_level, subtask_table, tables_markdown
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.vsp import blocks as B
from jarvis_sim.vsp import maze as M

MAZE = M.MazeMap(4, (0, 0), (3, 3), frozenset({(0, 1), (3, 0)}))
START = B.BlocksState((("purple",), ("blue",), ("orange", "red")))
GOAL = B.BlocksState((("purple",), ("orange", "blue"), ("red",)))


def item(scenario: str, task: str, answer: dict[str, Any], level: str = "level4") -> QuestionItem:
    return QuestionItem(id=f"vsp/{scenario}/{task}/{level}/0", family="vsp", kind=f"{scenario}/{task}", level=level,
                        prompt="p", answer=answer, meta={"scenario": scenario, "task": task})


MAZE_MAIN = item("maze", "main", {"map": MAZE.to_table(), "optimal_length": 6})
MAZE_T2 = item("maze", "t2", {"relation": ["Above", "Left"], "map": MAZE.to_table()})
MAZE_T4 = item("maze", "t4", {"safe": True, "plan": "D", "map": MAZE.to_table()})
BLOCKS_MAIN = item("blocks", "main", {"start": START.encode(), "goal": GOAL.encode(), "optimal_length": 2,
                                      "solutions": []}, "level3")
BLOCKS_T2 = item("blocks", "t2", {"choice": "C", "state": START.encode()}, "level4")


def both(it: QuestionItem, text: str) -> tuple[bool, bool]:
    return score_answer(it, text, "official").correct, score_answer(it, text, "strict").correct


def test_maze_plan_parsing_and_modes() -> None:
    assert both(MAZE_MAIN, "blah\nAction plan: D,D,R,R,D,R") == (True, True)
    assert both(MAZE_MAIN, "Action Plan: 'D', 'D', 'R', 'R', 'D', 'R'.") == (True, True)
    # moves after the goal: the paper stops reading, strict calls them invalid
    assert both(MAZE_MAIN, "Action plan: D,D,R,R,D,R,U,U") == (True, False)
    # a token the paper never reaches
    assert both(MAZE_MAIN, "Action plan: D,D,R,R,D,R,Jump") == (True, False)
    assert both(MAZE_MAIN, "Action plan: R,D") == (False, False)  # into the hole
    s = score_answer(MAZE_MAIN, "Action plan: D,D,R,R,D,L,R,R", "strict")
    assert s.correct and s.details["optimal"] is False
    bad = score_answer(MAZE_MAIN, "I would go down", "official")
    assert not bad.correct and not bad.valid


def test_maze_t2_partial_credit_official_exact_strict() -> None:
    half = score_answer(MAZE_T2, "<Output> Above", "official")
    assert not half.correct and half.score == 50.0 and half.details["n_hit"] == 1
    extra = "<Output> Above,Left,Below"
    assert both(MAZE_T2, extra) == (True, False)
    assert both(MAZE_T2, '<Output> "Left, Above"') == (True, True)
    assert not score_answer(MAZE_T2, "Above, Left", "official").valid


def test_maze_t4_window_and_blocks_choice() -> None:
    assert both(MAZE_T4, "<Output> Yes, safe") == (True, True)
    assert both(MAZE_T4, "**Output** yes") == (True, True)
    assert not score_answer(MAZE_T4, "<Output> not sure, yes", "official").correct
    assert both(BLOCKS_T2, "analysis...\n<Output> C\nmore text") == (True, True)
    assert both(BLOCKS_T2, "Output: C") == (True, True)  # the paper also takes a bare "Output"
    assert not score_answer(BLOCKS_T2, "C", "strict").valid


def test_blocks_main_official_skips_invalid_moves_strict_fails() -> None:
    good = "<Output>\n1. move(red,table)\n2. move(blue,orange)"
    assert both(BLOCKS_MAIN, good) == (True, True)
    with_bad = "<Output>\n1. move(orange,table)\n2. move(red,table)\n3. move(blue,orange)"
    official = score_answer(BLOCKS_MAIN, with_bad, "official")
    assert official.correct and official.details["skipped_invalid_moves"] == 1
    strict = score_answer(BLOCKS_MAIN, with_bad, "strict")
    assert not strict.correct and strict.valid and strict.details["first_invalid_move"] == 1
    # the paper reads only first letters: "rose" is red
    assert both(BLOCKS_MAIN, "<Output>\n1. move(rose,table)\n2. move(blue,orange)") == (True, False)
    assert not score_answer(BLOCKS_MAIN, "<Output>\n1. move(red)", "official").valid


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_nothing_a_model_writes_crashes_scoring(text: str) -> None:
    for it in (MAZE_MAIN, MAZE_T2, MAZE_T4, BLOCKS_MAIN, BLOCKS_T2):
        for mode in ("official", "strict"):
            s = score_answer(it, text, mode)  # type: ignore[arg-type]
            assert 0.0 <= s.score <= 100.0
            assert s.valid or not s.correct


def test_tables_over_scores() -> None:
    scores = [
        score_answer(MAZE_MAIN, "Action plan: D,D,R,R,D,R"),
        score_answer(item("maze", "main", MAZE_MAIN.answer, "level5"), "nope"),
        score_answer(MAZE_T2, "<Output> Above"),
        score_answer(BLOCKS_T2, "<Output> C"),
        score_answer(BLOCKS_MAIN, "<Output>\n1. move(red,table)\n2. move(blue,orange)"),
    ]
    assert main_task_table(scores) == {"maze": {"level4": 100.0, "level5": 0.0}, "blocks": {"level3": 100.0}}
    sub = subtask_table(scores)
    assert sub["maze"]["model"]["T2"] == 50.0 and sub["maze"]["random"]["T2"] == pytest.approx(37.5)
    assert sub["blocks"]["model"]["T2"] == 100.0 and sub["blocks"]["random"]["T2"] == 25.0
    rows = results_by_task_level(scores)
    assert rows["maze/main/level5"]["invalid"] == 1 and rows["maze/t2/level4"]["direction_accuracy"] == 50.0
    assert "| level4 | level5 |" in tables_markdown(scores)


def test_an_answer_without_its_marker_says_so_first() -> None:
    for mode in ("official", "strict"):
        s = score_answer(MAZE_MAIN, "I would go down", mode)  # type: ignore[arg-type]
        assert not s.valid and s.details["error"].startswith("no 'Action plan: ' in the answer"), s.details
    s = score_answer(BLOCKS_MAIN, "move the red one", "strict")
    assert not s.valid and s.details["error"] == "no '<Output>' in the answer"
