"""Interactive episodes for external agents: the caller drives, the server keeps the world.

A question item needs no simulator: the caller fetches the prompt and images and posts an answer.
An assembly task reserves one of at most `max_interactive` simulators in the server process; the
caller posts programs (run in the sandbox against the skill RPC) and finally asks for the score.
Sessions idle longer than `interactive_idle_s` expire and free their simulator.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastapi import HTTPException

from agent.agents.base import AnswerTurn
from agent.config import AgentConfig, Budget, SafetyNetTripped
from agent.episodes.job import EpisodeJob, now_iso
from agent.episodes.progress import EpisodeProgress
from agent.episodes.question import question_record
from agent.server.db import EpisodeRow
from agent.server.queue import EpisodeQueue
from agent.server.routes.tasks import workspace_mm
from agent.server.settings import ServerSettings
from agent.server.workers import store_record
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.spec import TaskSpec

T = TypeVar("T")


@dataclass
class Session:
    """One open interactive episode."""

    episode_id: str
    job: EpisodeJob
    task: TaskSpec | QuestionItem
    started: str
    t0: float
    last_used: float
    assembly: Any = None  # AssemblyEpisode for assembly tasks
    lock: threading.Lock = field(default_factory=threading.Lock)
    # GL contexts (the simulator's cameras) are bound to the thread that made them current: every call
    # into an assembly episode runs on the session's own thread, whichever request thread asked.
    thread: ThreadPoolExecutor | None = None
    # A scored record that could not be stored yet (disk full): kept, and stored by the next answer/finish.
    pending: EpisodeRecord | None = None
    thread_ident: int | None = None  # the simulator thread's id, once it has run something
    programs: int = 0  # programs posted and not yet answered (queued on the session's thread or running)
    closed: bool = False  # set when the session ends: programs still queued then answer 409 without running

    def touch(self) -> None:
        """Activity now: the idle clock restarts (requests, and programs as they start and end)."""
        self.last_used = time.time()

    def on_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Run fn on this session's simulator thread and wait for it (at once when already on it: a program
        running there may close the session, and waiting on its own thread would never end)."""
        assert self.thread is not None
        if threading.get_ident() == self.thread_ident:
            return fn(*args)
        return self.thread.submit(fn, *args).result()


class InteractiveSessions:
    """Open interactive episodes of this server process."""

    def __init__(self, settings: ServerSettings, queue: EpisodeQueue):
        self.settings = settings
        self.queue = queue
        self.sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        # Leases on interactive rows name this process, so another server sharing the database can tell
        # a session it does not hold from one that was lost.
        self._opening = 0
        self.holder = f"api-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self._programs_by_token: dict[str, int] = {}  # programs in flight per token, every session together

    # --- opening ---------------------------------------------------------------------------------
    def open(self, row: EpisodeRow, task: TaskSpec | QuestionItem, agent: AgentConfig, budget: Budget) -> dict[str, Any]:
        """Reserve what the episode needs; returns what the agent sees first. Called before the row is stored.

        Raises HTTPException 503 when every interactive simulator is taken (nothing is reserved then); on
        any failure nothing is left behind (no session, no episode directory), so the caller stores nothing.
        """
        progress = EpisodeProgress(1 if isinstance(task, QuestionItem) else budget.rounds, track_steps=False)
        job = EpisodeJob(task_id=row.task_id, agent=agent, budget=budget, episode_id=row.id, progress=progress)
        now = time.time()
        session = Session(row.id, job, task, now_iso(), time.perf_counter(), now)
        base = f"/v1/tasks/{row.task_id}"
        if isinstance(task, QuestionItem):
            first: dict[str, Any] = {
                "prompt": task.prompt,
                "images": [f"{base}/images/{k}.png" for k in range(len(task.images))],
                "answer_url": f"/v1/episodes/{row.id}/answer",
            }
            progress.phase("answering")
        else:
            with self._lock:  # count and reserve in one step, so concurrent opens cannot overshoot
                if self.simulators_in_use_locked() + self._opening >= self.settings.max_interactive:
                    raise HTTPException(
                        503, f"all {self.settings.max_interactive} interactive simulators are in use; retry later",
                        headers={"Retry-After": "30"},
                    )
                self._opening += 1
                # Held from now on: the lease is renewed while the simulator starts (which can outlast it).
                self.sessions[row.id] = session
            try:
                from agent.episodes.assembly import open_interactive_assembly

                session.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"sim-{row.id[-6:]}")
                session.assembly, first = session.on_thread(
                    open_interactive_assembly, job, task, self._episode_dir(row.id), self.settings.backend
                )
            except BaseException:
                with self._lock:
                    self.sessions.pop(row.id, None)
                if session.thread is not None:
                    session.thread.shutdown(wait=False)
                shutil.rmtree(self._episode_dir(row.id), ignore_errors=True)
                raise
            finally:
                with self._lock:
                    self._opening -= 1
            # The calibration GET /v1/tasks/{id} and the built-in agents' prompt give: placing by world
            # coordinates needs the lattice corner.
            first["task"]["workspace"] = workspace_mm(task.workspace)
            first["programs_url"] = f"/v1/episodes/{row.id}/programs"
            first["finish_url"] = f"/v1/episodes/{row.id}/finish"
        session.touch()  # the idle clock starts once the episode is ready, not before its simulator loaded
        with self._lock:
            self.sessions[row.id] = session
        return first

    def discard(self, episode_id: str) -> None:
        """Undo an `open` whose episode could not be stored: free its simulator and remove its files."""
        self.close(episode_id)
        shutil.rmtree(self._episode_dir(episode_id), ignore_errors=True)

    def progress(self, episode_id: str) -> dict[str, Any] | None:
        """The progress of a session this process holds (None when it holds none)."""
        with self._lock:
            session = self.sessions.get(episode_id)
        progress = session.job.progress if session is not None else None
        return progress.snapshot() if progress is not None else None

    def _episode_dir(self, episode_id: str) -> Any:
        return self.settings.data_dir / "episodes" / episode_id

    def _session(self, row: EpisodeRow) -> Session:
        if not row.interactive:
            raise HTTPException(409, f"episode {row.id} is not interactive (agent {json.loads(row.agent)['name']!r})")
        if row.status != "interactive":
            raise HTTPException(409, f"episode {row.id} is {row.status}")
        with self._lock:
            session = self.sessions.get(row.id)
        if session is None or session.closed:
            raise HTTPException(410, f"episode {row.id} is no longer held by this server (expired or restarted)")
        session.touch()
        return session

    # --- driving ---------------------------------------------------------------------------------
    def answer(self, row: EpisodeRow, answer: str) -> dict[str, Any]:
        """Score an answer to a question episode and finish it."""
        session = self._session(row)
        if not isinstance(session.task, QuestionItem):
            raise HTTPException(409, f"episode {row.id} is an assembly task: post programs, then finish")
        with session.lock:
            record = session.pending or question_record(
                session.job, session.task, AnswerTurn(text=answer, prompt_text=session.task.prompt),
                session.started, time.perf_counter() - session.t0,
            )
            self._complete(session, record)
        return {"id": row.id, "status": record.status, "scores": record.scores, "details": record.score_details}

    async def run_program(self, row: EpisodeRow, code: str, token: str) -> dict[str, Any]:
        """Run one program of an interactive assembly episode, without holding a request thread meanwhile.

        The program queues on the session's own thread (one at a time, in order) and the request waits on
        that future in the event loop: 45 sleeping programs take no server thread that another token's
        requests need. A token has at most `max_programs_per_token` programs in flight (more: 429).
        """
        session = self._session(row)
        if session.assembly is None:
            raise HTTPException(409, f"episode {row.id} is a question item: post an answer")
        limit = self.settings.max_programs_per_token
        with self._lock:
            if self._programs_by_token.get(token, 0) >= limit:
                raise HTTPException(429, f"this token already has {limit} program(s) running or queued "
                                    "(JARVIS_MAX_PROGRAMS_PER_TOKEN); wait for their answers",
                                    headers={"Retry-After": "5"})
            self._programs_by_token[token] = self._programs_by_token.get(token, 0) + 1
            session.programs += 1
        try:
            assert session.thread is not None
            try:
                future = session.thread.submit(self._program_on_thread, session, row.id, code)
            except RuntimeError:  # the session's thread was shut down: it closed between the check and now
                raise HTTPException(409, f"episode {row.id} was closed (finished, cancelled or expired)") from None
            result: dict[str, Any] = await asyncio.wrap_future(future)
            return result
        finally:
            with self._lock:
                self._programs_by_token[token] -= 1
                if not self._programs_by_token[token]:
                    del self._programs_by_token[token]
                session.programs -= 1
            session.touch()

    def _program_on_thread(self, session: Session, episode_id: str, code: str) -> dict[str, Any]:
        """One program, on the session's thread: the session is checked again now that it is this one's turn."""
        session.thread_ident = threading.get_ident()
        if session.closed:
            raise HTTPException(409, f"episode {episode_id} was closed (finished, cancelled or expired) while "
                                "this program waited its turn")
        # No session.lock here: the session's single thread already orders programs and finish, and a finish
        # request holding the lock while it waits for this thread would deadlock with it.
        self._check_budget(session)
        session.touch()
        progress = session.job.progress
        assert progress is not None
        progress.phase("executing", round=len(session.assembly.episode.rounds) + 1)
        self.queue.interactive_progress(episode_id, progress.snapshot())
        try:
            result: dict[str, Any] = session.assembly.run_program_public(code)
        except SafetyNetTripped as exc:
            self._fail_infrastructure(session, str(exc))
        finally:
            if progress.snapshot()["phase"] == "executing":  # the program did not come back: say so
                progress.phase("thinking")
            self.queue.interactive_progress(episode_id, progress.snapshot())
            session.touch()
        return result

    def _fail_infrastructure(self, session: Session, message: str) -> None:
        """Close the episode unscored: a wall-clock safety net tripped (the machine's fault, not the agent's)."""
        record = session.on_thread(session.assembly.fail_infrastructure, message)
        self._complete(session, record)
        raise HTTPException(503, {"error": f"infrastructure failure: {message}; the episode is closed unscored",
                                  "infrastructure_failure": True})

    def _check_budget(self, session: Session) -> None:
        """An external agent gets the rounds its budget names, like a built-in one; the wall clock is a safety net."""
        budget = session.job.budget
        used = len(session.assembly.episode.rounds)
        if used >= budget.rounds:
            raise HTTPException(409, {"field": "budget.rounds", "error": f"the episode's budget of {budget.rounds} "
                                      f"round(s) is spent ({used} programs ran); POST finish to score it"})
        elapsed = time.perf_counter() - session.t0
        if budget.wall_s is not None and elapsed > budget.wall_s:
            self._fail_infrastructure(session, f"the episode's wall-clock safety net ({budget.wall_s:g} s) tripped "
                                      f"({elapsed:.1f} s since it opened)")

    def finish(self, row: EpisodeRow) -> dict[str, Any]:
        """Score an interactive assembly episode and free its simulator."""
        session = self._session(row)
        if session.assembly is None:
            raise HTTPException(409, f"episode {row.id} is a question item: post an answer")
        with session.lock:
            record = session.pending or session.on_thread(session.assembly.finish)
            self._complete(session, record)
        return {"id": row.id, "status": record.status, "scores": record.scores}

    # --- closing ---------------------------------------------------------------------------------
    def _complete(self, session: Session, record: EpisodeRecord) -> None:
        """Store the record and close the episode; on a full disk keep both open and answer 507.

        The scored record stays in the session, so the caller's next answer or finish stores that same
        result (never a re-scored one) once there is room; the episode stays interactive meanwhile.
        """
        episode_id = session.episode_id
        try:
            rel = store_record(self.settings.data_dir, None, record)
        except OSError as exc:
            session.pending = record
            raise HTTPException(507, f"episode {episode_id} is scored but its record cannot be stored "
                                f"({exc.strerror or exc}); the result is kept: send the same request again "
                                "once the server has room") from None
        progress = session.job.progress
        if progress is not None:
            progress.phase("finished")
        snapshot = progress.snapshot() if progress is not None else None
        try:
            if not self.queue.finish_interactive(episode_id, record.status, record.scores, rel, record.error,
                                                 snapshot):
                raise HTTPException(409, f"episode {episode_id} was already closed (cancelled or expired)")
        finally:
            session.pending = None
            self.close(episode_id)

    def close(self, episode_id: str) -> None:
        """Forget a session and free its simulator (programs still queued answer 409 without running)."""
        with self._lock:
            session = self.sessions.pop(episode_id, None)
            if session is not None:
                session.closed = True
        if session is not None and session.assembly is not None:
            try:
                session.on_thread(session.assembly.close)
            finally:
                assert session.thread is not None
                session.thread.shutdown(wait=False)

    def expire_idle(self) -> list[str]:
        """Close sessions idle too long; their episodes fail with the reason."""
        cutoff = time.time() - self.settings.interactive_idle_s
        with self._lock:  # a session with a program running or queued is busy, not idle
            stale = [sid for sid, s in self.sessions.items() if s.last_used < cutoff and not s.programs]
        for sid in stale:
            with self._lock:
                pending = self.sessions[sid].pending if sid in self.sessions else None
            if pending is not None:  # scored, but its record never found room: keep the scores at least
                self.queue.finish_interactive(sid, pending.status, pending.scores, None,
                                              "the record could not be stored (disk full); scores kept")
            else:
                self.queue.finish_interactive(
                    sid, "failed", None, None,
                    f"interactive episode expired after {self.settings.interactive_idle_s:g} s idle",
                )
            self.close(sid)
        return stale

    def renew(self) -> int:
        """Renew the leases of every session this process holds (called by the server's housekeeping)."""
        with self._lock:
            held = list(self.sessions)
        return self.queue.renew_interactive(held, self.holder)

    def simulators_in_use(self) -> int:
        """Interactive assembly episodes holding a simulator now."""
        with self._lock:
            return self.simulators_in_use_locked()

    def simulators_in_use_locked(self) -> int:
        """simulators_in_use, for a caller already holding the lock."""
        return sum(1 for s in self.sessions.values() if s.assembly is not None)

    def close_all(self) -> None:
        """Free every simulator (server shutdown)."""
        for sid in list(self.sessions):
            self.close(sid)
