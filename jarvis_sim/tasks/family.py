"""What a task family is (its protocol, its suites), and the table families register themselves in.

The built-in families import this module to register; `jarvis_sim.tasks.registry`, which imports them all,
is where callers look families, suites and tasks up.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass

from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.spec import TaskSpec


class UnknownKeyError(KeyError):
    """An unknown registry key; the message lists the valid ones."""

    def __init__(self, what: str, key: str, valid: list[str], hint: str = ""):
        shown = ", ".join(valid[:30]) + (f", ... ({len(valid)} in all)" if len(valid) > 30 else "")
        # With a hint the valid list is examples of an open id space, not all of it: say so.
        listed = f"{hint}; for example: {shown}" if hint else f"valid: {shown}"
        super().__init__(f"unknown {what} {key!r}; {listed}")
        self.what, self.key, self.valid = what, key, valid

    def __str__(self) -> str:
        return str(self.args[0])


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


_FAMILIES: dict[str, TaskFamily] = {}


def register_family(family: TaskFamily) -> TaskFamily:
    """Add a family; a second family under the same name is an error."""
    if family.name in _FAMILIES and _FAMILIES[family.name] is not family:
        raise ValueError(f"task family {family.name!r} registered twice")
    _FAMILIES[family.name] = family
    return family
