"""What an agent is: something that answers question items, writes an assembly episode's programs, or plans.

Agents are policies only. The episode (agent.episodes) owns the loop: it shows an agent a view
(agent.agents.views), runs the programs it writes in the sandbox and keeps the record and the token tally.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from agent.agents.views import AssemblyView, PlanningView
from agent.llm.prompts import Prompt
from jarvis_sim.records import TokenAccount
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily


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


@dataclass(frozen=True)
class WrittenAnswer:
    """A writer's answer to one prompt, with what it cost."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


class ProgramWriter(Protocol):
    """Answers an assembly episode's prompts with programs (the llm and replay agents' model)."""

    experience: str | None  # lessons from earlier runs the writer brings, shown in its prompts

    def write(self, prompt: Prompt) -> WrittenAnswer:
        """Answer one prompt."""

    def usage(self) -> TokenAccount:
        """What every answer so far cost (cached and retried calls included), as the model reported it."""


@runtime_checkable
class QuestionAgent(Protocol):
    """Answers a question item (VSP, GamiBench)."""

    def answer_question(self, item: QuestionItem, family: QuestionFamily) -> AnswerTurn:
        """Return the answer text. Only agents registered as privileged may read item.answer."""


@runtime_checkable
class ProgramWritingAgent(Protocol):
    """Writes an assembly episode's programs one prompt at a time; the episode runs the paper's modes."""

    def program_writer(self, view: AssemblyView) -> ProgramWriter:
        """The writer for this episode."""


@runtime_checkable
class ScriptedAssemblyAgent(Protocol):
    """Hands an assembly episode its programs up front (the oracles, the floors); the episode runs each."""

    def assembly_programs(self, view: AssemblyView) -> list[str]:
        """The programs to run, in order (none at all is a valid answer)."""


@runtime_checkable
class PlanningAgent(Protocol):
    """Answers a planning task (JARVIS Table 4) with a plan, from the manual and the initial view."""

    def plan_assembly(self, view: PlanningView) -> AnswerTurn:
        """Return the plan answer (the JSON format of evaluator.plan_answers); view.prompt() is what to show."""


TaskKind = Literal["question", "planning", "assembly"]
_NEEDS: dict[TaskKind, tuple[str, ...]] = {
    "question": ("answer_question",), "planning": ("plan_assembly",),
    "assembly": ("program_writer", "assembly_programs"),
}


def can_run(agent: object, kind: TaskKind) -> bool:
    """True when an agent (or its class) has what a task of this kind asks of it."""
    return any(hasattr(agent, method) for method in _NEEDS[kind])
