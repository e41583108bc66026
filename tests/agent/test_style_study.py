"""The manual-style robustness study: `jarvis run --manual-style all` runs once per style and compares them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli.main import app
from agent.runs.style_study import study_styles
from evaluator.run_dir import read_run_dir
from jarvis_sim.manuals.styles import UnknownStyleError, manual_styles
from jarvis_sim.tasks.suites import load_suite
from tests.fakes.llm_servers import FakeOpenAIServer


def test_style_lists() -> None:
    assert study_styles("all") == list(manual_styles()) and len(manual_styles()) >= 3
    assert study_styles("photo, booklet") == ["photo", "booklet"]
    assert study_styles("photo") is None  # one style: a plain run
    with pytest.raises(UnknownStyleError, match="valid: "):
        study_styles("photo,comic")
    with pytest.raises(ValueError, match="twice"):
        study_styles("photo,photo")


@pytest.mark.slow
def test_llm_run_in_every_style_reports_score_by_style(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-test-styles")
    monkeypatch.setenv("JARVIS_CACHE_DIR", str(tmp_path / "cache"))
    task = load_suite("jarvis-mini")[0]
    styles = list(manual_styles())
    with FakeOpenAIServer(["no program today"] * len(styles)) as server:
        result = CliRunner().invoke(app, [
            "run", "--task", task.id, "--agent", "llm", "--model", f"openai-compatible:{server.base_url}:fake",
            "--mode", "non_reflective", "--manual-style", "all", "--no-floors", "--workers", "0",
            "--out", str(tmp_path / "study"),
        ])
        bodies = [r.body for r in server.requests]
    assert result.exit_code == 0, result.output
    # Each style's run asked the model once, with that style's manual pages: the images differ.
    assert len(bodies) == len(styles)
    images = [[p["image_url"]["url"] for p in b["messages"][1]["content"] if p["type"] == "image_url"] for b in bodies]
    assert len({tuple(i) for i in images}) == len(styles)
    for style in styles:
        run = read_run_dir(tmp_path / "study" / style)
        assert [r.agent["manual_style"] for r in run.records] == [style]
    table = json.loads((tmp_path / "study" / "styles.json").read_text())
    assert list(table["styles"]) == styles and table["spread"] is not None
    assert set(table["tasks"][task.id]) == set(styles)
    report = (tmp_path / "study" / "report.md").read_text()
    assert "| Style | episodes |" in report and all(f"| {s} | 1 | 0 |" in report for s in styles)
    assert f"| {task.id} |" in report
