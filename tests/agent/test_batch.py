"""Headless batch runs: `jarvis run` end to end, resume after corrupt or torn lines, a failing disk, a dead
worker process, and the Ray executor on a local Ray instance."""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.config import AgentConfig
from agent.runs.batch import run_batch
from agent.runs.run_store import RunConfig, RunDirectory


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quiz family and the sleepy agent, here and in spawned workers."""
    monkeypatch.setenv("JARVIS_PLUGINS", "tests.fakes.quiz_family,tests.fakes.slow_agent")
    import tests.fakes.quiz_family
    import tests.fakes.slow_agent  # noqa: F401


def quiz_config(agent: str = "scripted", n: int | None = None) -> RunConfig:
    """A run over the quiz suite (or its first n tasks)."""
    if n is None:
        return RunConfig(suite="quiz-mini", agent=AgentConfig(name=agent))
    return RunConfig(task_ids=[f"quiz/{k}" for k in range(n)], agent=AgentConfig(name=agent))


def lines(run_dir: Path) -> list[str]:
    """The raw lines of episodes.jsonl."""
    return (run_dir / "episodes.jsonl").read_text(encoding="utf-8", errors="replace").splitlines()


def test_jarvis_run_cli_writes_report_and_resumes_without_redoing(tmp_path: Path, plugins: None) -> None:
    from agent.cli.main import app

    out = tmp_path / "run"
    args = ["run", "--suite", "quiz-mini", "--agent", "scripted", "--workers", "2", "--out", str(out)]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert (out / "report.md").is_file() and (out / "summary.json").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_episodes"] == 40
    assert "40/40" in first.output  # the progress bar reached the end
    before = lines(out)
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert lines(out) == before  # nothing redone, nothing rewritten
    other = CliRunner().invoke(app, [*args[:-2], "--seed", "3", "--out", str(out)])
    assert other.exit_code == 2 and "different run" in other.output


def test_resume_skips_a_corrupt_and_a_torn_line_and_redoes_only_those(tmp_path: Path, plugins: None) -> None:
    out = tmp_path / "run"
    run_batch(quiz_config(n=10), out, workers=0)
    raw = (out / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    broken_task = json.loads(raw[3])["task_id"]
    torn_task = json.loads(raw[-1])["task_id"]
    raw[3] = b'{"episode_id": "x", \xff\xfe not json\n'  # bad bytes and bad JSON
    raw[-1] = raw[-1][: len(raw[-1]) // 2]  # a write torn by a crash, no newline
    (out / "episodes.jsonl").write_bytes(b"".join(raw))
    kept = [x for k, x in enumerate(raw[:-1]) if k != 3]
    redone: list[str] = []
    _run, progress = run_batch(quiz_config(n=10), out, workers=0, on_record=lambda r, _p: redone.append(r.task_id))
    assert sorted(redone) == sorted([broken_task, torn_task]) and progress.skipped == 8
    now = (out / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    assert [x for x in now if x in kept] == kept  # finished lines untouched, in place
    from agent.runs.reporting import finish_run

    summary = finish_run(RunDirectory(out))
    assert summary["n_episodes"] == 10


def test_failing_disk_stops_the_run_keeping_what_finished(tmp_path: Path, plugins: None,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.cli.main import app

    out = tmp_path / "run"
    real_append = RunDirectory.append
    calls = {"n": 0}

    def flaky(self: RunDirectory, record: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_append(self, record)

    monkeypatch.setattr(RunDirectory, "append", flaky)
    args = ["run", "--task", "quiz/0", "--task", "quiz/1", "--task", "quiz/2", "--task", "quiz/3", "--task", "quiz/4",
            "--agent", "scripted", "--workers", "0", "--out", str(out)]
    failed = CliRunner().invoke(app, args)
    assert failed.exit_code == 3 and "No space left" in failed.output and "resume" in failed.output
    assert len(lines(out)) == 3
    monkeypatch.setattr(RunDirectory, "append", real_append)
    resumed = CliRunner().invoke(app, args)
    assert resumed.exit_code == 0, resumed.output
    assert sorted(json.loads(x)["task_id"] for x in lines(out)) == [f"quiz/{k}" for k in range(5)]


@pytest.mark.slow
def test_killed_pool_worker_is_retried_on_a_fresh_pool(tmp_path: Path, plugins: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_TEST_SLEEP_S", "1.0")
    out = tmp_path / "run"
    result: dict[str, Any] = {}

    def go() -> None:
        result["run"] = run_batch(quiz_config("sleepy", n=4), out, workers=2)

    t = threading.Thread(target=go)
    t.start()
    children = [p for p in multiprocessing.active_children() if p.pid]
    deadline = time.time() + 60
    while not children and time.time() < deadline:
        time.sleep(0.1)
        children = [p for p in multiprocessing.active_children() if p.pid]
    time.sleep(2.0)  # let the workers start their first episodes
    assert children and children[0].pid is not None
    os.kill(children[0].pid, signal.SIGKILL)
    t.join(timeout=120)
    _run, progress = result["run"]
    records = RunDirectory(out).records()
    assert sorted(r.task_id for r in records) == [f"quiz/{k}" for k in range(4)]  # none lost
    assert progress.done == 4, [(r.task_id, r.status, r.error) for r in records]


@pytest.mark.slow
def test_ray_executor_on_a_local_ray_instance(tmp_path: Path, plugins: None) -> None:
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'jarvis[ray]')")
    from agent.runs.reporting import finish_run

    out = tmp_path / "run"
    try:  # the executor starts a local instance itself, forwarding JARVIS_PLUGINS to its actors
        run, progress = run_batch(quiz_config(n=6), out, workers=2, executor="ray")
    finally:
        ray.shutdown()
    assert progress.done == 6 and progress.failed == 0
    assert sorted(r.task_id for r in run.records()) == [f"quiz/{k}" for k in range(6)]
    assert finish_run(run)["n_episodes"] == 6


@pytest.mark.slow
@pytest.mark.render
def test_failing_artifact_write_fails_the_episode_with_the_reason_then_resume_redoes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.episodes.assembly import AssemblyEpisode
    from jarvis_sim.tasks.registry import suite_task_ids

    task_id = suite_task_ids("jarvis-mini")[0]
    config = RunConfig(task_ids=[task_id], agent=AgentConfig(name="oracle"))
    out = tmp_path / "run"

    def disk_full(self: AssemblyEpisode, kind: str, image: Any) -> str:
        raise OSError(errno.ENOSPC, "No space left on device", f"obs_{kind}.png")

    monkeypatch.setattr(AssemblyEpisode, "_save_image", disk_full)
    _run, progress = run_batch(config, out, workers=0)
    (failed,) = RunDirectory(out).records()
    assert progress.failed == 1 and failed.status == "failed" and "No space left" in (failed.error or "")
    monkeypatch.undo()
    _run, progress = run_batch(config, out, workers=0)
    assert progress.done == 1 and progress.skipped == 0  # the failed episode is retried on resume
    records = RunDirectory(out).records()
    assert [r.status for r in records] == ["failed", "done"]  # the first line was kept, not rewritten
    from agent.runs.reporting import finish_run

    assert finish_run(RunDirectory(out))["n_episodes"] == 1  # one per task in the report


def test_config_json_records_provenance_and_old_configs_still_resume(tmp_path: Path) -> None:
    import json

    from agent.runs.run_store import RunConfig, RunDirectory

    cfg = RunConfig(task_ids=["lego/x/001"])
    RunDirectory.open(tmp_path / "new", cfg)
    stored = json.loads((tmp_path / "new" / "config.json").read_text())
    assert stored["schema_version"] == 2 and stored["provenance"]["packages"]["mujoco"]
    RunDirectory.open(tmp_path / "new", cfg)  # resumes: provenance is not part of the run's identity
    old = {k: v for k, v in cfg.model_dump(mode="json").items() if k != "provenance"}
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "config.json").write_text(json.dumps({**old, "schema_version": 1}))
    RunDirectory.open(tmp_path / "old", cfg)


def test_episode_folders_are_named_by_task_with_a_suffix_when_repeated(tmp_path: Path) -> None:
    from agent.runs.run_store import claim_episode_dir

    first = claim_episode_dir(tmp_path, "planning/rgb/lego/mini/0")
    again = claim_episode_dir(tmp_path, "planning/rgb/lego/mini/0")
    third = claim_episode_dir(tmp_path, "planning/rgb/lego/mini/0")
    assert [p.name for p in (first, again, third)] == [
        "planning_rgb_lego_mini_0", "planning_rgb_lego_mini_0-2", "planning_rgb_lego_mini_0-3"]
    assert all(p.parent == tmp_path / "episodes" and p.is_dir() for p in (first, again, third))
