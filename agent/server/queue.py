"""The durable episode queue in the database: submit, claim with a lease, heartbeat, complete, reap.

A worker claims the oldest queued episode in one atomic UPDATE; while it runs it renews the lease.
A worker that dies stops renewing: its episode is re-queued when the lease expires, or failed with the
reason once it has used up its attempts. `complete` succeeds only for the worker that still holds the
lease on a running episode, so a finished result is never rewritten.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from agent.server.db import EpisodeRow, RunRow

TERMINAL = ("done", "failed", "cancelled")
ACTIVE = ("queued", "running", "interactive")


@dataclass
class Claim:
    """An episode a worker now holds."""

    episode_id: str
    task_id: str
    run_id: str | None
    agent: dict[str, Any]
    budget: dict[str, Any]
    attempts: int


class EpisodeQueue:
    """Queue operations over the episodes table."""

    def __init__(self, engine: Engine, lease_s: float = 30.0, max_attempts: int = 2):
        self.engine = engine
        self.lease_s = lease_s
        self.max_attempts = max_attempts
        self._postgres = engine.dialect.name == "postgresql"

    def session(self) -> Session:
        """A new ORM session."""
        return Session(self.engine, expire_on_commit=False)

    def submit(self, rows: Sequence[EpisodeRow]) -> None:
        """Insert episodes (queued or interactive)."""
        with self.session() as s, s.begin():
            s.add_all(rows)

    def claim(self, worker_id: str, now: float | None = None) -> Claim | None:
        """Atomically take the oldest queued episode, or None when the queue is empty."""
        now = time.time() if now is None else now
        lock = " FOR UPDATE SKIP LOCKED" if self._postgres else ""
        sql = text(
            "UPDATE episodes SET status='running', lease_owner=:w, lease_expires_at=:exp, attempts=attempts+1, "
            "started_at=COALESCE(started_at, :now) "
            "WHERE id = (SELECT id FROM episodes WHERE status='queued' ORDER BY created_at, id LIMIT 1" + lock + ") "
            "AND status='queued' "
            "RETURNING id, task_id, run_id, agent, budget, attempts"
        )
        with self.engine.begin() as conn:
            row = conn.execute(sql, {"w": worker_id, "exp": now + self.lease_s, "now": now}).first()
        if row is None:
            return None
        return Claim(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]), int(row[5]))

    def heartbeat(self, episode_id: str, worker_id: str, progress: dict[str, Any] | None = None) -> bool:
        """Renew the lease; False when the worker no longer holds it (cancelled or reaped)."""
        values: dict[str, Any] = {"lease_expires_at": time.time() + self.lease_s}
        if progress is not None:
            values["progress"] = json.dumps(progress)
        stmt = (
            update(EpisodeRow)
            .where(EpisodeRow.id == episode_id, EpisodeRow.lease_owner == worker_id, EpisodeRow.status == "running")
            .values(**values)
        )
        with self.engine.begin() as conn:
            return conn.execute(stmt).rowcount == 1

    def complete(
        self, episode_id: str, worker_id: str, status: str, scores: dict[str, float], record_path: str, error: str | None
    ) -> bool:
        """Record the outcome if this worker still holds the running episode; never rewrites a result."""
        stmt = (
            update(EpisodeRow)
            .where(EpisodeRow.id == episode_id, EpisodeRow.lease_owner == worker_id, EpisodeRow.status == "running")
            .values(
                status=status,
                scores=json.dumps(scores),
                record_path=record_path,
                error=error,
                finished_at=time.time(),
                lease_owner=None,
                lease_expires_at=None,
            )
        )
        with self.engine.begin() as conn:
            return conn.execute(stmt).rowcount == 1

    def reap_expired(self, now: float | None = None) -> tuple[int, int]:
        """Re-queue episodes whose worker stopped renewing; fail those out of attempts. Returns (requeued, failed)."""
        now = time.time() if now is None else now
        expired = (EpisodeRow.status == "running", EpisodeRow.lease_expires_at < now)
        with self.engine.begin() as conn:
            failed = conn.execute(
                update(EpisodeRow)
                .where(*expired, EpisodeRow.attempts >= self.max_attempts)
                .values(
                    status="failed",
                    error=func.coalesce(EpisodeRow.error, "")
                    + f"worker lost: its lease expired {self.max_attempts} time(s) without a result",
                    finished_at=now,
                    lease_owner=None,
                )
            ).rowcount
            requeued = conn.execute(
                update(EpisodeRow)
                .where(*expired, EpisodeRow.attempts < self.max_attempts)
                .values(status="queued", lease_owner=None, lease_expires_at=None)
            ).rowcount
        return int(requeued), int(failed)

    def cancel(self, episode_id: str) -> str | None:
        """Cancel a queued, running or interactive episode; returns the status it had (None if unknown)."""
        with self.session() as s, s.begin():
            row = s.get(EpisodeRow, episode_id)
            if row is None:
                return None
            before = row.status
            if before in ACTIVE:
                # lease_owner stays set on a running episode: the supervisor stops that worker.
                row.status = "cancelled"
                row.finished_at = time.time()
            return before

    def get(self, episode_id: str) -> EpisodeRow | None:
        """One episode row."""
        with self.session() as s:
            return s.get(EpisodeRow, episode_id)

    def counts_by_status(self) -> dict[str, int]:
        """Number of episodes in each status."""
        with self.session() as s:
            rows = s.execute(select(EpisodeRow.status, func.count()).group_by(EpisodeRow.status)).all()
        return {str(st): int(n) for st, n in rows}

    def active_for_token(self, token_id: str) -> int:
        """Queued, running and interactive episodes owned by a token."""
        with self.session() as s:
            n = s.scalar(
                select(func.count()).where(EpisodeRow.token_id == token_id, EpisodeRow.status.in_(ACTIVE))
            )
        return int(n or 0)

    def run_counts(self, run_id: str) -> dict[str, int]:
        """Episodes of a run by status."""
        with self.session() as s:
            rows = s.execute(
                select(EpisodeRow.status, func.count()).where(EpisodeRow.run_id == run_id).group_by(EpisodeRow.status)
            ).all()
        return {str(st): int(n) for st, n in rows}

    def get_run(self, run_id: str) -> RunRow | None:
        """One run row."""
        with self.session() as s:
            return s.get(RunRow, run_id)

    def recent_durations(self, limit: int = 500) -> list[float]:
        """Durations (s) of the most recently finished episodes, for metrics."""
        with self.session() as s:
            rows = s.execute(
                select(EpisodeRow.started_at, EpisodeRow.finished_at)
                .where(EpisodeRow.status.in_(("done", "failed")), EpisodeRow.started_at.is_not(None))
                .order_by(EpisodeRow.finished_at.desc())
                .limit(limit)
            ).all()
        return [float(f - st) for st, f in rows if f is not None and st is not None]
