"""`jarvis --version`, `jarvis suites` over every family, `jarvis tasks suite` for any family, and
unknown-id errors that say what ids look like."""

from __future__ import annotations

import json
from importlib.metadata import version

from typer.testing import CliRunner

from agent.cli.main import app

runner = CliRunner()


def test_version_prints_the_installed_version():
    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"jarvis {version('jarvis')}"


def test_suites_lists_every_family_and_marks_missing_data():
    r = runner.invoke(app, ["suites", "--json", "--all"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert {"lego", "planning", "vsp", "gamibench"} <= {row["family"] for row in rows}
    mini = next(row for row in rows if row["name"] == "jarvis-mini")
    assert mini["available"] and mini["tasks"] == 6
    for row in rows:
        assert row["available"] == bool(row["tasks"])  # missing data (None) or no tasks (0): not available
        if not row["available"]:
            assert row["unavailable_because"]
    assert not any(row["available"] and row["tasks"] == 0 for row in rows)
    r = runner.invoke(app, ["suites"])
    listed = {line.split()[1] for line in r.output.splitlines() if not line.startswith("(")}
    assert listed == {row["name"] for row in rows if row["available"]}


def test_suites_refuses_an_unknown_family():
    r = runner.invoke(app, ["suites", "--family", "chess"])
    assert r.exit_code == 2 and "unknown family 'chess'; valid: gamibench, lego, planning" in r.output


def test_tasks_suite_writes_a_suite_of_another_family(tmp_path):
    out = tmp_path / "g.jsonl"
    r = runner.invoke(app, ["tasks", "suite", "vsp-gen-mini-blocks-t4", "--out", str(out)])
    assert r.exit_code == 0, r.output
    items = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(items) == 8 and all(i["id"].startswith("vsp") for i in items)
    r = runner.invoke(app, ["tasks", "suite", "no-such-suite", "--out", str(tmp_path / "x.jsonl")])
    assert r.exit_code == 2 and "jarvis-mini" in r.output and "gamibench" in r.output


def test_unknown_task_ids_say_what_ids_look_like():
    r = runner.invoke(app, ["tasks", "show", "lego/v7-nothing"])
    assert r.exit_code == 2
    assert "LEGO ids look like lego/<p|v><pool seed>-<assembly index>-<kind>/<task index>" in r.output
    assert "for example: lego/" in r.output and "jarvis suites" in r.output
    r = runner.invoke(app, ["tasks", "show", "chess/1"])
    assert r.exit_code == 2 and "task ids start with their family" in r.output
