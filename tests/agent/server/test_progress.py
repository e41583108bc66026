"""The `progress` field of an episode over REST, and interactive creations that are refused store nothing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from tests.agent.server.conftest import make_settings


def test_a_running_question_episode_shows_its_phase_and_rounds(
    tmp_path: Path, quiz_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JARVIS_TEST_SLEEP_S", "3")  # the sleepy agent answers after 3 s: long enough to look
    with TestClient(create_app(make_settings(tmp_path))) as client:
        eid = client.post("/v1/episodes", json={"task_id": "quiz/4", "agent": {"name": "sleepy"}}).json()["id"]
        seen: list[dict[str, Any]] = []
        deadline = time.time() + 60
        while time.time() < deadline:
            body = client.get(f"/v1/episodes/{eid}").json()
            seen.append(body)
            if body["status"] in ("done", "failed"):
                break
            time.sleep(0.1)
    queued = [b["progress"] for b in seen if b["status"] == "queued"]
    running = [b["progress"] for b in seen if b["status"] == "running"]
    assert all(p == {"phase": "queued"} for p in queued)
    assert running, "the episode was never seen running"
    answering = [p for p in running if p["phase"] == "answering"]
    assert answering and answering[-1]["rounds_total"] == 1 and answering[-1]["rounds_done"] == 0
    final = seen[-1]
    assert final["status"] == "done", final
    assert final["progress"]["phase"] == "finished" and final["progress"]["rounds_done"] == 1
    assert "steps_done" not in final["progress"]  # a question item has no manual steps


def test_interactive_question_progress_then_finished(client: TestClient) -> None:
    first = client.post("/v1/episodes", json={"task_id": "quiz/2", "agent": {"name": "external"}}).json()
    open_body = client.get(f"/v1/episodes/{first['id']}").json()
    assert open_body["status"] == "interactive"
    assert open_body["progress"]["phase"] == "answering" and open_body["progress"]["rounds_total"] == 1
    client.post(f"/v1/episodes/{first['id']}/answer", json={"answer": "Answer: 0"})
    done = client.get(f"/v1/episodes/{first['id']}").json()
    assert done["status"] == "done" and done["progress"]["phase"] == "finished"


def _stored(client: TestClient) -> list[dict[str, Any]]:
    return list(client.get("/v1/episodes", params={"limit": 500}).json()["data"])


def test_refused_interactive_creations_store_nothing(tmp_path: Path, quiz_plugin: None) -> None:
    from jarvis_sim.tasks.registry import suite_task_ids

    settings = make_settings(tmp_path, workers=0, max_interactive=0, max_concurrent_per_token=1)
    with TestClient(create_app(settings, start_workers=False)) as client:
        # No interactive simulator on this server: a 503 that names why, before anything is stored.
        lego = suite_task_ids("jarvis-mini")[0]
        busy = client.post("/v1/episodes", json={"task_id": lego, "agent": {"name": "external"}})
        assert busy.status_code == 503 and "in use" in busy.json()["detail"], busy.text
        assert busy.headers.get("retry-after")
        assert _stored(client) == []
        assert not (settings.data_dir / "episodes").exists() or not any((settings.data_dir / "episodes").iterdir())
        # Over the token's quota: a 429, and the refused episode is not listed (as cancelled or otherwise).
        ok = client.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "external"}})
        assert ok.status_code == 201, ok.text
        over = client.post("/v1/episodes", json={"task_id": "quiz/2", "agent": {"name": "external"}})
        assert over.status_code == 429 and "limit is 1" in over.json()["detail"], over.text
        assert [e["id"] for e in _stored(client)] == [ok.json()["id"]]
        assert client.app.state.interactive.sessions.keys() == {ok.json()["id"]}  # type: ignore[attr-defined]


def test_losing_the_quota_race_after_opening_frees_the_session(
    tmp_path: Path, quiz_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.server.queue import EpisodeQueue

    settings = make_settings(tmp_path, workers=0, max_concurrent_per_token=1)
    with TestClient(create_app(settings, start_workers=False)) as client:
        # The pre-check passes (nothing active yet) but the atomic check at insert time refuses, as when a
        # concurrent request of the same token stored its episode in between.
        monkeypatch.setattr(EpisodeQueue, "check_quota", lambda *a, **k: None)
        first = client.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "external"}})
        assert first.status_code == 201
        second = client.post("/v1/episodes", json={"task_id": "quiz/3", "agent": {"name": "external"}})
        assert second.status_code == 429, second.text
        sessions = client.app.state.interactive.sessions  # type: ignore[attr-defined]
        assert list(sessions) == [first.json()["id"]]
        assert len(_stored(client)) == 1
