"""Fair service across tokens over REST: one token's 20,000 queued episodes cannot starve another token's
one, runs count toward the token's limit, and DELETE /v1/runs/{id} cancels a run (queued and running)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from tests.agent.server.conftest import make_settings
from tests.agent.server.test_faults import wait_until

BIG = {"Authorization": "Bearer token-big-xxxxxxxxxxxx"}
SMALL = {"Authorization": "Bearer token-small-yyyyyyyyyy"}


@pytest.mark.slow
def test_a_flood_of_one_token_does_not_starve_another(tmp_path: Path, quiz_plugin: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_TEST_SLEEP_S", "0.5")
    tokens = "token-big-xxxxxxxxxxxx,token-small-yyyyyyyyyy"
    settings = make_settings(tmp_path, workers=1, api_token=tokens, max_active_per_token=20_000)
    with TestClient(create_app(settings)) as c:
        flood = [f"quiz/{k % 40}" for k in range(20_000)]
        too_many = c.post("/v1/runs", json={"task_ids": [*flood, "quiz/1"], "agent": {"name": "sleepy"}}, headers=BIG)
        assert too_many.status_code == 429 and "runs included" in too_many.text  # runs count toward the limit
        r = c.post("/v1/runs", json={"task_ids": flood, "agent": {"name": "sleepy"}}, headers=BIG)
        assert r.status_code == 202, r.text
        run_id = r.json()["id"]
        one = c.post("/v1/episodes", json={"task_id": "quiz/3", "agent": {"name": "sleepy"}}, headers=SMALL)
        assert one.status_code == 202
        t0 = time.time()
        url = f"/v1/episodes/{one.json()['id']}"
        done = wait_until(lambda: (b := c.get(url, headers=SMALL).json())["status"] in ("done", "failed") and b,
                          timeout=60, what="the small token's episode")
        # At most the big token's episode already running, then this one: ~2 x 0.5 s, not 20,000 x 0.5 s.
        assert done["status"] == "done" and time.time() - t0 < 20, done

        cancelled = c.delete(f"/v1/runs/{run_id}", headers=BIG)
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["cancelled"]["queued"] > 19_000
        assert c.delete(f"/v1/runs/{run_id}", headers=SMALL).status_code == 404  # not this token's run
        body = wait_until(lambda: (b := c.get(f"/v1/runs/{run_id}", headers=BIG).json())["status"] == "cancelled" and b,
                          timeout=60, what="the cancelled run to finish")
        assert body["counts"].get("cancelled", 0) > 19_000 and body["summary"] is not None
        assert "queued" not in body["counts"] and "running" not in body["counts"]
