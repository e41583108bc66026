"""The FastAPI application: routes per resource, settings from the environment, workers on start-up."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import OperationalError

from agent.llm.errors import ModelStringError
from agent.server import docs
from agent.server.dashboard.routes import router as dashboard_router
from agent.server.db import make_engine, migrate
from agent.server.gate import PUBLIC_PATHS, RequestGate
from agent.server.interactive import InteractiveSessions
from agent.server.queue import EpisodeQueue, QuotaExceeded
from agent.server.repeats import is_disk_full, log_failure, repeat_limited
from agent.server.routes import episodes, health, runs, tasks, user_tasks
from agent.server.settings import ServerSettings
from agent.server.workers import WorkerPool
from jarvis_sim.tasks.registry import UnknownKeyError
from jarvis_sim.text import storable, storable_json

log = logging.getLogger(__name__)

API_VERSION = "1.0.0"


def create_app(settings: ServerSettings | None = None, start_workers: bool = True) -> FastAPI:
    """Build the application; workers start with the app's lifespan when `start_workers`."""
    settings = settings or ServerSettings.from_env()
    settings.check_startable()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    repeat_limited(log, settings.log_repeat_s)

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
                except Exception as exc:  # a full or locked database: one line per condition per interval
                    log_failure(log, "housekeeping", exc)

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
        docs_url=None,  # served by agent.server.docs from packaged assets instead of a CDN
        redoc_url=None,
    )
    migrate(settings.resolved_db_url)
    engine = make_engine(settings.resolved_db_url)
    app.state.settings = settings
    app.state.queue = EpisodeQueue(engine, settings.lease_s, settings.max_attempts)
    app.state.interactive = InteractiveSessions(settings, app.state.queue)
    app.state.pool = None
    app.state.sandbox_layers = _sandbox_layers()

    @app.exception_handler(RequestValidationError)
    async def _invalid_body(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": validation_errors(exc.errors())})

    @app.exception_handler(UnknownKeyError)
    async def _unknown_key(_request: Request, exc: UnknownKeyError) -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": str(exc), "valid": exc.valid[:200]})

    # Domain errors map to HTTP explicitly; anything else (a ValueError or KeyError from a bug included)
    # stays a 500 with its traceback in the log, instead of passing for the caller's mistake.
    @app.exception_handler(QuotaExceeded)
    async def _quota(_request: Request, exc: QuotaExceeded) -> JSONResponse:
        return JSONResponse(status_code=429, content={"detail": str(exc)}, headers={"Retry-After": "5"})

    @app.exception_handler(ModelStringError)
    async def _model_string(_request: Request, exc: ModelStringError) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": {"field": "agent.model", "error": str(exc)}})

    @app.exception_handler(OSError)
    async def _os_error(request: Request, exc: OSError) -> JSONResponse:
        if is_disk_full(exc):
            log.error("%s %s: disk full: %s", request.method, request.url.path, exc)
            return JSONResponse(status_code=507, content={"detail": "the server's disk is full: "
                                f"{exc.strerror or exc}; nothing of this request was stored, retry later"})
        raise exc

    @app.exception_handler(OperationalError)
    async def _database(request: Request, exc: OperationalError) -> JSONResponse:
        text = str(exc.orig if exc.orig is not None else exc).lower()
        if is_disk_full(exc):
            log.error("%s %s: database full: %s", request.method, request.url.path, text)
            return JSONResponse(status_code=507, content={"detail": "the server's database is full (disk or "
                                "quota); nothing of this request was stored, retry later"})
        log.error("%s %s: database unavailable: %s", request.method, request.url.path, text)
        return JSONResponse(status_code=503, content={"detail": "the server's database is unavailable; retry later"},
                            headers={"Retry-After": "5"})

    for module in (health, tasks, episodes, runs, user_tasks):
        app.include_router(module.router)
    docs.mount(app)
    docs.declare_bearer(app, public=PUBLIC_PATHS)
    app.add_middleware(RequestGate, settings=settings)  # type: ignore[arg-type]
    app.include_router(dashboard_router)  # the HTML dashboard at /, over the same queue and run directories
    return app


MAX_ERRORS_SHOWN = 20
MAX_ECHO_CHARS = 200


def validation_errors(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """A 422's errors with the caller's input cut short: never an echo of a whole (possibly huge) body.

    Each error keeps where (`loc`), what (`msg`, `type`) and at most MAX_ECHO_CHARS of the offending
    input as text; non-finite numbers (which JSON cannot carry) become their repr.
    """
    shown: list[dict[str, Any]] = []
    for err in list(errors)[:MAX_ERRORS_SHOWN]:
        item = storable_json({k: err[k] for k in ("type", "loc", "msg") if k in err})
        if "input" in err:
            text = repr(err["input"]) if not isinstance(err["input"], str) else err["input"]
            text = text if len(text) <= MAX_ECHO_CHARS else text[:MAX_ECHO_CHARS] + f"... ({len(text)} chars)"
            item["input"] = storable(text)  # an echoed lone surrogate would make the 422 itself a 500
        ctx = err.get("ctx")
        if ctx:
            item["ctx"] = {k: storable(str(v)[:MAX_ECHO_CHARS]) for k, v in ctx.items()}
        shown.append(item)
    if len(errors) > MAX_ERRORS_SHOWN:
        shown.append({"type": "too_many_errors", "loc": [], "msg": f"{len(errors) - MAX_ERRORS_SHOWN} more errors"})
    return shown


def _sandbox_layers() -> dict[str, Any]:
    """Which isolation layers programs run under on this host (reported by /v1/status)."""
    from agent.sandbox.layers import detect
    from agent.sandbox.limits import SandboxLayers

    report = detect(SandboxLayers()).report
    return {"active": report.active_names(), "degraded": report.degraded(), "details": report.details}
