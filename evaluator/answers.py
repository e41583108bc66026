"""Scoring of free-text answers to question items (VSP, GamiBench): dispatch on the item's family.

The built-in family scorers are imported here, so registration never depends on import order; a plug-in
family registers through `evaluator.answer_score.register_answer_scorer`.
"""

from __future__ import annotations

from evaluator import gamibench, vsp  # noqa: F401  (each registers its family's scorer)
from evaluator.answer_score import ANSWER_SCORERS, AnswerScore, ScoringMode, register_answer_scorer
from jarvis_sim.tasks.question import QuestionItem

__all__ = ["AnswerScore", "ScoringMode", "answer_families", "register_answer_scorer", "score_answer"]


def answer_families() -> list[str]:
    """Families with a registered answer scorer."""
    return ANSWER_SCORERS.names()


def score_answer(item: QuestionItem, answer: str, mode: ScoringMode = "official") -> AnswerScore:
    """Score an answer text against an item's ground truth."""
    scorer = ANSWER_SCORERS.get(item.family)
    if not isinstance(answer, str):
        answer = "" if answer is None else str(answer)
    return scorer(item, answer, mode)
