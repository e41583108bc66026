"""A tiny question family ("quiz": sums of two numbers) for testing the episode service without VSP data.

Loaded as a plug-in (JARVIS_PLUGINS=tests.fakes.quiz_family), so the server's worker processes see it too.
"""

from __future__ import annotations

import random
import re

from evaluator.answers import AnswerScore, ScoringMode, register_answer_scorer
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily, SuiteInfo, UnknownKeyError, register_family

N_ITEMS = 40


class QuizFamily(QuestionFamily):
    """Items quiz/<k>: 'What is a + b?' with a, b from a seeded generator."""

    name = "quiz"

    def suites(self) -> list[SuiteInfo]:
        return [SuiteInfo("quiz-mini", "quiz", f"{N_ITEMS} sums, for tests")]

    def task_ids(self, suite: str) -> list[str]:
        if suite != "quiz-mini":
            raise UnknownKeyError("suite", suite, ["quiz-mini"])
        return [f"quiz/{k}" for k in range(N_ITEMS)]

    def owns(self, task_id: str) -> bool:
        return task_id.startswith("quiz/")

    def load(self, task_id: str) -> QuestionItem:
        k = task_id.removeprefix("quiz/")
        if not k.isdigit() or int(k) >= N_ITEMS:
            raise UnknownKeyError("task", task_id, self.task_ids("quiz-mini")[:5])
        rng = random.Random(int(k))
        a, b = rng.randint(0, 99), rng.randint(0, 99)
        return QuestionItem(id=task_id, family="quiz", kind="sum", level="easy",
                            prompt=f"What is {a} + {b}? Answer with 'Answer: N'.", answer=a + b)

    def scripted_answer(self, item: QuestionItem) -> str:
        return f"Answer: {item.answer}"

    def random_answer(self, item: QuestionItem, rng: random.Random) -> str:
        return f"Answer: {rng.randint(0, 198)}"


register_family(QuizFamily())


@register_answer_scorer("quiz")
def score_quiz(item: QuestionItem, answer: str, mode: ScoringMode) -> AnswerScore:
    """Correct when the last 'Answer: N' equals the sum."""
    found = re.findall(r"Answer:\s*(-?\d+)", answer)
    valid = bool(found)
    correct = valid and int(found[-1]) == item.answer
    return AnswerScore(task_id=item.id, correct=correct, valid=valid, score=100.0 if correct else 0.0, mode=mode)
