"""The API's documentation pages, /docs (Swagger UI) and /redoc (ReDoc), with their assets served from a package.

FastAPI's default pages load Swagger UI and ReDoc from a CDN (and ReDoc its fonts from Google), so
they are blank on a machine without internet access: a lab network, an air-gapped GPU workstation.
The fastapi-offline package ships both bundles; they are mounted under ASSETS_PREFIX and the pages
are FastAPI's own HTML pointing there. The pages take the dashboard's sign-in cookie like the
dashboard does (a browser cannot send a bearer header), so a signed-in person can read them.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_PATH = "/docs"
REDOC_PATH = "/redoc"
OAUTH2_REDIRECT_PATH = "/docs/oauth2-redirect"
OPENAPI_PATH = "/openapi.json"
ASSETS_PREFIX = "/docs-assets"
PAGES = frozenset({DOCS_PATH, REDOC_PATH, OAUTH2_REDIRECT_PATH})


def assets_dir() -> Path:
    """The packaged Swagger UI and ReDoc bundles (swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js)."""
    return Path(str(files("fastapi_offline") / "static"))


def is_public(path: str) -> bool:
    """The bundles are the vendors' JavaScript and CSS: they need no token."""
    return path.startswith(ASSETS_PREFIX + "/")


def takes_cookie(path: str, method: str) -> bool:
    """Requests a browser makes with the sign-in cookie: reading the pages and the schema they load."""
    return method in ("GET", "HEAD") and (path in PAGES or path == OPENAPI_PATH)


def mount(app: FastAPI) -> None:
    """Serve /docs and /redoc from the packaged assets. The app must be built with docs_url=redoc_url=None."""
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
            # Swagger UI otherwise shows a badge image fetched from validator.swagger.io.
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get(OAUTH2_REDIRECT_PATH, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get(REDOC_PATH, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        return get_redoc_html(
            openapi_url=f"{request.scope.get('root_path', '')}{OPENAPI_PATH}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=asset(request, "redoc.standalone.js"),
            redoc_favicon_url=asset(request, "favicon.png"),
            with_google_fonts=False,
        )
