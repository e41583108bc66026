"""Episodes: submit, poll, fetch records and artifacts, cancel, and drive interactive episodes."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import FileResponse, JSONResponse

from agent.agents import agent_names
from agent.episode import new_episode_id
from agent.server.db import EpisodeRow
from agent.server.deps import QueueDep, SettingsDep, StateDep, TokenDep
from agent.server.schemas import (
    AnswerSubmit,
    EpisodeCreate,
    EpisodeCreated,
    EpisodePublic,
    EpisodesPublic,
    ProgramSubmit,
)
from jarvis_sim.tasks.registry import family_of_task, load_task

router = APIRouter(prefix="/v1/episodes", tags=["episodes"])

EXTERNAL = "external"


def episode_public(row: EpisodeRow) -> EpisodePublic:
    """The public view of an episode row."""
    base = f"/v1/episodes/{row.id}"
    links = {"self": base}
    if row.record_path:
        links["record"] = f"{base}/record"
    if row.interactive:
        links.update(programs=f"{base}/programs", answer=f"{base}/answer", finish=f"{base}/finish")
    return EpisodePublic(
        id=row.id,
        task_id=row.task_id,
        family=row.family,
        run_id=row.run_id,
        status=row.status,
        attempts=row.attempts,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
        error=row.error,
        scores=json.loads(row.scores) if row.scores else None,
        progress=json.loads(row.progress) if row.progress else None,
        links=links,
    )


def validate_agent(name: str) -> None:
    """An unknown agent is a 422 listing the valid ones."""
    valid = [*agent_names(), EXTERNAL]
    if name not in valid:
        raise HTTPException(422, {"field": "agent.name", "error": f"unknown agent {name!r}", "valid": sorted(valid)})


def check_quota(queue: Any, token: str, settings: Any, n: int = 1) -> None:
    """Refuse work beyond the token's limit on concurrent episodes."""
    active = queue.active_for_token(token)
    if active + n > settings.max_concurrent_per_token:
        raise HTTPException(
            429, f"this token already has {active} active episode(s); the limit is {settings.max_concurrent_per_token}"
        )


@router.post("", status_code=202, response_model=EpisodeCreated)
def submit_episode(body: EpisodeCreate, queue: QueueDep, settings: SettingsDep, state: StateDep, token: TokenDep) -> Any:
    """Queue an episode (202), or open an interactive one for an external agent (201)."""
    validate_agent(body.agent.name)
    family = family_of_task(body.task_id)
    task = load_task(body.task_id)  # unknown ids are a 404 listing valid ones
    check_quota(queue, token, settings)
    now = time.time()
    interactive = body.agent.name == EXTERNAL
    row = EpisodeRow(
        id=new_episode_id(),
        run_id=None,
        task_id=body.task_id,
        family=family.name,
        agent=body.agent.model_dump_json(),
        budget=body.budget.model_dump_json(),
        status="interactive" if interactive else "queued",
        interactive=interactive,
        token_id=token,
        created_at=now,
        started_at=now if interactive else None,
        attempts=0,
    )
    if not interactive:
        queue.submit([row])
        return EpisodeCreated(id=row.id, status=row.status)
    first = state.interactive.open(row, task, body.agent, body.budget)
    queue.submit([row])
    return JSONResponse(EpisodeCreated(id=row.id, status=row.status, interactive=first).model_dump(), status_code=201)


@router.get("", response_model=EpisodesPublic)
def list_episodes(
    queue: QueueDep,
    token: TokenDep,
    status: str | None = Query(None, max_length=16),
    offset: int = Query(0, ge=0, le=10_000_000),
    limit: int = Query(50, ge=1, le=500),
) -> EpisodesPublic:
    """A page of this token's episodes, newest first."""
    from sqlalchemy import func, select

    with queue.session() as s:
        cond = [EpisodeRow.token_id == token]
        if status:
            cond.append(EpisodeRow.status == status)
        total = s.scalar(select(func.count()).select_from(EpisodeRow).where(*cond)) or 0
        rows = s.scalars(
            select(EpisodeRow).where(*cond).order_by(EpisodeRow.created_at.desc()).offset(offset).limit(limit)
        ).all()
    return EpisodesPublic(data=[episode_public(r) for r in rows], count=int(total))


def _own(queue: Any, episode_id: str, token: str) -> EpisodeRow:
    row = queue.get(episode_id)
    if row is None or (row.token_id != token and token != "anonymous"):
        raise HTTPException(404, f"no episode {episode_id!r}")
    return row  # type: ignore[no-any-return]


@router.get("/{episode_id}", response_model=EpisodePublic)
def get_episode(episode_id: str, queue: QueueDep, token: TokenDep) -> EpisodePublic:
    """Status, progress and, when done, the scores (soft_score among them)."""
    return episode_public(_own(queue, episode_id, token))


@router.get("/{episode_id}/record")
def get_record(episode_id: str, queue: QueueDep, settings: SettingsDep, token: TokenDep) -> Any:
    """The stored EpisodeRecord."""
    row = _own(queue, episode_id, token)
    if not row.record_path:
        raise HTTPException(409, f"episode {episode_id} is {row.status}; its record exists once it has finished")
    return FileResponse(settings.data_dir / row.record_path, media_type="application/json")


@router.get("/{episode_id}/artifacts/{path:path}")
def get_artifact(episode_id: str, path: str, queue: QueueDep, settings: SettingsDep, token: TokenDep) -> FileResponse:
    """A file written by the episode (images, code), by its path inside the episode directory."""
    row = _own(queue, episode_id, token)
    base = settings.data_dir / (f"runs/{row.run_id}/" if row.run_id else "") / "episodes" / episode_id
    target = (base / path).resolve()
    if not target.is_relative_to(base.resolve()) or not target.is_file():
        raise HTTPException(404, f"episode {episode_id} has no artifact {path!r}")
    return FileResponse(target)


@router.delete("/{episode_id}")
def cancel_episode(episode_id: str, queue: QueueDep, state: StateDep, token: TokenDep) -> dict[str, str]:
    """Cancel a queued, running or interactive episode (a finished one is left as it is)."""
    _own(queue, episode_id, token)
    before = queue.cancel(episode_id)
    state.interactive.close(episode_id)
    return {"id": episode_id, "status": "cancelled" if before not in ("done", "failed", "cancelled") else str(before)}


@router.post("/{episode_id}/programs")
def submit_program(episode_id: str, body: ProgramSubmit, queue: QueueDep, state: StateDep, token: TokenDep) -> Any:
    """Run the caller's program in the sandbox; returns feedback and the new observation."""
    row = _own(queue, episode_id, token)
    return state.interactive.run_program(row, body.code)


@router.post("/{episode_id}/answer")
def submit_answer(episode_id: str, body: AnswerSubmit, queue: QueueDep, state: StateDep, token: TokenDep) -> Any:
    """Answer an interactive question episode; it is scored and finished."""
    row = _own(queue, episode_id, token)
    return state.interactive.answer(row, body.answer)


@router.post("/{episode_id}/finish")
def finish_episode(episode_id: str, queue: QueueDep, state: StateDep, token: TokenDep) -> Any:
    """Score an interactive assembly episode as it stands and free its simulator."""
    row = _own(queue, episode_id, token)
    return state.interactive.finish(row)


def artifact_root(data_dir: Path, row: EpisodeRow) -> Path:
    """Directory of an episode's artifacts."""
    return data_dir / (f"runs/{row.run_id}" if row.run_id else "") / "episodes" / row.id
