"""The FastAPI application: routes per resource, settings from the environment, workers on start-up."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from agent.server.db import make_engine, migrate
from agent.server.interactive import InteractiveSessions
from agent.server.queue import EpisodeQueue
from agent.server.routes import episodes, health, runs, tasks, user_tasks
from agent.server.settings import ServerSettings
from agent.server.workers import WorkerPool
from jarvis_sim.tasks.registry import UnknownKeyError

log = logging.getLogger(__name__)

API_VERSION = "1.0.0"


def create_app(settings: ServerSettings | None = None, start_workers: bool = True) -> FastAPI:
    """Build the application; workers start with the app's lifespan when `start_workers`."""
    settings = settings or ServerSettings.from_env()
    settings.check_startable()
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stop = threading.Event()
        if start_workers and settings.workers > 0:
            app.state.pool = WorkerPool(settings, app.state.queue)
            app.state.pool.start()

        # Renew interactive leases well inside their lifetime; reap here too when no pool does it.
        period = min(5.0, settings.lease_s / 3)

        def housekeeping() -> None:
            while not stop.wait(period):
                try:
                    app.state.interactive.renew()
                    app.state.interactive.expire_idle()
                    if app.state.pool is None:
                        app.state.queue.reap_expired()
                except Exception:
                    log.exception("housekeeping failed")

        keeper = threading.Thread(target=housekeeping, name="jarvis-housekeeping", daemon=True)
        keeper.start()
        try:
            yield
        finally:
            stop.set()
            if getattr(app.state, "pool", None) is not None:
                app.state.pool.stop()
            app.state.interactive.close_all()

    app = FastAPI(
        title="JARVIS",
        version=API_VERSION,
        description="Episodes of manual-guided LEGO assembly (Franka Panda), VSP and GamiBench, over REST.",
        lifespan=lifespan,
    )
    migrate(settings.resolved_db_url)
    engine = make_engine(settings.resolved_db_url)
    app.state.settings = settings
    app.state.queue = EpisodeQueue(engine, settings.lease_s, settings.max_attempts)
    app.state.interactive = InteractiveSessions(settings, app.state.queue)
    app.state.pool = None
    app.state.sandbox_layers = _sandbox_layers()

    @app.exception_handler(UnknownKeyError)
    async def _unknown_key(_request: Request, exc: UnknownKeyError) -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": str(exc), "valid": exc.valid[:200]})

    @app.exception_handler(KeyError)
    async def _key_error(_request: Request, exc: KeyError) -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": str(exc.args[0]) if exc.args else "not found"})

    @app.exception_handler(ValueError)
    async def _value_error(_request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": str(exc)})

    for module in (health, tasks, episodes, runs, user_tasks):
        app.include_router(module.router)
    return app


def _sandbox_layers() -> dict[str, Any]:
    """Which isolation layers programs run under on this host (reported by /healthz)."""
    from agent.sandbox.layers import detect
    from agent.sandbox.limits import SandboxLayers

    report = detect(SandboxLayers()).report
    return {"active": report.active_names(), "degraded": report.degraded(), "details": report.details}
