"""`jarvis sandbox check`: one JSON object per program, against the pluggable method provider."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import sandbox as sandbox_cli
from agent.cli.main import app
from tests.fakes.demo_scene import demo_methods


@pytest.fixture(autouse=True)
def demo_provider() -> Iterator[None]:
    """These tests run against the in-memory demo scene; one test below uses the real simulator."""
    sandbox_cli.set_method_provider(demo_methods)
    yield
    sandbox_cli.set_method_provider(sandbox_cli.scene_methods)


def _check(tmp_path: Path, code: str, *args: str) -> tuple[int, dict[str, object]]:
    program = tmp_path / "prog.py"
    program.write_text(code, encoding="utf-8")
    result = CliRunner().invoke(app, ["sandbox", "check", str(program), *args])
    return result.exit_code, json.loads(result.stdout.strip().splitlines()[-1])


def test_ok_program_prints_outcome_json(tmp_path: Path) -> None:
    code, out = _check(tmp_path, "pick('b1')\nplace('b2')\nprint(observe().bricks.b1)\n")
    assert code == 0
    assert out == {"outcome": "ok", "line": None, "message": "", "stdout": "b2\n"}


def test_skill_error_names_the_line(tmp_path: Path) -> None:
    code, out = _check(tmp_path, "x = 1\nplace('table')\n")
    assert code == 1
    assert out["outcome"] == "skill_error" and out["line"] == 2


def test_generic_library_and_policy_violation(tmp_path: Path) -> None:
    code, out = _check(tmp_path, "print(move_to(0.1, 0.0, 0.2).position)\n", "--library", "generic")
    assert (code, out["stdout"]) == (0, "[0.1, 0.0, 0.2]\n")
    code, out = _check(tmp_path, "import os\n")
    assert (code, out["outcome"], out["line"]) == (1, "policy_violation", 1)


def test_method_provider_is_pluggable(tmp_path: Path) -> None:
    def provider(library: str, task_id: str) -> dict[str, object]:
        return {"hello": lambda: f"hello from {library}"}

    sandbox_cli.set_method_provider(provider)  # type: ignore[arg-type]
    _, out = _check(tmp_path, "print(hello())\n", "--library", "generic")
    assert out["stdout"] == "hello from generic\n"


def test_default_provider_runs_real_skills_on_a_simulated_scene(tmp_path: Path) -> None:
    sandbox_cli.set_method_provider(sandbox_cli.scene_methods)
    code, out = _check(tmp_path, "bricks = observe()\nprint(len(bricks) > 0, bricks[0].size)\npick('p999')\n")
    assert code == 1 and out["outcome"] == "skill_error" and out["line"] == 3
    assert out["stdout"].startswith("True [") and "unknown_brick" in str(out["message"])
