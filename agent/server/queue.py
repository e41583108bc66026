"""The durable episode queue in the database: submit, claim with a lease, heartbeat, complete, reap.

A worker claims in one atomic UPDATE, fairly across tokens: the oldest queued episode of the token with
the fewest running episodes, ties going to the token served least recently (round-robin), so one
token's 20,000 queued episodes cannot starve another token's one. While it runs it renews the lease.
A worker that dies stops renewing: its episode is re-queued when the lease expires, or failed with the
reason once it has used up its attempts. `complete` succeeds only for the worker that still holds the
lease on a running episode, and every state change out of an active state is a conditional UPDATE, so
a finished result is never rewritten.

Interactive episodes are leased too, by the server process that holds their simulator: it renews the
lease while it runs; if it dies, the lease expires and the episode fails with the reason.

The SQL is the same on SQLite (writes are serialised by the database lock) and PostgreSQL (the claim
uses FOR UPDATE SKIP LOCKED; quota checks lock the caller's row in `tokens`).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import String, case, func, literal, select, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from agent.server.db import EpisodeRow, RunRow, TokenRow

TERMINAL = ("done", "failed", "cancelled")
ACTIVE = ("queued", "running", "interactive")


# The token to serve next. The distinct tokens with queued work are walked by a recursive "loose index
# scan" (the next larger token id, one index seek each), so a claim costs O(tokens x log queue) and not a
# scan of every queued row: a GROUP BY over 20,000 queued episodes made each claim ~8x slower.
NEXT_TOKEN = text(
    "WITH RECURSIVE toks(tok) AS ("
    " SELECT MIN(token_id) FROM episodes WHERE status='queued'"
    " UNION ALL"
    " SELECT (SELECT MIN(e.token_id) FROM episodes e WHERE e.status='queued' AND e.token_id > toks.tok)"
    " FROM toks WHERE toks.tok IS NOT NULL) "
    "SELECT toks.tok FROM toks LEFT JOIN tokens t ON t.id = toks.tok WHERE toks.tok IS NOT NULL "
    "ORDER BY (SELECT COUNT(*) FROM episodes r WHERE r.status='running' AND r.token_id = toks.tok), "
    "COALESCE(t.last_claimed_at, 0), "
    "(SELECT MIN(e.created_at) FROM episodes e WHERE e.status='queued' AND e.token_id = toks.tok) "
    "LIMIT 1"
)


@dataclass
class Claim:
    """An episode a worker now holds."""

    episode_id: str
    task_id: str
    run_id: str | None
    agent: dict[str, Any]
    budget: dict[str, Any]
    attempts: int
    token_id: str = "anonymous"


class QuotaExceeded(Exception):
    """A token asked for more concurrent work than its limit allows."""

    def __init__(self, what: str, active: int, asked: int, limit: int):
        super().__init__(
            f"this token already has {active} active {what}(s) and asked for {asked} more; the limit is {limit}"
        )
        self.active, self.limit = active, limit


class EpisodeQueue:
    """Queue operations over the episodes table."""

    def __init__(self, engine: Engine, lease_s: float = 30.0, max_attempts: int = 2):
        self.engine = engine
        self.lease_s = lease_s
        self.max_attempts = max_attempts
        self._postgres = engine.dialect.name == "postgresql"
        # SQLite has one writer at a time and makes the others sleep in its busy handler (1..100 ms steps),
        # which shows up as long tail latencies under concurrent requests: writers of this process queue
        # on a lock instead. Other processes (workers) still meet at the database lock.
        self._write_lock: Any = threading.Lock() if engine.dialect.name == "sqlite" else contextlib.nullcontext()
        self._claim_of_token = self._claim_sql(" AND token_id = :tok")
        self._refused = False  # the database refused the last reaping pass (full, locked)
        self._claim_oldest = self._claim_sql("")

    def session(self) -> Session:
        """A new ORM session."""
        return Session(self.engine, expire_on_commit=False)

    # --- submitting --------------------------------------------------------------------------------
    def _lock_token(self, s: Session, token_id: str) -> None:
        """Serialise quota checks of one token: upsert and update its row inside the caller's transaction.

        On SQLite the first write takes the database's write lock; on PostgreSQL the UPDATE locks the row.
        Either way a concurrent submission of the same token waits here until this transaction ends.
        """
        if self._postgres:
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            s.execute(pg_insert(TokenRow).values(id=token_id, updated_at=time.time()).on_conflict_do_nothing())
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            s.execute(sqlite_insert(TokenRow).values(id=token_id, updated_at=time.time()).on_conflict_do_nothing())
        s.execute(update(TokenRow).where(TokenRow.id == token_id).values(updated_at=time.time()))

    @staticmethod
    def _active(s: Session, token_id: str, *, runs_too: bool) -> int:
        cond = [EpisodeRow.token_id == token_id, EpisodeRow.status.in_(ACTIVE)]
        if not runs_too:
            cond.append(EpisodeRow.run_id.is_(None))
        return int(s.scalar(select(func.count()).where(*cond)) or 0)

    def submit(self, rows: Sequence[EpisodeRow], token_id: str | None = None, limit: int | None = None,
               total_limit: int | None = None) -> None:
        """Insert episodes (queued or interactive); with limits, atomically refuse beyond the token's quotas.

        `limit` counts the token's active episodes outside runs; `total_limit` counts them all, runs' too.
        """
        with self._write_lock, self.session() as s, s.begin():
            if token_id is not None and (limit is not None or total_limit is not None):
                self._lock_token(s, token_id)
                self._check_quota(s, token_id, len(rows), limit, total_limit)
            s.add_all(rows)

    def check_quota(self, token_id: str, n: int, limit: int | None, total_limit: int | None) -> None:
        """Raise QuotaExceeded now if n more episodes would pass the token's limits (a read: not binding).

        For work that is costly to prepare before it is stored (an interactive simulator): a caller over
        its quota is refused before anything starts; `submit` still checks atomically when it stores.
        """
        with self.session() as s:
            self._check_quota(s, token_id, n, limit, total_limit)

    def _check_quota(self, s: Session, token_id: str, n: int, limit: int | None, total_limit: int | None) -> None:
        if limit is not None:
            active = self._active(s, token_id, runs_too=False)
            if active + n > limit:
                raise QuotaExceeded("episode", active, n, limit)
        if total_limit is not None:
            active = self._active(s, token_id, runs_too=True)
            if active + n > total_limit:
                raise QuotaExceeded("episode (runs included)", active, n, total_limit)

    def submit_run(self, run: RunRow, rows: Sequence[EpisodeRow], max_runs: int | None = None,
                   total_limit: int | None = None) -> None:
        """Insert a run and its episodes; atomically refuse beyond the token's unfinished runs or active episodes."""
        with self._write_lock, self.session() as s, s.begin():
            if total_limit is not None:
                self._lock_token(s, run.token_id)
                active = self._active(s, run.token_id, runs_too=True)
                if active + len(rows) > total_limit:
                    raise QuotaExceeded("episode (runs included)", active, len(rows), total_limit)
            if max_runs is not None:
                self._lock_token(s, run.token_id)
                unfinished = int(
                    s.scalar(
                        select(func.count(func.distinct(EpisodeRow.run_id))).where(
                            EpisodeRow.token_id == run.token_id, EpisodeRow.run_id.is_not(None),
                            EpisodeRow.status.in_(ACTIVE),
                        )
                    )
                    or 0
                )
                if unfinished + 1 > max_runs:
                    raise QuotaExceeded("run", unfinished, 1, max_runs)
            s.add(run)
            s.flush()
            s.add_all(rows)

    # --- workers -----------------------------------------------------------------------------------
    def claim(self, worker_id: str, now: float | None = None, fair: bool = True) -> Claim | None:
        """Atomically take the next episode fairly across tokens, or None when the queue is empty.

        Fair: the oldest queued episode of the token with the fewest running episodes, ties going to the
        token served least recently, then to the one waiting longest. When a concurrent claimer took or
        holds (PostgreSQL's SKIP LOCKED) that token's only free row, the plain oldest queued one is taken.
        `fair=False` always takes the plain oldest (the benchmark's baseline).
        """
        now = time.time() if now is None else now
        params = {"w": worker_id, "exp": now + self.lease_s, "now": now}
        with self._write_lock, self.engine.begin() as conn:
            token = conn.execute(NEXT_TOKEN).scalar() if fair else None
            row = conn.execute(self._claim_of_token, {**params, "tok": token}).first() if token is not None else None
            if row is None:  # raced: another claimer took (or holds, SKIP LOCKED) that token's last free episode
                row = conn.execute(self._claim_oldest, params).first()
            if row is not None:
                self._served(conn, str(row[6]), now)
        if row is None:
            return None
        return Claim(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]), int(row[5]), str(row[6]))

    def _claim_sql(self, pick: str) -> Any:
        lock = " FOR UPDATE SKIP LOCKED" if self._postgres else ""
        # The outer status check makes a claim that lost a race (another worker took the row between the
        # sub-select and the update) a no-op instead of a double claim.
        return text(
            "UPDATE episodes SET status='running', lease_owner=:w, lease_expires_at=:exp, attempts=attempts+1, "
            "started_at=COALESCE(started_at, :now) "
            f"WHERE id = (SELECT id FROM episodes WHERE status='queued'{pick} ORDER BY created_at, id LIMIT 1{lock}) "
            "AND status='queued' "
            "RETURNING id, task_id, run_id, agent, budget, attempts, token_id"
        )

    def _served(self, conn: Any, token_id: str, now: float) -> None:
        """Note that a token was just served (its row may not exist: submissions without quotas make none)."""
        if self._postgres:
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            pg = pg_insert(TokenRow).values(id=token_id, updated_at=now, last_claimed_at=now)
            conn.execute(pg.on_conflict_do_update(index_elements=["id"], set_={"last_claimed_at": now}))
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            lite = sqlite_insert(TokenRow).values(id=token_id, updated_at=now, last_claimed_at=now)
            conn.execute(lite.on_conflict_do_update(index_elements=["id"], set_={"last_claimed_at": now}))

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
        with self._write_lock, self.engine.begin() as conn:
            return conn.execute(stmt).rowcount == 1

    def complete(
        self, episode_id: str, worker_id: str, status: str, scores: dict[str, float], record_path: str | None,
        error: str | None,
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
        with self._write_lock, self.engine.begin() as conn:
            return conn.execute(stmt).rowcount == 1

    def release(self, worker_ids: Sequence[str]) -> int:
        """Put episodes held by stopping workers back in the queue without charging an attempt (clean shutdown)."""
        if not worker_ids:
            return 0
        with self._write_lock, self.engine.begin() as conn:
            n = conn.execute(
                update(EpisodeRow)
                .where(EpisodeRow.status == "running", EpisodeRow.lease_owner.in_(list(worker_ids)))
                .values(status="queued", lease_owner=None, lease_expires_at=None,
                        attempts=case((EpisodeRow.attempts > 0, EpisodeRow.attempts - 1), else_=0))
            ).rowcount
        return int(n)

    def reap_expired(self, now: float | None = None) -> tuple[int, int]:
        """Re-queue episodes whose worker stopped renewing; fail those out of attempts and lost interactive ones.

        After the database refused a pass (full, locked), the first pass it accepts again renews every running
        lease instead of reaping: live workers and interactive sessions could not renew theirs during the outage
        either, and a worker holding a finished result (agent.server.workers.hand_in) gets a whole lease period
        to store it before its episode is re-run elsewhere. (A grace of one lease period counted from the refused
        pass ran out while a longer outage went on: a 4 s outage re-ran an episode whose worker was alive.)
        Returns (requeued, failed).
        """
        now = time.time() if now is None else now
        try:
            if self._refused:
                self._renew_running(now)
                self._refused = False
                return 0, 0
            return self._reap(now)
        except DBAPIError:
            self._refused = True
            raise

    def _renew_running(self, now: float) -> None:
        """Give every running episode a lease of a whole period from now (never shorten one)."""
        stmt = (update(EpisodeRow)
                .where(EpisodeRow.status == "running", EpisodeRow.lease_expires_at < now + self.lease_s)
                .values(lease_expires_at=now + self.lease_s))
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(stmt)

    def _reap(self, now: float) -> tuple[int, int]:
        expired = (EpisodeRow.status == "running", EpisodeRow.lease_expires_at < now)
        with self._write_lock, self.engine.begin() as conn:
            failed = conn.execute(
                update(EpisodeRow)
                .where(*expired, EpisodeRow.attempts >= self.max_attempts)
                .values(
                    status="failed",
                    error=f"worker lost: its lease expired on attempt {self.max_attempts} of {self.max_attempts} "
                    "without a result (the worker process died or hung)",
                    finished_at=now,
                    lease_owner=None,
                    lease_expires_at=None,
                )
            ).rowcount
            requeued = conn.execute(
                update(EpisodeRow)
                .where(*expired, EpisodeRow.attempts < self.max_attempts)
                .values(status="queued", lease_owner=None, lease_expires_at=None,
                        error=literal("previous attempt lost: worker ", String)
                        + func.coalesce(EpisodeRow.lease_owner, "?") + " stopped renewing its lease")
            ).rowcount
            failed += conn.execute(
                update(EpisodeRow)
                .where(EpisodeRow.status == "interactive", EpisodeRow.lease_expires_at < now)
                .values(status="failed", finished_at=now, lease_owner=None, lease_expires_at=None,
                        error="interactive episode lost: the server process holding its simulator stopped")
            ).rowcount
        return int(requeued), int(failed)

    # --- interactive episodes ----------------------------------------------------------------------
    def renew_interactive(self, episode_ids: Sequence[str], holder: str) -> int:
        """Extend the leases of interactive episodes this server process still holds."""
        if not episode_ids:
            return 0
        with self._write_lock, self.engine.begin() as conn:
            return int(
                conn.execute(
                    update(EpisodeRow)
                    .where(EpisodeRow.id.in_(list(episode_ids)), EpisodeRow.status == "interactive")
                    .values(lease_owner=holder, lease_expires_at=time.time() + self.lease_s)
                ).rowcount
            )

    def finish_interactive(
        self, episode_id: str, status: str, scores: dict[str, float] | None, record_path: str | None, error: str | None,
        progress: dict[str, Any] | None = None,
    ) -> bool:
        """Close an interactive episode once; False when it was already closed (a result is never rewritten)."""
        values: dict[str, Any] = {"status": status, "scores": json.dumps(scores) if scores is not None else None,
                                  "record_path": record_path, "error": error, "finished_at": time.time(),
                                  "lease_owner": None, "lease_expires_at": None}
        if progress is not None:
            values["progress"] = json.dumps(progress)
        with self._write_lock, self.engine.begin() as conn:
            return (
                conn.execute(
                    update(EpisodeRow)
                    .where(EpisodeRow.id == episode_id, EpisodeRow.status == "interactive")
                    .values(**values)
                ).rowcount
                == 1
            )

    def interactive_progress(self, episode_id: str, progress: dict[str, Any]) -> bool:
        """Record an open interactive episode's progress; False once it is closed."""
        with self._write_lock, self.engine.begin() as conn:
            return (
                conn.execute(
                    update(EpisodeRow)
                    .where(EpisodeRow.id == episode_id, EpisodeRow.status == "interactive")
                    .values(progress=json.dumps(progress))
                ).rowcount
                == 1
            )

    # --- everyone ----------------------------------------------------------------------------------
    def cancel(self, episode_id: str) -> str | None:
        """Cancel a queued, running or interactive episode; returns the status it had (None if unknown).

        One conditional UPDATE: an episode that finished in the meantime keeps its result.
        """
        with self._write_lock, self.engine.begin() as conn:
            before = conn.execute(select(EpisodeRow.status).where(EpisodeRow.id == episode_id)).scalar()
            if before is None:
                return None
            # lease_owner stays set on a running episode: the supervisor stops that worker.
            n = conn.execute(
                update(EpisodeRow)
                .where(EpisodeRow.id == episode_id, EpisodeRow.status.in_(ACTIVE))
                .values(status="cancelled", finished_at=time.time())
            ).rowcount
            if n == 0:
                before = conn.execute(select(EpisodeRow.status).where(EpisodeRow.id == episode_id)).scalar()
        return str(before)

    def cancel_run(self, run_id: str) -> dict[str, int]:
        """Cancel a run's unfinished episodes: queued ones never start, running ones are stopped.

        Running episodes keep their lease_owner, so the supervisor stops the worker running each; episodes
        that already finished keep their results. Returns {"queued": n, "running": m} of those cancelled.
        """
        now = time.time()
        out: dict[str, int] = {}
        with self._write_lock, self.engine.begin() as conn:
            for st in ("queued", "running"):
                out[st] = int(conn.execute(
                    update(EpisodeRow).where(EpisodeRow.run_id == run_id, EpisodeRow.status == st)
                    .values(status="cancelled", finished_at=now, error="cancelled with its run")
                ).rowcount)
        return out

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
        """Queued, running and interactive episodes owned by a token (outside runs)."""
        with self.session() as s:
            n = s.scalar(
                select(func.count()).where(EpisodeRow.token_id == token_id, EpisodeRow.status.in_(ACTIVE),
                                           EpisodeRow.run_id.is_(None))
            )
        return int(n or 0)

    def run_counts(self, run_id: str) -> dict[str, int]:
        """Episodes of a run by status."""
        with self.session() as s:
            rows = s.execute(
                select(EpisodeRow.status, func.count()).where(EpisodeRow.run_id == run_id).group_by(EpisodeRow.status)
            ).all()
        return {str(st): int(n) for st, n in rows}

    def run_rows(self, run_id: str) -> list[EpisodeRow]:
        """Every episode row of a run."""
        with self.session() as s:
            return list(s.scalars(select(EpisodeRow).where(EpisodeRow.run_id == run_id)).all())

    def get_run(self, run_id: str) -> RunRow | None:
        """One run row."""
        with self.session() as s:
            return s.get(RunRow, run_id)

    def claim_report(self, run_id: str) -> bool:
        """Mark a run as reported; True for exactly one caller (the one that then writes the report)."""
        with self._write_lock, self.engine.begin() as conn:
            return (
                conn.execute(update(RunRow).where(RunRow.id == run_id, RunRow.reported.is_(False)).values(reported=True))
                .rowcount
                == 1
            )

    def duration_totals(self) -> tuple[int, float]:
        """Count and total seconds of every finished (done or failed) episode that ran on a worker or inline."""
        with self.session() as s:
            n, total = s.execute(
                select(func.count(), func.coalesce(func.sum(EpisodeRow.finished_at - EpisodeRow.started_at), 0.0))
                .where(EpisodeRow.status.in_(("done", "failed")), EpisodeRow.started_at.is_not(None),
                       EpisodeRow.finished_at.is_not(None))
            ).one()
        return int(n), float(total or 0.0)

    def recent_durations(self, limit: int = 500) -> list[float]:
        """Durations (s) of the most recently finished episodes, for metrics."""
        with self.session() as s:
            rows = s.execute(
                select(EpisodeRow.started_at, EpisodeRow.finished_at)
                .where(EpisodeRow.status.in_(("done", "failed")), EpisodeRow.started_at.is_not(None),
                       EpisodeRow.finished_at.is_not(None))
                .order_by(EpisodeRow.finished_at.desc())
                .limit(limit)
            ).all()
        return [float(f - st) for st, f in rows if f is not None and st is not None]
