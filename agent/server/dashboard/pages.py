"""Rendering the dashboard's HTML: the Jinja2 templates shipped in the package and their filters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape

PACKAGE = Path(__file__).parent
STATIC = PACKAGE / "static"

_templates = Environment(loader=FileSystemLoader(PACKAGE / "templates"), autoescape=select_autoescape(["html"]))
_templates.filters["num"] = lambda v, d=1: "–" if v is None else f"{v:.{d}f}"
_templates.filters["ci"] = lambda c, d=1: "–" if c is None else c.fmt(d)


def page(name: str, **context: Any) -> HTMLResponse:
    """A template rendered with its context, as an HTML response."""
    return HTMLResponse(_templates.get_template(name).render(**context))
