"""Fixtures: a real server app (TestClient) with real worker processes over a fresh SQLite database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from agent.server.settings import ServerSettings


@pytest.fixture
def quiz_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the quiz test family here and in spawned workers."""
    monkeypatch.setenv("JARVIS_PLUGINS", "tests.fakes.quiz_family,tests.fakes.slow_agent")
    import tests.fakes.quiz_family
    import tests.fakes.slow_agent  # noqa: F401


def make_settings(tmp_path: Path, **kw: object) -> ServerSettings:
    """Settings for a test server in tmp_path."""
    # inline_agents off: these tests exercise the queue and the worker processes (inline has its own test).
    base: dict[str, object] = {"data_dir": tmp_path / "data", "workers": 1, "lease_s": 3.0, "heartbeat_s": 0.5,
                               "inline_agents": ()}
    base.update(kw)
    return ServerSettings.model_validate(base)


@pytest.fixture
def client(tmp_path: Path, quiz_plugin: None) -> Iterator[TestClient]:
    """A client of a server with one worker process."""
    app = create_app(make_settings(tmp_path))
    with TestClient(app) as c:
        yield c
