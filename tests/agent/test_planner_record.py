"""The motion planner is chosen by configuration (AgentConfig.planner, `--planner`) and recorded with every
assembly episode: name, version and settings in the EpisodeRecord, the choice in config.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from agent.config import AgentConfig
from agent.runs.run_store import RunConfig, RunDirectory
from jarvis_sim.provenance import package_version
from tests.fakes.lego_tasks import stack_task


@pytest.fixture
def task_file(tmp_path: Path) -> Path:
    path = tmp_path / "task.json"
    path.write_text(stack_task(2, 1).model_dump_json())
    return path


def _episode(task_file: Path, out: Path, *extra: str) -> tuple[dict[str, object], dict[str, object]]:
    from agent.cli.main import app

    result = CliRunner().invoke(app, ["episode", "--task-file", str(task_file), "--agent", "null", *extra,
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    config = json.loads((out / "config.json").read_text())
    return record, config


def test_the_default_planner_is_recorded_with_its_settings(task_file: Path, tmp_path: Path) -> None:
    record, config = _episode(task_file, tmp_path / "run")
    assert config["agent"]["planner"] == "cartesian"  # type: ignore[index]
    assert record["planner"] == {
        "name": "cartesian", "version": package_version("jarvis"),
        "settings": {"waypoint_spacing_m": 0.01, "settle_tolerance_m": 0.00015, "settle_max_s": 1.5}}


def test_a_chosen_planner_is_recorded_with_its_version(task_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("ompl", reason="OMPL is in the ros extra (.ci/ros-setup)")
    record, config = _episode(task_file, tmp_path / "run", "--planner", "ompl")
    assert config["agent"]["planner"] == "ompl"  # type: ignore[index]
    planner = record["planner"]
    assert isinstance(planner, dict) and planner["name"] == "ompl" and planner["version"] == package_version("ompl")
    assert planner["settings"]["algorithm"] == "RRTConnect" and planner["settings"]["time_limit_s"] > 0


def test_an_unknown_planner_is_refused_naming_the_valid_ones(task_file: Path, tmp_path: Path) -> None:
    from agent.cli.main import app

    with pytest.raises(ValidationError, match=r"unknown motion planner 'warp-drive'; valid: .*cartesian"):
        AgentConfig(planner="warp-drive")
    result = CliRunner().invoke(app, ["episode", "--task-file", str(task_file), "--planner", "warp-drive",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "unknown motion planner 'warp-drive'" in result.output
    assert not (tmp_path / "run" / "episodes.jsonl").exists()


def test_run_directories_from_before_the_planner_field_still_resume(tmp_path: Path) -> None:
    cfg = RunConfig(task_ids=["lego/x/001"])
    old = cfg.model_dump(mode="json", exclude={"provenance"})
    del old["agent"]["planner"]
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "config.json").write_text(json.dumps(old))
    RunDirectory.open(tmp_path / "old", cfg)  # the missing field reads as the default: the same run
    with pytest.raises(ValueError, match="different run"):
        RunDirectory.open(tmp_path / "old", cfg.model_copy(update={"agent": AgentConfig(planner="ompl")}))
