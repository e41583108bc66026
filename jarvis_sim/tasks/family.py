"""What a task family is (its protocol, its suites), and the table families register themselves in.

The built-in families import this module to register; `jarvis_sim.tasks.registry`, which imports them all,
is where callers look families, suites and tasks up.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass

from jarvis_sim.registry import Registry, UnknownName
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.spec import TaskSpec


class UnknownKeyError(UnknownName):
    """An unknown family, suite or task; the message lists the valid ones (examples, with a hint)."""

    def __init__(self, what: str, key: str, valid: list[str], hint: str = ""):
        super().__init__(what, key, valid, hint)
        self.what, self.key, self.valid = what, key, self.known


@dataclass(frozen=True)
class SuiteInfo:
    """A named, ordered list of tasks of one family."""

    name: str
    family: str
    description: str


class TaskFamily(ABC):
    """A source of tasks: its suites, their task ids and loading a task by id."""

    name: str = ""

    @abstractmethod
    def suites(self) -> list[SuiteInfo]:
        """The suites this family offers."""

    @abstractmethod
    def task_ids(self, suite: str) -> list[str]:
        """Task ids of a suite, in order."""

    @abstractmethod
    def owns(self, task_id: str) -> bool:
        """True when this family's id scheme covers the id."""

    @abstractmethod
    def load(self, task_id: str) -> TaskSpec | QuestionItem:
        """The task; unknown ids raise UnknownKeyError."""


class QuestionFamily(TaskFamily):
    """A family of question items, with the solvers behind the scripted and random agents."""

    @abstractmethod
    def load(self, task_id: str) -> QuestionItem:
        """The question item."""

    @abstractmethod
    def scripted_answer(self, item: QuestionItem) -> str:
        """An answer from a solver (the ceiling), written the way a model should write it."""

    @abstractmethod
    def random_answer(self, item: QuestionItem, rng: random.Random) -> str:
        """A uniformly random well-formed answer (the floor)."""

    def prerequisite(self, task_id: str) -> str | None:
        """The task that must have been answered right before this one is asked (None: always asked)."""
        return None


# Outside packages add families through the `jarvis.families` entry points (a TaskFamily instance each).
FAMILIES: Registry[TaskFamily] = Registry(
    "task family", entry_point_group="jarvis.families",
    unknown=lambda name, known: UnknownKeyError("task family", name, known))


def register_family(family: TaskFamily) -> TaskFamily:
    """Add a family; a second family under the same name is an error."""
    if family.name in FAMILIES.names() and FAMILIES.get(family.name) is not family:
        raise ValueError(f"task family {family.name!r} registered twice")
    return FAMILIES.add(family.name, family)
