"""The official dataset, read in place through $JARVIS_VSP_ROOT (skipped where absent)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from evaluator.answers import score_answer
from jarvis_sim.vsp import layout as L
from jarvis_sim.vsp.family import VspFamily, label_answer
from jarvis_sim.vsp.prompts import PromptError


@pytest.mark.slow
def test_every_official_item_scores_100_with_its_label_and_the_solver(official_root: Path) -> None:
    fam = VspFamily(root=official_root)
    ids = fam.task_ids("vsp")
    assert len(ids) == 4600
    failures = []
    for tid in ids:
        item = fam.load(tid)
        for answer in {label_answer(item), fam.scripted_answer(item)}:
            for mode in ("official", "strict"):
                s = score_answer(item, answer, mode)  # type: ignore[arg-type]
                if not (s.correct and s.valid and s.score == 100.0):
                    failures.append((tid, mode, answer[:60], s.details))
        if item.kind in ("maze/main", "blocks/main"):
            assert score_answer(item, fam.scripted_answer(item), "strict").details["optimal"]
    assert failures == []


def test_prompts_fill_the_official_templates(official_root: Path) -> None:
    fam = VspFamily(root=official_root)
    item = fam.load("vsp/blocks/main/level3/4")
    assert len(item.images) == 3 and item.images[1].endswith("maps/level3/input_img/4.jpg")
    assert "<TEST-IMAGE" not in item.prompt and "<IMAGE-3>" in item.prompt
    shots = fam.load("vsp/maze/t4/level_step5/3@image-4shot")
    assert len(shots.images) == 2 + 4 + 1 and shots.prompt.count("### Example") == 4
    assert shots.prompt.index("## Example:") < shots.prompt.index("Now please determine")
    text = fam.load("vsp/maze/main/level6/9@table-2shot")
    assert text.images == [] and "| Row 6 |" in text.prompt and "Action plan: " in text.prompt
    assert fam.load("vsp/maze/main/level6/9@table-2shot").prompt == text.prompt  # examples drawn by seed
    with pytest.raises(PromptError, match="no text variant"):
        fam.load("vsp/blocks/t3/level3/0@pure_text")


def test_layout_counts_match_the_origin_note(official_root: Path) -> None:
    assert L.levels(official_root, "maze", "t4") == tuple(f"level_step{n}" for n in (1, 3, 5, 7, 9))
    assert L.levels(official_root, "blocks", "main") == ("level1", "level3", "level5", "level7")
    fam = VspFamily(root=official_root)
    assert len(fam.task_ids("vsp-blocks-t1")) == 300
    assert len(fam.task_ids("vsp-maze-t3@table")) == 0


def test_random_answers_sit_near_chance(official_root: Path) -> None:
    fam = VspFamily(root=official_root)
    ids = fam.task_ids("vsp-maze-t1")
    rng = random.Random(0)
    hits = sum(score_answer(fam.load(t), fam.random_answer(fam.load(t), rng)).correct for t in ids)
    assert 0.35 < hits / len(ids) < 0.65
