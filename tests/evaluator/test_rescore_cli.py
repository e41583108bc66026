"""Offline re-scoring (`jarvis score`) and the report command, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import evaluator.episode as episode
from agent.cli.main import app
from evaluator.answers import AnswerScore, register_answer_scorer
from evaluator.config import ScoringConfig
from evaluator.episode import read_tasks_file, rescore_run, score_episode
from evaluator.run_dir import RunDirError, read_run_dir
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.question import QuestionItem
from tests.evaluator.runs import TASKS, standard_records, write_run

runner = CliRunner()


def tasks_file(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(t.model_dump_json() for t in TASKS.values()) + "\n")
    return path


def no_penalty_config(tmp_path: Path) -> Path:
    cfg = ScoringConfig().to_json_obj()
    cfg["soft"] = {"w_pose": 1.0, "w_completion": 0.0, "w_validity": 0.0, "stability_penalty": 0.0}
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg))
    return path


def test_rescore_writes_a_new_file_and_keeps_the_original(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", standard_records())
    original = (run / "episodes.jsonl").read_bytes()
    result = rescore_run(run, ScoringConfig.model_validate(json.loads(no_penalty_config(tmp_path).read_text())),
                         read_tasks_file(tasks_file(tmp_path)))
    assert result.rescored == 8 and (run / "episodes.jsonl").read_bytes() == original
    rescored = read_run_dir(run, records="rescored").records
    for old, new in zip(standard_records(), rescored, strict=True):
        assert new.scores["soft_score"] == pytest.approx(old.scores["pose"])
        assert new.scoring_config["soft"]["w_pose"] == 1.0
    assert json.loads((run / "scoring_config.rescored.json").read_text())["soft"]["w_pose"] == 1.0
    assert read_run_dir(run).records_file.name == "episodes.rescored.jsonl"  # newer: preferred by default


def test_rescore_uses_the_registry_and_names_unknown_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = write_run(tmp_path / "run", standard_records())

    def resolver():  # type: ignore[no-untyped-def]
        def load(task_id: str):  # type: ignore[no-untyped-def]
            if task_id == "lego/test/hard":
                raise KeyError(f"unknown task {task_id!r}")
            return TASKS[task_id.rsplit("/", 1)[1]]
        return load

    monkeypatch.setattr(episode, "registry_resolver", resolver)
    with pytest.raises(RunDirError, match=r"episode lego/test/hard#0: cannot re-score: unknown task 'lego/test/hard'"):
        rescore_run(run)
    lenient = rescore_run(run, strict=False)
    assert lenient.rescored == 6 and len(lenient.problems) == 2


def test_failed_episode_without_state_is_kept_as_stored(tmp_path: Path) -> None:
    task = TASKS["easy"]
    rec = EpisodeRecord(episode_id="f", task_id=task.id, family="lego", status="failed", error="crash")
    assert score_episode(rec, task) is rec


def test_question_episode_is_scored_by_its_family_scorer() -> None:
    @register_answer_scorer("testfam")
    def _score(item: QuestionItem, answer: str, mode: str) -> AnswerScore:  # type: ignore[misc]
        ok = answer.strip() == item.answer
        return AnswerScore(task_id=item.id, correct=ok, valid=True, score=100.0 * ok)

    item = QuestionItem(id="testfam/a/0", family="testfam", kind="a", prompt="2+2?", answer="4")
    rec = EpisodeRecord(episode_id="q", task_id=item.id, family="testfam", answer=" 4 ")
    assert score_episode(rec, item).scores == {"soft_score": 100.0, "correct": 100.0, "valid": 100.0, "strict_correct": 100.0}


def test_cli_score_and_report(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", standard_records(), {"model": "m", "tool_library": "t"})
    res = runner.invoke(app, ["score", str(run), "--tasks", str(tasks_file(tmp_path)),
                              "--config", str(no_penalty_config(tmp_path)), "--no-plots"])
    assert res.exit_code == 0, res.output
    assert "re-scored 8 episode(s)" in res.output
    summary = json.loads((run / "summary.json").read_text())
    assert summary["records_file"] == "episodes.rescored.jsonl"
    other = write_run(tmp_path / "other", standard_records()[:4], {"model": "m2", "tool_library": "t"})
    res = runner.invoke(app, ["report", str(run), str(other), "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / "run" / "summary.json").is_file() and (tmp_path / "out" / "report.md").is_file()


def test_cli_errors_are_clear(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", standard_records(), extra_lines=["oops"])
    bad_cfg = tmp_path / "bad.json"
    bad_cfg.write_text('{"pose": {"w_plane": 0.9}}')
    res = runner.invoke(app, ["score", str(run), "--config", str(bad_cfg)])
    assert res.exit_code == 2 and "bad.json: pose: Value error, pose weights must sum to 1, got 1.55" in res.output
    res = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "episodes.jsonl:9: not valid JSON" in res.output
    res = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "o"), "--skip-bad-lines", "--no-plots"])
    assert res.exit_code == 0 and "1 line(s) skipped" in res.output
    res = runner.invoke(app, ["score", str(tmp_path / "missing")])
    assert res.exit_code == 2 and "no such run directory" in res.output
