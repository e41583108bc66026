"""A question agent that takes its time ('sleepy'), for fault tests that must catch an episode mid-run.

It sleeps JARVIS_TEST_SLEEP_S seconds (default 5), then answers like the scripted agent. Loaded as a
plug-in (JARVIS_PLUGINS=...,tests.fakes.slow_agent) so the server's worker processes register it too.
"""

from __future__ import annotations

import os
import time

from agent.agents.base import AnswerTurn
from agent.agents.registry import agent_names, register_agent
from agent.config import AgentConfig
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily


class SleepyAgent:
    """Sleeps, then answers with the family's scripted (correct) answer."""

    def __init__(self, config: AgentConfig):
        self.config = config

    def answer_question(self, item: QuestionItem, family: QuestionFamily) -> AnswerTurn:
        """Sleep JARVIS_TEST_SLEEP_S seconds, then answer correctly."""
        time.sleep(float(os.environ.get("JARVIS_TEST_SLEEP_S", "5")))
        return AnswerTurn(text=family.scripted_answer(item), prompt_text=item.prompt)


if "sleepy" not in agent_names():
    register_agent("sleepy")(SleepyAgent)
