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
import os
import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Generic, TypeVar, overload

T = TypeVar("T")

log = logging.getLogger(__name__)


# Entry points by group, for one state of the import path: reading a group scans every installed distribution's
# metadata (~45 ms here), and one GET /v1/suites looked a family up 278 times (7 s of the server's CPU).
_PathState = tuple[tuple[str, "int | None"], ...]
_installed: tuple[_PathState, dict[str, metadata.EntryPoints]] = ((), {})


def _import_path_state() -> _PathState:
    """sys.path with each entry's mtime: installing or removing a distribution adds or removes a directory
    in one of them (its .dist-info), which changes that entry's mtime."""
    state: list[tuple[str, int | None]] = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            state.append((entry, None))
    return tuple(state)


def installed_entry_points(group: str) -> metadata.EntryPoints:
    """The installed distributions' entry points of `group`, read again only when the import path changed."""
    global _installed
    state = _import_path_state()
    if _installed[0] != state:
        _installed = (state, {})
    by_group = _installed[1]
    if group not in by_group:
        by_group[group] = metadata.entry_points(group=group)
    return by_group[group]


class UnknownName(KeyError):
    """A name no registry entry has; the message lists the valid ones (the first 30 of a long list).

    With a `hint` the valid names are examples of an open name space (task ids), not all of it: the message
    says what a name looks like and shows the examples."""

    def __init__(self, kind: str, name: str, known: list[str], hint: str = "") -> None:
        self.kind, self.name, self.known, self.hint = kind, name, list(known), hint
        shown = ", ".join(self.known[:30]) + (f", ... ({len(self.known)} in all)" if len(self.known) > 30 else "")
        listed = f"{hint}; for example: {shown}" if hint else f"valid: {shown or '(none)'}"
        # args[0] is the message, as callers that print a KeyError's first argument expect
        super().__init__(f"unknown {kind} {name!r}; {listed}")

    def __str__(self) -> str:
        return str(self.args[0])


class PluginUnavailable(ImportError):
    """A registered plug-in whose module cannot be imported here; the message says what to install."""


class Registry(Generic[T]):
    """Named plug-ins of one kind."""

    def __init__(self, kind: str, entry_point_group: str | None = None,
                 unknown: Callable[[str, list[str]], UnknownName] | None = None) -> None:
        self.kind = kind
        self.entry_point_group = entry_point_group
        # the kind's own subclass of UnknownName, for callers that catch it by its older name
        self._unknown = unknown or (lambda name, known: UnknownName(kind, name, known))
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
            yield from installed_entry_points(self.entry_point_group)

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
        raise self._unknown(name, self.names())

    def items(self) -> list[tuple[str, T]]:
        """Every plug-in, loaded, by name (a broken outside one is left out with a warning)."""
        out = []
        for name in self.names():
            try:
                out.append((name, self.get(name)))
            except PluginUnavailable as exc:
                log.warning("%s", exc)
        return out
