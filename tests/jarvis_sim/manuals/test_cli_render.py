"""`jarvis render`: resolves a task id or a TaskSpec file and writes the pages and the observation."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import render as render_cli
from agent.cli.main import app
from jarvis_sim.backends import base, registry
from tests.jarvis_sim.manuals.crafted import crafted_task


def test_resolve_task_reads_a_taskspec_file(tmp_path: Path) -> None:
    task = crafted_task()
    path = tmp_path / "task.json"
    path.write_text(task.model_dump_json())
    assert render_cli.resolve_task(str(path)) == task


def test_resolve_task_rejects_a_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"id": 3}')
    with pytest.raises(ValueError, match=r"bad\.json"):
        render_cli.resolve_task(str(path))
    with pytest.raises(FileNotFoundError):
        render_cli.resolve_task(str(tmp_path / "missing.json"))


def test_unknown_style_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    path.write_text(crafted_task().model_dump_json())
    result = CliRunner().invoke(app, ["render", str(path), "--style", "nope", "--out", str(tmp_path / "o")])
    assert result.exit_code != 0
    assert "booklet" in result.output


@pytest.mark.render
def test_render_writes_pages_and_observation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_CACHE_DIR", str(tmp_path / "cache"))

    def no_backend(name: str, **kwargs: object) -> base.Backend:
        raise base.BackendError("not in this test")

    # The bricks-only top-down fallback (the backend has its own tests).
    monkeypatch.setattr(registry, "make_backend", no_backend)
    path = tmp_path / "task.json"
    path.write_text(crafted_task().model_dump_json())
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["render", str(path), "--style", "booklet", "--out", str(out), "--width", "320", "--height", "240"]
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "initial_observation.png",
        "manual_booklet_step01.png",
        "manual_booklet_step02.png",
        "manual_booklet_step03.png",
    ]
    assert "bricks-only scene" in result.output
