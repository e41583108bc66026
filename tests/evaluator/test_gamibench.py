"""GamiBench answer parsing, scoring through the shared scorer registry, metrics, and the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from evaluator.answers import score_answer
from evaluator.gamibench import GamiBenchParseError, gamibench_metrics, parse_answer
from jarvis_sim.tasks.question import QuestionItem


def _item(kind: str, name: str, level: str, answer: str) -> QuestionItem:
    return QuestionItem(id=f"gamibench/{kind}/{name}", family="gamibench", kind=kind, level=level, prompt="p",
                        answer=answer, meta={"pattern": name})


@pytest.mark.parametrize(("text", "letter"), [("A", "A"), (" E\n", "E"), ("<|im_start|>C<|im_end|>", "C")])
def test_parse_ok(text: str, letter: str) -> None:
    assert parse_answer(text) == letter


@pytest.mark.parametrize("text", ["", "F", "AB", "a", "The answer is A", "A."])
def test_parse_errors(text: str) -> None:
    with pytest.raises(GamiBenchParseError):
        parse_answer(text)


def test_scorer_registered_and_parse_error_counts_wrong() -> None:
    it = _item("standard", "x", "simple", "B")
    assert score_answer(it, "B").correct
    bad = score_answer(it, "maybe B")
    assert not bad.correct and not bad.valid and "parse_error" in bad.details


def test_metrics() -> None:
    items = []
    for i in range(4):
        for level in ("simple", "complex"):
            name = f"{level}{i}"
            items += [_item("standard", name, level, "A"), _item("alternative", name, level, "B"),
                      _item("impossible", name, level, "E")]
    answers = {}
    for it in items:
        n = int(it.meta["pattern"][-1])
        if it.kind == "standard":
            answers[it.id] = "A" if n < 2 else "E"  # half right, the rest choose E
        elif it.kind == "alternative":
            answers[it.id] = "B" if n == 0 else "C"
        else:
            answers[it.id] = "E" if n < 3 else "junk"
    m = gamibench_metrics([(it, score_answer(it, answers[it.id])) for it in items])
    s = m["levels"]["simple"]
    assert s["normal_accuracy"] == 50.0 and s["ifsr"] == 50.0
    assert s["n_alternative_asked"] == 2 and s["viewpoint_consistency"] == 50.0
    assert s["impossible_accuracy"] == 75.0
    assert m["macro"]["normal_accuracy"] == 50.0 and m["parse_errors"] == 2
    assert m["position_bias"]["correct"]["A"] == 8 and m["position_bias"]["chosen"]["parse_error"] == 2


def test_scripted_ceiling_random_floor_via_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_CACHE_DIR", str(tmp_path / "cache"))
    from typer.testing import CliRunner

    from agent.cli.main import app
    from jarvis_sim.tasks.registry import family_of_task, load_task, suite_task_ids

    ids = suite_task_ids("gamibench")[:6]
    fam = family_of_task(ids[0])
    rng = random.Random(0)
    scripted = tmp_path / "scripted.jsonl"
    rand = tmp_path / "random.jsonl"
    with scripted.open("w") as fs, rand.open("w") as fr:
        for i in ids:
            item = load_task(i)
            fs.write(json.dumps({"task_id": i, "answer": fam.scripted_answer(item)}) + "\n")  # type: ignore[attr-defined]
            fr.write(json.dumps({"task_id": i, "answer": fam.random_answer(item, rng)}) + "\n")  # type: ignore[attr-defined]
    res = CliRunner().invoke(app, ["answers", "score", str(scripted)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output.strip().splitlines()[-1])["summary"]["accuracy"] == 100.0
    res = CliRunner().invoke(app, ["origami", "score", str(scripted)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["macro"]["normal_accuracy"] == 100.0
    res = CliRunner().invoke(app, ["answers", "score", str(rand)])
    assert res.exit_code == 0


def test_origami_check_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agent.cli.main import app
    from jarvis_sim.origami.library import ASSETS

    res = CliRunner().invoke(app, ["origami", "check", str(ASSETS / "patterns" / "impossible-fish-base.fold")])
    out = json.loads(res.output)
    assert res.exit_code == 0 and out["foldable"] is False and out["violations"][0]["vertices"]
    bad = tmp_path / "bad.fold"
    bad.write_text(json.dumps({"vertices_coords": [[0, 0]], "edges_vertices": [[0, 5]]}))
    res = CliRunner().invoke(app, ["origami", "check", str(bad)])
    assert res.exit_code == 2 and "edges_vertices[0]" in res.output
