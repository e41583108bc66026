"""Fault tests of the server: a worker killed mid-episode, a server restarted mid-run, a record that cannot
be written. In each, nothing finished is lost and no completed result is rewritten."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from agent.server.db import EpisodeRow
from agent.server.queue import EpisodeQueue
from agent.server.workers import execute_claim
from tests.agent.server.conftest import make_settings
from tests.agent.server.test_episodes import wait_done


def wait_until(pred: Any, timeout: float = 60.0, what: str = "condition") -> Any:
    """Poll pred() until it returns something truthy."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _running_owner(client: TestClient, episode_id: str) -> str | None:
    row = client.app.state.queue.get(episode_id)  # type: ignore[attr-defined]
    return row.lease_owner if row is not None and row.status == "running" else None


@pytest.mark.slow
@pytest.mark.parametrize("max_attempts, expect", [(2, "done"), (1, "failed")])
def test_kill_9_worker_mid_episode(tmp_path: Path, quiz_plugin: None, monkeypatch: pytest.MonkeyPatch,
                                   max_attempts: int, expect: str) -> None:
    monkeypatch.setenv("JARVIS_TEST_SLEEP_S", "2.5")
    settings = make_settings(tmp_path, lease_s=1.5, heartbeat_s=0.3, max_attempts=max_attempts)
    with TestClient(create_app(settings)) as client:
        eid = client.post("/v1/episodes", json={"task_id": "quiz/4", "agent": {"name": "sleepy"}}).json()["id"]
        owner = wait_until(lambda: _running_owner(client, eid), what="a worker to claim the episode")
        pool = client.app.state.pool  # type: ignore[attr-defined]
        os.kill(pool.procs[owner].pid, signal.SIGKILL)
        final = wait_done(client, eid, timeout=90)
        assert final["status"] == expect, final
        if expect == "done":  # re-queued and finished by the replacement worker
            assert final["attempts"] == 2 and final["scores"]["soft_score"] == 100.0
        else:
            assert "lease expired" in final["error"]
        assert pool.respawned >= 1


@pytest.mark.slow
def test_restart_mid_run_resumes_queued_and_leased_work(tmp_path: Path, quiz_plugin: None,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_TEST_SLEEP_S", "0.3")
    settings = make_settings(tmp_path, lease_s=1.5, heartbeat_s=0.3)
    tasks = [f"quiz/{k}" for k in range(8)]
    with TestClient(create_app(settings)) as client:
        run_id = client.post("/v1/runs", json={"task_ids": tasks, "agent": {"name": "sleepy"}}).json()["id"]
        wait_until(lambda: client.get(f"/v1/runs/{run_id}").json()["counts"].get("done", 0) >= 2, what="2 done")
    # The first server is gone (its workers stopped mid-episode). Freeze what it finished.
    queue: EpisodeQueue = create_app(settings, start_workers=False).state.queue
    finished = {r.id: (r.finished_at, r.record_path) for r in queue.run_rows(run_id) if r.status == "done"}
    mtimes = {eid: (settings.data_dir / rel).stat().st_mtime_ns for eid, (_, rel) in finished.items() if rel}
    # A crash leaves an episode leased to a worker that no longer exists: make one such row.
    with queue.session() as s, s.begin():
        victim = s.query(EpisodeRow).filter(EpisodeRow.run_id == run_id, EpisodeRow.status == "queued").first()
        assert victim is not None
        victim.status, victim.lease_owner, victim.lease_expires_at, victim.attempts = "running", "w-gone", 0.0, 1
    with TestClient(create_app(settings)) as client:
        body = wait_until(lambda: (b := client.get(f"/v1/runs/{run_id}").json())["status"] == "done" and b,
                          timeout=120, what="the run to finish after the restart")
    assert body["counts"] == {"done": len(tasks)}, body
    rows = {r.id: r for r in queue.run_rows(run_id)}
    for eid, (finished_at, rel) in finished.items():
        assert rows[eid].finished_at == finished_at  # completed results were not rewritten
        assert rel is not None and (settings.data_dir / rel).stat().st_mtime_ns == mtimes[eid]
    lines = (settings.data_dir / "runs" / run_id / "episodes.jsonl").read_text().splitlines()
    assert sorted(json.loads(x)["task_id"] for x in lines) == sorted(tasks)  # one line each, none lost
    assert body["summary"]["n_episodes"] == len(tasks)


class _Runtime:
    """A worker runtime that answers one question episode in-process."""

    def run(self, job: Any, root: Path) -> Any:
        from agent.episodes.run import run_episode

        return run_episode(job, root / "episodes" / job.episode_id)


def test_record_that_cannot_be_written_fails_the_episode_with_the_reason(tmp_path: Path, quiz_plugin: None) -> None:
    settings = make_settings(tmp_path, workers=0)
    queue: EpisodeQueue = create_app(settings, start_workers=False).state.queue
    with TestClient(create_app(settings, start_workers=False)) as client:
        ok_id = client.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "scripted"}}).json()["id"]
        bad_id = client.post("/v1/episodes", json={"task_id": "quiz/2", "agent": {"name": "scripted"}}).json()["id"]
    claim = queue.claim("w1")
    assert claim is not None and claim.episode_id == ok_id
    assert execute_claim(claim, queue, _Runtime(), "w1", settings.data_dir, heartbeat_s=1.0)

    # A directory where the record goes: a real error that waiting would not cure, so the episode fails at once
    # (a full disk is waited out first: tests/agent/server/test_disk_full_worker.py).
    (settings.data_dir / "episodes" / bad_id / "record.json").mkdir(parents=True)
    claim = queue.claim("w1")
    assert claim is not None and claim.episode_id == bad_id
    started = time.monotonic()
    assert execute_claim(claim, queue, _Runtime(), "w1", settings.data_dir, heartbeat_s=1.0)
    assert time.monotonic() - started < 30
    bad, good = queue.get(bad_id), queue.get(ok_id)
    assert bad is not None and bad.status == "failed" and "Is a directory" in (bad.error or "")
    assert (bad.error or "").startswith("could not store the episode record")
    assert good is not None and good.status == "done" and good.record_path
    assert json.loads((settings.data_dir / good.record_path).read_text())["episode_id"] == ok_id
