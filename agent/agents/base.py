"""What an agent is: something that answers question items, drives assembly episodes, or both."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily

if TYPE_CHECKING:
    from agent.episodes.assembly import AssemblyEpisode
    from agent.episodes.planning import PlanningEpisode


@dataclass
class AnswerTurn:
    """One answer to a question item, with what it cost."""

    text: str
    prompt_text: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    cached: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class QuestionAgent(Protocol):
    """Answers a question item (VSP, GamiBench)."""

    def answer_question(self, item: QuestionItem, family: QuestionFamily) -> AnswerTurn:
        """Return the answer text. Only agents named as scripted may read item.answer."""


@runtime_checkable
class AssemblyAgent(Protocol):
    """Drives an assembly episode through its programs (run in the sandbox) until done or out of budget."""

    def run_assembly(self, episode: AssemblyEpisode) -> None:
        """Submit programs through episode.run_program(...) and stop when finished."""


@runtime_checkable
class PlanningAgent(Protocol):
    """Answers a planning task (JARVIS Table 4) with a plan, from the manual and the initial view."""

    def plan_assembly(self, episode: PlanningEpisode) -> AnswerTurn:
        """Return the plan answer (the JSON format of evaluator.plan_answers); episode.prompt() is what to show."""
