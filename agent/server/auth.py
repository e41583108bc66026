"""Bearer tokens: which configured token a request presents, as a stable non-secret id."""

from __future__ import annotations

import hashlib
import hmac

from agent.server.settings import ServerSettings

ANONYMOUS = "anonymous"


class Unauthorized(Exception):
    """A request without a valid bearer token on a server that has tokens."""


def token_digest(token: str) -> str:
    """The non-secret id of a token (stored with its episodes and runs)."""
    return hashlib.sha256(token.encode()).hexdigest()[:16]


def identify(settings: ServerSettings, authorization: str) -> str:
    """The id of the token in an Authorization header; ANONYMOUS when the server has no tokens."""
    tokens = settings.tokens
    if not tokens:
        return ANONYMOUS
    scheme, _, presented = authorization.partition(" ")
    if scheme.lower() != "bearer" or not presented:
        raise Unauthorized("missing bearer token: send 'Authorization: Bearer <token>'")
    match = None
    for valid in tokens:  # compare with every token, so the time taken does not say which one nearly matched
        if hmac.compare_digest(presented.encode(), valid.encode()):
            match = valid
    if match is None:
        raise Unauthorized("invalid bearer token")
    return token_digest(match)
