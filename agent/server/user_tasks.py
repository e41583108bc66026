"""Tasks a REST token registers for itself (its own LDraw models, via `jarvis tasks from-ldraw`).

Stored as one JSON file per task under <data_dir>/user_tasks/, named by a hash of the id (never by the id,
so no id can name a path), holding the owner token's id and the TaskSpec. Ids live in their own
namespace (`lego/ldraw-...` or `lego/user-...`), which generated pool ids never use, so a registered task
cannot shadow a benchmark task. An id is owned by the token that registered it first; only that token
sees, runs or deletes it. Workers read the file when they claim an episode of a registered task.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

from jarvis_sim.tasks.spec import TaskSpec

USER_PREFIXES = ("lego/ldraw-", "lego/user-")
MAX_TASKS_PER_TOKEN = 1000


class UserTaskError(Exception):
    """A registration the store refuses; `status` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def is_user_task_id(task_id: str) -> bool:
    """True for ids in the registered-task namespace."""
    return task_id.startswith(USER_PREFIXES)


def _folder(data_dir: Path) -> Path:
    return data_dir / "user_tasks"


def _path(data_dir: Path, task_id: str) -> Path:
    return _folder(data_dir) / (hashlib.sha256(task_id.encode()).hexdigest()[:32] + ".json")


def _read(path: Path) -> tuple[str, TaskSpec] | None:
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
        return str(obj["owner"]), TaskSpec.model_validate(obj["task"])
    except (OSError, ValueError, KeyError):
        return None


def owned_tasks(data_dir: Path, owner: str) -> list[TaskSpec]:
    """This token's registered tasks, by id."""
    folder = _folder(data_dir)
    if not folder.is_dir():
        return []
    found = [_read(p) for p in sorted(folder.glob("*.json"))]
    return sorted((t for f in found if f is not None and f[0] == owner for t in [f[1]]), key=lambda t: t.id)


def user_task(data_dir: Path, task_id: str, owner: str | None = None) -> TaskSpec | None:
    """The registered task with this id (only when `owner` owns it, if given), or None."""
    if not is_user_task_id(task_id):
        return None
    found = _read(_path(data_dir, task_id))
    if found is None or found[1].id != task_id or (owner is not None and found[0] != owner):
        return None
    return found[1]


def register_tasks(data_dir: Path, owner: str, tasks: list[TaskSpec]) -> list[TaskSpec]:
    """Store tasks for a token (replacing its own tasks of the same ids); UserTaskError when refused."""
    for t in tasks:
        if not is_user_task_id(t.id):
            raise UserTaskError(422, f"task id {t.id!r}: registered tasks need an id starting with "
                                     f"{' or '.join(USER_PREFIXES)} (jarvis tasks from-ldraw writes such ids)")
    ids = [t.id for t in tasks]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise UserTaskError(422, f"task ids repeated in the request: {dup[:5]}")
    existing = {t.id for t in owned_tasks(data_dir, owner)}
    new = [i for i in ids if i not in existing]
    if len(existing) + len(new) > MAX_TASKS_PER_TOKEN:
        raise UserTaskError(422, f"a token may register at most {MAX_TASKS_PER_TOKEN} tasks "
                                 f"({len(existing)} registered, {len(new)} new)")
    for t in tasks:
        found = _read(_path(data_dir, t.id))
        if found is not None and found[0] != owner:
            raise UserTaskError(409, f"task id {t.id!r} is registered by another token; choose another id")
    folder = _folder(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for t in tasks:
        path = _path(data_dir, t.id)
        tmp = path.with_name(f"{path.stem}.{uuid.uuid4().hex[:8]}.tmp")
        tmp.write_text(json.dumps({"owner": owner, "task": t.model_dump(mode="json")}), encoding="utf-8")
        os.replace(tmp, path)
    return tasks


def delete_task(data_dir: Path, owner: str, task_id: str) -> bool:
    """Remove one of this token's tasks; False when it has no such task."""
    if user_task(data_dir, task_id, owner) is None:
        return False
    _path(data_dir, task_id).unlink(missing_ok=True)
    return True
