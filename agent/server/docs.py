"""The API's documentation pages, /docs (Swagger UI) and /redoc (ReDoc), with their assets served from a package.

FastAPI's default pages load Swagger UI and ReDoc from a CDN (and ReDoc its fonts from Google), so
they are blank on a machine without internet access: a lab network, an air-gapped GPU workstation.
The fastapi-offline package ships both bundles; they are mounted under ASSETS_PREFIX and the pages
are FastAPI's own HTML pointing there. The pages take the dashboard's sign-in cookie like the
dashboard does (a browser cannot send a bearer header), so a signed-in person can read them.

ReDoc's bundle still names one outside resource, the Redocly logo beside "API docs by Redocly", fetched
from cdn.redoc.ly: the bundle is served with that address replaced by an empty data: URL (the image then
fails at once and ReDoc hides it). The schema declares the bearer scheme the request gate checks, so
Swagger UI's "Authorize" takes a token and "Try it out" sends it.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

DOCS_PATH = "/docs"
REDOC_PATH = "/redoc"
OAUTH2_REDIRECT_PATH = "/docs/oauth2-redirect"
OPENAPI_PATH = "/openapi.json"
ASSETS_PREFIX = "/docs-assets"
PAGES = frozenset({DOCS_PATH, REDOC_PATH, OAUTH2_REDIRECT_PATH})
REDOC_OFFLINE = "redoc.standalone.offline.js"
REDOC_LOGO_CDN = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
BEARER_SCHEME = "bearerAuth"


def assets_dir() -> Path:
    """The packaged Swagger UI and ReDoc bundles (swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js)."""
    return Path(str(files("fastapi_offline") / "static"))


def is_public(path: str) -> bool:
    """The bundles are the vendors' JavaScript and CSS: they need no token."""
    return path.startswith(ASSETS_PREFIX + "/")


def takes_cookie(path: str, method: str) -> bool:
    """Requests a browser makes with the sign-in cookie: reading the pages and the schema they load."""
    return method in ("GET", "HEAD") and (path in PAGES or path == OPENAPI_PATH)


@cache
def redoc_offline_bundle() -> bytes:
    """ReDoc's bundle with its one outside address (the Redocly logo) replaced by an empty data: URL."""
    bundle = (assets_dir() / "redoc.standalone.js").read_bytes()
    return bundle.replace(REDOC_LOGO_CDN, b"data:,")


def declare_bearer(app: FastAPI, public: Iterable[str] = ()) -> None:
    """Declare in the OpenAPI schema the bearer token every route but `public` needs (the request gate checks it,
    not a route dependency, so FastAPI cannot see it): Swagger UI then shows "Authorize"."""
    build = app.openapi
    open_paths = frozenset(public)

    def openapi() -> dict[str, Any]:
        schema = build()  # FastAPI builds it once and keeps it; the scheme is added to that one copy
        schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
        if BEARER_SCHEME not in schemes:
            schemes[BEARER_SCHEME] = {"type": "http", "scheme": "bearer",
                                      "description": "A token of JARVIS_API_TOKEN: `Authorization: Bearer <token>`."}
            schema["security"] = [{BEARER_SCHEME: []}]
            for path in open_paths:
                for operation in schema.get("paths", {}).get(path, {}).values():
                    operation["security"] = []
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def mount(app: FastAPI) -> None:
    """Serve /docs and /redoc from the packaged assets. The app must be built with docs_url=redoc_url=None."""

    # Registered before the static mount, which would otherwise answer every path under ASSETS_PREFIX.
    @app.get(f"{ASSETS_PREFIX}/{REDOC_OFFLINE}", include_in_schema=False)
    async def redoc_bundle() -> Response:
        return Response(redoc_offline_bundle(), media_type="text/javascript",
                        headers={"cache-control": "public, max-age=86400"})

    app.mount(ASSETS_PREFIX, StaticFiles(directory=assets_dir()), name="docs-assets")

    def asset(request: Request, name: str) -> str:
        return f"{request.scope.get('root_path', '')}{ASSETS_PREFIX}/{name}"

    @app.get(DOCS_PATH, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=f"{request.scope.get('root_path', '')}{OPENAPI_PATH}",
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=OAUTH2_REDIRECT_PATH,
            swagger_js_url=asset(request, "swagger-ui-bundle.js"),
            swagger_css_url=asset(request, "swagger-ui.css"),
            swagger_favicon_url=asset(request, "favicon.png"),
            # Swagger UI otherwise shows a badge image fetched from validator.swagger.io; the token given to
            # "Authorize" survives a reload of the page.
            swagger_ui_parameters={"validatorUrl": None, "persistAuthorization": True},
        )

    @app.get(OAUTH2_REDIRECT_PATH, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get(REDOC_PATH, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        return get_redoc_html(
            openapi_url=f"{request.scope.get('root_path', '')}{OPENAPI_PATH}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=asset(request, REDOC_OFFLINE),
            redoc_favicon_url=asset(request, "favicon.png"),
            with_google_fonts=False,
        )
