"""The llm and replay agents end to end against the fake OpenAI-compatible and Anthropic servers.

Scripted answers: a correct program (the oracle's, in a ```python block), broken programs (syntax
error, policy violation, skill error) that reflection repairs, garbage without code, a 429 then
success, a timeout. Each must give the right record and score, and nothing may crash. Only a few
tests run a whole build; the rest use programs that fail fast or only observe.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import tests.fakes.quiz_family  # noqa: F401  (registers the 'quiz' question family)
from agent.agents.oracle import oracle_program
from agent.config import AgentConfig, Budget, LLMOptions
from agent.episodes.job import EpisodeJob
from agent.episodes.run import run_episode
from jarvis_sim.backends.base import Backend
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.spec import TaskSpec
from tests.fakes.llm_servers import (
    Fail,
    FakeAnthropicServer,
    FakeOpenAIServer,
    ScriptItem,
    Stall,
    latency_from_env,
)
from tests.fakes.sim_runtime import OneBackendRuntime

# $JARVIS_FAKE_LLM_LATENCY runs every fake model of this module as slowly as a real one answers
# (tests that set their own latency keep it); the client's timeout grows to match.
PACE = latency_from_env()
FAST = LLMOptions(
    timeout_s=5.0 + sum(PACE.values()), max_attempts=3, retry_base_delay_s=0.01
)


def openai_fake(script: list[Any], **kw: Any) -> FakeOpenAIServer:
    """The fake OpenAI-compatible server, paced by the environment unless told otherwise."""
    return FakeOpenAIServer(script, **{**PACE, **kw})


def anthropic_fake(script: list[Any], **kw: Any) -> FakeAnthropicServer:
    """The fake Anthropic server, paced by the environment unless told otherwise."""
    return FakeAnthropicServer(script, **{**PACE, **kw})
CHEAP_PROGRAM = "PLAN: look first\n```python\nbricks = observe()\nprint('seen', len(bricks))\n```"


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake keys: the providers refuse to run without one."""
    for name in ("OPENAI_API_KEY", "OPENAI_COMPATIBLE_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(name, "sk-test-llm-agent")


def openai_model(server: FakeOpenAIServer) -> str:
    """A model string pointing at the fake OpenAI-compatible server."""
    return f"openai-compatible:{server.base_url}:fake-vl"


def run(task_id: str, agent: AgentConfig, out: Path, backend: Backend | None = None, **budget: Any) -> EpisodeRecord:
    """One episode through the same path as `jarvis episode` (run_episode)."""
    job = EpisodeJob(task_id=task_id, agent=agent, budget=Budget(**budget))
    return run_episode(job, out, OneBackendRuntime(backend) if backend is not None else None)


def wrap(code: str) -> str:
    """A model-style answer around a program."""
    return f"PLAN: build the structure of the manual\n```python\n{code}```\nThis should work."


# --- assembly ---------------------------------------------------------------------------------------

def test_reflection_repairs_broken_programs(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """Reflective: syntax error, policy violation, skill error, garbage, then the correct program, then DONE."""
    program = oracle_program(task)
    script: list[ScriptItem] = [
        wrap("for i in range(3)\n    pass\n"),
        wrap("import os\nos.system('true')\n"),
        wrap("pick('p99')\n"),
        "I have thought about it and the robot is ready.",
        wrap(program),
        "The structure matches the manual.\nDONE",
    ]
    with openai_fake(script) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="reflective", llm=FAST)
        rec = run(task.id, cfg, tmp_path, backend)
        requests = server.requests
    assert rec.status == "done", rec.error
    assert [r.outcome for r in rec.rounds[:4]] == ["error", "policy_violation", "skill_error", "no_code"]
    assert [r.kind for r in rec.rounds] == ["attempt"] + ["reflective_step"] * 4
    assert "SyntaxError" in rec.rounds[0].feedback and "import" in rec.rounds[1].feedback
    assert "unknown_brick" in rec.rounds[2].feedback
    assert rec.rounds[4].code == program and rec.rounds[4].skill_calls
    assert len(requests) == 6  # the DONE answer is asked for but runs nothing
    # The repair round saw the previous failure and the memory in its prompt.
    fifth = rec.rounds[4].prompt_text
    assert "## Your previous program" in fifth and "pick('p99')" in fifth and "no runnable program" in fifth
    assert all(r.prompt_version.startswith("assembly_system@") for r in rec.rounds)
    # Images of every prompt are artifacts of the episode directory.
    for r in rec.rounds:
        assert r.prompt_images and all((tmp_path / name).is_file() for name in r.prompt_images)
    assert rec.tokens.requests == 6 and rec.tokens.input == 6 * 11 and rec.tokens.output == 6 * 7
    assert rec.scores["soft_score"] > 0 and rec.scores["completion"] > 0
    # The last round's state is the final one (the episode adds its effective-action numbers on top).
    assert {k: pytest.approx(v) for k, v in rec.rounds[4].scores.items()} == {k: rec.scores[k] for k in rec.rounds[4].scores}
    assert rec.rounds[4].outcome == "paused" and rec.scores["effective_actions"] == 1.0  # the reflective default
    # The recording replays: the same answers, in order.
    lines = (tmp_path / "llm_responses.jsonl").read_text().splitlines()
    assert [json.loads(x)["text"] for x in lines] == script


def test_jittery_model_answers_keep_every_round(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """Answers arriving after uneven delays: every program still runs in its round, none is lost."""
    script: list[ScriptItem] = [wrap("pick('p99')\n"), CHEAP_PROGRAM, CHEAP_PROGRAM, "DONE"]
    with openai_fake(script, latency_s=0.05, jitter_s=1.5, seed=3) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="reflective", llm=FAST)
        rec = run(task.id, cfg, tmp_path, backend)
        delays = server.delays
    assert rec.status == "done", rec.error
    assert [r.outcome for r in rec.rounds] == ["skill_error", "ok", "ok"]
    assert len(delays) == 4 and max(delays) - min(delays) > 0.3  # the answers really were uneven


@pytest.mark.slow
def test_slow_model_rounds_run_their_programs(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """A model answering after 16-22 s, as real multimodal models do: longer than the sandbox child's
    15 s start-up deadline, so a deadline counted from the pre-started child's spawn loses round 0."""
    script: list[ScriptItem] = [CHEAP_PROGRAM, CHEAP_PROGRAM]
    slow = LLMOptions(timeout_s=60.0, max_attempts=1)
    with openai_fake(script, latency_s=16.0, jitter_s=6.0, seed=1) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="reflective", llm=slow)
        rec = run(task.id, cfg, tmp_path, backend, rounds=2)
        delays = server.delays
    assert min(delays) >= 16.0
    assert rec.status == "done", rec.error
    assert [r.outcome for r in rec.rounds] == ["ok", "ok"], [r.feedback for r in rec.rounds]
    assert all("seen 2" in r.stdout for r in rec.rounds)


def test_wall_clocks_are_safety_nets_scaled_to_the_simulated_budget() -> None:
    """No wall clock decides a score by default: the episode has none, a program's grows with the simulated budget."""
    from agent.config import PROGRAM_NET_BASE_S, PROGRAM_NET_PER_SIM_S

    assert Budget().wall_s is None and Budget().program_wall_s is None
    # The heavy imported task: 105 s simulated, which the old 120 s program limit cut at 30.5 s.
    assert Budget().program_net_s(105.0) == PROGRAM_NET_BASE_S + PROGRAM_NET_PER_SIM_S * 105.0 > 105.0 * 3.9 * 3
    assert Budget(program_wall_s=7.0).program_net_s(105.0) == 7.0


@pytest.mark.timeout(120)
def test_skill_time_counts_toward_the_program_safety_net(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """program_wall_s 3 s and a program that only calls skills: the net trips near 3 s (time inside observe()
    counts), and the episode is an infrastructure failure: failed, unscored, left out of the run's means."""
    from evaluator.summary import episode_scores

    with openai_fake([wrap("while True:\n    observe()\n")]) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="non_reflective", llm=FAST)
        rec = run(task.id, cfg, tmp_path, backend, program_wall_s=3.0, skill_calls=100_000)
    (round_,) = rec.rounds
    assert round_.outcome == "timeout", round_.feedback
    assert (rec.status, rec.infrastructure_failure, rec.scores) == ("failed", True, {})
    assert rec.error is not None and "safety net (3 s)" in rec.error and "infrastructure failure" in rec.error
    assert episode_scores(rec) is None
    longest = max(c.wall_s for c in round_.skill_calls)
    assert len(round_.skill_calls) >= 1
    assert sum(c.wall_s for c in round_.skill_calls) < 3.0 + longest + 0.5


@pytest.mark.timeout(120)
def test_a_busy_loop_is_the_programs_cpu_limit_not_the_wall_clock(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """A program that only computes ends at its CPU limit (RLIMIT_CPU): the agent's fault, scored like any other."""
    from agent.sandbox import Sandbox, SandboxLimits

    with openai_fake([wrap("while True:\n    pass\n")]) as server, Sandbox(SandboxLimits(wall_s=120, cpu_s=2)) as sb:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="non_reflective", llm=FAST)
        runtime = OneBackendRuntime(backend)
        runtime.sandbox = sb  # type: ignore[attr-defined]  (a worker runtime may lend its sandbox)
        rec = run_episode(EpisodeJob(task_id=task.id, agent=cfg, budget=Budget()), tmp_path, runtime)
    (round_,) = rec.rounds
    assert round_.outcome == "timeout" and "more than 2 s of CPU" in round_.feedback, round_.feedback
    assert rec.status == "done" and not rec.infrastructure_failure and "soft_score" in rec.scores


@pytest.mark.timeout(120)
def test_a_program_never_outlives_the_episode_safety_net(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """The episode's net is 8 s in all; its program's own (120 s) does not let it run past them."""
    with openai_fake([wrap("while True:\n    observe()\n")]) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="non_reflective", llm=FAST)
        rec = run(task.id, cfg, tmp_path, backend, wall_s=8.0 + sum(PACE.values()), program_wall_s=120.0,
                  skill_calls=100_000)
    (round_,) = rec.rounds
    assert round_.outcome == "timeout", round_.feedback
    assert rec.infrastructure_failure and not rec.scores
    assert rec.timings.wall_s < 8.0 + sum(PACE.values()) + 6.0  # the last render comes after


@pytest.mark.slow
def test_correct_program_scores_like_the_oracle(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """Non-reflective through the Anthropic protocol: the oracle's program scores what the oracle scores."""
    oracle = run(task.id, AgentConfig(name="oracle"), tmp_path / "oracle", backend)
    with anthropic_fake([wrap(oracle_program(task))]) as server:
        cfg = AgentConfig(name="llm", model="anthropic:claude-test", llm=FAST.model_copy(update={"base_url": server.base_url}))
        rec = run(task.id, cfg, tmp_path / "llm", backend)
        body = server.requests[0].body
    assert rec.status == "done", rec.error
    assert len(rec.rounds) == 1 and rec.rounds[0].kind == "attempt"
    assert rec.scores == pytest.approx(oracle.scores)
    assert rec.final_state is not None and oracle.final_state is not None
    # The request carried the manual page and the observation as images, and the API in the system prompt.
    images = [b for b in body["messages"][0]["content"] if b["type"] == "image"]
    assert len(images) == len(rec.rounds[0].prompt_images) >= 2
    system = body["system"] if isinstance(body["system"], str) else body["system"][0]["text"]
    assert "place_on(support: str" in system


def test_garbage_answer_in_one_shot_mode_runs_nothing(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    with openai_fake(["Sure! First the robot should look around, then build."]) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="non_reflective", llm=FAST)
        rec = run(task.id, cfg, tmp_path, backend)
    assert rec.status == "done"
    assert len(rec.rounds) == 1 and rec.rounds[0].outcome == "no_code" and rec.rounds[0].code is None
    assert "no ```python block" in rec.rounds[0].feedback
    assert rec.scores["completion"] == 0.0
    assert rec.tokens.requests == 1


def test_timeout_fails_the_episode_cleanly(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    with openai_fake([Stall(3.0, then=None)]) as server:
        opts = LLMOptions(timeout_s=0.3, max_attempts=1)
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="reflective", llm=opts)
        rec = run(task.id, cfg, tmp_path, backend)
    assert rec.status == "failed"
    assert rec.error is not None and "ProviderTimeoutError" in rec.error
    assert rec.rounds == [] and rec.final_state is not None and rec.scores["completion"] == 0.0


def test_rate_limit_then_success_and_round_budget(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """A 429 is retried inside one request; the closed loop stops at the round budget."""
    script: list[Any] = [Fail(429, "slow down", {"retry-after": "0"}), CHEAP_PROGRAM, CHEAP_PROGRAM, CHEAP_PROGRAM]
    with openai_fake(script) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="reflective", llm=FAST)
        rec = run(task.id, cfg, tmp_path, backend, rounds=2)
        n_http = len(server.requests)
    assert rec.status == "done", rec.error
    assert [r.outcome for r in rec.rounds] == ["ok", "ok"]
    assert "seen 2" in rec.rounds[0].stdout
    assert n_http == 3 and rec.tokens.requests == 2


def test_reflection_rounds_with_experience(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """R1..Rk run after an unsuccessful attempt, in the same scene, with the lessons file in every prompt."""
    lessons = tmp_path / "lessons.md"
    lessons.write_text("---\nmodel: test\n---\n- Always observe() before pick().\n")
    script: list[ScriptItem] = [wrap("pick('p99')\n"), CHEAP_PROGRAM, "Nothing more can be done.\nDONE"]
    with anthropic_fake(script) as server:
        cfg = AgentConfig(
            name="llm", model="anthropic:claude-test", mode="reflection_rounds", reflection_rounds=3,
            experience_file=str(lessons), observation="rgbd_3d", llm=FAST.model_copy(update={"base_url": server.base_url}),
        )
        rec = run(task.id, cfg, tmp_path / "ep", backend)
        n_requests = len(server.requests)
    assert rec.status == "done", rec.error
    assert [r.kind for r in rec.rounds] == ["attempt", "reflection"]
    assert [r.outcome for r in rec.rounds] == ["skill_error", "ok"]
    assert n_requests == 3  # R2 was asked and answered DONE
    for r in rec.rounds:
        assert "Always observe() before pick()." in r.prompt_text
        assert "Bricks perceived in this view" in r.prompt_text and "| white |" in r.prompt_text
        assert any(name.endswith("_depth.png") for name in r.prompt_images)
    assert "R1 of 3" in rec.rounds[1].prompt_text and "not reset" in rec.rounds[1].prompt_text


def test_replay_agent_reproduces_a_recording(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    with openai_fake([CHEAP_PROGRAM, "DONE"]) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="reflective", llm=FAST)
        first = run(task.id, cfg, tmp_path / "live", backend)
    recording = tmp_path / "live" / "llm_responses.jsonl"
    replayed = run(task.id, AgentConfig(name="replay", mode="reflective", replay_file=str(recording)), tmp_path / "replay", backend)
    assert replayed.status == "done", replayed.error
    assert [r.code for r in replayed.rounds] == [r.code for r in first.rounds]
    assert [r.stdout for r in replayed.rounds] == [r.stdout for r in first.rounds]
    assert replayed.tokens.cost_usd == 0.0


def test_agent_config_errors_are_clear(tmp_path: Path) -> None:
    from agent.agents import make_agent

    with pytest.raises(ValueError, match="needs a model string"):
        make_agent(AgentConfig(name="llm"))
    with pytest.raises(ValueError, match="does not exist"):
        make_agent(AgentConfig(name="replay", replay_file=str(tmp_path / "none.jsonl")))
    with pytest.raises(ValueError, match="unknown LLM provider"):
        make_agent(AgentConfig(name="llm", model="nosuch:model"))


# --- question items ---------------------------------------------------------------------------------

def _sum(body: dict[str, Any]) -> str:
    """Answer the quiz question in the request (the fake reads the prompt like a model would)."""
    import re

    text = json.dumps(body["messages"])
    a, b = map(int, re.findall(r"What is (\d+) \+ (\d+)", text)[0])
    return f"Let me add. Answer: {a + b}"


def test_question_items_through_the_llm_agent(tmp_path: Path) -> None:
    with openai_fake([Fail(429, "busy", {"retry-after": "0"}), _sum, "Answer: -1"]) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), llm=FAST)
        right = run("quiz/3", cfg, tmp_path / "a")
        wrong = run("quiz/4", cfg, tmp_path / "b")
        first_body = server.requests[0].body
    assert right.status == "done" and right.scores["correct"] == 100.0
    assert right.rounds[0].response.endswith(right.answer or "")
    assert right.rounds[0].prompt_text.startswith("[system]\nYou are taking a visual reasoning test")
    assert right.tokens.requests == 1 and right.tokens.input == 11
    assert wrong.scores["correct"] == 0.0 and wrong.scores["valid"] == 100.0
    assert first_body["messages"][0]["role"] == "system"


def test_question_timeout_becomes_a_failed_record(tmp_path: Path) -> None:
    with openai_fake([Stall(3.0)]) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), llm=LLMOptions(timeout_s=0.3, max_attempts=1))
        rec = run("quiz/1", cfg, tmp_path)
    assert rec.status == "failed" and rec.error is not None and "timed out" in rec.error


def test_replay_agent_answers_questions_from_jsonl(tmp_path: Path) -> None:
    recording = tmp_path / "answers.jsonl"
    recording.write_text(json.dumps({"text": "Answer: 5"}) + "\n")
    rec = run("quiz/0", AgentConfig(name="replay", replay_file=str(recording)), tmp_path / "ep")
    assert rec.status == "done" and rec.answer == "Answer: 5" and rec.tokens.cost_usd == 0.0


def test_generic_library_gets_calibration_and_captured_images(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    """The generic API's capture_images() output is shown in the next prompt; the camera is calibrated."""
    program = "```python\nnames = capture_images()\nprint(names['rgb'])\nprint(round(get_ee_pose().z_mm))\n```"
    with openai_fake([program, "DONE"]) as server:
        cfg = AgentConfig(name="llm", model=openai_model(server), mode="reflective", library="generic", llm=FAST)
        rec = run(task.id, cfg, tmp_path, backend)
        second = server.requests[1].body["messages"]
    assert rec.status == "done", rec.error
    assert [r.outcome for r in rec.rounds] == ["ok"]
    assert "World from camera" in rec.rounds[0].prompt_text and "move_ee(" in rec.rounds[0].prompt_text
    user = second[-1]["content"]
    texts = " ".join(p["text"] for p in user if p["type"] == "text")
    assert "Your capture_images()" in texts and "depth (brighter is nearer)" in texts
    assert sum(p["type"] == "image_url" for p in user) == 4  # manual page, current view, captured RGB and depth
