"""GamiBench's official mode: discovery with any view names, the official plan, plan files, prompt text."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from jarvis_sim.origami.family import CODE_ENV, PLAN_ENV, ROOT_ENV
from jarvis_sim.origami.official import OfficialDataError, discover, read_prompt
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import family_of_task, load_task, suite_task_ids
from tests.fakes.gamibench_folder import build_code, build_folder

TYPES = {"standard": "standard_mcq", "alternative": "alternative_view", "impossible": "impossible_fold"}


def expected_plan(root: Path, seed: int = 42) -> list[dict[str, object]]:
    """The plan written out from the official code's documented rules, without our implementation."""
    rng = random.Random(seed)
    names = sorted((d.name for d in root.iterdir() if d.is_dir()), key=str.lower)

    def find(name: str, file: str) -> Path | None:
        hits = [f for f in (root / name).iterdir() if f.name.lower() == file.lower()]
        return hits[0] if hits else None

    views: dict[str, dict[str, Path]] = {}
    for name in names:
        views[name] = {}
        for f in sorted((root / name).iterdir(), key=lambda p: p.name.lower()):
            low, head = f.name.lower(), name.lower() + "_"
            if low.endswith(".png") and low.startswith(head) and not low.endswith("_cp.png"):
                views[name][low[len(head):-4]] = f

    def draw(target: str, count: int) -> list[Path] | None:
        pool = [n for n in names if n != target and views[n]]
        if len(pool) < count:
            return None
        return [views[n][rng.choice(sorted(views[n]))] for n in rng.sample(pool, count)]

    plan: list[dict[str, object]] = []

    def add(kind: str, name: str, cp: Path, cands: list[Path], answer: str, **meta: object) -> str:
        tid = f"{len(plan):06d}_{name}_{TYPES[kind]}"
        plan.append({"task_id": tid, "task_type": TYPES[kind], "origami_name": name, "crease_pattern_path": str(cp),
                     "candidates": [str(c) for c in cands], "correct_label": answer, "metadata": meta, "kind": kind})
        return tid

    for name in names:
        cp, imp = find(name, f"{name}_cp.png"), find(name, f"impossible_{name}_cp.png")
        if cp is not None and views[name]:
            distractors = draw(name, 3)
            if distractors is not None:
                view = rng.choice(sorted(views[name]))
                cands = [views[name][view], *distractors]
                rng.shuffle(cands)
                std = add("standard", name, cp, cands, "ABCD"[cands.index(views[name][view])])
                rest = [v for v in sorted(views[name]) if v != view]
                if rest:
                    right = views[name][rng.choice(rest)]
                    cands = [right, *distractors]
                    rng.shuffle(cands)
                    add("alternative", name, cp, cands, "ABCD"[cands.index(right)],
                        requires_previous_correct=True, prerequisite_task_id=std)
        if imp is not None:
            four = draw(name, 4)
            if four is not None:
                add("impossible", name, imp, four, "E")
    return plan


@pytest.fixture
def official(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An official-layout folder and a copy of 'the official code', configured as the user would."""
    root = build_folder(tmp_path / "data" / "GamiBench")
    monkeypatch.setenv(ROOT_ENV, str(root))
    monkeypatch.setenv(CODE_ENV, str(build_code(tmp_path / "code")))
    monkeypatch.delenv(PLAN_ENV, raising=False)
    return root


def _items() -> list[QuestionItem]:
    items = [load_task(i) for i in suite_task_ids("gamibench-official")]
    assert all(isinstance(i, QuestionItem) for i in items)
    return items  # type: ignore[return-value]


def _as_plan(items: list[QuestionItem]) -> list[tuple[str, str, str, list[str], str]]:
    return [(it.meta["official_task_id"], it.kind, it.images[0], it.images[1:], str(it.answer)) for it in items]


def _expected_rows(plan: list[dict[str, object]]) -> list[tuple[str, str, str, list[str], str]]:
    return [(str(t["task_id"]), str(t["kind"]), str(t["crease_pattern_path"]), list(t["candidates"]),  # type: ignore[call-overload]
             str(t["correct_label"])) for t in plan]


def test_discovery_takes_any_view_names_and_ignores_case(official: Path) -> None:
    by_name = {e.name: e for e in discover(official)}
    assert [e.name for e in discover(official)] == ["apple", "Boat", "crane", "Duck", "egg", "frog", "Zebra"]
    assert by_name["Boat"].view_names() == ["bottom", "top"] and by_name["Boat"].views["top"].name == "BOAT_Top.png"
    assert by_name["Duck"].view_names() == ["top"] and by_name["apple"].impossible_cp is None
    assert by_name["egg"].normal_cp is None


def test_plan_matches_the_documented_rules(official: Path) -> None:
    before = sorted(p.relative_to(official) for p in official.rglob("*"))
    items = _items()
    plan = expected_plan(official)
    assert _as_plan(items) == _expected_rows(plan)
    kinds = {(it.kind, it.meta["pattern"]) for it in items}
    assert ("alternative", "Duck") not in kinds and ("impossible", "apple") not in kinds  # one view; no twin
    assert ("standard", "egg") not in kinds and ("impossible", "egg") in kinds  # no crease pattern
    assert sorted(p.relative_to(official) for p in official.rglob("*")) == before  # nothing written there


def test_items_show_four_captioned_candidates_with_the_official_prompt(official: Path) -> None:
    item = next(it for it in _items() if it.kind == "alternative")
    assert item.system == "You grade paper folds."
    assert item.prompt == "Look at the crease pattern, then at the candidates."
    assert len(item.images) == 5 and item.captions == ["", "Option (A):", "Option (B):", "Option (C):", "Option (D):"]
    std_id = item.id.replace("/alternative/", "/standard/")
    assert item.meta["requires"] == {"task_id": std_id, "correct": True}
    assert family_of_task(item.id).prerequisite(item.id) == std_id  # type: ignore[attr-defined]
    assert family_of_task(std_id).prerequisite(std_id) is None  # type: ignore[attr-defined]


def test_official_plan_file_is_imported(official: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A plan as the official evaluator writes it, paths relative to its own working directory, and a
    # different seed so that importing (not rebuilding) is what makes the items match.
    plan = expected_plan(official, seed=7)
    for t in plan:
        t.pop("kind")
        t["crease_pattern_path"] = "data/GamiBench/" + "/".join(Path(str(t["crease_pattern_path"])).parts[-2:])
        t["candidates"] = ["data/GamiBench/" + "/".join(Path(c).parts[-2:]) for c in t["candidates"]]  # type: ignore[attr-defined]
    path = tmp_path / "task_plan_seed7.json"
    path.write_text(json.dumps({"version": "gamibench_v1", "seed": 7, "tasks": plan, "metadata": {}}))
    monkeypatch.setenv(PLAN_ENV, str(path))
    got = _as_plan(_items())
    want = _expected_rows(expected_plan(official, seed=7))
    assert [(r[0], r[1], r[3], r[4]) for r in got] == [(r[0], r[1], r[3], r[4]) for r in want]
    assert got != _expected_rows(expected_plan(official))


def test_bad_plan_file_names_the_task(official: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"tasks": [{"task_id": "000000_x_standard_mcq", "task_type": "standard_mcq",
                                           "origami_name": "x", "crease_pattern_path": "nowhere/x_cp.png",
                                           "candidates": [], "correct_label": "A"}]}))
    monkeypatch.setenv(PLAN_ENV, str(path))
    with pytest.raises(OfficialDataError, match=r"tasks\[0\]: image 'nowhere/x_cp.png'"):
        suite_task_ids("gamibench-official")


def test_prompt_comes_only_from_the_official_code(official: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CODE_ENV)
    task_id = suite_task_ids("gamibench-official")[0]
    with pytest.raises(OfficialDataError, match=CODE_ENV):
        load_task(task_id)
    broken = tmp_path / "broken"
    (broken / "benchmarks" / "gamibench").mkdir(parents=True)
    (broken / "benchmarks" / "gamibench" / "prompts.py").write_text('SYSTEM_PROMPT = "x"\n')
    with pytest.raises(OfficialDataError, match="no USER_PROMPT, candidate_caption found"):
        read_prompt(broken)
