"""Prior-task experience: logs compressed from a run directory, lessons distilled by a (fake) model,
written with a header, read back, and the `jarvis experience distill` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.agents.experience import ExperienceError, collect_logs, episode_log, load_experience
from agent.cli.main import app
from jarvis_sim.records import EpisodeRecord, RoundRecord, SkillCallRecord
from tests.fakes.llm_servers import FakeOpenAIServer

LESSONS = "- Call observe() again after every placement: ids change when bricks move.\n- Catch grasp_failed and retry once."


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake key for the OpenAI-compatible provider."""
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-test-experience")


def _record(episode_id: str, soft: float) -> EpisodeRecord:
    calls = [
        SkillCallRecord(name="observe", ok=True, result=[]),
        SkillCallRecord(name="pick", args={"brick": "p3"}, ok=False, error_kind="grasp_failed", error="slipped\nmore"),
    ]
    rnd = RoundRecord(index=0, kind="attempt", code="bricks = observe()\npick('p3')\n", outcome="skill_error",
                      outcome_line=2, skill_calls=calls)
    return EpisodeRecord(episode_id=episode_id, task_id="lego/x/000", family="lego", difficulty="easy",
                         agent={"name": "llm", "mode": "reflective"}, rounds=[rnd],
                         scores={"soft_score": soft, "completion": soft})


def _run_dir(root: Path, records: list[EpisodeRecord]) -> Path:
    root.mkdir(parents=True)
    (root / "config.json").write_text(json.dumps({"schema_version": 1}))
    (root / "episodes.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))
    return root


def test_episode_log_keeps_outcomes_and_failures_not_ground_truth() -> None:
    text = episode_log(_record("e1", 40.0))
    assert "mode reflective" in text and "soft score 40.0" in text
    assert "pick(brick='p3') -> grasp_failed: slipped" in text and "more" not in text
    assert "1 skill calls succeeded, 1 failed." in text


def test_collect_logs_puts_the_worst_first_and_rejects_empty_runs(tmp_path: Path) -> None:
    run = _run_dir(tmp_path / "run", [_record("good", 90.0), _record("bad", 10.0)])
    logs = collect_logs([run], max_episodes=1)
    assert len(logs) == 1 and "Episode bad" in logs[0]
    empty = _run_dir(tmp_path / "empty", [])
    with pytest.raises(ExperienceError, match="no assembly episodes"):
        collect_logs([empty], max_episodes=5)


def test_distill_command_writes_a_reusable_lessons_file(tmp_path: Path) -> None:
    run = _run_dir(tmp_path / "run", [_record("a", 20.0), _record("b", 70.0)])
    out = tmp_path / "lessons.md"
    with FakeOpenAIServer([LESSONS]) as server:
        result = CliRunner().invoke(app, [
            "experience", "distill", str(run), "--model", f"openai-compatible:{server.base_url}:fake", "--out", str(out),
            "--max-lessons", "5",
        ])
        prompt = json.dumps(server.requests[0].body["messages"])
    assert result.exit_code == 0, result.output
    header = json.loads(result.output.strip().splitlines()[-1])
    assert header["episodes"] == 2 and header["template"].startswith("experience_distill@")
    assert "at most 5 lessons" in prompt and "grasp_failed" in prompt and "place_on(" in prompt
    assert out.read_text().startswith("---\ncreated: ")
    assert load_experience(out) == LESSONS


def test_distill_command_reports_a_bad_run_dir(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["experience", "distill", str(tmp_path / "nope"), "--model", "openai:gpt-4o",
                                      "--out", str(tmp_path / "l.md")])
    assert result.exit_code == 2 and "no such run directory" in result.output


def test_load_experience_errors(tmp_path: Path) -> None:
    with pytest.raises(ExperienceError, match="cannot read"):
        load_experience(tmp_path / "missing.md")
    empty = tmp_path / "empty.md"
    empty.write_text("---\nmodel: x\n---\n\n")
    with pytest.raises(ExperienceError, match="holds no lessons"):
        load_experience(empty)
    plain = tmp_path / "plain.md"
    plain.write_text("- a lesson\n")
    assert load_experience(plain) == "- a lesson"
