"""Episode worker processes for the server: each owns one simulator and is reused across episodes.

A supervisor thread in the server process keeps N workers alive (a worker killed with -9 is replaced),
reaps expired leases (its episode goes back to the queue or is failed with the reason), and stops the
worker running an episode that was cancelled.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
import uuid
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from sqlalchemy.exc import DBAPIError

from agent.config import AgentConfig, Budget
from agent.episodes.job import EpisodeJob
from agent.episodes.progress import EpisodeProgress
from agent.runs.run_store import RunDirectory
from agent.server.db import EpisodeRow, make_engine
from agent.server.queue import Claim, EpisodeQueue
from agent.server.repeats import condition_of, is_disk_full, log_failure, repeat_limited
from agent.server.settings import ServerSettings
from jarvis_sim.records import EpisodeRecord

log = logging.getLogger(__name__)

MAX_IDLE_S = 0.5  # longest idle wait between claims when no submission wakes the worker
PROGRESS_EVERY_S = 0.5  # shortest interval between two progress writes of one episode


def episode_root(data_dir: Path, run_id: str | None) -> Path:
    """The directory whose episodes/<id>/ holds an episode's artifacts and record."""
    return data_dir / "runs" / run_id if run_id else data_dir


def record_relpath(run_id: str | None, episode_id: str) -> str:
    """Where an episode's record.json lies, relative to the data directory."""
    base = f"runs/{run_id}/" if run_id else ""
    return f"{base}episodes/{episode_id}/record.json"


def store_record(data_dir: Path, claim_run_id: str | None, record: EpisodeRecord) -> str:
    """Write record.json atomically; returns its path relative to the data directory."""
    rel = record_relpath(claim_run_id, record.episode_id)
    path = data_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"record.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(record.model_dump_json(), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)  # a full disk is retried (hand_in): no partial file per attempt
        raise
    return rel


def execute_claim(claim: Claim, queue: EpisodeQueue, runtime: Any, worker_id: str, data_dir: Path, heartbeat_s: float,
                  hold_s: float = 300.0) -> bool:
    """Run a claimed episode with a heartbeat, then hand its result in (`hand_in`). False if the lease was lost."""
    from agent.server.user_tasks import user_task

    own = user_task(data_dir, claim.task_id)  # a task a token registered: it travels with the job
    budget = Budget.model_validate(claim.budget)
    changed = threading.Event()
    progress = EpisodeProgress(budget.rounds, on_change=changed.set)
    job = EpisodeJob(
        task_id=claim.task_id,
        agent=AgentConfig.model_validate(claim.agent),
        budget=budget,
        episode_id=claim.episode_id,
        task=None if own is None else own.model_dump(mode="json"),
        progress=progress,
    )
    stop = threading.Event()

    def beat() -> None:
        # The lease is renewed every heartbeat_s and the progress written with it; a change brings the next
        # write forward, but never closer than PROGRESS_EVERY_S to the last (a program calling skills in a
        # loop must not flood the database). An episode shorter than that writes nothing until it is stored.
        # A renewal the database refuses (full, locked) is retried at the next beat and never ends this
        # thread: a heartbeat thread that died let the lease of a live episode expire. If renewals keep
        # failing past the lease, the reaper re-queues the episode (or fails it with the reason on its last
        # attempt) and this worker's result is refused when it hands it in: restarted, never hung.
        failing: str | None = None
        while not stop.wait(min(PROGRESS_EVERY_S, heartbeat_s)):
            changed.wait(heartbeat_s)
            if stop.is_set():
                return
            changed.clear()
            try:
                held = queue.heartbeat(claim.episode_id, worker_id, progress.snapshot())
            except Exception as exc:
                condition = condition_of(exc)
                if condition != failing:  # one line per condition, not one per beat
                    log.warning("worker %s: cannot renew the lease on %s (%s); retrying every beat",
                                worker_id, claim.episode_id, condition)
                failing = condition
                continue
            if failing is not None:
                log.warning("worker %s: lease on %s renewed again", worker_id, claim.episode_id)
                failing = None
            if not held:
                return

    beater = threading.Thread(target=beat, name=f"jarvis-heartbeat-{claim.episode_id}", daemon=True)
    beater.start()
    try:
        record = runtime.run(job, episode_root(data_dir, claim.run_id))
    finally:
        stop.set()
        changed.set()
        beater.join()
    progress.phase("finished")
    return hand_in(claim, record, queue, worker_id, data_dir, progress.snapshot(), heartbeat_s, hold_s)


RETRY_FIRST_S = 0.1  # the first wait before retrying a write the disk or database refused; doubles to heartbeat_s


def hand_in(claim: Claim, record: EpisodeRecord, queue: EpisodeQueue, worker_id: str, data_dir: Path,
            progress: dict[str, Any], heartbeat_s: float, hold_s: float) -> bool:
    """Store a finished episode's record, then complete its row; False if the lease was lost on the way.

    The lease is renewed right before the record is written, so a worker whose episode was reaped and
    handed to another worker never overwrites that worker's record. When the disk or the database refuses
    (full, locked), the result stays in memory and each step is retried with back-off for `hold_s`,
    renewing the lease meanwhile, so a full disk at the moment an episode finishes loses nothing once
    space returns. Past `hold_s`:
    - the record file gives way: the episode is completed as failed with the reason ("disk full: ...")
      and its scores. A record can be large and the next episodes need the worker; its scores (small)
      are kept in the row. A record that cannot be written for another reason (permissions) fails the
      episode at once: waiting would not change it.
    - the row cannot give way: it is the only place the outcome goes, and marking the episode failed is
      a write to the same refusing database. The worker gives the result up; the lease expires and the
      reaper re-queues the episode or fails it with the reason once the database takes writes again, so
      nothing stays "running". Holding longer buys nothing: while the database refuses, no episode can
      be claimed either.
    """
    deadline = time.monotonic() + hold_s
    wait = RETRY_FIRST_S
    rel: str | None = None
    failure: str | None = None  # why the episode is completed as failed instead (its record could not be stored)
    holding: str | None = None  # the condition being waited out, logged once
    started = time.monotonic()
    while True:
        step = "renew the lease on"
        try:
            if rel is None and failure is None:
                if not queue.heartbeat(claim.episode_id, worker_id, progress):
                    log.warning("worker %s: lost the lease on %s before storing it; result dropped",
                                worker_id, claim.episode_id)
                    return False
                step = "store the record of"
                try:
                    rel = store_record(data_dir, claim.run_id, record)
                except OSError as exc:
                    if not is_disk_full(exc):
                        failure = f"could not store the episode record: {exc}"
                    elif time.monotonic() >= deadline:
                        failure = f"disk full: could not store the episode record within {hold_s:g} s: {exc}"
                    else:
                        raise
                if failure is not None:
                    log.error("worker %s: %s: %s", worker_id, claim.episode_id, failure)
            step = "complete"
            if failure is None:
                ok = queue.complete(claim.episode_id, worker_id, record.status, record.scores, rel, record.error)
            else:
                ok = queue.complete(claim.episode_id, worker_id, "failed", record.scores, None, failure)
            break
        except (OSError, DBAPIError) as exc:
            condition = condition_of(exc)
            if time.monotonic() >= deadline:
                log.error("worker %s: gave up the result of %s after %.0f s: cannot %s it (%s); its lease expires "
                          "and the reaper re-queues or fails it", worker_id, claim.episode_id,
                          time.monotonic() - started, step, condition)
                return False
            if condition != holding:
                log.warning("worker %s: holding the finished result of %s: cannot %s it (%s); retrying for up to "
                            "%g s", worker_id, claim.episode_id, step, condition, hold_s)
                holding = condition
            time.sleep(min(wait, max(0.0, deadline - time.monotonic())))
            wait = min(wait * 2, heartbeat_s)
    if holding is not None:
        log.warning("worker %s: handed in %s after %.1f s holding it (%s)", worker_id, claim.episode_id,
                    time.monotonic() - started, "completed" if ok else "lease lost: result dropped")
    if ok and claim.run_id and rel is not None:
        # Best effort: the run's episodes.jsonl is reconciled from the database when its report is written.
        try:
            RunDirectory(data_dir / "runs" / claim.run_id).append(record)
        except OSError as exc:
            log.error("worker %s: cannot append %s to its run's episodes.jsonl: %s", worker_id, claim.episode_id, exc)
    return ok


PARENT_CHECK_S = 1.0  # how often a worker looks whether the server that started it still exists
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent_pid: int) -> None:
    """End this process when `parent_pid` (the server) is gone, even if it was killed with SIGKILL.

    Linux delivers SIGKILL on the parent's death (PR_SET_PDEATHSIG); as that signal follows the thread
    that forked us rather than the process, and other systems have no such call, a daemon thread also
    checks the parent pid every PARENT_CHECK_S. Without this a worker outlives a killed server and
    keeps claiming episodes whose results nobody serves.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            log.warning("prctl(PR_SET_PDEATHSIG) unavailable; relying on the parent-pid check")
    if os.getppid() != parent_pid:  # the server died before the signal was armed
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK_S)
            if os.getppid() != parent_pid:
                log.warning("worker %d: the server (pid %d) is gone; exiting", os.getpid(), parent_pid)
                os._exit(0)

    threading.Thread(target=watch, name="jarvis-parent-watch", daemon=True).start()


def worker_main(worker_id: str, settings_json: str, wake: Any = None, parent_pid: int | None = None) -> None:
    """A worker process: claim, run, complete, until terminated or its server (parent_pid) is gone.

    `wake` (a multiprocessing Event set by the API on submission) cuts the idle wait short; without it,
    or when the hint is missed, the worker still polls with a capped back-off.
    """
    if parent_pid is not None:  # first: the imports below take seconds on a busy machine
        die_with_parent(parent_pid)
    from agent.runs.worker import WorkerRuntime

    settings = ServerSettings.model_validate_json(settings_json)
    repeat_limited(log, settings.log_repeat_s)  # this process has none of the server's logging set-up
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    queue = EpisodeQueue(make_engine(settings.resolved_db_url), settings.lease_s, settings.max_attempts)
    runtime = WorkerRuntime(settings.backend)
    idle = 0.0
    while True:
        try:
            claim = queue.claim(worker_id)
        except Exception as exc:  # the database is unreachable, full or locked up: wait, do not spin or die
            log_failure(log, "claiming from the queue (retrying every 2 s)", exc)
            time.sleep(2.0)
            continue
        if claim is None:
            idle = min(MAX_IDLE_S, idle * 2 or 0.005)  # back off while the queue is empty, snappy when busy
            if wake is None:
                time.sleep(idle)
            elif wake.wait(idle):
                wake.clear()
            continue
        idle = 0.0
        try:
            execute_claim(claim, queue, runtime, worker_id, settings.data_dir, settings.heartbeat_s,
                          settings.result_hold_s)
        except Exception as exc:
            log_failure(log, f"worker {worker_id}: episode {claim.episode_id}", exc)


class WorkerPool:
    """Keeps `settings.workers` worker processes alive and the queue's leases honest."""

    def __init__(self, settings: ServerSettings, queue: EpisodeQueue):
        self.settings = settings
        self.queue = queue
        self.ctx = multiprocessing.get_context("spawn")
        self.procs: dict[str, BaseProcess] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.respawned = 0
        self.wake = self.ctx.Event()
        repeat_limited(log, settings.log_repeat_s)

    def notify(self) -> None:
        """Tell idle workers that work was queued (a hint: they poll anyway)."""
        self.wake.set()

    def _spawn(self) -> None:
        worker_id = f"w-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        proc = self.ctx.Process(
            target=worker_main, args=(worker_id, self.settings.model_dump_json(), self.wake, os.getpid()),
            name=worker_id,
            daemon=True,
        )
        proc.start()
        self.procs[worker_id] = proc

    def start(self) -> None:
        """Start the workers and the supervisor thread."""
        for _ in range(self.settings.workers):
            self._spawn()
        self._thread = threading.Thread(target=self._supervise, name="jarvis-supervisor", daemon=True)
        self._thread.start()

    def supervise_once(self) -> None:
        """One supervision pass: replace dead workers, stop cancelled ones, reap leases."""
        for worker_id, proc in list(self.procs.items()):
            if not proc.is_alive():
                log.warning("worker %s exited (code %s); starting a replacement", worker_id, proc.exitcode)
                del self.procs[worker_id]
                self._spawn()
                self.respawned += 1
        self.stop_cancelled()
        requeued, failed = self.queue.reap_expired()  # none for a lease period after the database refused it
        if requeued or failed:
            log.warning("leases expired: %d episode(s) re-queued, %d failed", requeued, failed)

    def stop_cancelled(self) -> None:
        """Kill the workers still running cancelled episodes (each is replaced at the next pass)."""
        from sqlalchemy import select, update

        with self.queue.session() as s, s.begin():
            rows = s.execute(
                select(EpisodeRow.id, EpisodeRow.lease_owner).where(
                    EpisodeRow.status == "cancelled", EpisodeRow.lease_owner.is_not(None)
                )
            ).all()
            for episode_id, owner in rows:
                proc = self.procs.get(str(owner))
                if proc is not None and proc.is_alive():
                    log.info("episode %s cancelled: stopping worker %s", episode_id, owner)
                    proc.kill()
                s.execute(update(EpisodeRow).where(EpisodeRow.id == episode_id).values(lease_owner=None))

    def _supervise(self) -> None:
        while not self._stop.wait(1.0):
            try:
                self.supervise_once()
            except Exception as exc:  # one line per condition per interval: a full disk is not 264 tracebacks
                log_failure(log, "supervisor pass", exc)

    def stop(self) -> None:
        """Terminate all workers; what they were running goes back to the queue without using an attempt."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        for proc in self.procs.values():
            with contextlib.suppress(Exception):
                proc.terminate()
        for proc in self.procs.values():
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        try:
            released = self.queue.release(list(self.procs))
            if released:
                log.info("shutdown: %d running episode(s) returned to the queue", released)
        except Exception:
            log.exception("shutdown: could not release running episodes; their leases will expire")
        self.procs.clear()

    def describe(self) -> dict[str, Any]:
        """Worker status for /v1/status."""
        return {
            "workers": len(self.procs),
            "alive": sum(p.is_alive() for p in self.procs.values()),
            "respawned": self.respawned,
        }


def dumps(obj: Any) -> str:
    """Compact JSON."""
    return json.dumps(obj, separators=(",", ":"))
