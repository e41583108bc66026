"""Agents, registered by name. Registration happens when this package is imported."""

from agent.agents.registry import agent_names, make_agent, register_agent

# Built-in agents register themselves on import; the list is explicit so nothing depends on import order.
from agent.agents import floors, llm, oracle, question  # noqa: F401  isort: skip

__all__ = ["agent_names", "make_agent", "register_agent"]
