"""Generated sets: same layout, deterministic, solvable; the family's ids, suites and errors."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from evaluator.answers import score_answer
from jarvis_sim.tasks.registry import UnknownKeyError, family_of_task, suite_task_ids
from jarvis_sim.vsp import generate as G
from jarvis_sim.vsp.family import VspFamily, label_answer


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_same_seed_same_bytes_other_seed_other_items(tmp_path: Path) -> None:
    a = G.generate_set(tmp_path / "a", seed=5, n=1, n_examples=1, workers=1)
    b = G.generate_set(tmp_path / "b", seed=5, n=1, n_examples=1, workers=2)
    c = G.generate_set(tmp_path / "c", seed=6, n=1, n_examples=1, workers=1)
    assert _digest(a) == _digest(b) != _digest(c)


def test_generated_items_load_and_score_100(gen_root: Path) -> None:
    fam = VspFamily(sets={"t": gen_root})
    ids = fam.task_ids("vsp-t")
    assert len(ids) == 46 * 2
    rng = random.Random(1)
    for tid in ids:
        item = fam.load(tid)
        assert all(Path(p).is_file() for p in item.images)
        for answer in (label_answer(item), fam.scripted_answer(item)):
            for mode in ("official", "strict"):
                s = score_answer(item, answer, mode)  # type: ignore[arg-type]
                assert s.correct and s.valid, (tid, mode, answer, s.details)
        score_answer(item, fam.random_answer(item, rng))  # well-formed, never raises
    for variant in ("table-4shot", "pure_text-1shot", "image-2shot"):
        item = fam.load(f"vsp/t/blocks/main/level5/1@{variant}")
        assert item.meta["shots"] == int(variant[-5])


def test_generated_sets_keep_the_task_semantics(gen_root: Path) -> None:
    fam = VspFamily(sets={"t": gen_root})
    for tid in fam.task_ids("vsp-t-blocks-main"):
        item = fam.load(tid)
        assert int(item.level.removeprefix("level")) == item.answer["optimal_length"]  # type: ignore[union-attr]
    t4 = [fam.load(t).answer["safe"] for t in fam.task_ids("vsp-t-maze-t4")]
    assert t4.count(True) == len(t4) // 2


def test_registry_knows_vsp_suites_and_rejects_bad_ids() -> None:
    assert family_of_task("vsp/maze/main/level3/0").name == "vsp"
    with pytest.raises(UnknownKeyError, match="VSP task id"):
        family_of_task("vsp/x").load("vsp/x")
    with pytest.raises(UnknownKeyError, match="suite"):
        suite_task_ids("vsp-nonsense")


def test_mini_set_is_built_on_demand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_CACHE_DIR", str(tmp_path))
    fam = VspFamily()
    ids = fam.task_ids("vsp-gen-mini-maze-t2")
    assert len(ids) == 12 and ids[0] == "vsp/gen-mini/maze/t2/level3/0"
    item = fam.load(ids[0])
    assert item.images[-1].startswith(str(tmp_path))
    with pytest.raises(UnknownKeyError, match="item of"):
        fam.load("vsp/gen-mini/maze/t2/level3/7")
