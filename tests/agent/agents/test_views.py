"""Agents get views, never the episode: every registered agent, privileged or not, on a real MuJoCo episode."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from agent.agents import agent_names
from agent.agents.base import can_run
from agent.agents.registry import agent_factory, is_privileged, make_agent
from agent.agents.views import AssemblyView, PlanningView, PrivilegedAssemblyView, PrivilegedPlanningView
from agent.config import AgentConfig, Budget
from agent.episodes.assembly import AssemblyEpisode
from agent.episodes.job import EpisodeJob
from agent.episodes.planning import PlanningEpisode
from jarvis_sim.backends.base import Backend
from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.records import TokenAccount
from jarvis_sim.tasks.planning_family import planning_task_id
from jarvis_sim.tasks.registry import load_task
from jarvis_sim.tasks.spec import TaskSpec
from skills.context import SkillContext

# What only the harness and privileged agents may hold: the targets, the simulator, its ground truth, the
# skill context (which reaches the backend) and the tally an agent must never be able to overwrite.
GROUND_TRUTH = (TaskSpec, Assembly, Backend, WorldState, SkillContext, TokenAccount, AssemblyEpisode, PlanningEpisode)
EXPECTED_PRIVILEGED = {"oracle", "careful_oracle", "scripted"}


def _held(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every value a view holds, through dataclass fields, mappings and sequences (callables as they are)."""
    yield path, value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _held(getattr(value, f.name), f"{path}.{f.name}")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield f"{path}[{k!r}].key", k
            yield from _held(v, f"{path}[{k!r}]")
    elif isinstance(value, list | tuple):
        for k, v in enumerate(value):
            yield from _held(v, f"{path}[{k}]")


def _leaks(view: Any) -> list[str]:
    out = []
    for path, value in _held(view, "view"):
        if isinstance(value, GROUND_TRUTH):
            out.append(f"{path}: {type(value).__name__}")
        if isinstance(value, str) and path.endswith(".key") and value in {"target", "targets", "pose", "lattice"}:
            out.append(f"{path}: a key named {value!r}")
    return out


def test_the_privileged_agents_are_exactly_those_that_read_the_target() -> None:
    assert {n for n in agent_names() if is_privileged(n)} == EXPECTED_PRIVILEGED


def test_every_assembly_agent_gets_a_view_with_no_target_backend_or_tally_unless_privileged(
        tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    job = EpisodeJob(task_id=task.id, agent=AgentConfig(name="null"), budget=Budget(), episode_id="views")
    episode = AssemblyEpisode(job, task, backend, tmp_path)
    try:
        agents = [n for n in agent_names() if can_run(agent_factory(n), "assembly")]
        assert {"null", "shuffle", "oracle", "careful_oracle", "llm", "replay"} <= set(agents)
        for name in agents:
            view = episode.view(privileged=is_privileged(name))
            if is_privileged(name):
                assert isinstance(view, PrivilegedAssemblyView) and view.target is episode.task, name
                continue
            assert type(view) is AssemblyView, name
            assert _leaks(view) == [], name
        plain = episode.view(privileged=False)
        assert plain.public_task == task.public_view() and plain.api == episode.api_text()
        assert plain.budgets.skill_calls == job.budget.skill_calls and plain.budgets.sim_s > 0
        name = plain.observe()  # the one act that touches the world: it renders, it moves nothing
        assert isinstance(name, str) and (tmp_path / name).is_file()
        assert all(isinstance(p, Path) and p.is_file() for p in plain.manual_images())
    finally:
        episode.close()


def test_an_oracle_given_a_plain_view_is_refused_not_helped(tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    job = EpisodeJob(task_id=task.id, agent=AgentConfig(name="oracle"), budget=Budget(), episode_id="plain")
    episode = AssemblyEpisode(job, task, backend, tmp_path)
    try:
        with pytest.raises(PermissionError, match="privileged=True"):
            make_agent(AgentConfig(name="oracle")).assembly_programs(episode.view(privileged=False))
    finally:
        episode.close()


def test_every_planning_agent_gets_its_prompt_and_no_target_unless_privileged(
        tmp_path: Path, backend: Backend, task: TaskSpec) -> None:
    tid = planning_task_id("rgb", task.id)
    job = EpisodeJob(task_id=tid, agent=AgentConfig(name="llm", model="openai:gpt-4o"), budget=Budget())
    planned = load_task(tid)
    assert isinstance(planned, TaskSpec)
    episode = PlanningEpisode(job, planned, backend, tmp_path)
    for name in (n for n in agent_names() if can_run(agent_factory(n), "planning")):
        view = episode.view(privileged=is_privileged(name))
        if is_privileged(name):
            assert isinstance(view, PrivilegedPlanningView) and view.target is planned, name
        else:
            assert type(view) is PlanningView and _leaks(view) == [], name
    prompt = episode.view(privileged=False).prompt()
    assert "manual" in prompt.record_text().lower()
