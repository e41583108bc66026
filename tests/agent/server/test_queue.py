"""The durable queue on SQLite: atomic claims across processes, leases, reaping, quotas, no rewritten results."""

from __future__ import annotations

import multiprocessing
import threading
import time
from pathlib import Path

import pytest

from agent.server.db import EpisodeRow, make_engine, migrate
from agent.server.queue import EpisodeQueue, QuotaExceeded


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same tests on SQLite (WAL) and on a real PostgreSQL server (same SQL; skipped if none)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'q.sqlite'}"
    return str(request.getfixturevalue("postgres_url"))


def make_queue(url: str, lease_s: float = 30.0, max_attempts: int = 2) -> EpisodeQueue:
    """A queue over a fresh database, migrated to head by Alembic."""
    migrate(url)
    return EpisodeQueue(make_engine(url), lease_s, max_attempts)


def row(k: int, status: str = "queued", token: str = "t1", run_id: str | None = None) -> EpisodeRow:
    """A minimal episode row."""
    return EpisodeRow(id=f"e{k:05d}", run_id=run_id, task_id=f"quiz/{k % 40}", family="quiz", agent='{"name": "scripted"}',
                      budget="{}", status=status, interactive=status == "interactive", token_id=token,
                      created_at=1000.0 + k, attempts=0)


def _claimer(url: str, worker_id: str, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    queue = EpisodeQueue(make_engine(url), 30.0, 2)
    got = []
    while (claim := queue.claim(worker_id)) is not None:
        assert queue.complete(claim.episode_id, worker_id, "done", {"soft_score": 1.0}, None, None)
        got.append(claim.episode_id)
    out.put(got)


def test_concurrent_claims_across_processes_take_each_episode_once(db_url: str) -> None:
    queue = make_queue(db_url)
    queue.submit([row(k) for k in range(150)])
    ctx = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue = ctx.Queue()  # type: ignore[type-arg]
    url = queue.engine.url.render_as_string(hide_password=False)
    procs = [ctx.Process(target=_claimer, args=(url, f"w{k}", out)) for k in range(3)]
    for p in procs:
        p.start()
    claimed = [e for _ in procs for e in out.get(timeout=120)]
    for p in procs:
        p.join(timeout=30)
    assert sorted(claimed) == [f"e{k:05d}" for k in range(150)]  # every one, none twice
    assert queue.counts_by_status() == {"done": 150}


def test_claim_order_lease_heartbeat_and_complete_by_holder_only(db_url: str) -> None:
    queue = make_queue(db_url, lease_s=10)
    queue.submit([row(2), row(1)])
    first = queue.claim("a", now=2000.0)
    assert first is not None and first.episode_id == "e00001" and first.attempts == 1  # oldest first
    assert queue.heartbeat("e00001", "a")
    assert not queue.heartbeat("e00001", "b")
    assert not queue.complete("e00001", "b", "done", {}, None, None)  # not the holder
    assert queue.complete("e00001", "a", "done", {"soft_score": 50.0}, "r.json", None)
    assert not queue.complete("e00001", "a", "failed", {}, None, "late")  # a result is never rewritten
    done = queue.get("e00001")
    assert done is not None and done.status == "done" and done.record_path == "r.json"


def test_reaper_requeues_then_fails_with_the_reason(db_url: str) -> None:
    queue = make_queue(db_url, lease_s=5, max_attempts=2)
    queue.submit([row(1)])
    assert queue.claim("dead-1", now=100.0) is not None
    assert queue.reap_expired(now=104.0) == (0, 0)  # lease still valid
    assert queue.reap_expired(now=106.0) == (1, 0)
    again = queue.get("e00001")
    assert again is not None and again.status == "queued" and "dead-1" in (again.error or "")
    claim = queue.claim("dead-2", now=200.0)
    assert claim is not None and claim.attempts == 2
    assert queue.reap_expired(now=300.0) == (0, 1)
    lost = queue.get("e00001")
    assert lost is not None and lost.status == "failed" and "lease expired" in (lost.error or "")
    assert not queue.complete("e00001", "dead-2", "done", {}, None, None)  # a zombie cannot revive it


def test_release_on_clean_shutdown_does_not_use_an_attempt(db_url: str) -> None:
    queue = make_queue(db_url)
    queue.submit([row(1), row(2)])
    assert queue.claim("w1") is not None
    assert queue.release(["w1", "w-other"]) == 1
    back = queue.get("e00001")
    assert back is not None and back.status == "queued" and back.attempts == 0 and back.lease_owner is None


def test_cancel_is_conditional(db_url: str) -> None:
    queue = make_queue(db_url)
    queue.submit([row(1), row(2)])
    claim = queue.claim("w1")
    assert claim is not None and queue.complete(claim.episode_id, "w1", "done", {"soft_score": 9.0}, None, None)
    assert queue.cancel("e00001") == "done"
    finished = queue.get("e00001")
    assert finished is not None and finished.status == "done"  # cancelling a finished episode keeps its result
    assert queue.cancel("e00002") == "queued"
    cancelled = queue.get("e00002")
    assert cancelled is not None and cancelled.status == "cancelled"
    assert queue.claim("w2") is None
    assert queue.cancel("nope") is None


def test_quota_is_atomic_under_concurrent_submissions(db_url: str) -> None:
    queue = make_queue(db_url)
    accepted, refused = [], []
    barrier = threading.Barrier(12)

    def submit(k: int) -> None:
        barrier.wait()
        try:
            queue.submit([row(k)], "t1", limit=5)
            accepted.append(k)
        except QuotaExceeded:
            refused.append(k)

    threads = [threading.Thread(target=submit, args=(k,)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(accepted) == 5 and len(refused) == 7
    queue.submit([row(99, token="t2")], "t2", limit=5)  # another token has its own quota
    with pytest.raises(QuotaExceeded, match="limit is 5"):
        queue.submit([row(100)], "t1", limit=5)


def test_interactive_lease_renewed_while_held_failed_when_lost(db_url: str) -> None:
    queue = make_queue(db_url, lease_s=1.0)
    a, b = row(1, "interactive"), row(2, "interactive")
    a.lease_expires_at = b.lease_expires_at = time.time() + 1.0
    queue.submit([a, b])
    time.sleep(0.6)
    assert queue.renew_interactive(["e00001"], "api-1") == 1
    time.sleep(0.6)
    assert queue.reap_expired() == (0, 1)
    held, lost = queue.get("e00001"), queue.get("e00002")
    assert held is not None and held.status == "interactive"
    assert lost is not None and lost.status == "failed" and "server process" in (lost.error or "")
    assert queue.finish_interactive("e00001", "done", {"soft_score": 1.0}, None, None)
    assert not queue.finish_interactive("e00001", "failed", None, None, "expired")


def test_claims_take_turns_across_tokens(db_url: str) -> None:
    queue = make_queue(db_url)
    queue.submit([row(k, token="big") for k in range(2_000)])  # queued first, and many
    queue.submit([row(5_000 + k, token="small") for k in range(3)])
    served = []
    for _ in range(8):  # one worker: claim, finish, claim again
        claim = queue.claim("w")
        assert claim is not None
        served.append(claim.token_id)
        assert queue.complete(claim.episode_id, "w", "done", {}, None, None)
    assert served == ["big", "small"] * 3 + ["big", "big"]
    # Workers at once: fewest running first, then least recently served (a new token was never served).
    queue.submit([row(6_000, token="late"), row(6_001, token="late")])
    held = [queue.claim(f"w{k}") for k in range(3)]
    assert [c.token_id if c else None for c in held] == ["late", "big", "late"]


def test_runs_count_toward_the_token_limit_and_cancel_with_their_run(db_url: str) -> None:
    from agent.server.db import RunRow

    queue = make_queue(db_url)

    def run(run_id: str, first: int, n: int) -> tuple[RunRow, list[EpisodeRow]]:
        r = RunRow(id=run_id, config="{}", token_id="t1", created_at=1.0, total=n, out_dir=f"runs/{run_id}")
        return r, [row(k, run_id=run_id) for k in range(first, first + n)]

    queue.submit_run(*run("r1", 100, 30), max_runs=4, total_limit=40)
    with pytest.raises(QuotaExceeded, match="runs included"):
        queue.submit_run(*run("r2", 200, 11), max_runs=4, total_limit=40)
    with pytest.raises(QuotaExceeded, match="runs included"):
        queue.submit([row(k) for k in range(11)], "t1", limit=100, total_limit=40)
    claim = queue.claim("w")
    assert claim is not None and claim.run_id == "r1"
    assert queue.cancel_run("r1") == {"queued": 29, "running": 1}
    assert queue.run_counts("r1") == {"cancelled": 30}
    assert not queue.complete(claim.episode_id, "w", "done", {}, None, None)  # a stopped episode stays cancelled
    assert not queue.heartbeat(claim.episode_id, "w")  # its worker learns it at the next beat
    queue.submit_run(*run("r2", 200, 11), max_runs=4, total_limit=40)  # cancelled work no longer counts
