"""The task browser's pages: suites, a suite's tasks, and a task with its manual in each style and its initial
observation. Images are rendered on first request (cached on disk by the manual renderer) in the threadpool."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import FileResponse, HTMLResponse

from agent.server.dashboard.pages import page
from agent.server.dashboard.task_browser import TASKS_PER_PAGE, suite_lines, suite_page, task_page
from agent.server.routes.tasks import QUESTION_IMAGE_PATH, question_image
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import load_task
from jarvis_sim.tasks.spec import TaskSpec

router = APIRouter(include_in_schema=False)
T = TypeVar("T")


def _task(task_id: str) -> TaskSpec | QuestionItem:
    try:
        return load_task(task_id)
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0] if exc.args else exc)) from None


def _assembly(task_id: str) -> TaskSpec:
    task = _task(task_id)
    if not isinstance(task, TaskSpec):
        raise HTTPException(404, f"task {task_id} is a question item: it has images, no manual or observation")
    return task


def _rendered(render: Callable[[], T], what: str) -> T:
    try:
        return render()
    except KeyError as exc:  # an unknown style: the caller's input
        raise HTTPException(422, f"cannot render {what}: {exc.args[0] if exc.args else exc}") from None
    except Exception as exc:  # no GL here, or the renderer failed: say so rather than a bare 500
        raise HTTPException(503, f"cannot render {what} here: {type(exc).__name__}: {exc}") from None


@router.get("/tasks", response_class=HTMLResponse)
def tasks_page(suite: str | None = Query(None, max_length=128), offset: int = Query(0, ge=0)) -> HTMLResponse:
    """Every suite by family; with ?suite=NAME, a page of that suite's tasks."""
    if suite is None:
        return page("tasks.html", families=suite_lines())
    try:
        lines, total = suite_page(suite, offset)
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0] if exc.args else exc)) from None
    except (OSError, ValueError) as exc:
        raise HTTPException(422, f"suite {suite!r} is not available here: {exc}") from None
    return page("suite.html", suite=suite, tasks=lines, total=total, offset=offset, per_page=TASKS_PER_PAGE)


@router.get("/tasks/{task_id:path}/manual/{style}/{step}.png", response_class=FileResponse)
def manual_page_image(task_id: str, style: str, step: int) -> FileResponse:
    """One manual page of an assembly task in one style; pages are numbered from 1."""
    from jarvis_sim.manuals import render_manual

    task = _assembly(task_id)
    n = len(task.manual_steps)
    if not 1 <= step <= n:
        raise HTTPException(404, f"task {task_id} has {n} manual page(s), numbered 1 to {n}; not {step}")
    paths = _rendered(lambda: render_manual(task, style), f"the manual of {task_id} in style {style!r}")
    return FileResponse(paths[step - 1], media_type="image/png")


@router.get("/tasks/{task_id:path}/observation.png", response_class=FileResponse)
def observation_image(task_id: str) -> FileResponse:
    """The initial top-down observation of an assembly task."""
    from jarvis_sim.manuals.observation import initial_observation_png

    task = _assembly(task_id)
    path: Path = _rendered(lambda: initial_observation_png(task), f"the observation of {task_id}")
    return FileResponse(path, media_type="image/png")


# Question images: the REST API's handler, mounted here too for pages signed in with the cookie.
router.add_api_route(QUESTION_IMAGE_PATH, question_image, response_class=FileResponse)


@router.get("/tasks/{task_id:path}", response_class=HTMLResponse)
def task_view(task_id: str, style: str = Query("booklet", max_length=32)) -> HTMLResponse:
    """A task as an agent meets it: its public view, its manual in the chosen style, its first observation."""
    from jarvis_sim.manuals import UnknownStyleError, get_style, manual_styles

    try:
        get_style(style)
    except UnknownStyleError as exc:
        raise HTTPException(422, str(exc.args[0])) from None
    try:
        view = task_page(task_id)
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0] if exc.args else exc)) from None
    return page("task.html", t=view, style=style, styles=manual_styles())
