"""Non-LLM agents for question families: the scripted solver (ceiling) and the random answerer (floor)."""

from __future__ import annotations

import random

from agent.agents.base import AnswerTurn
from agent.agents.registry import register_agent
from agent.config import AgentConfig
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily


@register_agent("scripted", privileged=True)
class ScriptedAgent:
    """Answers by solving the item (search over its text representation, or from ground truth where the
    family has no solver). Registered as privileged: it is the ceiling every table reports."""

    def __init__(self, config: AgentConfig):
        self.config = config

    def answer_question(self, item: QuestionItem, family: QuestionFamily) -> AnswerTurn:
        """The family solver's answer."""
        return AnswerTurn(text=family.scripted_answer(item), prompt_text=item.prompt)


@register_agent("random")
class RandomAgent:
    """A uniformly random well-formed answer, seeded per item: the floor."""

    def __init__(self, config: AgentConfig):
        self.config = config

    def answer_question(self, item: QuestionItem, family: QuestionFamily) -> AnswerTurn:
        """A random answer; the same seed and item give the same answer."""
        rng = random.Random(f"{self.config.seed}:{item.id}")
        return AnswerTurn(text=family.random_answer(item, rng), prompt_text=item.prompt)
