"""One registry of skills, for both tool libraries of the JARVIS paper.

A skill is a plain typed function whose first parameter is the SkillContext (the simulator side) and
whose other parameters are plain values. The registry produces, per library:
- the API text of the agent prompt (signatures and docstrings, written for a model to read),
- the allow-list the sandbox enforces (the names an agent program may call),
- the RPC dispatcher: name -> callable bound to a context, taking only the agent's arguments.
"""

from __future__ import annotations

import functools
import inspect
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_type_hints

if TYPE_CHECKING:
    from skills.context import SkillContext

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


def _ensure_loaded() -> None:
    import skills.library  # noqa: F401  (registers every built-in skill)


def library(name: str) -> list[SkillSpec]:
    """The skills of one library, in registration order."""
    _ensure_loaded()
    if name not in LIBRARIES:
        raise KeyError(f"unknown skill library {name!r}; valid: {', '.join(LIBRARIES)}")
    return [s for s in _SKILLS.values() if name in s.libraries]


def allow_list(name: str) -> frozenset[str]:
    """Names an agent program may call in this library."""
    return frozenset(s.name for s in library(name))


def api_text(name: str) -> str:
    """The API section of the agent prompt for a library."""
    return "\n\n".join(s.api_text() for s in library(name))


def bind(name: str, ctx: SkillContext) -> Mapping[str, Callable[..., Any]]:
    """The RPC dispatcher: each allowed skill bound to the context, counted and logged by it."""
    out: dict[str, Callable[..., Any]] = {}
    for spec in library(name):

        def call(*args: Any, _spec: SkillSpec = spec, **kwargs: Any) -> Any:
            return ctx.invoke(_spec, args, kwargs)

        functools.update_wrapper(call, spec.func)
        call.__signature__ = spec.signature  # type: ignore[attr-defined]
        out[spec.name] = call
    return out
