"""Episodes: submit, poll, fetch records and artifacts, cancel, and drive interactive episodes."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse

from agent.agents import agent_names
from agent.agents.base import TaskKind, can_run
from agent.agents.registry import agent_factory
from agent.config import AgentConfig, Budget
from agent.episodes.job import EpisodeJob, new_episode_id
from agent.server.db import EpisodeRow
from agent.server.deps import QueueDep, SettingsDep, StateDep, TokenDep
from agent.server.limits import check_limits
from agent.server.queue import QuotaExceeded
from agent.server.routes.tasks import resolve_task
from agent.server.schemas import (
    AnswerSubmit,
    EpisodeCreate,
    EpisodeCreated,
    EpisodePublic,
    EpisodesPublic,
    ProgramSubmit,
)
from agent.server.settings import ServerSettings
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import family_of_task
from jarvis_sim.tasks.spec import TaskSpec

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
        progress=_progress(row),
        links=links,
    )


def _progress(row: EpisodeRow) -> dict[str, Any] | None:
    """The row's progress; a queued row starts afresh (it may hold a lost attempt's), a just-claimed one is starting."""
    if row.status == "queued":
        return {"phase": "queued"}
    if row.progress:
        return json.loads(row.progress)  # type: ignore[no-any-return]
    return {"phase": "starting"} if row.status == "running" else None


# Agent options naming server files or secrets: a REST caller could otherwise read the server's files
# (replay_file, experience_file, replay:PATH models), write anywhere (llm.cache_dir), or have the server
# send one of its keys to an endpoint of the caller's choosing (llm.base_url with llm.api_key_env).
SERVER_SIDE_OPTIONS = ("replay_file", "experience_file", "llm.base_url", "llm.api_key_env", "llm.cache_dir")


def check_agent_options(agent: AgentConfig, settings: ServerSettings) -> AgentConfig:
    """Refuse agent options that reach the server's files or secrets; returns the agent as the workers run it.

    A model string's endpoint is the operator's choice: over REST it is a name from the server's
    `llm_endpoints` (`openai-compatible:@NAME:MODEL`), resolved here into `llm.base_url`, never a URL
    from the request (the server would send its API key there). A server that trusts its callers
    (JARVIS_TRUST_AGENT_OPTIONS=true) also accepts URLs and the other server-side options.
    """
    if not settings.trust_agent_options:
        for name in SERVER_SIDE_OPTIONS:
            obj: Any = agent
            for part in name.split("."):
                obj = getattr(obj, part)
            if obj is not None:
                raise HTTPException(422, {"field": f"agent.{name}", "error": "not accepted over REST: it names a file "
                                          "or secret on the server (the operator can allow it with "
                                          "JARVIS_TRUST_AGENT_OPTIONS=true)"})
    if agent.model is None:
        return agent
    from agent.llm.errors import ModelStringError
    from agent.llm.registry import parse_model_string

    try:
        spec = parse_model_string(agent.model)
    except ModelStringError:
        return agent  # validate_agent reports it with the valid providers
    if spec.provider == "replay" and not settings.trust_agent_options:
        raise HTTPException(422, {"field": "agent.model", "error": "replay models read a file on the server and "
                                  "are not accepted over REST (JARVIS_TRUST_AGENT_OPTIONS=true allows them)"})
    named = sorted(settings.llm_endpoints)
    if spec.base_url is not None and not settings.trust_agent_options:
        raise HTTPException(422, {"field": "agent.model", "error": "a model string over REST cannot name an endpoint "
                                  "URL: the server would send its API key there. Use an endpoint the operator named: "
                                  f"'{spec.provider}:@NAME:{spec.model}'", "valid_endpoints": named})
    if spec.endpoint_name is not None:
        url = settings.llm_endpoints.get(spec.endpoint_name)
        if url is None:
            raise HTTPException(422, {"field": "agent.model", "error": f"unknown endpoint '@{spec.endpoint_name}'; "
                                      "this server's are set by JARVIS_LLM_ENDPOINTS", "valid_endpoints": named})
        return agent.model_copy(update={"llm": agent.llm.model_copy(update={"base_url": url})})
    return agent


def validate_agent(agent: AgentConfig, task: TaskSpec | QuestionItem | None = None) -> None:
    """An unknown agent or model, or an agent that cannot do this kind of task, is a 422 listing the valid ones."""
    valid = [*agent_names(), EXTERNAL]
    if agent.name not in valid:
        raise HTTPException(422, {"field": "agent.name", "error": f"unknown agent {agent.name!r}", "valid": sorted(valid)})
    if agent.model is not None:
        from agent.llm.errors import ModelStringError
        from agent.llm.registry import parse_model_string, provider_names

        try:
            parse_model_string(agent.model)
        except ModelStringError as exc:
            raise HTTPException(
                422, {"field": "agent.model", "error": str(exc), "valid_providers": provider_names()}
            ) from None
    elif agent.name == "llm":
        raise HTTPException(422, {"field": "agent.model", "error": "the llm agent needs a model, e.g. 'openai:gpt-4o'"})
    planning = isinstance(task, TaskSpec) and task.id.startswith("planning/")
    if planning and agent.name == EXTERNAL:  # interactive sessions drive a simulator; a plan needs none
        raise HTTPException(422, {"field": "agent.name", "error": "planning tasks take a built-in agent (llm, "
                                  "replay, oracle); an external agent cannot open one interactively"})
    if task is None or agent.name == EXTERNAL:
        return
    factory = agent_factory(agent.name)
    need: TaskKind = "question" if isinstance(task, QuestionItem) else ("planning" if planning else "assembly")
    if not can_run(factory, need):
        able = sorted(n for n in agent_names() if can_run(agent_factory(n), need))
        kind = "question items" if isinstance(task, QuestionItem) else ("planning tasks" if planning else "assembly tasks")
        raise HTTPException(422, {"field": "agent.name", "error": f"agent {agent.name!r} cannot run {kind} "
                                  f"({task.id})", "valid": [*able, EXTERNAL]})


def notify_workers(state: Any) -> None:
    """Wake this server's idle workers after queueing work."""
    pool = getattr(state, "pool", None)
    if pool is not None:
        pool.notify()


def quota_error(exc: QuotaExceeded) -> HTTPException:
    """A 429 for a token over its concurrency limit."""
    return HTTPException(429, str(exc), headers={"Retry-After": "5"})


def run_inline(settings: ServerSettings, row: EpisodeRow, task: QuestionItem, agent: AgentConfig,
               budget: Budget) -> EpisodeRow:
    """Run an instant agent's question episode in the request's thread; the row comes back finished.

    Scripted and random answers take microseconds: the queue round trip (a worker polling the database)
    would cost more than the episode, so the API runs them itself.
    """
    from agent.episodes.question import run_question_episode
    from agent.server.workers import store_record
    from jarvis_sim.tasks.registry import QuestionFamily

    family = family_of_task(task.id)
    assert isinstance(family, QuestionFamily)
    job = EpisodeJob(task_id=task.id, agent=agent, budget=budget, episode_id=row.id)
    t0 = time.time()
    try:
        record = run_question_episode(job, task, family)
    except Exception as exc:  # the row must say what went wrong, like a worker's record would
        row.status, row.error = "failed", f"{type(exc).__name__}: {exc}"
    else:
        # A record that cannot be written (disk full) is the server's trouble, not the episode's: the
        # OSError reaches the 507 handler and nothing is stored, so the caller can simply submit again.
        row.record_path = store_record(settings.data_dir, None, record)
        row.status, row.error, row.scores = record.status, record.error, json.dumps(record.scores)
    row.started_at, row.finished_at, row.attempts = t0, time.time(), 1
    return row


@router.post("", status_code=202, response_model=EpisodeCreated,
             responses={201: {"model": EpisodeCreated, "description": "Interactive, or finished inline"},
                        404: {"description": "Unknown task (lists valid ids)"},
                        422: {"description": "Invalid body, unknown agent or model (lists valid ones)"},
                        429: {"description": "Over this token's concurrency limit"},
                        503: {"description": "Every interactive simulator is in use"}})
def submit_episode(body: EpisodeCreate, queue: QueueDep, settings: SettingsDep, state: StateDep, token: TokenDep) -> Any:
    """Queue an episode (202), or open an interactive one for an external agent (201).

    Instant agents (settings.inline_agents) on question items run at once; the answer is 201 and done.
    """
    validate_agent(body.agent)
    agent = check_agent_options(body.agent, settings)
    check_limits(body.budget, agent, settings)
    family = family_of_task(body.task_id)
    task = resolve_task(settings, body.task_id, token)  # unknown ids are a 404 listing valid ones
    validate_agent(agent, task)
    now = time.time()
    interactive = agent.name == EXTERNAL
    row = EpisodeRow(
        id=new_episode_id(),
        run_id=None,
        task_id=body.task_id,
        family=family.name,
        agent=agent.model_dump_json(),
        budget=body.budget.model_dump_json(),
        status="interactive" if interactive else "queued",
        interactive=interactive,
        token_id=token,
        created_at=now,
        started_at=now if interactive else None,
        lease_owner=state.interactive.holder if interactive else None,
        lease_expires_at=now + settings.lease_s if interactive else None,
        attempts=0,
    )
    if interactive:
        return open_interactive(row, task, agent, body.budget, queue, settings, state, token)
    if isinstance(task, QuestionItem) and agent.name in settings.inline_agents:
        queue.submit([run_inline(settings, row, task, agent, body.budget)])
        return JSONResponse(EpisodeCreated(id=row.id, status=row.status).model_dump(), status_code=201)
    try:
        queue.submit([row], token, settings.max_concurrent_per_token, settings.max_active_per_token)
    except QuotaExceeded as exc:
        raise quota_error(exc) from None
    notify_workers(state)
    return EpisodeCreated(id=row.id, status=row.status)


def open_interactive(row: EpisodeRow, task: TaskSpec | QuestionItem, agent: AgentConfig, budget: Budget,
                     queue: Any, settings: ServerSettings, state: Any, token: str) -> JSONResponse:
    """Open an interactive episode, then store it: a refused or failed opening stores nothing.

    The quota is checked first (a token over it gets its 429 before a simulator starts), the simulator
    is reserved and started (503 when all are in use), and only then is the row inserted, with the
    quota checked again atomically; losing that race frees the simulator again.
    """
    limits = (settings.max_concurrent_per_token, settings.max_active_per_token)
    try:
        queue.check_quota(token, 1, *limits)
    except QuotaExceeded as exc:
        raise quota_error(exc) from None
    try:
        first = state.interactive.open(row, task, agent, budget)
    except HTTPException:
        raise
    except Exception as exc:
        raise HTTPException(500, f"could not open the interactive episode: {type(exc).__name__}: {exc}") from None
    # The lease starts now: a simulator that took longer to start than a lease must not be reaped at once.
    row.lease_expires_at = time.time() + settings.lease_s
    row.progress = json.dumps(state.interactive.progress(row.id))
    try:
        queue.submit([row], token, *limits)
    except QuotaExceeded as exc:
        state.interactive.discard(row.id)
        raise quota_error(exc) from None
    except BaseException:
        state.interactive.discard(row.id)
        raise
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
async def get_episode(episode_id: str, queue: QueueDep, token: TokenDep) -> EpisodePublic:
    """Status, progress and, when done, the scores (soft_score among them).

    Polled often: it runs on the event loop (one indexed primary-key read, well under a millisecond on
    SQLite) instead of paying a threadpool hop.
    """
    return episode_public(_own(queue, episode_id, token))


@router.get("/{episode_id}/record")
def get_record(episode_id: str, queue: QueueDep, settings: SettingsDep, token: TokenDep) -> Any:
    """The stored EpisodeRecord."""
    row = _own(queue, episode_id, token)
    if not row.record_path:
        raise HTTPException(409, f"episode {episode_id} is {row.status}; its record exists once it has finished"
                            + (f" ({row.error})" if row.error else ""))
    path = settings.data_dir / row.record_path
    if not path.is_file():
        raise HTTPException(410, f"the record of episode {episode_id} is missing from the data directory ({path.name})")
    return FileResponse(path, media_type="application/json")


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
async def submit_program(episode_id: str, body: ProgramSubmit, queue: QueueDep, state: StateDep,
                         token: TokenDep) -> Any:
    """Run the caller's program in the sandbox; returns feedback and the new observation.

    Async: while the program runs (or waits for the episode's earlier ones) no server thread is held.
    """
    row = await run_in_threadpool(_own, queue, episode_id, token)
    return await state.interactive.run_program(row, body.code, token)


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
