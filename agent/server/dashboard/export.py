"""`jarvis view --export DIR`: a static copy of a run that opens from disk, like inspect's `bundle`.

The pages are the dashboard's own, rendered through its routes (so they never drift from what `jarvis view`
serves), then their links are made relative: the run page becomes index.html (every episode on one page), each
episode page episodes/<id>.html, the run's files (plots, pictures) are copied under files/ and the dashboard's
CSS and JS under static/. Links to pages a static copy has no data for (the task browser, other runs, the
progress poller) are dropped, so nothing in the copy points at a server.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent.server.dashboard.pages import STATIC

_ATTR = re.compile(r'(href|src|action|data-progress)="(/[^"]*)"')
_SAFE_ID = re.compile(r"[^A-Za-z0-9._-]+")


def export_run(run_dir: Path, out: Path) -> dict[str, object]:
    """Write the static copy of one run directory into `out` (created; must be empty if it exists)."""
    from agent.server.dashboard.read_models import DirectorySource
    from agent.server.dashboard.routes import episode_page, run_page

    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty: export into a new or empty folder")
    source = DirectorySource([run_dir])
    key = next(iter(source.roots))
    view = source.open_run(key, "anonymous")
    episode_ids = [r.episode_id for r in view.records]
    # The route functions themselves (not HTTP): an episode id may hold a '/', which no URL path segment can.
    pages = {"index.html": _relative(_text(run_page(key, source, "anonymous", "all")), key, episode_ids, 0)}
    for eid in episode_ids:
        html = _text(episode_page(key, eid, source, "anonymous"))
        pages[f"episodes/{_file_id(eid)}.html"] = _relative(html, key, episode_ids, 1)
    out.mkdir(parents=True, exist_ok=True)
    for rel, html in pages.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(html, encoding="utf-8")
    copied = _copy_files(Path(run_dir), out / "files", pages.values())
    shutil.copytree(STATIC, out / "static")
    return {"out": str(out), "index": str(out / "index.html"), "episodes": len(episode_ids), "files": copied}


def _text(response: Any) -> str:
    return bytes(response.body).decode("utf-8")


def _file_id(episode_id: str) -> str:
    return _SAFE_ID.sub("_", episode_id)


def _relative(html: str, key: str, episode_ids: list[str], depth: int) -> str:
    """The page with every absolute link made relative to where it is written (depth: folders below index)."""
    up = "../" * depth
    known = set(episode_ids)
    run_prefix = f"/runs/{key}"

    def fix(m: re.Match[str]) -> str:
        attr, url = m.group(1), m.group(2)
        path = url.split("?", 1)[0].split("#", 1)[0]
        if attr == "data-progress":
            return 'data-static="yes"'  # nothing to poll: the copy is the run as it was
        if path.startswith("/dashboard/static/"):
            return f'{attr}="{up}static/{path.removeprefix("/dashboard/static/")}"'
        if path.startswith(f"{run_prefix}/files/"):
            return f'{attr}="{up}files/{path.removeprefix(f"{run_prefix}/files/")}"'
        if url.startswith(f"{run_prefix}/episodes/"):
            eid = url.removeprefix(f"{run_prefix}/episodes/")  # whole: an id may hold '#' or '/'
            if eid in known:
                return f'{attr}="{up}episodes/{_file_id(eid)}.html"'
        if path in (run_prefix, "/"):
            return f'{attr}="{up}index.html"'
        return f'{attr}="#"'  # a page of the live dashboard only (task browser, other runs)

    html = _ATTR.sub(fix, html)
    # The pager's ?page= links: the copy's index holds every episode already.
    return re.sub(r'<p class="pager">.*?</p>', "", html, flags=re.DOTALL)


def _copy_files(run_dir: Path, dest: Path, pages: Iterable[str]) -> int:
    """Copy the run's files the pages reference (plots, pictures) into dest; returns how many."""
    wanted = {m for html in pages for m in re.findall(r'(?:href|src)="(?:\.\./)*files/([^"]+)"', html)}
    root = run_dir.resolve()
    n = 0
    for rel in sorted(wanted):
        src = (root / rel).resolve()
        if not src.is_relative_to(root) or not src.is_file():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
        n += 1
    return n
