"""README is the front page (the two commands first, then a tour and links); the reference is a MkDocs site under
docs/, built here with --strict (a broken link or a page left out of the nav fails) and opening without internet."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What a browser would fetch by itself: scripts, stylesheets, images, fonts (a plain link to click is not a fetch).
FETCH = re.compile(r"""<(?:script|img|iframe|source)\b[^>]*\bsrc=["']((?:https?:)?//[^"']+)|<link\b[^>]*\bhref=["']((?:https?:)?//[^"']+)|url\(\s*["']?((?:https?:)?//[^"')]+)""", re.I)


def test_readme_starts_with_the_two_commands_and_links_only_existing_pages() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "The two commands", headings
    first_block = text.split("```bash", 1)[1].split("```", 1)[0]
    assert "jarvis run --suite jarvis-mini --agent oracle" in first_block and "bash .ci/run" in first_block
    links = re.findall(r"\]\((docs/[^)#]+)", text)
    assert links and all((ROOT / link).is_file() for link in links), [li for li in links if not (ROOT / li).is_file()]
    assert len(text) < 12_000, "README is the front page: the reference belongs in docs/"


def test_the_docs_site_builds_strict_and_fetches_nothing_from_another_host(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is in the dev extra (pip install -r requirements.lock)")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert [p for p in pages if p not in nav] == [], "every page of docs/ is in mkdocs.yml's nav"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
                           "--site-dir", str(tmp_path / "site")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    fetched = {m for html in (tmp_path / "site").rglob("*.html")
               for m in (a or b or c for a, b, c in FETCH.findall(html.read_text(encoding="utf-8")))}
    assert not fetched, sorted(fetched)
    assert (tmp_path / "site" / "rest-api" / "index.html").is_file()
