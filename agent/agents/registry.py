"""The agent registry: one name per agent kind, and which of them are privileged (see agent.agents.views)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.config import AgentConfig
from jarvis_sim.registry import Registry, UnknownName

AgentFactory = Callable[[AgentConfig], Any]

AGENTS: Registry[AgentFactory] = Registry("agent", entry_point_group="jarvis.agents")
_PRIVILEGED: set[str] = set()

UnknownAgentError = UnknownName  # the one unknown-name error of every registry


def register_agent(name: str, *, privileged: bool = False) -> Callable[[AgentFactory], AgentFactory]:
    """Decorator: register an agent factory (a class or function taking the AgentConfig).

    `privileged=True` declares that the agent reads the task's target (an oracle, a scripted solver): only such
    agents are given a privileged view. It is a declaration made here, in the registry, not a flag the agent
    sets on itself.
    """

    def deco(factory: AgentFactory) -> AgentFactory:
        if name in AGENTS:
            raise ValueError(f"agent {name!r} registered twice")
        AGENTS.add(name, factory)
        if privileged:
            _PRIVILEGED.add(name)
        return factory

    return deco


def agent_names() -> list[str]:
    """Registered agent names."""
    return AGENTS.names()


def is_privileged(name: str) -> bool:
    """True for an agent registered as privileged."""
    return name in _PRIVILEGED


def agent_factory(name: str) -> AgentFactory:
    """The factory registered under a name (a class, for checking what kinds of task it can run)."""
    return AGENTS.get(name)


def make_agent(config: AgentConfig) -> Any:
    """Build the agent named in the config."""
    return AGENTS.get(config.name)(config)
