"""/docs and /redoc work offline: every asset they reference is served by this server, none from another host."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from tests.agent.server.conftest import make_settings

TOKEN = "docs-test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
# Anything that would make a browser load a resource: attributes, CSS url(), and absolute URLs in scripts.
REFERENCE = re.compile(r"""(?:src|href|spec-url)\s*=\s*["']([^"']+)["']|(?<!\w)url(?:\(|:)\s*["']?([^"')]+)""", re.I)
ABSOLUTE = re.compile(r"""["'(]\s*((?:https?:)?//[^"')\s]+)""", re.I)


@pytest.fixture
def api(tmp_path: Path, quiz_plugin: None) -> TestClient:
    """A server with a token, no workers."""
    return TestClient(create_app(make_settings(tmp_path, workers=0, api_token=TOKEN), start_workers=False))


@pytest.mark.parametrize(("page", "bundles"), [("/docs", {"swagger-ui-bundle.js", "swagger-ui.css"}),
                                               ("/redoc", {"redoc.standalone.offline.js"})])
def test_doc_pages_reference_only_this_servers_assets(api: TestClient, page: str, bundles: set[str]) -> None:
    r = api.get(page, headers=AUTH)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    html = r.text
    assert not ABSOLUTE.findall(html), ABSOLUTE.findall(html)  # no CDN, no Google fonts, no validator badge
    refs = {a or b for a, b in REFERENCE.findall(html)}
    assert {ref.rsplit("/", 1)[-1] for ref in refs} >= bundles | {"openapi.json"}
    for ref in refs:
        assert ref.startswith("/"), ref
        got = api.get(ref, headers=AUTH)
        assert got.status_code == 200 and len(got.content) > 1000, (ref, got.status_code)
        if ref.endswith(".js"):
            assert "javascript" in got.headers["content-type"]
        if ref.endswith(".css"):
            assert got.headers["content-type"].startswith("text/css")


def test_assets_are_public_pages_take_the_sign_in_cookie_and_the_rest_api_does_not(api: TestClient) -> None:
    assert api.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    for escape in ("/docs-assets/../../etc/passwd", "/docs-assets/%2e%2e/%2e%2e/etc/passwd"):
        assert api.get(escape).status_code in (401, 404), escape  # never a file outside the bundle folder
    assert api.get("/openapi.json").status_code == 401
    away = api.get("/docs", follow_redirects=False)
    assert away.status_code == 303 and away.headers["location"] == "/login"
    api.cookies.set("jarvis_token", TOKEN)
    assert api.get("/docs").status_code == 200
    assert api.get("/openapi.json").json()["info"]["title"] == "JARVIS"  # what Swagger UI fetches next
    # The cookie reads the docs only: the REST API still wants the header.
    assert api.get("/v1/status").status_code == 401
    assert api.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "scripted"}}).status_code == 401
    assert api.get("/docs/oauth2-redirect").status_code == 200


def test_the_schema_declares_the_bearer_scheme_the_gate_checks(api: TestClient) -> None:
    """Swagger UI's "Authorize" appears for a declared scheme; liveness stays declared public."""
    schema = api.get("/openapi.json", headers=AUTH).json()
    assert schema["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http", "scheme": "bearer", "description": "A token of JARVIS_API_TOKEN: `Authorization: Bearer <token>`."}
    assert schema["security"] == [{"bearerAuth": []}]
    assert schema["paths"]["/healthz"]["get"]["security"] == []
    assert "security" not in schema["paths"]["/v1/status"]["get"]  # the global requirement applies


def test_no_bundle_loads_a_resource_from_another_host(api: TestClient) -> None:
    """What a bundle would fetch by itself (an image's or a font's src, a stylesheet's url()): ReDoc's Redocly logo
    came from cdn.redoc.ly. Links a person may click (href) are not fetches."""
    fetches = re.compile(rb"""(?:\bsrc\s*[:=]\s*["']|\burl\(\s*["']?)(https?://[^"')\s]+)""", re.I)
    for name in ("redoc.standalone.offline.js", "swagger-ui-bundle.js", "swagger-ui.css"):
        body = api.get(f"/docs-assets/{name}").content
        found = {m.decode() for m in fetches.findall(body)}
        assert not found, (name, sorted(found)[:5])
