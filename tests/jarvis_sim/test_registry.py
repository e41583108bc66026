"""The one registry of every plug-in kind: lazy factories, outside packages' entry points, one unknown-name error."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from jarvis_sim.registry import PluginUnavailable, Registry, UnknownName


def _outside_package(root: Path, group: str, entries: dict[str, str], module: str, source: str) -> None:
    """An installed distribution as pip leaves one: a module and a .dist-info with entry_points.txt."""
    (root / f"{module}.py").write_text(source)
    info = root / "jarvis_outside_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: jarvis-outside-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))


def test_lazy_entries_import_only_when_chosen_and_say_what_to_install() -> None:
    reg: Registry[object] = Registry("widget")
    reg.add("json", lazy="json:dumps")
    reg.add("missing", lazy="jarvis_no_such_module:thing", install="pip install 'jarvis[nothing]'")
    assert reg.names() == ["json", "missing"]
    import json

    assert reg.get("json") is json.dumps
    with pytest.raises(PluginUnavailable, match=r"widget 'missing' is not available .*pip install 'jarvis\[nothing\]'"):
        reg.get("missing")


def test_an_unknown_name_lists_the_valid_ones_in_one_error_type() -> None:
    reg: Registry[int] = Registry("gizmo")
    reg.add("b", 2)
    reg.register("a")(1)
    with pytest.raises(UnknownName) as err:
        reg.get("c")
    assert str(err.value) == "unknown gizmo 'c'; valid: a, b" and err.value.args[0] == str(err.value)
    assert isinstance(err.value, KeyError) and err.value.known == ["a", "b"]
    with pytest.raises(ValueError, match="not both or neither"):
        reg.add("d")


def test_outside_packages_register_through_entry_points_and_a_broken_one_never_breaks_listing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    _outside_package(tmp_path, "jarvis.test_widgets", {"shiny": "outside_widgets:SHINY", "broken": "outside_widgets:NOPE"},
                     "outside_widgets", "SHINY = 'a shiny widget'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reg: Registry[str] = Registry("widget", entry_point_group="jarvis.test_widgets")
    reg.add("plain", "a plain widget")
    assert reg.names() == ["broken", "plain", "shiny"]
    assert reg.get("shiny") == "a shiny widget"
    with pytest.raises(PluginUnavailable, match="entry point 'outside_widgets:NOPE' failed to load"):
        reg.get("broken")
    with caplog.at_level(logging.WARNING):
        assert dict(reg.items()) == {"plain": "a plain widget", "shiny": "a shiny widget"}
    assert "broken" in caplog.text


def test_every_plugin_kind_uses_it() -> None:
    from agent.agents.registry import AGENTS
    from agent.llm.registry import PROVIDERS
    from evaluator.answer_score import ANSWER_SCORERS
    from jarvis_sim.backends.registry import BACKENDS
    from jarvis_sim.env import PROGRESS_SCORERS
    from jarvis_sim.manuals.styles import STYLES
    from jarvis_sim.tasks.family import FAMILIES
    from skills.planners.registry import PLANNERS

    kinds = [AGENTS, PROVIDERS, ANSWER_SCORERS, BACKENDS, PROGRESS_SCORERS, STYLES, FAMILIES, PLANNERS]
    assert all(isinstance(k, Registry) for k in kinds)
    for reg in kinds:
        with pytest.raises(UnknownName, match=f"unknown {reg.kind} 'no-such-thing'; valid: "):
            reg.get("no-such-thing")


def test_entry_points_are_read_once_per_state_of_the_import_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lookup does not rescan every installed distribution (GET /v1/suites did 278 times, 7 s); installing one
    into a directory already on the path is still seen."""
    from importlib import metadata

    reads: list[str] = []
    real = metadata.entry_points

    def counted(*, group: str) -> metadata.EntryPoints:
        reads.append(group)
        return real(group=group)

    monkeypatch.setattr(metadata, "entry_points", counted)
    monkeypatch.syspath_prepend(str(tmp_path))
    reg: Registry[str] = Registry("widget", entry_point_group="jarvis.test_later_widgets")
    for _ in range(50):
        assert reg.names() == []
    assert reads == ["jarvis.test_later_widgets"]
    _outside_package(tmp_path, "jarvis.test_later_widgets", {"late": "later_widgets:LATE"}, "later_widgets",
                     "LATE = 'installed while running'\n")
    assert reg.names() == ["late"] and reg.get("late") == "installed while running"
    assert len(reads) == 2
