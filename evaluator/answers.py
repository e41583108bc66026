"""Scoring of free-text answers to question items (VSP, GamiBench), one scorer per family.

Family scorers register here (`register_answer_scorer`) when `evaluator.answer_families` is imported;
`score_answer` dispatches on the item's family. Nothing a model writes may crash a scorer: a scorer
returns `valid=False` for an unparseable answer instead of raising.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jarvis_sim.tasks.question import QuestionItem

ScoringMode = Literal["official", "strict"]


class AnswerScore(BaseModel):
    """The verdict on one answer."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    correct: bool
    valid: bool = Field(description="False when the answer could not be parsed (it then counts as wrong).")
    score: float = Field(ge=0.0, le=100.0, description="100 for correct; partial credit where the task has it.")
    mode: ScoringMode = "official"
    details: dict[str, Any] = Field(default_factory=dict)


AnswerScorer = Callable[[QuestionItem, str, ScoringMode], AnswerScore]

_SCORERS: dict[str, AnswerScorer] = {}

# Modules that register a family's scorer; listed here so registration never depends on import order.
SCORER_MODULES = ("evaluator.vsp", "evaluator.gamibench")


def register_answer_scorer(family: str) -> Callable[[AnswerScorer], AnswerScorer]:
    """Decorator: register the answer scorer of a question family."""

    def deco(fn: AnswerScorer) -> AnswerScorer:
        _SCORERS[family] = fn
        return fn

    return deco


def _ensure_loaded() -> None:
    for name in SCORER_MODULES:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


def answer_families() -> list[str]:
    """Families with a registered answer scorer."""
    _ensure_loaded()
    return sorted(_SCORERS)


def score_answer(item: QuestionItem, answer: str, mode: ScoringMode = "official") -> AnswerScore:
    """Score an answer text against an item's ground truth."""
    _ensure_loaded()
    try:
        scorer = _SCORERS[item.family]
    except KeyError:
        raise KeyError(f"no answer scorer for family {item.family!r}; known: {sorted(_SCORERS)}") from None
    if not isinstance(answer, str):
        answer = "" if answer is None else str(answer)
    return scorer(item, answer, mode)
