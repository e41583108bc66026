"""A model endpoint that drips its answer cannot hold a REST worker past the episode's wall budget."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from tests.agent.server.conftest import make_settings
from tests.agent.server.test_faults import wait_until
from tests.fakes.llm_servers import Drip, FakeOpenAIServer


@pytest.mark.slow
def test_the_wall_budget_ends_a_dripping_model_call_and_the_queue_moves_on(tmp_path: Path, quiz_plugin: None) -> None:
    with FakeOpenAIServer(default=Drip(0.5)) as lab:
        settings = make_settings(tmp_path, workers=1, llm_endpoints={"lab": lab.base_url}, lease_s=10.0)
        with TestClient(create_app(settings)) as c:
            # The call's own timeout is the server's largest (600 s): only the episode's 40 s can end it.
            slow = c.post("/v1/episodes", json={
                "task_id": "quiz/1", "budget": {"wall_s": 40},
                "agent": {"name": "llm", "model": "openai-compatible:@lab:drip", "llm": {"timeout_s": 600}},
            })
            assert slow.status_code == 202, slow.text
            after = c.post("/v1/episodes", json={"task_id": "quiz/2", "agent": {"name": "scripted"}})
            assert after.status_code == 202, after.text
            url = f"/v1/episodes/{slow.json()['id']}"
            wait_until(lambda: c.get(url).json()["status"] == "running", timeout=60, what="the dripping episode to start")
            t0 = time.monotonic()
            done = wait_until(lambda: (b := c.get(url).json())["status"] in ("done", "failed") and b, timeout=90,
                              what="the dripping episode to end")
            took = time.monotonic() - t0
            assert done["status"] == "failed" and "wall-clock budget" in (done["error"] or ""), done
            assert took < 60.0, took
            nxt = wait_until(lambda: (b := c.get(f"/v1/episodes/{after.json()['id']}").json())["status"] == "done"
                             and b, timeout=30, what="the next queued episode")
            assert nxt["scores"]["soft_score"] == 100.0
