"""A full disk on the server: 507 with the reason, never a bare 500, and finished work is kept."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, text

from agent.server.app import create_app
from tests.agent.server.conftest import make_settings


def _no_space(*_a: Any, **_k: Any) -> Any:
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture
def api(tmp_path: Path, quiz_plugin: None) -> Any:
    """An API without workers; instant agents answer inline."""
    with TestClient(create_app(make_settings(tmp_path, workers=0, inline_agents=("scripted",)),
                               start_workers=False)) as c:
        yield c


def test_an_interactive_score_survives_a_full_disk(api: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from jarvis_sim.tasks.registry import family_of_task, load_task

    opened = api.post("/v1/episodes", json={"task_id": "quiz/4", "agent": {"name": "external"}})
    assert opened.status_code == 201, opened.text
    eid = opened.json()["id"]
    family: Any = family_of_task("quiz/4")
    right = family.scripted_answer(load_task("quiz/4"))
    with monkeypatch.context() as m:
        m.setattr("agent.server.interactive.store_record", _no_space)
        full = api.post(f"/v1/episodes/{eid}/answer", json={"answer": right})
        assert full.status_code == 507 and "No space left on device" in full.text and "kept" in full.text
        assert api.get(f"/v1/episodes/{eid}").json()["status"] == "interactive"  # not failed, not lost
    # Room again: the stored result is the one scored before, whatever the second request says.
    again = api.post(f"/v1/episodes/{eid}/answer", json={"answer": "Answer: something else"})
    assert again.status_code == 200, again.text
    assert again.json()["scores"]["soft_score"] == 100.0
    done = api.get(f"/v1/episodes/{eid}").json()
    assert done["status"] == "done" and api.get(done["links"]["record"]).json()["answer"] == right


def test_runs_and_inline_episodes_on_a_full_disk_are_507_and_store_nothing(api: TestClient,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        m.setattr("agent.server.routes.runs.RunDirectory.open", _no_space)
        r = api.post("/v1/runs", json={"task_ids": ["quiz/1", "quiz/2"], "agent": {"name": "scripted"}})
        assert r.status_code == 507 and "disk is full" in r.text, r.text
    with monkeypatch.context() as m:
        m.setattr("agent.server.workers.os.replace", _no_space)
        r = api.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "scripted"}})
        assert r.status_code == 507, r.text
    assert api.get("/v1/episodes").json()["count"] == 0
    assert api.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "scripted"}}).status_code == 201


def test_a_full_database_is_507_and_earlier_rows_are_intact(api: TestClient) -> None:
    engine = api.app.state.queue.engine  # type: ignore[attr-defined]
    first = api.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "sleepy"}})
    assert first.status_code == 202
    with engine.connect() as conn:
        pages = int(conn.execute(text("PRAGMA page_count")).scalar() or 0)

    @event.listens_for(engine, "connect")
    def _cap(dbapi_conn: Any, _record: Any) -> None:  # SQLite's own "database or disk is full"
        dbapi_conn.execute(f"PRAGMA max_page_count={pages}")

    engine.dispose()
    codes = {api.post("/v1/episodes", json={"task_id": "quiz/2", "agent": {"name": "sleepy"},
                                            "budget": {"rounds": 3}}).status_code for _ in range(40)}
    assert 507 in codes and 500 not in codes, codes
    event.remove(engine, "connect", _cap)
    engine.dispose()
    assert api.get(f"/v1/episodes/{first.json()['id']}").json()["status"] == "queued"
