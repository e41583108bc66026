"""`jarvis episode --agent llm ...` against a fake model server: options reach the agent, the record is written."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tests.fakes.quiz_family  # noqa: F401  (registers the 'quiz' question family)
from agent.cli.main import app
from agent.cli.run import agent_config_from_options
from evaluator.run_dir import read_run_dir
from jarvis_sim.tasks.suites import load_suite
from tests.fakes.llm_servers import FakeOpenAIServer


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake key for the OpenAI-compatible provider."""
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-test-cli")


def test_llm_options_fill_the_nested_config() -> None:
    cfg = agent_config_from_options(name="llm", model="openai:gpt-4o", llm_base_url="http://x/v1", llm_timeout_s=3.0,
                                    llm_cache_dir=None, observation="rgbd")
    assert cfg.llm.base_url == "http://x/v1" and cfg.llm.timeout_s == 3.0 and cfg.llm.cache_dir is None
    assert cfg.observation == "rgbd"
    with pytest.raises(ValueError, match="timeout_s"):
        agent_config_from_options(name="llm", llm_timeout_s=-1.0)


def test_episode_command_question_item(tmp_path: Path) -> None:
    with FakeOpenAIServer(["Answer: 12"]) as server:
        result = CliRunner().invoke(app, [
            "episode", "--task", "quiz/2", "--agent", "llm", "--model", f"openai-compatible:{server.base_url}:fake",
            "--llm-timeout-s", "5", "--out", str(tmp_path),
        ])
    assert result.exit_code == 0, result.output
    line = json.loads(result.output.strip().splitlines()[-1])
    assert line["status"] == "done" and set(line["scores"]) >= {"correct", "valid"}
    record = read_run_dir(tmp_path).records[0]
    assert record.answer == "Answer: 12" and record.agent["llm"]["timeout_s"] == 5.0


def test_episode_command_assembly_with_garbage_answer(tmp_path: Path) -> None:
    task = load_suite("jarvis-mini")[0]
    with FakeOpenAIServer(["no program today"]) as server:
        result = CliRunner().invoke(app, [
            "episode", "--task", task.id, "--agent", "llm", "--model", f"openai-compatible:{server.base_url}:fake",
            "--mode", "non_reflective", "--observation", "rgbd", "--out", str(tmp_path),
        ])
    assert result.exit_code == 0, result.output
    record = read_run_dir(tmp_path).records[0]
    assert record.status == "done" and [r.outcome for r in record.rounds] == ["no_code"]
    assert record.agent["observation"] == "rgbd" and record.scores["completion"] == 0.0


def test_a_dripping_model_ends_the_episode_within_twice_its_timeout(tmp_path: Path) -> None:
    # One byte every 0.5 s: no read ever waits 10 s, so only the call's total deadline can end it.
    from tests.fakes.llm_servers import Drip

    with FakeOpenAIServer(default=Drip(0.5)) as server:
        t0 = time.monotonic()
        result = CliRunner().invoke(app, [
            "episode", "--task", "quiz/2", "--agent", "llm", "--model", f"openai-compatible:{server.base_url}:fake",
            "--llm-timeout-s", "10", "--out", str(tmp_path),
        ])
        took = time.monotonic() - t0
    assert result.exit_code == 1, result.output  # a failed episode, with the reason
    line = json.loads(result.output.strip().splitlines()[-1])
    assert line["status"] == "failed" and "ProviderTimeoutError" in line["error"]
    assert took < 20.0, took
