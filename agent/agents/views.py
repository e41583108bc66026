"""What an agent is given: a view of its episode, never the episode.

An assembly agent gets an `AssemblyView`: the task's public view (the loose bricks, the manual's steps, the
workspace; never where a brick must end up), the skill library's API text, the manual pages, a fresh
observation on request, the budgets, and a folder for its own files. A planning agent gets a `PlanningView`:
the one prompt of the episode. Neither holds the backend, the skill context, the record being built or the
token tally: the episode owns those, runs the programs and counts what the model spent.

Only agents registered as privileged (`register_agent(name, privileged=True)`: the oracles, the scripted
question solver) get the `Privileged*` view, which adds the full TaskSpec with its targets. The boundary is an
interface inside the harness's own process, between trusted modules; model-written code never reaches even
this much: it runs in the sandbox and reaches the world only through the skill RPC.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.llm.prompts import Prompt
from jarvis_sim.tasks.spec import TaskSpec


@dataclass(frozen=True)
class Budgets:
    """What an episode lets an agent spend."""

    rounds: int
    skill_calls: int
    wall_s: float | None  # a wall-clock safety net, never scored (None: none for the whole episode)
    sim_s: float


@dataclass(frozen=True)
class AssemblyView:
    """An assembly episode as a non-privileged agent sees it."""

    task_id: str
    public_task: Mapping[str, Any]  # TaskSpec.public_view(): loose bricks, manual steps, workspace; no targets
    library: str
    api: str  # the skill library's API section, as the prompt shows it
    budgets: Budgets
    episode_dir: Path  # the agent's own files (a model's recorded answers) go here
    manual_images: Callable[[], list[Path]]  # the manual's pages in the episode's style
    observe: Callable[[], str]  # renders the top camera now; the image's name in episode_dir


@dataclass(frozen=True)
class PrivilegedAssemblyView(AssemblyView):
    """The view of an agent registered as privileged: the task with its targets too."""

    target: TaskSpec


@dataclass(frozen=True)
class PlanningView:
    """A planning episode as a non-privileged agent sees it: its one prompt (manual, initial view, format)."""

    task_id: str
    episode_dir: Path
    prompt: Callable[[], Prompt]


@dataclass(frozen=True)
class PrivilegedPlanningView(PlanningView):
    """The planning view of an agent registered as privileged: the task with its targets too."""

    target: TaskSpec


def target_of(view: AssemblyView | PlanningView, agent: str) -> TaskSpec:
    """The target a privileged agent reads; a clear error if the view is not privileged."""
    if isinstance(view, PrivilegedAssemblyView | PrivilegedPlanningView):
        return view.target
    raise PermissionError(f"agent {agent!r} reads the task's target but was given a non-privileged view: "
                          "register it with register_agent(..., privileged=True)")
