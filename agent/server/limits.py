"""The server's ceilings on what one request may ask for: budgets and model-call options above them are a 422.

A Budget's own bounds are what any episode may use (a CLI user on their own machine included); a
server shared by many tokens sets lower ones, so no request can book hours of a worker, 100,000 skill
calls or gigabytes of images.
"""

from __future__ import annotations

from fastapi import HTTPException

from agent.config import AgentConfig, Budget
from agent.server.settings import ENV_PREFIX, ServerSettings

# (request field, settings field holding its ceiling, how to read the request's value)
_CEILINGS: tuple[tuple[str, str], ...] = (
    ("budget.rounds", "max_rounds"),
    ("budget.skill_calls", "max_skill_calls"),
    ("budget.wall_s", "max_wall_s"),
    ("budget.program_wall_s", "max_program_wall_s"),
    ("budget.sim_s", "max_sim_s"),
    ("budget.images", "max_images"),
    ("budget.record_bytes", "max_record_bytes"),
    ("agent.llm.timeout_s", "max_llm_timeout_s"),
    ("agent.llm.max_attempts", "max_llm_attempts"),
)


def check_limits(budget: Budget, agent: AgentConfig, settings: ServerSettings) -> None:
    """Raise a 422 naming the first field above this server's ceiling, the ceiling and its setting."""
    roots = {"budget": budget, "agent": agent}
    for field, setting in _CEILINGS:
        head, *rest = field.split(".")
        value: object = roots[head]
        for part in rest:
            value = getattr(value, part)
        if value is None:
            continue
        limit = getattr(settings, setting)
        assert isinstance(value, int | float)
        if value > limit:
            raise HTTPException(422, {
                "field": field,
                "error": f"{value:g} is above this server's limit of {limit:g} ({ENV_PREFIX}{setting.upper()})",
                "limit": limit,
            })
