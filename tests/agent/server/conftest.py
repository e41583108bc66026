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


PG_BIN = Path("/usr/lib/postgresql")


def _pg_bin() -> Path | None:
    """The newest local PostgreSQL server's bin directory, if one is installed."""
    found = sorted(PG_BIN.glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0)
    return found[-1].parent if found else None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on a loopback port (JARVIS_TEST_PG_URL uses an existing server instead).

    Yields a server URL without a database name; skips when neither a server nor psycopg is available.
    """
    import os
    import shutil
    import socket
    import subprocess
    import tempfile

    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'jarvis[postgres]')")
    if os.environ.get("JARVIS_TEST_PG_URL"):
        yield os.environ["JARVIS_TEST_PG_URL"].rstrip("/")
        return
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("no PostgreSQL server installed (apt-get install postgresql) and JARVIS_TEST_PG_URL unset")
    # Not under pytest's tmp root: that is private to root, and the server runs as the postgres user.
    root = Path(tempfile.mkdtemp(prefix="jarvis-pg-"))
    data = root / "data"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    as_postgres: list[str] = []
    if os.geteuid() == 0:  # the server refuses to run as root
        shutil.chown(root, "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    for cmd in ([str(bin_dir / "initdb"), "-D", str(data), "-U", "jarvis", "--auth=trust", "-E", "UTF8"],
                [str(bin_dir / "pg_ctl"), "-D", str(data), "-w", "-l", str(root / "log"), "-o",
                 f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start"]):
        r = subprocess.run([*as_postgres, *cmd], capture_output=True, text=True)
        if r.returncode != 0:
            shutil.rmtree(root, ignore_errors=True)
            pytest.skip(f"could not start a test PostgreSQL server: {cmd[0]}: {(r.stderr or r.stdout)[-300:]}")
    try:
        yield f"postgresql+psycopg://jarvis@127.0.0.1:{port}"
    finally:
        subprocess.run([*as_postgres, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A fresh, empty database on the test PostgreSQL server."""
    import uuid

    from sqlalchemy import create_engine, text

    name = "jarvis_" + uuid.uuid4().hex[:10]
    admin = create_engine(postgres_server + "/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return f"{postgres_server}/{name}"
