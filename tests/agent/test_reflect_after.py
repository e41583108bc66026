"""Reflection granularity (--reflect-after placement|program) and the placements an episode records.

The llm agent against the fake OpenAI-compatible server in a real MuJoCo scene: at placement
granularity (the reflective default) the oracle's whole program is paused after its first
pick-and-place, the model sees the new view and is told so, and a second program finishes the build.
Every placement keeps its ground truth, which the effective-action analysis scores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.agents.oracle import oracle_program
from agent.config import AgentConfig, Budget, LLMOptions
from agent.episodes.job import EpisodeJob
from agent.episodes.run import run_episode
from jarvis_sim.backends.base import Backend
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.spec import TaskSpec
from tests.fakes.llm_servers import FakeOpenAIServer, ScriptItem
from tests.fakes.sim_runtime import OneBackendRuntime

FAST = LLMOptions(timeout_s=5.0, max_attempts=2, retry_base_delay_s=0.01)


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-test-reflect-after")


def _run(task: TaskSpec, cfg: AgentConfig, out: Path, backend: Backend) -> EpisodeRecord:
    return run_episode(EpisodeJob(task_id=task.id, agent=cfg, budget=Budget()), out, OneBackendRuntime(backend))


def _without_build_line(program: str, k: int) -> str:
    """The oracle program without its k-th build(...) call (the steps already done)."""
    lines = program.splitlines()
    builds = [i for i, line in enumerate(lines) if line.startswith("build(")]
    del lines[builds[k]]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_reflective_default_pauses_after_each_placement(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    program = oracle_program(task)
    script: list[ScriptItem] = [
        f"PLAN: the whole build\n```python\n{program}```",
        f"PLAN: the second brick\n```python\n{_without_build_line(program, 0)}```",
        "DONE",
    ]
    with FakeOpenAIServer(script) as server:
        cfg = AgentConfig(name="llm", model=f"openai-compatible:{server.base_url}:fake-vl", mode="reflective", llm=FAST)
        assert cfg.reflect_after == "placement"
        rec = _run(task, cfg, tmp_path, backend)
    assert rec.status == "done", rec.error
    assert [r.outcome for r in rec.rounds] == ["paused", "paused"]
    first, second = rec.rounds
    # The first program stopped at its first place_at: one pick-and-place, the second build never ran.
    assert [c.name for c in first.skill_calls].count("place_at") == 1
    assert first.skill_calls[-1].name == "place_at" and "paused after the pick-and-place place_at" in first.feedback
    assert "paused right after each pick-and-place" in first.prompt_text
    assert "was paused after its pick-and-place" in " ".join(second.prompt_text.split()) and "outcome: paused" in second.prompt_text
    # Each placement kept the brick it released and the ground truth just after it.
    assert [len(r.placements) for r in rec.rounds] == [1, 1]
    placed = {p.brick_id for r in rec.rounds for p in r.placements}
    assert placed == {a.id for a in task.action_bricks}
    assert rec.scores["completion"] == 100.0
    # Effective-action analysis: both placements effective and scored against their own targets.
    assert rec.scores["placement_actions"] == 2.0 and rec.scores["effective_actions"] == 2.0
    actions = rec.score_details["effective_actions"]
    assert [a["target"] for a in actions] == [a["brick"] for a in actions]
    assert all(a["complete"] and a["score"] > 90.0 for a in actions)
    assert rec.scores["effective_action_score"] == pytest.approx(sum(a["score"] for a in actions) / 2, abs=1e-2)


@pytest.mark.slow
def test_program_granularity_runs_the_whole_program(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    with FakeOpenAIServer([f"```python\n{oracle_program(task)}```", "DONE"]) as server:
        cfg = AgentConfig(name="llm", model=f"openai-compatible:{server.base_url}:fake-vl", mode="reflective",
                          reflect_after="program", llm=FAST)
        rec = _run(task, cfg, tmp_path, backend)
    assert rec.status == "done", rec.error
    assert [r.outcome for r in rec.rounds] == ["ok"]
    assert len(rec.rounds[0].placements) == 2 and "paused" not in rec.rounds[0].prompt_text
    assert rec.scores["effective_actions"] == 2.0


def test_reflect_after_is_refused_outside_the_reflective_mode() -> None:
    with pytest.raises(ValueError, match="reflect_after applies to the reflective mode only"):
        AgentConfig(mode="reflection_rounds", reflect_after="placement")
    assert AgentConfig(mode="reflection_rounds").reflect_after is None
