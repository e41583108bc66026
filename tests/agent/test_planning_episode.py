"""Planning episodes (JARVIS Table 4) end to end: a real MuJoCo scene, fake LLM servers over real HTTP.

The model's answers: the exact plan with prose around it (3D setting, OpenAI protocol), malformed JSON
(Anthropic protocol), a plan a few millimetres off (RGB setting) replayed from its recording, and a
whole `jarvis run` over a planning suite against a model that answers each task from its prompt,
some answers slow. The oracle gives the table's ceiling through the server's worker processes.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.agents.oracle import oracle_plan
from agent.config import AgentConfig, Budget, LLMOptions
from agent.episodes.job import EpisodeJob
from agent.episodes.run import run_episode
from jarvis_sim.backends.base import Backend
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.planning_family import planning_task_id
from jarvis_sim.tasks.registry import load_task
from jarvis_sim.tasks.spec import TaskSpec
from tests.fakes.llm_servers import FakeAnthropicServer, FakeOpenAIServer, Reply, Stall
from tests.fakes.sim_runtime import OneBackendRuntime

FAST = LLMOptions(timeout_s=5.0, max_attempts=2, retry_base_delay_s=0.01)


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_COMPATIBLE_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(name, "sk-test-planning")


@pytest.fixture(scope="module")
def lego(task: TaskSpec) -> TaskSpec:
    """The first jarvis-mini task."""
    return task


def _run(task_id: str, cfg: AgentConfig, out: Path, backend: Backend) -> EpisodeRecord:
    return run_episode(EpisodeJob(task_id=task_id, agent=cfg, budget=Budget()), out, OneBackendRuntime(backend))


def _openai(server: FakeOpenAIServer) -> AgentConfig:
    return AgentConfig(name="llm", model=f"openai-compatible:{server.base_url}:fake-vl", llm=FAST)


def test_exact_plan_with_prose_in_the_3d_setting(tmp_path: Path, backend: Backend, lego: TaskSpec) -> None:
    tid = planning_task_id("rgbd_3d", lego.id)
    answer = "The manual adds two white bricks on the ground.\n" + oracle_plan(load_task(tid)) + "\nThat is all."
    with FakeOpenAIServer([answer]) as server:
        rec = _run(tid, _openai(server), tmp_path, backend)
        body = server.requests[0].body
    assert rec.status == "done", rec.error
    assert rec.family == "planning" and rec.final_state is None and len(rec.rounds) == 1
    assert rec.scores["plan_valid"] == 100.0 and rec.scores["plan_coverage"] == 100.0
    assert rec.scores["plan_matched"] == 2.0 and rec.scores["plan_position_error_mm"] == pytest.approx(0.0, abs=1e-3)
    assert rec.score_details["observation"] == "rgbd_3d" and rec.rounds[0].outcome == "ok"
    shown = rec.rounds[0]
    assert "Bricks perceived in this view" in shown.prompt_text and "World from camera" in shown.prompt_text
    assert any(n.startswith("manual_") for n in shown.prompt_images)
    assert any(n.endswith("_depth.png") for n in shown.prompt_images)
    assert all((tmp_path / n).is_file() for n in shown.prompt_images)
    assert shown.prompt_version.startswith("planning_system@")
    images = [p for p in body["messages"][-1]["content"] if p["type"] == "image_url"]
    assert len(images) == len(shown.prompt_images)
    assert json.loads((tmp_path / "llm_responses.jsonl").read_text().splitlines()[0])["text"] == answer


def test_malformed_json_is_a_counted_parse_failure(tmp_path: Path, backend: Backend, lego: TaskSpec) -> None:
    tid = planning_task_id("rgbd", lego.id)
    broken = 'Plan:\n```json\n{"plan": [{"part": "3008", "color": "white", "x_mm": 500,\n```'
    with FakeAnthropicServer([broken]) as server:
        cfg = AgentConfig(name="llm", model="anthropic:claude-test", llm=FAST.model_copy(update={"base_url": server.base_url}))
        rec = _run(tid, cfg, tmp_path, backend)
    assert rec.status == "done", rec.error
    assert rec.scores["plan_valid"] == 0.0 and rec.scores["plan_coverage"] == 0.0 == rec.scores["soft_score"]
    assert rec.scores["plan_missing"] == 2.0 and "plan_position_error_mm" not in rec.scores
    assert rec.rounds[0].outcome == "error" and "no JSON plan found" in rec.rounds[0].feedback
    assert "Bricks perceived" not in rec.rounds[0].prompt_text  # RGB-D: images only


def test_plan_off_by_millimetres_in_rgb_and_its_replay(tmp_path: Path, backend: Backend, lego: TaskSpec) -> None:
    tid = planning_task_id("rgb", lego.id)
    text = oracle_plan(load_task(tid))
    plan = json.loads(text.removeprefix("```json\n").removesuffix("\n```"))
    plan["plan"][0]["x_mm"] += 6.0
    answer = "My plan, step by step: " + json.dumps(plan)
    with FakeOpenAIServer([answer]) as server:
        rec = _run(tid, _openai(server), tmp_path / "live", backend)
    assert rec.scores["plan_matched"] == 2.0 and rec.scores["plan_position_error_mm"] == pytest.approx(3.0, abs=1e-3)
    assert not any(n.endswith("_depth.png") for n in rec.rounds[0].prompt_images)
    replay = AgentConfig(name="replay", replay_file=str(tmp_path / "live" / "llm_responses.jsonl"))
    again = _run(tid, replay, tmp_path / "replay", backend)
    assert again.scores == rec.scores and again.answer == answer
    # Offline re-scoring takes the same path (evaluator.episode.score_episode).
    from evaluator.episode import score_episode

    assert score_episode(rec, load_task(tid)).scores == rec.scores


def _answer_from_prompt(body: dict[str, Any]) -> Reply | Stall:
    """A 'model' that reads the task id from its prompt and answers with that task's exact plan."""
    text = " ".join(p.get("text", "") for m in body["messages"] if isinstance(m["content"], list) for p in m["content"])
    tid = re.search(r"# Planning task (\S+)", text)
    assert tid is not None
    reply = Reply("Plan below.\n" + oracle_plan(load_task(tid.group(1))))  # type: ignore[arg-type]
    return Stall(0.4, then=reply) if tid.group(1).endswith("0") else reply  # some answers are slow


@pytest.mark.slow
def test_jarvis_run_over_a_planning_suite_writes_the_table(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agent.cli.main import app

    with FakeOpenAIServer(default=_answer_from_prompt) as server:
        result = CliRunner().invoke(app, [
            "run", "--suite", "jarvis-mini-planning-rgb", "--agent", "llm", "--workers", "0",
            "--model", f"openai-compatible:{server.base_url}:fake-vl", "--out", str(tmp_path / "run"),
        ])
        n_requests = len(server.requests)
    assert result.exit_code == 0, result.output
    assert n_requests == 6
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## Manual planning and spatial grounding (JARVIS Table 4)" in report
    row = next(line for line in report.splitlines() if line.startswith("| RGB |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:3] == ["6", "0"] and cells[4:7] == ["0", "0", "100.0"]


@pytest.mark.slow
def test_oracle_plans_through_the_server(tmp_path: Path, lego: TaskSpec) -> None:
    from agent.server.app import create_app
    from tests.agent.server.conftest import make_settings

    tid = planning_task_id("rgb", lego.id)
    with TestClient(create_app(make_settings(tmp_path))) as client:
        assert "jarvis-v1-planning" in {s["name"] for s in client.get("/v1/suites").json()["data"]}
        refused = client.post("/v1/episodes", json={"task_id": tid, "agent": {"name": "scripted"}})
        assert refused.status_code == 422 and "planning tasks" in refused.text
        external = client.post("/v1/episodes", json={"task_id": tid, "agent": {"name": "external"}})
        assert external.status_code == 422
        r = client.post("/v1/episodes", json={"task_id": tid, "agent": {"name": "oracle"}})
        assert r.status_code == 202, r.text
        deadline, body = time.time() + 120, {}
        while time.time() < deadline:
            body = client.get(f"/v1/episodes/{r.json()['id']}").json()
            if body["status"] in ("done", "failed"):
                break
            time.sleep(0.1)
    assert body["status"] == "done", body
    assert body["scores"]["plan_coverage"] == 100.0
