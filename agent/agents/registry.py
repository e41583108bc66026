"""The agent registry: one name per agent kind; an unknown name lists the valid ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.config import AgentConfig

_AGENTS: dict[str, Callable[[AgentConfig], Any]] = {}


def register_agent(name: str) -> Callable[[Callable[[AgentConfig], Any]], Callable[[AgentConfig], Any]]:
    """Decorator: register an agent factory (a class or function taking the AgentConfig)."""

    def deco(factory: Callable[[AgentConfig], Any]) -> Callable[[AgentConfig], Any]:
        if name in _AGENTS:
            raise ValueError(f"agent {name!r} registered twice")
        _AGENTS[name] = factory
        return factory

    return deco


def agent_names() -> list[str]:
    """Registered agent names."""
    return sorted(_AGENTS)


def agent_factory(name: str) -> Callable[[AgentConfig], Any]:
    """The factory registered under a name (a class, for checking what kinds of task it can run)."""
    try:
        return _AGENTS[name]
    except KeyError:
        raise UnknownAgentError(f"unknown agent {name!r}; valid: {', '.join(agent_names())}") from None


class UnknownAgentError(KeyError):
    """An unknown agent name; the message lists the valid ones."""

    def __str__(self) -> str:
        return str(self.args[0])


def make_agent(config: AgentConfig) -> Any:
    """Build the agent named in the config."""
    try:
        factory = _AGENTS[config.name]
    except KeyError:
        raise UnknownAgentError(f"unknown agent {config.name!r}; valid: {', '.join(agent_names())}") from None
    return factory(config)
