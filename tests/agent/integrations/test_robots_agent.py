"""The other direction: `jarvis run` drives Inspect Robots' LLM agent policy (inspect-robots-agent from PyPI)
against the fake OpenAI-compatible server (real HTTP, tool calls); its moves run as sandboxed programs and
JARVIS scores and reports the episode."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("inspect_robots_agent", reason="needs the inspect extra: pip install 'jarvis[inspect]'")

from typer.testing import CliRunner

from agent.cli.main import app
from agent.config import AgentConfig
from agent.integrations.robots_agent import READ_STATE, chunk_program, policy_kwargs
from tests.fakes.llm_servers import FakeOpenAIServer, Reply

TASK = "lego/v7-00009-stairs/000"


def test_a_chunk_becomes_one_program_of_waypoints_and_gripper_changes() -> None:
    q = np.zeros(8)
    open_a, open_b, shut = q.copy(), q.copy(), q.copy()
    open_a[[0, 7]] = (0.1, 1.0)
    open_b[[0, 7]] = (0.2, 1.0)
    shut[[0, 7]] = (0.2, 0.0)
    assert chunk_program([open_a, open_b, shut, shut]).splitlines() == [
        "open_gripper()", "move_joints_to([0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])", "close_gripper()",
        "move_joints_to([0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])", *READ_STATE.splitlines()]


def test_model_strings_map_to_the_policy_and_bad_ones_are_named() -> None:
    cfg = AgentConfig(name="inspect-robots-agent", model="openai-compatible:http://127.0.0.1:9/v1:vla", library="generic",
                      mode="reflective")
    assert policy_kwargs(cfg) == {"model": "vla", "base_url": "http://127.0.0.1:9/v1",
                                  "api_key_env": "OPENAI_COMPATIBLE_API_KEY"}
    with pytest.raises(ValueError, match="OpenAI chat wire"):
        policy_kwargs(cfg.model_copy(update={"model": "anthropic:claude-sonnet-4-5"}))
    from agent.integrations.robots_agent import InspectRobotsAgent

    with pytest.raises(ValueError, match="--library generic"):
        InspectRobotsAgent(cfg.model_copy(update={"library": "task"}))
    with pytest.raises(ValueError, match="--mode reflective"):
        InspectRobotsAgent(cfg.model_copy(update={"mode": "non_reflective"}))


@pytest.mark.slow
@pytest.mark.render
def test_jarvis_run_drives_the_llm_agent_policy_through_the_sandbox(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    move = Reply("", tool_calls=(("move_joints", {"targets": {"joint1": 0.25, "gripper": 0.0},
                                                   "note": "I swing the base and close the hand."}),))
    done = Reply("", tool_calls=(("done", {"summary": "moved the arm", "hindsight": "nothing"}),))
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "test-key")
    with FakeOpenAIServer([move, done]) as server:
        result = CliRunner().invoke(app, [
            "run", "--task", TASK, "--agent", "inspect-robots-agent", "--library", "generic", "--mode", "reflective",
            "--reflect-after", "program",
            "--model", f"openai-compatible:{server.base_url}:fake-vla", "--workers", "0", "--rounds", "4",
            "--out", str(tmp_path / "run")])
        assert result.exit_code == 0, result.output[-3000:]
        requests = [r.body for r in server.requests]
    assert len(requests) == 2
    assert {t["function"]["name"] for t in requests[0]["tools"]} >= {"move_joints", "done", "give_up"}
    assert any(m["role"] == "tool" for m in requests[1]["messages"])  # the move's result went back
    (line,) = (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert record["task_id"] == TASK and record["error"] is None
    rounds = record["rounds"]
    # the state read first, then the policy's chunk as a program; its done became DONE, which ended the episode
    assert len(rounds) == 2
    assert "get_joint_state()" in rounds[0]["code"] and "close_gripper()" in rounds[1]["code"]
    final = rounds[1]["skill_calls"][-1]
    assert final["name"] == "get_joint_state" and final["result"]["positions_rad"][0] == pytest.approx(0.25, abs=0.02)
    assert "soft_score" in record["scores"]
    report = (tmp_path / "run" / "report.md").read_text()
    assert "inspect-robots-agent" in report and "## Floors" in report  # beside the null and shuffle floors
