"""The server's ceilings on budgets and model-call options: above them a request is a 422 naming the limit,
and an interactive agent gets the rounds, wall clock and images its budget names, no more."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from jarvis_sim.tasks.registry import suite_task_ids
from tests.agent.server.conftest import make_settings


@pytest.fixture
def api(tmp_path: Path, quiz_plugin: None) -> Any:
    """An API without workers and with the default ceilings."""
    with TestClient(create_app(make_settings(tmp_path, workers=0), start_workers=False)) as c:
        yield c


@pytest.mark.parametrize(
    "budget, agent, field",
    [
        ({"skill_calls": 100_000}, {}, "budget.skill_calls"),
        ({"rounds": 100}, {}, "budget.rounds"),
        ({"wall_s": 86_400}, {}, "budget.wall_s"),
        ({"program_wall_s": 3_600}, {}, "budget.program_wall_s"),
        ({"sim_s": 80_000}, {}, "budget.sim_s"),
        ({"images": 50_000}, {}, "budget.images"),
        ({}, {"llm": {"timeout_s": 86_400}}, "agent.llm.timeout_s"),
        ({}, {"llm": {"max_attempts": 20}}, "agent.llm.max_attempts"),
    ],
)
def test_requests_above_the_server_ceilings_are_422_naming_the_limit(api: TestClient, budget: dict[str, Any],
                                                                     agent: dict[str, Any], field: str) -> None:
    for path, body in (("/v1/episodes", {"task_id": "quiz/1"}), ("/v1/runs", {"task_ids": ["quiz/1"]})):
        r = api.post(path, json={**body, "agent": {"name": "sleepy", **agent}, "budget": budget})
        assert r.status_code == 422, r.text
        detail = r.json()["detail"]
        assert detail["field"] == field and "above this server's limit" in detail["error"]
        assert "JARVIS_MAX_" in detail["error"]
    assert api.get("/v1/episodes").json()["count"] == 0  # nothing was queued


@pytest.mark.parametrize("raw", ['{"sim_s": Infinity}', '{"wall_s": NaN}', '{"sim_s": 1e309}'])
def test_non_finite_budgets_are_refused(api: TestClient, raw: str) -> None:
    body = '{"task_id": "quiz/1", "agent": {"name": "sleepy"}, "budget": ' + raw + "}"
    r = api.post("/v1/episodes", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "finite" in r.text, r.text


def test_ceilings_come_from_the_environment(tmp_path: Path, quiz_plugin: None) -> None:
    from agent.server.settings import ServerSettings

    settings = ServerSettings.from_env({"JARVIS_MAX_SKILL_CALLS": "50", "JARVIS_DATA_DIR": str(tmp_path)}, workers=0)
    with TestClient(create_app(settings, start_workers=False)) as c:
        ok = c.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "sleepy"}, "budget": {"skill_calls": 50}})
        assert ok.status_code == 202
        r = c.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "sleepy"}, "budget": {"skill_calls": 51}})
        assert r.status_code == 422 and json.loads(r.text)["detail"]["limit"] == 50


@pytest.mark.slow
@pytest.mark.render
def test_interactive_rounds_wall_clock_and_images_are_enforced(tmp_path: Path, quiz_plugin: None) -> None:
    task_id = suite_task_ids("jarvis-mini")[0]
    settings = make_settings(tmp_path, workers=0, max_interactive=1, interactive_idle_s=3600)
    with TestClient(create_app(settings, start_workers=False)) as client:
        r = client.post("/v1/episodes", json={"task_id": task_id, "agent": {"name": "external", "library": "generic"},
                                              "budget": {"rounds": 2, "images": 2}})
        assert r.status_code == 201, r.text
        eid = r.json()["id"]
        first = client.post(f"/v1/episodes/{eid}/programs", json={"code": "capture_images()\ncapture_images()"}).json()
        assert first["outcome"] != "ok" and "image budget (2 captured images)" in first["feedback"]
        assert client.post(f"/v1/episodes/{eid}/programs", json={"code": "x = 1"}).json()["outcome"] == "ok"
        third = client.post(f"/v1/episodes/{eid}/programs", json={"code": "x = 2"})
        assert third.status_code == 409 and third.json()["detail"]["field"] == "budget.rounds"
        assert client.post(f"/v1/episodes/{eid}/finish").json()["status"] == "done"

        r = client.post("/v1/episodes", json={"task_id": task_id, "agent": {"name": "external"},
                                              "budget": {"wall_s": 0.001}})
        assert r.status_code == 201, r.text
        late_id = r.json()["id"]
        late = client.post(f"/v1/episodes/{late_id}/programs", json={"code": "x = 1"})
        # Wall clock is a safety net: tripped, the episode closes as an infrastructure failure, unscored.
        assert late.status_code == 503 and late.json()["detail"]["infrastructure_failure"] is True, late.text
        closed = client.get(f"/v1/episodes/{late_id}").json()
        assert closed["status"] == "failed" and not closed.get("scores"), closed
        record = client.get(f"/v1/episodes/{late_id}/record").json()
        assert record["infrastructure_failure"] is True and record["scores"] == {}
