"""The skill libraries, loaded: per library, the prompt's API text (signatures and docstrings, written for a model
to read), the allow-list the sandbox enforces (the names an agent program may call) and the RPC dispatcher
(name -> callable bound to a context, taking only the agent's arguments), all from the one skill registry."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import skills.library  # noqa: F401  (registers every built-in skill)
from skills.context import SkillContext
from skills.motion import CartesianPlanner
from skills.registry import LIBRARIES, SkillSpec, registered


def library(name: str) -> list[SkillSpec]:
    """The skills of one library, in registration order."""
    if name not in LIBRARIES:
        raise KeyError(f"unknown skill library {name!r}; valid: {', '.join(LIBRARIES)}")
    return [s for s in registered() if name in s.libraries]


def allow_list(name: str) -> frozenset[str]:
    """Names an agent program may call in this library."""
    return frozenset(s.name for s in library(name))


def api_text(name: str) -> str:
    """The API section of the agent prompt for a library."""
    return "\n\n".join(s.api_text() for s in library(name))


def bind(name: str, ctx: SkillContext) -> Mapping[str, Callable[..., Any]]:
    """The RPC dispatcher: each allowed skill bound to the context, counted and logged by it."""
    if ctx.motion is None:  # the built-in planner unless the episode chose another
        ctx.motion = CartesianPlanner()
    out: dict[str, Callable[..., Any]] = {}
    for spec in library(name):

        def call(*args: Any, _spec: SkillSpec = spec, **kwargs: Any) -> Any:
            return ctx.invoke(_spec, args, kwargs)

        functools.update_wrapper(call, spec.func)
        call.__signature__ = spec.signature  # type: ignore[attr-defined]
        out[spec.name] = call
    return out
