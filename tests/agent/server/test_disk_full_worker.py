"""A disk that fills while an episode runs or finishes: the worker holds the result and stores it once space
returns, or fails the episode with the reason; its heartbeat outlives the outage; the log stays short.

The full disk is real: a 16 MB tmpfs mounted for the test and filled to ENOSPC, under the real SQLite queue
(whose writes then fail with SQLite's own "database or disk is full") and the record files. Mounting needs
root (or a user namespace: `unshare -rm pytest ...`); elsewhere these tests skip and say so.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import re
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from agent.server.db import EpisodeRow, make_engine, migrate
from agent.server.queue import Claim, EpisodeQueue
from agent.server.settings import ServerSettings
from agent.server.workers import WorkerPool, execute_claim
from tests.agent.server.conftest import make_settings
from tests.agent.server.test_episodes import wait_done
from tests.agent.server.test_faults import _Runtime, wait_until
from tests.fakes.llm_servers import FakeOpenAIServer

WORKERS_LOG = "agent.server.workers"


class SmallDisk:
    """A mounted tmpfs that the test fills to ENOSPC and empties again."""

    def __init__(self, root: Path):
        self.root = root
        self.filler = root / "filler.bin"

    def fill(self, db: Path | None = None) -> None:
        """Fill the disk to the last byte. The database's WAL is first checkpointed to zero length, so its next
        write must grow a file: without that SQLite writes into WAL space it already has (as on a real disk)."""
        if db is not None:
            with contextlib.closing(sqlite3.connect(db, timeout=30)) as conn:
                busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                assert busy == 0, "the WAL could not be truncated"
        chunk = b"\0" * 65536
        with self.filler.open("ab", buffering=0) as f:
            for size in (65536, 4096, 1):
                try:
                    while True:
                        f.write(chunk[:size])
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc

    def free(self) -> None:
        """Give the space back."""
        self.filler.unlink(missing_ok=True)

    def free_after(self, delay_s: float) -> threading.Timer:
        """Give the space back in `delay_s`, from another thread."""
        timer = threading.Timer(delay_s, self.free)
        timer.start()
        return timer


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    """A real, size-limited filesystem; skips where this process may not mount one."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "jarvis-test-disk", str(mnt)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        pytest.skip(
            f"cannot mount a size-limited tmpfs here (needs root or `unshare -rm`): {r.stderr.strip()}"
        )
    try:
        yield SmallDisk(mnt)
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def _queue_with(settings: ServerSettings, task_id: str = "quiz/3") -> tuple[EpisodeQueue, Claim]:
    """A real queue on the settings' database with one episode, claimed by worker 'w1'."""
    url = settings.resolved_db_url
    migrate(url)
    queue = EpisodeQueue(make_engine(url), settings.lease_s, settings.max_attempts)
    queue.submit(
        [
            EpisodeRow(
                id="ep-" + task_id.replace("/", "-"),
                task_id=task_id,
                family="quiz",
                agent=json.dumps({"name": "scripted"}),
                budget="{}",
                status="queued",
                created_at=time.time(),
            )
        ]
    )
    claim = queue.claim("w1")
    assert claim is not None
    return queue, claim


class _FinishesOnAFullDisk(_Runtime):
    """The real episode, then the disk fills at the moment it finishes (and empties `free_s` later)."""

    def __init__(self, disk: SmallDisk, db: Path | None, free_s: float | None):
        self.disk, self.db, self.free_s = disk, db, free_s
        self.record: Any = None

    def run(self, job: Any, root: Path) -> Any:
        self.record = super().run(job, root)
        self.disk.fill(self.db)
        if self.free_s is not None:
            self.disk.free_after(self.free_s)
        return self.record


def _worker_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == WORKERS_LOG]


def test_a_full_disk_when_an_episode_finishes_loses_nothing(
    small_disk: SmallDisk, quiz_plugin: None, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(small_disk.root, workers=0, lease_s=3.0)
    db = settings.data_dir / "jarvis.sqlite"
    queue, claim = _queue_with(settings)
    runtime = _FinishesOnAFullDisk(small_disk, db, free_s=2.0)
    caplog.set_level(logging.INFO, logger=WORKERS_LOG)
    assert execute_claim(claim, queue, runtime, "w1", settings.data_dir, heartbeat_s=0.5, hold_s=60.0)
    row = queue.get(claim.episode_id)
    assert row is not None and row.status == "done" and row.attempts == 1, row and (row.status, row.error)
    assert (
        json.loads(row.scores or "{}") == runtime.record.scores
        and runtime.record.scores["soft_score"] == 100.0
    )
    stored = json.loads((settings.data_dir / str(row.record_path)).read_text())
    assert stored["episode_id"] == claim.episode_id and stored["answer"] == runtime.record.answer
    # The database itself refused (SQLite's SQLITE_FULL); the log says so once (and once more if a last beat
    # of the heartbeat met it too), and once that the result was handed in: not a line per retry.
    lines = [r.getMessage() for r in _worker_lines(caplog)]
    assert len(lines) <= 3, lines
    holding = [x for x in lines if "holding the finished result" in x]
    assert len(holding) == 1 and "database or disk is full" in holding[0], lines
    assert "handed in" in lines[-1] and "completed" in lines[-1]
    assert not any(r.exc_info for r in caplog.records)


def test_a_record_the_disk_never_takes_fails_the_episode_with_the_reason(
    small_disk: SmallDisk, quiz_plugin: None, tmp_path: Path
) -> None:
    # The database lives elsewhere and takes writes; only the record's disk is full, and stays full.
    settings = make_settings(small_disk.root, workers=0, db_url=f"sqlite:///{tmp_path / 'queue.sqlite'}")
    queue, claim = _queue_with(settings)
    runtime = _FinishesOnAFullDisk(small_disk, None, free_s=None)
    started = time.monotonic()
    assert execute_claim(claim, queue, runtime, "w1", settings.data_dir, heartbeat_s=0.3, hold_s=1.5)
    assert time.monotonic() - started < 30
    row = queue.get(claim.episode_id)
    assert row is not None and row.status == "failed" and row.record_path is None
    assert (row.error or "").startswith("disk full: could not store the episode record within 1.5 s")
    assert "No space left on device" in (row.error or "")
    assert json.loads(row.scores or "{}") == runtime.record.scores  # the scores survive in the row
    leftovers = list((settings.data_dir / "episodes" / claim.episode_id).glob("record*"))
    assert leftovers == []  # no partial record file per retry


def test_a_database_that_stays_full_leaves_the_episode_to_the_reaper(
    small_disk: SmallDisk, quiz_plugin: None, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(small_disk.root, workers=0, lease_s=1.0, max_attempts=2)
    db = settings.data_dir / "jarvis.sqlite"
    queue, claim = _queue_with(settings)
    caplog.set_level(logging.INFO, logger=WORKERS_LOG)
    assert not execute_claim(
        claim,
        queue,
        _FinishesOnAFullDisk(small_disk, db, free_s=None),
        "w1",
        settings.data_dir,
        heartbeat_s=0.3,
        hold_s=1.5,
    )
    assert "gave up the result" in _worker_lines(caplog)[-1].getMessage()
    small_disk.free()
    time.sleep(settings.lease_s)
    assert queue.reap_expired() == (1, 0)  # re-queued for another attempt: not left running
    row = queue.get(claim.episode_id)
    assert row is not None and row.status == "queued" and "stopped renewing its lease" in (row.error or "")


class _RunsThroughAFullDatabase(_Runtime):
    """The disk fills while the episode runs and empties `outage_s` later; the run then waits for a renewal."""

    def __init__(self, disk: SmallDisk, db: Path, queue: EpisodeQueue, outage_s: float):
        self.disk, self.db, self.queue, self.outage_s = disk, db, queue, outage_s
        self.renewed_after_outage = False

    def run(self, job: Any, root: Path) -> Any:
        self.disk.fill(self.db)
        time.sleep(self.outage_s)
        self.disk.free()
        freed = time.time()

        def renewed() -> bool:
            row = self.queue.get(job.episode_id)
            return row is not None and (row.lease_expires_at or 0.0) > freed + self.queue.lease_s - 1.0

        self.renewed_after_outage = bool(
            wait_until(renewed, timeout=10, what="a lease renewal after the outage")
        )
        return super().run(job, root)


def test_the_heartbeat_outlives_a_full_database(
    small_disk: SmallDisk, quiz_plugin: None, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(small_disk.root, workers=0, lease_s=3.0)
    queue, claim = _queue_with(settings)
    runtime = _RunsThroughAFullDatabase(small_disk, settings.data_dir / "jarvis.sqlite", queue, outage_s=1.5)
    caplog.set_level(logging.INFO, logger=WORKERS_LOG)
    assert execute_claim(claim, queue, runtime, "w1", settings.data_dir, heartbeat_s=0.2, hold_s=30.0)
    assert runtime.renewed_after_outage  # the heartbeat thread survived ~7 refused renewals
    row = queue.get(claim.episode_id)
    assert row is not None and row.status == "done" and row.attempts == 1
    lines = [r.getMessage() for r in _worker_lines(caplog)]
    assert len(lines) == 2, lines  # one line when renewals start failing, one when they work again
    assert "cannot renew the lease" in lines[0] and "database or disk is full" in lines[0]
    assert "renewed again" in lines[1]


def test_the_supervisor_logs_a_full_database_once_and_reaps_when_space_returns(
    small_disk: SmallDisk, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(small_disk.root, workers=0, lease_s=1.0)
    db = settings.data_dir / "jarvis.sqlite"
    queue, claim = _queue_with(settings)
    with queue.session() as s, s.begin():  # its worker died long ago: every supervision pass must reap it
        row = s.get(EpisodeRow, claim.episode_id)
        assert row is not None
        row.lease_expires_at = 0.0
    caplog.set_level(logging.INFO, logger=WORKERS_LOG)
    pool = WorkerPool(settings, queue)
    small_disk.fill(db)
    pool.start()
    try:
        time.sleep(4.5)  # ~4 supervision passes, each refused by the full database
        refused = [r for r in _worker_lines(caplog) if "supervisor pass failed" in r.getMessage()]
        assert (
            len(refused) == 1 and "disk full: database: database or disk is full" in refused[0].getMessage()
        )
        assert refused[0].exc_info is None  # a condition of the machine, not a bug: no traceback
        assert queue.get(claim.episode_id).status == "running"  # type: ignore[union-attr]
        small_disk.free()
        wait_until(
            lambda: queue.get(claim.episode_id).status == "queued",  # type: ignore[union-attr]
            timeout=15,
            what="the expired lease to be reaped once space returned",
        )
    finally:
        pool.stop()


def test_a_full_disk_under_a_real_server_and_worker_loses_nothing(
    small_disk: SmallDisk,
    quiz_plugin: None,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The whole path: a worker process runs the episode, the disk fills before it finishes and stays full past
    the lease; once space returns the episode is done on its first attempt, with its result."""
    monkeypatch.setenv("JARVIS_TEST_SLEEP_S", "1.5")
    settings = make_settings(small_disk.root, lease_s=2.0, heartbeat_s=0.3)
    db = settings.data_dir / "jarvis.sqlite"
    with TestClient(create_app(settings)) as client:
        eid = client.post("/v1/episodes", json={"task_id": "quiz/4", "agent": {"name": "sleepy"}}).json()[
            "id"
        ]
        wait_until(
            lambda: client.app.state.queue.get(eid).status == "running",  # type: ignore[attr-defined]
            timeout=120,
            what="a worker to claim the episode",
        )
        small_disk.fill(db)
        time.sleep(5.0)  # the episode finishes inside the outage; its lease (2 s) expires meanwhile
        small_disk.free()
        final = wait_done(client, eid, timeout=60)
    assert final["status"] == "done" and final["attempts"] == 1, final
    assert final["scores"]["soft_score"] == 100.0
    server_lines = [r for r in caplog.records if r.name.startswith("agent.server")]
    assert len(server_lines) <= 4, [r.getMessage() for r in server_lines]


def _sum_answer(body: dict[str, Any]) -> str:
    """The quiz's right answer, read from the prompt the model was sent ("What is a + b?")."""
    found = re.search(r"What is (-?\d+) \+ (-?\d+)\?", json.dumps(body))
    assert found is not None, body
    return f"Answer: {int(found[1]) + int(found[2])}"


@pytest.mark.slow
def test_a_slow_model_answering_through_a_full_disk_keeps_its_lease(small_disk: SmallDisk, quiz_plugin: None) -> None:
    """A model that answers after 12 s, the disk full for 4 s of that wait: the worker's heartbeat thread outlives the
    refused renewals (the 2 s lease lapses in the database meanwhile), renews once space returns, and the episode is
    done on its first attempt with the model's answer scored."""
    with FakeOpenAIServer(default=_sum_answer, latency_s=12.0) as lab:
        settings = make_settings(small_disk.root, lease_s=2.0, heartbeat_s=0.3, llm_endpoints={"lab": lab.base_url})
        db = settings.data_dir / "jarvis.sqlite"
        with TestClient(create_app(settings)) as client:
            r = client.post("/v1/episodes", json={"task_id": "quiz/4",
                                                  "agent": {"name": "llm", "model": "openai-compatible:@lab:slow"}})
            assert r.status_code == 202, r.text
            wait_until(lambda: bool(lab.requests), timeout=120, what="the model call to start")
            small_disk.fill(db)
            time.sleep(4.0)
            small_disk.free()
            final = wait_done(client, r.json()["id"], timeout=90)
    assert final["status"] == "done" and final["attempts"] == 1, final
    assert final["scores"]["soft_score"] == 100.0, final
    assert len(lab.requests) == 1 and lab.delays[0] >= 12.0  # one call, answered slowly, not re-run
