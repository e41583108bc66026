"""`jarvis view`: the dashboard alone, over run directories on disk (no database, no workers)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fastapi import FastAPI

from agent.server.dashboard.read_models import DirectorySource
from agent.server.dashboard.routes import router


def create_view_app(run_dirs: Sequence[Path]) -> FastAPI:
    """A read-only dashboard of the given run directories; a bad directory is refused by name."""
    app = FastAPI(title="JARVIS dashboard", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.dashboard_source = DirectorySource([Path(d) for d in run_dirs])
    app.state.settings = None  # no token: `jarvis view` serves the files of whoever runs it, on loopback
    app.include_router(router)
    return app
