"""The agent registry: one name per agent kind; an unknown name lists the valid ones.

Agents outside this package (agent.integrations, other distributions) register through the `jarvis.agents`
entry-point group, loaded on the first lookup, so nothing here imports them. One whose optional dependency
is missing stays out of the list, and asking for it by name says why.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from agent.config import AgentConfig

ENTRY_POINT_GROUP = "jarvis.agents"

_AGENTS: dict[str, Callable[[AgentConfig], Any]] = {}
_UNAVAILABLE: dict[str, str] = {}  # plug-in name -> why it could not load
_plugins_loaded = False


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _AGENTS:
            continue
        try:
            _AGENTS[ep.name] = ep.load()
        except ImportError as exc:  # an optional extra not installed: not an error until someone asks for it
            _UNAVAILABLE[ep.name] = f"{ep.value} cannot be imported ({exc}); install the extra it belongs to"


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
    _load_plugins()
    return sorted(_AGENTS)


def _unknown(name: str) -> UnknownAgentError:
    if name in _UNAVAILABLE:
        return UnknownAgentError(f"agent {name!r} is not available: {_UNAVAILABLE[name]}")
    return UnknownAgentError(f"unknown agent {name!r}; valid: {', '.join(agent_names())}")


def agent_factory(name: str) -> Callable[[AgentConfig], Any]:
    """The factory registered under a name (a class, for checking what kinds of task it can run)."""
    _load_plugins()
    try:
        return _AGENTS[name]
    except KeyError:
        raise _unknown(name) from None


class UnknownAgentError(KeyError):
    """An unknown agent name; the message lists the valid ones."""

    def __str__(self) -> str:
        return str(self.args[0])


def make_agent(config: AgentConfig) -> Any:
    """Build the agent named in the config."""
    return agent_factory(config.name)(config)
