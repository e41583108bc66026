"""Dependencies injected into routes through Annotated aliases: settings, queue, the caller's token.

They are `async def` on purpose: none of them blocks, and FastAPI runs a plain `def` dependency in its
threadpool, a thread hop per dependency per request that costs more than the work itself.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request

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
    """Authenticate the caller; returns a stable, non-secret id of its token ('anonymous' without auth)."""
    settings: ServerSettings = request.app.state.settings
    if not settings.api_token:
        return "anonymous"
    header = request.headers.get("authorization", "")
    scheme, _, presented = header.partition(" ")
    if scheme.lower() != "bearer" or not presented:
        raise HTTPException(401, "missing bearer token: send 'Authorization: Bearer <token>'",
                            headers={"WWW-Authenticate": "Bearer"})
    for valid in settings.api_token.split(","):
        if valid and hmac.compare_digest(presented.encode(), valid.strip().encode()):
            return hashlib.sha256(valid.strip().encode()).hexdigest()[:16]
    raise HTTPException(401, "invalid bearer token", headers={"WWW-Authenticate": "Bearer"})


SettingsDep = Annotated[ServerSettings, Depends(get_settings)]
QueueDep = Annotated[EpisodeQueue, Depends(get_queue)]
StateDep = Annotated[Any, Depends(get_state)]
TokenDep = Annotated[str, Depends(token_id)]
