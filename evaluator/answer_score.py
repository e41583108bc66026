"""The verdict on a free-text answer to a question item, and the registry of family answer scorers.

A family's scorer module (evaluator.vsp, evaluator.gamibench, or a plug-in's) registers itself here;
`evaluator.answers` imports the built-in ones and dispatches. Nothing a model writes may crash a scorer: a
scorer returns `valid=False` for an unparseable answer instead of raising.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jarvis_sim.registry import Registry
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

# Outside packages add a family's scorer through the `jarvis.answer_scorers` entry points.
ANSWER_SCORERS: Registry[AnswerScorer] = Registry("answer scorer", entry_point_group="jarvis.answer_scorers")


def register_answer_scorer(family: str) -> Callable[[AnswerScorer], AnswerScorer]:
    """Decorator: register the answer scorer of a question family."""
    return ANSWER_SCORERS.register(family)
