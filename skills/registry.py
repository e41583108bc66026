"""One registry of skills, for both tool libraries of the JARVIS paper: the `skill` decorator and `SkillSpec`.

A skill is a plain typed function whose first parameter is the SkillContext (the simulator side) and
whose other parameters are plain values. skills.libraries loads the built-in skills and produces, per
library, the prompt's API text, the sandbox's allow-list and the RPC dispatcher from these specs.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_type_hints

LibraryName = Literal["task", "generic"]
LIBRARIES: tuple[LibraryName, ...] = ("task", "generic")


@dataclass(frozen=True)
class SkillSpec:
    """A registered skill: its function, the libraries exposing it, and its agent-facing signature."""

    name: str
    func: Callable[..., Any]
    libraries: tuple[LibraryName, ...]

    @property
    def signature(self) -> inspect.Signature:
        """The signature an agent sees (without the context parameter)."""
        sig = inspect.signature(self.func)
        params = list(sig.parameters.values())[1:]
        hints = get_type_hints(self.func)
        params = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in params]
        return sig.replace(parameters=params, return_annotation=hints.get("return", sig.return_annotation))

    def api_text(self) -> str:
        """`name(args) -> result` followed by the docstring, indented."""
        sig = str(self.signature)
        for mod in ("skills.types.", "typing.", "builtins."):
            sig = sig.replace(mod, "")
        doc = textwrap.indent(inspect.cleandoc(self.func.__doc__ or ""), "    ")
        return f"{self.name}{sig}\n{doc}"


_SKILLS: dict[str, SkillSpec] = {}


def skill(*libraries: LibraryName) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register a skill in one or both libraries."""
    for lib in libraries:
        if lib not in LIBRARIES:
            raise ValueError(f"unknown skill library {lib!r}; valid: {LIBRARIES}")

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        if func.__name__ in _SKILLS:
            raise ValueError(f"skill {func.__name__!r} registered twice")
        if not func.__doc__:
            raise ValueError(f"skill {func.__name__!r} needs a docstring: it is the agent's documentation")
        _SKILLS[func.__name__] = SkillSpec(func.__name__, func, tuple(libraries))
        return func

    return deco


def registered() -> list[SkillSpec]:
    """Every registered skill, in registration order (skills.libraries loads the built-in ones)."""
    return list(_SKILLS.values())
