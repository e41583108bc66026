"""The task browser's content: suites of every family, a suite's tasks, one task as an agent meets it.

It reads the task registry the REST API's /v1/suites and /v1/tasks read, and shows what those show: a
task's public view (never a target pose or a ground-truth answer), its manual in each style and its
initial observation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import load_task, suite_availability, suite_task_ids, suites
from jarvis_sim.tasks.spec import TaskSpec

TASKS_PER_PAGE = 100


@dataclass
class SuiteLine:
    """A suite and its variants (VSP's `name@setting` prompt settings), with sizes or why it is not here."""

    name: str
    family: str
    description: str
    tasks: int | None
    unavailable_because: str | None
    variants: list[str] = field(default_factory=list)


@dataclass
class TaskLine:
    """One task of a suite, in numbers."""

    id: str
    family: str
    difficulty: str | None = None
    horizon: int | None = None
    initial_bricks: int | None = None
    steps: int | None = None
    budget_s: float | None = None
    kind: str | None = None
    images: int | None = None


def suite_lines() -> dict[str, list[SuiteLine]]:
    """Every suite, by family; a variant is listed under its base suite rather than on a line of its own."""
    by_name: dict[str, SuiteLine] = {}
    variants: list[tuple[str, str]] = []
    for s in suites():
        base, at, _ = s.name.partition("@")
        if at and base in by_name:
            variants.append((base, s.name))
            continue
        n, why = suite_availability(s)
        by_name[s.name] = SuiteLine(s.name, s.family, s.description, n, why)
    for base, name in variants:
        by_name[base].variants.append(name)
    out: dict[str, list[SuiteLine]] = {}
    for line in by_name.values():
        out.setdefault(line.family, []).append(line)
    return out


def task_line(task_id: str) -> TaskLine:
    """The numbers of one task of any family."""
    task = load_task(task_id)
    if isinstance(task, QuestionItem):
        return TaskLine(task.id, task.family, difficulty=task.level, kind=task.kind, images=len(task.images))
    return TaskLine(task.id, task.family, difficulty=task.difficulty, horizon=len(task.action_bricks),
                    initial_bricks=len(task.initial), steps=len(task.manual_steps), budget_s=task.time_budget_s)


def suite_page(suite: str, offset: int) -> tuple[list[TaskLine], int]:
    """A page of a suite's tasks and the suite's size; KeyError (unknown) or OSError/ValueError (data missing)."""
    ids = suite_task_ids(suite)
    return [task_line(t) for t in ids[offset: offset + TASKS_PER_PAGE]], len(ids)


@dataclass
class TaskPage:
    """One task as the page shows it."""

    id: str
    family: str
    public: dict[str, Any]
    assembly: bool
    manual_steps: int = 0
    images: int = 0


def task_page(task_id: str) -> TaskPage:
    """A task's public view; KeyError names an unknown id."""
    task: TaskSpec | QuestionItem = load_task(task_id)
    if isinstance(task, QuestionItem):
        return TaskPage(task.id, task.family, task.public_view(), assembly=False, images=len(task.images))
    return TaskPage(task.id, task.family, task.public_view(), assembly=True, manual_steps=len(task.manual_steps))
