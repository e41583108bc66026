"""The reference floors: null and shuffle as agents in the simulator, and as rows of every assembly report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.runs.batch import run_batch
from agent.runs.floors import FLOOR_AGENTS, floor_config, floor_dir, needs_floors
from agent.runs.reporting import add_cached_floors, finish_run
from agent.runs.run_store import RunConfig, RunDirectory
from evaluator.report import write_report
from tests.evaluator.builders import perfect_state, shifted, start_state
from tests.evaluator.runs import TASKS, lego_record, write_run


def test_every_assembly_report_shows_both_floors_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_CACHE_DIR", str(tmp_path / "cache"))
    task = TASKS["easy"]
    config = RunConfig(task_ids=[task.id], agent=AgentConfig(name="oracle"))
    run = write_run(tmp_path / "run", [lego_record(task, perfect_state(task), 0)], config.model_dump(mode="json"))
    finish_run(RunDirectory(run))
    report = (run / "report.md").read_text()
    assert "## Floors" in report and "Floors not run" in report  # none cached yet: the report says so
    moved = shifted(shifted(start_state(task), "a1", dx=0.06), "a2", dx=0.06)
    for agent, state in zip(FLOOR_AGENTS, (start_state(task), moved), strict=True):
        write_run(floor_dir(config, agent), [lego_record(task, state, 0)],
                  floor_config(config, agent).model_dump(mode="json"))
    summary = finish_run(RunDirectory(run))
    assert summary["floors"]["null"]["soft_score"]["mean"] == 0.0
    shuffle = summary["floors"]["shuffle"]
    assert shuffle["soft_score"]["mean"] == pytest.approx(20.0) and shuffle["sub_scores"]["strict_soft_score"]["mean"] == 0.0
    report = (run / "report.md").read_text()
    rows = [line for line in report.splitlines() if line.startswith(("| this run", "| null", "| shuffle"))]
    assert len(rows) == 3 and "Floors not run" not in report
    # `jarvis report` (and `jarvis score`) show them too.
    write_report([run], tmp_path / "report", add_floors=add_cached_floors)
    assert "| shuffle | 1 | 20.0" in (tmp_path / "report" / "report.md").read_text()


def test_floor_runs_are_keyed_by_tasks_seed_and_budget() -> None:
    a = RunConfig(task_ids=["lego/x/0"], agent=AgentConfig(name="llm", seed=1))
    assert floor_dir(a, "null") == floor_dir(a.model_copy(update={"agent": AgentConfig(name="oracle", seed=1)}), "null")
    assert floor_dir(a, "null") != floor_dir(a.model_copy(update={"agent": AgentConfig(seed=2)}), "null")
    assert needs_floors(a) and not needs_floors(a.model_copy(update={"agent": AgentConfig(name="shuffle")}))
    assert not needs_floors(RunConfig(task_ids=["quiz/0"]))


@pytest.mark.slow
@pytest.mark.render
def test_null_and_shuffle_in_the_simulator(tmp_path: Path) -> None:
    # A one-brick task of jarvis-v1: null leaves it where it lies, shuffle moves it and builds nothing.
    scores = {}
    for agent in FLOOR_AGENTS:
        cfg = RunConfig(task_ids=["lego/v7-00024-vehicle/013"], agent=AgentConfig(name=agent))
        run, _ = run_batch(cfg, tmp_path / agent, workers=0)
        (record,) = run.records()
        assert record.status == "done", record.error
        scores[agent] = record.scores
    assert scores["null"]["soft_score"] == 0.0 and scores["null"]["validity"] == 0.0
    assert scores["shuffle"]["validity"] == 100.0 and scores["shuffle"]["strict_validity"] == 0.0
    assert scores["shuffle"]["pose"] == 0.0 and scores["shuffle"]["strict_soft_score"] == 0.0
    assert json.loads((tmp_path / "shuffle" / "config.json").read_text())["agent"]["name"] == "shuffle"


def test_floors_of_a_users_own_tasks_carry_them_and_are_keyed_by_content() -> None:
    task = TASKS["easy"].model_copy(update={"id": "lego/ldraw-chair/000"})
    config = RunConfig(tasks=[task], agent=AgentConfig(name="oracle"))
    floor = floor_config(config, "null")
    assert floor.tasks == [task] and floor.task_ids == []  # the floor run can load the task: it travels whole
    edited = task.model_copy(update={"time_budget_s": task.time_budget_s + 1})
    assert floor_dir(config, "null") != floor_dir(config.model_copy(update={"tasks": [edited]}), "null")
    # Wall-clock safety nets never change a score, so they do not key the floors either.
    netted = config.model_copy(update={"budget": config.budget.model_copy(update={"program_wall_s": 5.0})})
    assert floor_dir(config, "null") == floor_dir(netted, "null")


def test_a_floor_with_failed_episodes_is_left_out_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never a measured-looking row of zeros: the report names the failure instead."""
    from jarvis_sim.records import EpisodeRecord

    monkeypatch.setenv("JARVIS_CACHE_DIR", str(tmp_path / "cache"))
    task = TASKS["easy"]
    config = RunConfig(task_ids=[task.id], agent=AgentConfig(name="oracle"))
    run = write_run(tmp_path / "run", [lego_record(task, perfect_state(task), 0)], config.model_dump(mode="json"))
    broken = EpisodeRecord(episode_id="n0", task_id=task.id, family="lego", status="failed",
                           error="UnknownKeyError: unknown LEGO task", agent={"name": "null"})
    write_run(floor_dir(config, "null"), [broken], floor_config(config, "null").model_dump(mode="json"))
    write_run(floor_dir(config, "shuffle"), [lego_record(task, start_state(task), 0)],
              floor_config(config, "shuffle").model_dump(mode="json"))
    summary = finish_run(RunDirectory(run))
    assert set(summary["floors"]) == {"shuffle"}
    assert "`null` left out: 1 of its episodes failed (UnknownKeyError: unknown LEGO task)" in summary["floors_note"]
    report = (run / "report.md").read_text()
    assert "| null" not in report and "`null` left out" in report
