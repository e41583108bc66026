"""One registry for task families and their suites (LEGO assembly, VSP, GamiBench).

A family owns a task-id prefix (`lego/...`, `vsp/...`, `gamibench/...`) and lists its suites.
Families register themselves when `jarvis_sim.tasks.families` is imported, never by accident of
import order; an unknown suite or task names the valid ones.
"""

from __future__ import annotations

import jarvis_sim.tasks.families  # noqa: F401  (registers the built-in families and the JARVIS_PLUGINS ones)
from jarvis_sim.tasks.family import (
    _FAMILIES,
    QuestionFamily,
    SuiteInfo,
    TaskFamily,
    UnknownKeyError,
    register_family,
)
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.spec import TaskSpec

__all__ = ["QuestionFamily", "SuiteInfo", "TaskFamily", "UnknownKeyError", "register_family"]


def families() -> dict[str, TaskFamily]:
    """All registered families by name."""
    return dict(_FAMILIES)


def suites() -> list[SuiteInfo]:
    """Every suite of every family."""
    return [s for f in families().values() for s in f.suites()]


def family_of_suite(suite: str) -> TaskFamily:
    """The family that offers a suite."""
    for f in families().values():
        if any(s.name == suite for s in f.suites()):
            return f
    raise UnknownKeyError("suite", suite, sorted(s.name for s in suites()))


def suite_availability(suite: str) -> tuple[int | None, str | None]:
    """(number of tasks, None) when a suite can be served here, or (None, why not) when its data is missing
    (official VSP data not installed, a generated set not built): listings mark it instead of failing later."""
    try:
        return len(suite_task_ids(suite)), None
    except (KeyError, OSError, ValueError) as e:
        return None, str(e.args[0] if e.args else e)


def suite_task_ids(suite: str) -> list[str]:
    """Task ids of a suite of any family."""
    return family_of_suite(suite).task_ids(suite)


def family_of_task(task_id: str) -> TaskFamily:
    """The family whose id scheme covers a task id."""
    for f in families().values():
        if f.owns(task_id):
            return f
    raise UnknownKeyError("task family for id", task_id, sorted(families()),
                          hint="task ids start with their family, e.g. lego/<assembly>/<k>, vsp/..., gamibench/...; "
                               "`jarvis suites` lists every suite and `jarvis tasks suite NAME` its tasks")


def load_task(task_id: str) -> TaskSpec | QuestionItem:
    """Load any task by id."""
    return family_of_task(task_id).load(task_id)
