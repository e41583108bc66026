"""How a browser signs in to the dashboard of a server with tokens: the token in an HttpOnly cookie.

The server's request gate (agent.server.gate) asks this module which paths are the dashboard's public
ones (the sign-in page, the CSS and JS), reads the cookie as the bearer token when a request carries no
Authorization header, and sends an unsigned-in browser to the sign-in page instead of a JSON 401.
"""

from __future__ import annotations

from http.cookies import CookieError, SimpleCookie

TOKEN_COOKIE = "jarvis_token"
LOGIN_PATH = "/login"
STATIC_PREFIX = "/dashboard/static/"


def is_public(path: str) -> bool:
    """The sign-in page and the dashboard's own assets need no token."""
    return path == LOGIN_PATH or path.startswith(STATIC_PREFIX)


def is_page(path: str) -> bool:
    """A dashboard HTML page (an unsigned-in browser is sent to the sign-in page from these)."""
    return path in ("/", "/compare", "/compare/task", "/tasks") or path.startswith(("/runs/", "/tasks/", "/compare/"))


def cookie_authorization(cookie_header: str) -> str:
    """'Bearer <token>' from the dashboard's cookie, or '' when there is none (or the header is malformed)."""
    if not cookie_header:
        return ""
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(cookie_header)
    except CookieError:
        return ""
    morsel = jar.get(TOKEN_COOKIE)
    return f"Bearer {morsel.value}" if morsel is not None and morsel.value else ""
