"""Interactive episodes end to end over REST: an assembly task driven by programs (the caller here posts
the oracle's program, as an external agent would post its own), a question item, and idle expiry."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.agents.oracle import oracle_program
from agent.server.app import create_app
from jarvis_sim.tasks.registry import load_task, suite_task_ids
from jarvis_sim.tasks.spec import TaskSpec
from tests.agent.server.conftest import make_settings


@pytest.mark.slow
@pytest.mark.render
def test_interactive_assembly_programs_then_finish_then_expiry(tmp_path: Path, quiz_plugin: None) -> None:
    task_id = suite_task_ids("jarvis-mini")[0]
    task = load_task(task_id)
    assert isinstance(task, TaskSpec)
    settings = make_settings(tmp_path, workers=0, max_interactive=1, interactive_idle_s=3600)
    with TestClient(create_app(settings, start_workers=False)) as client:
        r = client.post("/v1/episodes", json={"task_id": task_id, "agent": {"name": "external"}})
        assert r.status_code == 201, r.text
        first = r.json()
        eid, view = first["id"], first["interactive"]
        assert not [k for k in view["task"] if "target" in k]  # the public view only
        assert view["task"]["workspace"] == client.get(f"/v1/tasks/{task_id}").json()["workspace"]
        assert view["task"]["workspace"]["lattice_origin_mm"] == [round(c * 1000, 3) for c in task.workspace.lattice_origin]
        assert view["api"] and view["manual_images"] and view["observation"]
        assert client.get(view["observation"]).headers["content-type"] == "image/png"
        sessions = client.app.state.interactive  # type: ignore[attr-defined]
        assert sessions.simulators_in_use() == 1
        # The only simulator is taken: a second interactive assembly episode waits (503), nothing is leaked.
        busy = client.post("/v1/episodes", json={"task_id": task_id, "agent": {"name": "external"}})
        assert busy.status_code == 503 and "in use" in busy.text
        assert [e["id"] for e in client.get("/v1/episodes").json()["data"]] == [eid]  # the refused one is not stored
        opened = client.get(f"/v1/episodes/{eid}").json()["progress"]
        assert opened["phase"] == "thinking" and opened["rounds_done"] == 0 and opened["rounds_total"] == 8
        bad = client.post(f"/v1/episodes/{eid}/programs", json={"code": "import os\nos.system('id')"}).json()
        assert bad["outcome"] != "ok" and bad["feedback"]
        good = client.post(f"/v1/episodes/{eid}/programs", json={"code": oracle_program(task)}).json()
        assert good["outcome"] == "ok", good["feedback"]
        assert good["skill_calls"] and client.get(good["observation"]).status_code == 200
        progress = client.get(f"/v1/episodes/{eid}").json()["progress"]
        assert progress["phase"] == "thinking" and progress["rounds_done"] == 2 and progress["round"] == 3
        assert progress["skill_calls"] == len(bad["skill_calls"]) + len(good["skill_calls"])
        # The evaluator's verdict per step would be feedback built-in agents never get: not shown mid-episode.
        assert progress["steps_total"] == len(task.manual_steps) and "steps_done" not in progress
        done = client.post(f"/v1/episodes/{eid}/finish").json()
        assert done["status"] == "done" and done["scores"]["soft_score"] > 0
        assert sessions.simulators_in_use() == 0
        assert client.get(f"/v1/episodes/{eid}").json()["progress"]["phase"] == "finished"
        assert client.post(f"/v1/episodes/{eid}/finish").status_code == 409  # never rescored
        record = client.get(f"/v1/episodes/{eid}/record").json()
        assert [rd["kind"] for rd in record["rounds"]] == ["external", "external"]
        # The end pictures are the record's artifacts, served like its observations.
        assert [v["kind"] for v in record["final_views"]] == ["camera", "final", "target"]
        for view_ in record["final_views"]:
            picture = client.get(f"/v1/episodes/{eid}/artifacts/{view_['image']}")
            assert picture.status_code == 200 and picture.content[:4] == b"\x89PNG"

        # Idle expiry frees the simulator and fails the episode with the reason.
        again = client.post("/v1/episodes", json={"task_id": task_id, "agent": {"name": "external"}})
        assert again.status_code == 201, again.text
        again_id = again.json()["id"]
        sessions.sessions[again_id].last_used -= 7200
        assert sessions.expire_idle() == [again_id]
        assert sessions.simulators_in_use() == 0
        expired = client.get(f"/v1/episodes/{again_id}").json()
        assert expired["status"] == "failed" and "idle" in expired["error"]
        assert client.post(f"/v1/episodes/{again_id}/programs", json={"code": "x = 1"}).status_code == 409


def test_interactive_question_idle_expiry_and_cancel(tmp_path: Path, quiz_plugin: None) -> None:
    settings = make_settings(tmp_path, workers=0, interactive_idle_s=0.01)
    with TestClient(create_app(settings, start_workers=False)) as client:
        eid = client.post("/v1/episodes", json={"task_id": "quiz/2", "agent": {"name": "external"}}).json()["id"]
        other = client.post("/v1/episodes", json={"task_id": "quiz/3", "agent": {"name": "external"}}).json()["id"]
        assert client.delete(f"/v1/episodes/{other}").json()["status"] == "cancelled"
        assert client.post(f"/v1/episodes/{other}/answer", json={"answer": "Answer: 1"}).status_code == 409
        sessions = client.app.state.interactive  # type: ignore[attr-defined]
        import time

        time.sleep(0.05)
        assert eid in sessions.expire_idle()
        assert client.get(f"/v1/episodes/{eid}").json()["status"] == "failed"
        assert client.post(f"/v1/episodes/{eid}/answer", json={"answer": "Answer: 1"}).status_code == 409
