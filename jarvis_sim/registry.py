"""One small registry for every plug-in kind: name -> object or lazy factory, plus outside packages' entry points.

Backends, agents, LLM providers, motion planners, manual styles and answer scorers each keep one `Registry`.
A lazy entry ("package.module:attr") is imported only when chosen, so a missing optional dependency (Isaac Sim,
ROS 2, Ray) costs nothing until then and is named when it is. An outside package adds plug-ins through the
registry's entry-point group (e.g. `[project.entry-points."jarvis.backends"]`); a broken plug-in is reported
with a warning when the names are listed, never a crash of discovery. Every unknown name raises the one
`UnknownName` error, which lists the known names.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Generic, TypeVar, overload

T = TypeVar("T")

log = logging.getLogger(__name__)


class UnknownName(KeyError):
    """A name no registry entry has; the message lists the known ones."""

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        super().__init__(name)
        self.kind, self.name, self.known = kind, name, known

    def __str__(self) -> str:
        return f"unknown {self.kind} {self.name!r}; valid: {', '.join(self.known) or '(none)'}"


class PluginUnavailable(ImportError):
    """A registered plug-in whose module cannot be imported here; the message says what to install."""


class Registry(Generic[T]):
    """Named plug-ins of one kind."""

    def __init__(self, kind: str, entry_point_group: str | None = None) -> None:
        self.kind = kind
        self.entry_point_group = entry_point_group
        self._objects: dict[str, T] = {}
        self._lazy: dict[str, tuple[str, str]] = {}  # name -> ("module:attr", install hint)

    @overload
    def add(self, name: str, obj: T) -> T: ...

    @overload
    def add(self, name: str, *, lazy: str, install: str = "") -> None: ...

    def add(self, name: str, obj: T | None = None, *, lazy: str | None = None, install: str = "") -> T | None:
        """Register `obj` under `name`, or a lazy "module:attr" imported when the name is first asked for."""
        if (obj is None) == (lazy is None):
            raise ValueError(f"{self.kind} {name!r}: give an object or a lazy 'module:attr', not both or neither")
        if lazy is not None:
            if ":" not in lazy:
                raise ValueError(f"{self.kind} {name!r}: lazy target {lazy!r} must read 'module:attr'")
            self._lazy[name] = (lazy, install)
            self._objects.pop(name, None)
            return None
        assert obj is not None
        self._objects[name] = obj
        self._lazy.pop(name, None)
        return obj

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of `add`."""

        def deco(obj: T) -> T:
            return self.add(name, obj)

        return deco

    def _entry_points(self) -> Iterator[metadata.EntryPoint]:
        if self.entry_point_group:
            yield from metadata.entry_points(group=self.entry_point_group)

    def names(self) -> list[str]:
        """Every registered name, the outside packages' included."""
        return sorted({*self._objects, *self._lazy, *(ep.name for ep in self._entry_points())})

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def get(self, name: str) -> T:
        """The plug-in registered as `name`; `UnknownName` lists the others, `PluginUnavailable` says what to install."""
        if name in self._objects:
            return self._objects[name]
        if name in self._lazy:
            target, install = self._lazy[name]
            module_name, _, attr = target.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                hint = f"; install it with: {install}" if install else ""
                raise PluginUnavailable(f"{self.kind} {name!r} is not available ({exc}){hint}") from exc
            return self.add(name, getattr(module, attr))
        for ep in self._entry_points():
            if ep.name == name:
                try:
                    return self.add(name, ep.load())
                except Exception as exc:  # a broken outside package must say so, not crash its caller's listing
                    raise PluginUnavailable(f"{self.kind} {name!r} from entry point {ep.value!r} failed to load: "
                                            f"{exc}") from exc
        raise UnknownName(self.kind, name, self.names())
