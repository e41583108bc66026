"""Batch runs over REST: a suite or task list x one agent config, executed by the server's workers."""

from __future__ import annotations

import json
import re
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import FileResponse, PlainTextResponse

from agent.episodes.job import new_episode_id
from agent.runs.run_store import RunConfig, RunDirectory
from agent.server.db import EpisodeRow, RunRow
from agent.server.deps import QueueDep, SettingsDep, StateDep, TokenDep
from agent.server.limits import check_limits
from agent.server.queue import TERMINAL, QuotaExceeded
from agent.server.routes.episodes import check_agent_options, notify_workers, quota_error, validate_agent
from agent.server.routes.tasks import resolve_task
from agent.server.schemas import RunCreate, RunPublic, RunsPublic
from agent.server.user_tasks import is_user_task_id
from jarvis_sim.records import EpisodeRecord, Timings
from jarvis_sim.tasks.registry import family_of_task, load_task, suite_task_ids

router = APIRouter(prefix="/v1/runs", tags=["runs"])


@router.post("", status_code=202, response_model=RunPublic,
             responses={404: {"description": "Unknown suite or task (lists valid ones)"},
                        422: {"description": "Invalid body, unknown agent or model"},
                        429: {"description": "Over this token's limit on unfinished runs"}})
def create_run(body: RunCreate, queue: QueueDep, settings: SettingsDep, state: StateDep, token: TokenDep) -> RunPublic:
    """Queue every episode of the run; returns its id and links."""
    validate_agent(body.agent)
    agent = check_agent_options(body.agent, settings)
    check_limits(body.budget, agent, settings)
    if agent.name == "external":
        raise HTTPException(422, {"field": "agent.name", "error": "runs need a built-in agent, not 'external'"})
    task_ids = suite_task_ids(body.suite) if body.suite else list(body.task_ids)
    families = {t: family_of_task(t) for t in task_ids}
    seen_kinds: set[str] = set()
    for t, fam in families.items():
        # Every registered task must be this token's own (a 404 otherwise); one task per family checks the agent
        # can run that kind.
        task = resolve_task(settings, t, token) if is_user_task_id(t) else None
        if fam.name not in seen_kinds:
            seen_kinds.add(fam.name)
            validate_agent(agent, task if task is not None else load_task(t))
    run_id = "run-" + uuid.uuid4().hex[:12]
    config = RunConfig(suite=body.suite, task_ids=task_ids, agent=agent, budget=body.budget, backend=settings.backend)
    now = time.time()
    rows = [
        EpisodeRow(
            id=new_episode_id(), run_id=run_id, task_id=t, family=families[t].name, agent=agent.model_dump_json(),
            budget=body.budget.model_dump_json(), status="queued", interactive=False, token_id=token,
            created_at=now + k * 1e-6, attempts=0,
        )
        for k, t in enumerate(task_ids)
    ]
    run = RunRow(id=run_id, config=config.model_dump_json(), token_id=token, created_at=now,
                 total=len(rows), out_dir=f"runs/{run_id}", reported=False)
    RunDirectory.open(settings.data_dir / "runs" / run_id, config)
    try:
        queue.submit_run(run, rows, settings.max_runs_per_token, settings.max_active_per_token)
    except QuotaExceeded as exc:
        raise quota_error(exc) from None
    notify_workers(state)
    return _run_public(queue, settings, run_id, token)


def _run_public(queue: Any, settings: Any, run_id: str, token: str = "anonymous") -> RunPublic:
    run = queue.get_run(run_id)
    if run is None or (run.token_id != token and token != "anonymous"):
        raise HTTPException(404, f"no run {run_id!r}")
    counts = queue.run_counts(run_id)
    status = run_status(counts, run.total)
    summary = None
    if status != "running":
        summary = _ensure_report(queue, settings, run)
    base = f"/v1/runs/{run_id}"
    return RunPublic(id=run_id, status=status, total=run.total, counts=counts, summary=summary,
                     links={"self": base, "report": f"{base}/report"})


def run_status(counts: dict[str, int], total: int) -> Literal["running", "done", "cancelled"]:
    """running until every episode finished; then cancelled when any was cancelled (DELETE), else done."""
    if sum(counts.get(s, 0) for s in TERMINAL) < total:
        return "running"
    return "cancelled" if counts.get("cancelled", 0) else "done"


def _ensure_report(queue: Any, settings: Any, run: RunRow) -> dict[str, Any] | None:
    """The run's summary; the first caller after the last episode finished writes it (None while it does)."""
    from agent.runs.reporting import finish_run

    root = settings.data_dir / run.out_dir
    summary_path = root / "summary.json"
    if queue.claim_report(run.id):
        reconcile_episodes(RunDirectory(root), queue.run_rows(run.id), settings.data_dir)
        return finish_run(RunDirectory(root), per_episode=True)  # a task listed twice is two episodes
    if not summary_path.exists():
        return None
    loaded: dict[str, Any] = json.loads(summary_path.read_text(encoding="utf-8"))
    return loaded


def reconcile_episodes(run: RunDirectory, rows: list[EpisodeRow], data_dir: Path) -> int:
    """Make episodes.jsonl hold one line per finished episode of the database; returns lines added.

    Workers append as they finish, but one killed between completing and appending leaves the line out,
    and an episode failed by the reaper (its worker died) has no record at all: the database is the
    authority, and this fills the gaps (a stored record, else a failed record giving the reason).
    """
    have = {r.episode_id for r in run.records()}
    added = 0
    for row in sorted(rows, key=lambda r: r.created_at):
        if row.id in have or row.status not in ("done", "failed"):
            continue
        record: EpisodeRecord | None = None
        if row.record_path:
            try:
                record = EpisodeRecord.model_validate_json((data_dir / row.record_path).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                record = None
        if record is None:
            agent = json.loads(row.agent)
            record = EpisodeRecord(
                episode_id=row.id, task_id=row.task_id, family=row.family, agent=agent, seed=int(agent.get("seed", 0)),
                status="failed", error=row.error or "no record was stored for this episode",
                timings=Timings(started_at=_iso(row.started_at or row.created_at), finished_at=_iso(row.finished_at)),
            )
        run.append(record)
        added += 1
    return added


def _iso(t: float | None) -> str:
    return datetime.fromtimestamp(t or time.time(), UTC).isoformat(timespec="milliseconds")


@router.delete("/{run_id}", responses={404: {"description": "No such run (for this token)"}})
def cancel_run(run_id: str, queue: QueueDep, token: TokenDep) -> dict[str, Any]:
    """Cancel a run: its queued episodes never start, its running ones are stopped, finished ones stay.

    A running episode's worker is stopped by the supervisor's next pass (within a second) and replaced.
    """
    run = queue.get_run(run_id)
    if run is None or (run.token_id != token and token != "anonymous"):
        raise HTTPException(404, f"no run {run_id!r}")
    cancelled = queue.cancel_run(run_id)
    return {"id": run_id, "cancelled": cancelled, "counts": queue.run_counts(run_id)}


@router.get("", response_model=RunsPublic)
def list_runs(
    queue: QueueDep,
    token: TokenDep,
    offset: int = Query(0, ge=0, le=10_000_000),
    limit: int = Query(50, ge=1, le=200),
) -> RunsPublic:
    """A page of this token's runs, newest first, with their counts; listing never writes a report."""
    from sqlalchemy import func, select

    with queue.session() as s:
        total = s.scalar(select(func.count()).select_from(RunRow).where(RunRow.token_id == token)) or 0
        rows = s.scalars(select(RunRow).where(RunRow.token_id == token).order_by(RunRow.created_at.desc())
                         .offset(offset).limit(limit)).all()
    data = []
    for run in rows:
        counts = queue.run_counts(run.id)
        base = f"/v1/runs/{run.id}"
        data.append(RunPublic(id=run.id, status=run_status(counts, run.total), total=run.total, counts=counts,
                              summary=None, links={"self": base, "report": f"{base}/report"}))
    return RunsPublic(data=data, count=int(total))


@router.get("/{run_id}", response_model=RunPublic)
def get_run(run_id: str, queue: QueueDep, settings: SettingsDep, token: TokenDep) -> RunPublic:
    """Progress, and the summary once every episode has finished."""
    return _run_public(queue, settings, run_id, token)


# A markdown link or image whose target is relative to the run directory (not a URL, an absolute path or an anchor).
_RELATIVE_LINK = re.compile(r"(\]\()(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)([^)\s]+)\)")


@router.get("/{run_id}/report", response_class=PlainTextResponse)
def get_report(run_id: str, queue: QueueDep, settings: SettingsDep, token: TokenDep) -> str:
    """The run's report.md (tables). Its plots and episode pictures are linked under /v1/runs/{id}/files/, so the
    links resolve as written from this URL (report.md on disk links them relative to the run directory)."""
    public = _run_public(queue, settings, run_id, token)
    if public.status == "running":
        raise HTTPException(409, f"run {run_id} is still running ({public.counts})")
    text = (settings.data_dir / "runs" / run_id / "report.md").read_text(encoding="utf-8")
    return _RELATIVE_LINK.sub(lambda m: f"{m.group(1)}files/{m.group(2)})", text)


@router.get("/{run_id}/files/{name:path}")
def get_run_file(run_id: str, name: str, queue: QueueDep, settings: SettingsDep, token: TokenDep) -> FileResponse:
    """A file of the run directory (summary.json, report.md, plots, episodes/<id>/ pictures); nothing outside it."""
    run = queue.get_run(run_id)
    if run is None or (run.token_id != token and token != "anonymous"):
        raise HTTPException(404, f"no run {run_id!r}")
    root = (settings.data_dir / "runs" / run_id).resolve()
    target = (root / name).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        raise HTTPException(404, f"run {run_id} has no file {name!r}")
    return FileResponse(target)
