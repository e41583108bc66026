"""Renders, the fold simulator, and GamiBench items served through the task-family registry."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from jarvis_sim.origami.generator import classic_base, miura_ori
from jarvis_sim.origami.render import VIEWS, crease_pattern_image, render_view
from jarvis_sim.origami.simulate import flat_folded, fold_3d
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import family_of_task, load_task, suite_task_ids
from tests.fakes.gamibench_folder import build_code


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_CACHE_DIR", str(tmp_path / "cache"))


def test_fold_3d_keeps_edge_lengths_and_flat_state_stacks() -> None:
    from jarvis_sim.origami.foldability import check

    cp = classic_base("bird")
    assert cp is not None
    flat0 = fold_3d(cp, 0.0).triangles
    assert np.allclose(flat0[:, :, 2], 0.0)
    half = fold_3d(cp, 0.5).triangles
    # Rigid motion per face: triangle side lengths unchanged.
    side = lambda t: np.linalg.norm(t[:, 1] - t[:, 0], axis=1)  # noqa: E731
    assert np.allclose(side(flat0), side(half))
    verdict = check(cp)
    assert verdict.state is not None
    stacked = flat_folded(cp, verdict.state).triangles
    assert stacked[:, :, 2].max() > 0  # layers separated by the solver's order


def test_crease_image_colours() -> None:
    cp = classic_base("bird")
    assert cp is not None
    px = np.asarray(crease_pattern_image(cp, 256)).reshape(-1, 3).astype(int)
    red = ((px[:, 0] > 180) & (px[:, 1] < 90) & (px[:, 2] < 90)).sum()
    blue = ((px[:, 2] > 180) & (px[:, 0] < 90)).sum()
    assert red > 100 and blue > 100


def test_views_differ_and_models_differ() -> None:
    a, b = classic_base("bird"), miura_ori(4, 4, 0.2)
    assert a is not None and b is not None
    ma, mb = fold_3d(a, 0.92), fold_3d(b, 0.92)
    imgs = {v: np.asarray(render_view(ma, v, size=96)).astype(float) for v in VIEWS}
    for v in VIEWS:
        assert (imgs[v] < 250).any(), v  # something drawn in every view
    assert np.abs(imgs["front"] - imgs["top"]).mean() > 1.0
    other = np.asarray(render_view(mb, "front", size=96)).astype(float)
    assert np.abs(imgs["front"] - other).mean() > 1.0


def test_suite_items_and_answers() -> None:
    ids = suite_task_ids("gamibench")
    assert len(ids) == 3 * 186 and all(i.startswith("gamibench/") for i in ids)
    kinds = {i.split("/")[1] for i in ids}
    assert kinds == {"standard", "alternative", "impossible"}
    std = load_task(ids[0])
    assert isinstance(std, QuestionItem) and std.answer in "ABCD" and len(std.images) == 2
    assert all(Path(p).exists() for p in std.images)
    assert Image.open(std.images[1]).size == (512, 2 * (256 + 28))
    alt = load_task(ids[1])
    assert isinstance(alt, QuestionItem) and alt.meta["requires"] == {"task_id": ids[0], "correct": True}
    std_models = {c["model"] for c in std.meta["candidates"]}
    alt_models = {c["model"] for c in alt.meta["candidates"]}
    assert std_models == alt_models  # same distractors, another view of the right model
    right = {c["letter"]: c for c in std.meta["candidates"]}[std.answer]
    alt_right = {c["letter"]: c for c in alt.meta["candidates"]}[alt.answer]
    assert right["model"] == alt_right["model"] and right["view"] != alt_right["view"]
    imp = load_task(ids[2])
    assert isinstance(imp, QuestionItem) and imp.answer == "E"
    assert std.meta["pattern"] not in {c["model"] for c in imp.meta["candidates"]}
    fam = family_of_task(ids[0])
    assert fam.scripted_answer(std) == std.answer  # type: ignore[attr-defined]
    assert fam.random_answer(std, random.Random(0)) in "ABCDE"  # type: ignore[attr-defined]
    assert "answer" not in std.public_view()


def test_official_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "official"
    img = Image.new("RGB", (32, 32), "white")
    for name in ("crane", "frog", "boat", "box", "lily"):
        d = root / name
        d.mkdir(parents=True)
        img.save(d / f"{name}_cp.png")
        img.save(d / f"impossible_{name}_cp.png")
        for v in VIEWS:
            img.save(d / f"{name}_{v}.png")
    monkeypatch.setenv("JARVIS_GAMIBENCH_ROOT", str(root))
    monkeypatch.setenv("JARVIS_GAMIBENCH_CODE", str(build_code(tmp_path / "code")))
    ids = suite_task_ids("gamibench-official")
    assert len(ids) == 15 and ids[0].startswith("gamibench/official/")
    item = load_task(ids[0])
    assert isinstance(item, QuestionItem) and item.images[0] == str(root / "boat" / "boat_cp.png")
    assert len(item.images) == 5 and not (root / "_composites").exists()  # four candidates, nothing written
