"""A token's own tasks: register TaskSpecs (e.g. from `jarvis tasks from-ldraw`), list them, delete them.

Registered tasks run like any other: `POST /v1/episodes` with the task's id (only the owning token may).
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Response
from pydantic import BaseModel, ConfigDict, Field

from agent.server.deps import SettingsDep, TokenDep
from agent.server.schemas import TasksPublic
from agent.server.user_tasks import (
    MAX_TASKS_PER_TOKEN,
    UserTaskError,
    delete_task,
    owned_tasks,
    register_tasks,
)
from jarvis_sim.tasks.spec import TaskSpec

router = APIRouter(prefix="/v1/user-tasks", tags=["user tasks"])

MAX_TASKS_PER_REQUEST = 200


class UserTasksCreate(BaseModel):
    """TaskSpecs to register for the calling token (ids `lego/ldraw-...` or `lego/user-...`)."""

    model_config = ConfigDict(extra="forbid")

    tasks: list[TaskSpec] = Field(min_length=1, max_length=MAX_TASKS_PER_REQUEST,
                                  description=f"At most {MAX_TASKS_PER_REQUEST} a request, "
                                              f"{MAX_TASKS_PER_TOKEN} a token.")


def _views(tasks: list[TaskSpec]) -> TasksPublic:
    return TasksPublic(data=[t.public_view() for t in tasks], count=len(tasks))


@router.post("", status_code=201, response_model=TasksPublic,
             responses={409: {"description": "An id is registered by another token"},
                        422: {"description": "Invalid TaskSpec, id outside the user namespace, or over the limit"}})
def register(body: UserTasksCreate, settings: SettingsDep, token: TokenDep) -> TasksPublic:
    """Register (or replace) this token's tasks; answers their public views."""
    try:
        return _views(register_tasks(settings.data_dir, token, body.tasks))
    except UserTaskError as exc:
        raise HTTPException(exc.status, str(exc)) from None


@router.get("", response_model=TasksPublic)
def list_own(settings: SettingsDep, token: TokenDep) -> TasksPublic:
    """This token's registered tasks (public views)."""
    return _views(owned_tasks(settings.data_dir, token))


@router.delete("/{task_id:path}", status_code=204, responses={404: {"description": "No such task of this token"}})
def delete(task_id: str, settings: SettingsDep, token: TokenDep) -> Response:
    """Remove one of this token's tasks (episodes already run keep their records)."""
    if not delete_task(settings.data_dir, token, task_id):
        raise HTTPException(404, f"this token has no registered task {task_id!r}")
    return Response(status_code=204)
