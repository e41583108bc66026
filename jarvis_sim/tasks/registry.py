"""One registry for task families and their suites (LEGO assembly, VSP, GamiBench).

A family owns a task-id prefix (`lego/...`, `vsp/...`, `gamibench/...`) and lists its suites.
Families register themselves when `jarvis_sim.tasks.families` is imported, never by accident of
import order; an unknown suite or task names the valid ones.
"""

from __future__ import annotations

from jarvis_sim.tasks.family import (
    FAMILIES,
    QuestionFamily,
    SuiteInfo,
    TaskFamily,
    UnknownKeyError,
    register_family,
)
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.spec import TaskSpec

__all__ = ["QuestionFamily", "SuiteInfo", "TaskFamily", "UnknownKeyError", "register_family"]


def _ensure_loaded() -> None:
    # At first use, not at import: a user's plug-in (JARVIS_PLUGINS) imports this module to register itself.
    import jarvis_sim.tasks.families  # noqa: F401  (registers the built-in families and the JARVIS_PLUGINS ones)


def families() -> dict[str, TaskFamily]:
    """All registered families by name (the built-in ones, JARVIS_PLUGINS' and the entry points')."""
    _ensure_loaded()
    return dict(FAMILIES.items())


def suites() -> list[SuiteInfo]:
    """Every suite of every family."""
    return [s for f in families().values() for s in f.suites()]


def family_of_suite(suite: str) -> TaskFamily:
    """The family that offers a suite."""
    for f in families().values():
        if any(s.name == suite for s in f.suites()):
            return f
    raise UnknownKeyError("suite", suite, sorted(s.name for s in suites()))


def suite_availability(suite: str | SuiteInfo) -> tuple[int | None, str | None]:
    """(number of tasks, None) when a suite can be served here, (None, why not) when its data is missing
    (official VSP data not installed, a generated set not built), (0, why) when it holds no tasks: listings
    mark it instead of offering it. Listings pass the SuiteInfo they hold, which names its family: finding the
    family from the name lists every family's suites once per suite (278 suites: 0.5 s of a /v1/suites call)."""
    name = suite.name if isinstance(suite, SuiteInfo) else suite
    try:
        n = len(families()[suite.family].task_ids(name) if isinstance(suite, SuiteInfo) else suite_task_ids(name))
    except (KeyError, OSError, ValueError) as e:
        return None, str(e.args[0] if e.args else e)
    if n == 0:  # listed by its family, yet nothing to run (a text-input variant of an image-only VSP task)
        return 0, f"suite {name} holds no tasks: its variant or its data leaves out every item"
    return n, None


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
