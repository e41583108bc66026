"""Dependencies injected into routes through Annotated aliases: settings, queue, the caller's token.

They are `async def` on purpose: none of them blocks, and FastAPI runs a plain `def` dependency in its
threadpool, a thread hop per dependency per request that costs more than the work itself.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request

from agent.server.auth import Unauthorized, identify
from agent.server.queue import EpisodeQueue
from agent.server.settings import ServerSettings


async def get_settings(request: Request) -> ServerSettings:
    """The server's settings."""
    settings: ServerSettings = request.app.state.settings
    return settings


async def get_queue(request: Request) -> EpisodeQueue:
    """The episode queue."""
    queue: EpisodeQueue = request.app.state.queue
    return queue


async def get_state(request: Request) -> Any:
    """The application state (interactive sessions, worker pool)."""
    return request.app.state


async def token_id(request: Request) -> str:
    """The caller's token id, as the request gate authenticated it ('anonymous' without auth)."""
    known = getattr(request.state, "token_id", None)
    if isinstance(known, str):
        return known
    try:  # a route reached without the gate (an app built without it): authenticate here
        return identify(request.app.state.settings, request.headers.get("authorization", ""))
    except Unauthorized as exc:
        raise HTTPException(401, str(exc), headers={"WWW-Authenticate": "Bearer"}) from None


SettingsDep = Annotated[ServerSettings, Depends(get_settings)]
QueueDep = Annotated[EpisodeQueue, Depends(get_queue)]
StateDep = Annotated[Any, Depends(get_state)]
TokenDep = Annotated[str, Depends(token_id)]
