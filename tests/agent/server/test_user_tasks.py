"""REST: a token registers its own tasks (from its LDraw model), runs them, and no other token can."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.lego.ldraw import read_ldraw
from jarvis_sim.tasks.user_tasks import tasks_from_assembly, user_assembly_name
from tests.agent.server.conftest import make_settings

DATA = Path(__file__).resolve().parents[2] / "data" / "ldraw"


@pytest.fixture(scope="module")
def house_tasks() -> list[dict[str, Any]]:
    a = read_ldraw(DATA / "house.mpd").assembly
    tasks = tasks_from_assembly(Assembly(a.bricks, a.baseplate, user_assembly_name("house")))
    return [json.loads(t.model_dump_json()) for t in tasks]


def _client(tmp_path: Path, **kw: object) -> TestClient:
    return TestClient(create_app(make_settings(tmp_path, api_token="tok-a,tok-b", **kw)))


A = {"Authorization": "Bearer tok-a"}
B = {"Authorization": "Bearer tok-b"}


def test_register_list_delete_and_isolation(tmp_path: Path, house_tasks: list[dict[str, Any]]) -> None:
    with _client(tmp_path, workers=0) as c:
        r = c.post("/v1/user-tasks", json={"tasks": house_tasks[:2]}, headers=A)
        assert r.status_code == 201, r.text
        assert [t["id"] for t in r.json()["data"]] == ["lego/ldraw-house/000", "lego/ldraw-house/001"]
        assert "action_bricks" in r.json()["data"][0] and "target" not in json.dumps(r.json())
        assert c.get("/v1/user-tasks", headers=A).json()["count"] == 2
        assert c.get("/v1/user-tasks", headers=B).json()["count"] == 0
        # Another token can neither take the id nor run or delete the task.
        assert c.post("/v1/user-tasks", json={"tasks": house_tasks[:1]}, headers=B).status_code == 409
        r = c.post("/v1/episodes", json={"task_id": "lego/ldraw-house/000", "agent": {"name": "oracle"}}, headers=B)
        assert r.status_code == 404 and "no registered task" in r.text
        assert c.delete("/v1/user-tasks/lego/ldraw-house/000", headers=B).status_code == 404
        assert c.delete("/v1/user-tasks/lego/ldraw-house/000", headers=A).status_code == 204
        assert c.get("/v1/user-tasks", headers=A).json()["count"] == 1


def test_registration_is_validated(tmp_path: Path, house_tasks: list[dict[str, Any]]) -> None:
    with _client(tmp_path, workers=0) as c:
        pool_like = {**house_tasks[0], "id": "lego/p0-00001-wall/000"}
        r = c.post("/v1/user-tasks", json={"tasks": [pool_like]}, headers=A)
        assert r.status_code == 422 and "lego/ldraw-" in r.text
        bad = json.loads(json.dumps(house_tasks[0]))
        bad["action_bricks"][0]["target"]["color"] = 10**12
        r = c.post("/v1/user-tasks", json={"tasks": [bad]}, headers=A)
        assert r.status_code == 422 and "unknown LDraw colour code" in r.text
        r = c.post("/v1/user-tasks", json={"tasks": [house_tasks[0], house_tasks[0]]}, headers=A)
        assert r.status_code == 422 and "repeated" in r.text
        assert c.post("/v1/user-tasks", json={"tasks": []}, headers=A).status_code == 422
        assert c.post("/v1/user-tasks", json={"tasks": house_tasks[:1]}).status_code == 401


def test_a_registered_task_is_a_task_like_any_other_for_its_token(tmp_path: Path, house_tasks: list[dict[str, Any]]) -> None:
    """GET /v1/tasks/<id> shows its public view with image URLs; another token, and runs naming another token's
    task, get a 404 (a registered id is never resolved without its owner)."""
    with _client(tmp_path, workers=0) as c:
        assert c.post("/v1/user-tasks", json={"tasks": house_tasks[:1]}, headers=A).status_code == 201
        tid = house_tasks[0]["id"]
        view = c.get(f"/v1/tasks/{tid}", headers=A)
        assert view.status_code == 200, view.text
        body = view.json()
        assert body["id"] == tid and "target" not in json.dumps(body)
        assert body["manual_images"][0] == f"/v1/tasks/{tid}/manual/1.png"
        assert c.get(f"/v1/tasks/{tid}", headers=B).status_code == 404
        assert c.get(f"/v1/tasks/{tid}/manual/99.png", headers=A).status_code == 404  # checked before rendering
        assert c.get(f"/v1/tasks/{tid}/manual/1.png", headers=B).status_code == 404
        r = c.post("/v1/runs", json={"task_ids": ["lego/v7-00020-stairs/001", tid], "agent": {"name": "oracle"}}, headers=B)
        assert r.status_code == 404 and "no registered task" in r.text


@pytest.mark.slow
@pytest.mark.render
def test_an_external_agent_sees_the_manual_of_a_registered_task(tmp_path: Path, house_tasks: list[dict[str, Any]]) -> None:
    roof = house_tasks[-2]
    with _client(tmp_path, workers=0) as c:
        assert c.post("/v1/user-tasks", json={"tasks": [roof]}, headers=A).status_code == 201
        r = c.post("/v1/episodes", json={"task_id": roof["id"], "agent": {"name": "external"}}, headers=A)
        assert r.status_code == 201, r.text
        first = r.json()["interactive"]
        urls = [*first["manual_images"], first["observation"]]
        assert len(first["manual_images"]) == len(roof["manual_steps"]) >= 1
        for url in urls:
            img = c.get(url, headers=A)
            assert img.status_code == 200 and img.content[:8] == b"\x89PNG\r\n\x1a\n", (url, img.status_code)
        assert c.get(f"/v1/tasks/{roof['id']}/observation.png", headers=A).status_code == 200
        assert c.post(f"/v1/episodes/{r.json()['id']}/finish", headers=A).json()["status"] == "done"


@pytest.mark.slow
def test_a_run_of_registered_tasks_finishes_with_its_report(tmp_path: Path, house_tasks: list[dict[str, Any]]) -> None:
    roof = house_tasks[-2]
    with _client(tmp_path) as c:
        assert c.post("/v1/user-tasks", json={"tasks": [roof]}, headers=A).status_code == 201
        r = c.post("/v1/runs", json={"task_ids": [roof["id"]], "agent": {"name": "oracle"}}, headers=A)
        assert r.status_code == 202, r.text
        run_id = r.json()["id"]
        import time

        t0 = time.time()
        while (run := c.get(f"/v1/runs/{run_id}", headers=A).json())["status"] != "done" or run["summary"] is None:
            assert time.time() - t0 < 240, run
            time.sleep(0.5)
        assert run["counts"] == {"done": 1}, run
        assert run["summary"]["soft_score"]["mean"] > 0
        assert c.get(f"/v1/runs/{run_id}/report", headers=A).status_code == 200


@pytest.mark.slow
def test_a_registered_task_runs_on_a_worker(tmp_path: Path, house_tasks: list[dict[str, Any]]) -> None:
    with _client(tmp_path) as c:
        roof = house_tasks[-2]  # the roof plate and the medium-lime tile on the walls
        assert c.post("/v1/user-tasks", json={"tasks": [roof]}, headers=A).status_code == 201
        r = c.post("/v1/episodes", json={"task_id": roof["id"], "agent": {"name": "oracle"}}, headers=A)
        assert r.status_code == 202, r.text
        done = _wait(c, r.json()["id"])
        assert done["status"] == "done", done
        assert done["scores"]["completion"] == 100.0


def _wait(c: TestClient, episode_id: str, timeout: float = 240.0) -> dict[str, Any]:
    import time

    t0 = time.time()
    while time.time() - t0 < timeout:
        body: dict[str, Any] = c.get(f"/v1/episodes/{episode_id}", headers=A).json()
        if body["status"] in ("done", "failed", "cancelled"):
            return body
        time.sleep(0.5)
    raise AssertionError(f"episode {episode_id} did not finish in {timeout} s")
