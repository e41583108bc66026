"""Suites and tasks of every family: public views only (never a target or a ground-truth answer).

A task the calling token registered (POST /v1/user-tasks) is a task like any other here: its view, manual
pages and observation are served to that token (and only to it) under the same URLs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from fastapi import APIRouter, Depends, HTTPException, Query
from fastapi.responses import FileResponse

from agent.server.deps import SettingsDep, TokenDep, token_id
from agent.server.schemas import SuitePublic, SuitesPublic, TasksPublic
from agent.server.settings import ServerSettings
from agent.server.user_tasks import is_user_task_id, user_task
from jarvis_sim.lego import units as u
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import load_task, suite_availability, suite_task_ids, suites
from jarvis_sim.tasks.spec import TaskSpec, Workspace

router = APIRouter(prefix="/v1", tags=["tasks"])

T = TypeVar("T")


def resolve_task(settings: ServerSettings, task_id: str, token: str) -> TaskSpec | QuestionItem:
    """A task this token registered (POST /v1/user-tasks), else one of the families' tasks (an unknown id is a
    404 listing valid ones; another token's registered task is as unknown as a missing one)."""
    if is_user_task_id(task_id):
        own = user_task(settings.data_dir, task_id, token)
        if own is None:
            raise HTTPException(404, f"this token has no registered task {task_id!r} (GET /v1/user-tasks lists them)")
        return own
    return load_task(task_id)


def task_public(task: TaskSpec | QuestionItem) -> dict[str, Any]:
    """The public view of any task, with image URLs."""
    task_id = task.id
    view = task.public_view()
    base = f"/v1/tasks/{task_id}"
    if isinstance(task, QuestionItem):
        view["images"] = [f"{base}/images/{k}.png" for k in range(len(task.images))]
    else:
        view["manual_images"] = manual_urls(task)
        view["observation_image"] = f"{base}/observation.png"
        view["workspace"] = workspace_mm(task.workspace)
    return view


def workspace_mm(ws: Workspace) -> dict[str, Any]:
    """The calibration the LLM prompt gives (build-lattice corner, staging area, table), in mm: external
    agents over REST need the same to place by world coordinates."""

    def mm(v: tuple[float, ...]) -> list[float]:
        return [round(c * 1000.0, 3) for c in v]

    return {"lattice_origin_mm": mm(ws.lattice_origin), "staging_min_mm": mm(ws.staging_min),
            "staging_max_mm": mm(ws.staging_max), "table_min_mm": mm(ws.table_min), "table_max_mm": mm(ws.table_max),
            "stud_pitch_mm": round(u.STUD_PITCH_M * 1000.0, 3), "plate_height_mm": round(u.PLATE_HEIGHT_M * 1000.0, 3)}


def manual_urls(task: TaskSpec) -> list[str]:
    """The manual's page URLs, numbered from 1 as the CLI's manual_<style>_step01.png and the pages' own captions."""
    return [f"/v1/tasks/{task.id}/manual/{k}.png" for k in range(1, len(task.manual_steps) + 1)]


def _rendered(render: Callable[[], T], what: str) -> T:
    """Render (or fetch from the cache) images; a renderer that cannot run here is a 503 saying so."""
    try:
        return render()
    except (KeyError, ValueError) as exc:  # an unknown style or a task the renderer rejects: the caller's input
        raise HTTPException(422, f"cannot render {what}: {exc}") from None
    except Exception as exc:
        raise HTTPException(503, f"cannot render {what} on this server: {type(exc).__name__}: {exc}") from None


@router.get("/suites", response_model=SuitesPublic)
def list_suites(_token: TokenDep) -> SuitesPublic:
    """Every suite of every family, each marked available (with its size) or not (with the reason)."""
    data = []
    for s in suites():
        n, why = suite_availability(s)
        if why is not None and n is None:  # its data is missing: installing it is the server operator's to do
            why = f"not installed on this server ({why}); its operator can install it, a client cannot"
        data.append(SuitePublic(name=s.name, family=s.family, description=s.description, available=why is None,
                                tasks=n, unavailable_because=why))
    return SuitesPublic(data=data, count=len(data))


@router.get("/tasks", response_model=TasksPublic)
def list_tasks(
    _token: TokenDep,
    suite: str = Query(..., min_length=1, max_length=128),
    offset: int = Query(0, ge=0, le=10_000_000),
    limit: int = Query(50, ge=1, le=500),
) -> TasksPublic:
    """A page of a suite's tasks; a suite whose data is not installed here is a 422 saying so."""
    try:
        ids = suite_task_ids(suite)
    except (OSError, ValueError) as exc:  # /v1/suites marks these unavailable with the same reason
        raise HTTPException(422, f"suite {suite!r} is not available on this server: {exc}") from None
    return TasksPublic(data=[task_public(load_task(t)) for t in ids[offset : offset + limit]], count=len(ids))


def question_image(task_id: str, index: int) -> FileResponse:
    """An image of a question item, in prompt order (numbered from 0).

    The one handler of both mounts: the REST API's (bearer token) and the dashboard's (its sign-in cookie).
    """
    try:
        task = load_task(task_id)
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0] if exc.args else exc)) from None
    if not isinstance(task, QuestionItem):
        raise HTTPException(404, f"task {task_id} is an assembly task: use /manual/<step>.png")
    if not 0 <= index < len(task.images):
        raise HTTPException(404, f"task {task_id} has {len(task.images)} image(s); index {index} does not exist")
    path = Path(task.images[index])
    if not path.is_file():
        raise HTTPException(410, f"image {index} of task {task_id} is missing on the server ({path.name})")
    # Official VSP blocks-world images are JPEG files: send each with its own type (the URL keeps .png).
    media = "image/jpeg" if path.suffix.lower() in (".jpg", ".jpeg") else "image/png"
    return FileResponse(path, media_type=media)


QUESTION_IMAGE_PATH = "/tasks/{task_id:path}/images/{index}.png"
router.add_api_route(QUESTION_IMAGE_PATH, question_image, response_class=FileResponse,
                     dependencies=[Depends(token_id)])


@router.get("/tasks/{task_id:path}/manual/{step}.png", response_class=FileResponse)
def manual_image(task_id: str, step: int, settings: SettingsDep, token: TokenDep,
                 style: str = Query("booklet", max_length=32)) -> FileResponse:
    """One step of an assembly task's visual manual; steps are numbered from 1."""
    from jarvis_sim.manuals import render_manual

    task = resolve_task(settings, task_id, token)
    if isinstance(task, QuestionItem):
        raise HTTPException(404, f"task {task_id} is a question item: use /images/<k>.png")
    n = len(task.manual_steps)
    if not 1 <= step <= n:  # checked before rendering: a wrong number costs nothing
        raise HTTPException(404, f"task {task_id} has {n} manual step(s), numbered 1 to {n}; step {step} does not exist")
    paths = _rendered(lambda: render_manual(task, style), f"the manual of {task_id} in style {style!r}")
    return FileResponse(paths[step - 1], media_type="image/png")


@router.get("/tasks/{task_id:path}/observation.png", response_class=FileResponse)
def observation_image(task_id: str, settings: SettingsDep, token: TokenDep) -> FileResponse:
    """The initial top-down observation of an assembly task."""
    from jarvis_sim.manuals.observation import initial_observation_png

    task = resolve_task(settings, task_id, token)
    if isinstance(task, QuestionItem):
        raise HTTPException(404, f"task {task_id} is a question item: use /images/<k>.png")
    path: Path = _rendered(lambda: initial_observation_png(task), f"the observation of {task_id}")
    return FileResponse(path, media_type="image/png")


@router.get("/tasks/{task_id:path}")
def get_task(task_id: str, settings: SettingsDep, token: TokenDep) -> dict[str, Any]:
    """The public part of a task: what an agent may see (an unknown id is a 404 listing valid ones)."""
    return task_public(resolve_task(settings, task_id, token))
