"""On-disk cache of rendered manuals, keyed by (task id, task content hash, style, size, renderer version).

A manual is written whole into a temporary folder beside its final place and then renamed into place
(atomic on one file system), so a reader sees either a complete manual or none, and two processes
rendering the same manual at once cannot corrupt it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from jarvis_sim.paths import cache_root
from jarvis_sim.tasks.spec import TaskSpec

MANIFEST = "manifest.json"


def task_content_hash(task: TaskSpec) -> str:
    """SHA-256 of the task's canonical JSON: any change to the task gives a new manual."""
    canonical = json.dumps(task.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def manual_key(task: TaskSpec, style: str, size: tuple[int, int], renderer_version: int) -> str:
    """The cache key of one rendered manual."""
    ident = {
        "task_id": task.id,
        "task_sha256": task_content_hash(task),
        "style": style,
        "size": list(size),
        "renderer_version": renderer_version,
    }
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()


def _slug(task_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", task_id).strip("._") or "task"


def manual_dir(task: TaskSpec, style: str, size: tuple[int, int], renderer_version: int, root: Path | None = None) -> Path:
    """Where a manual lives in the cache (it may not exist yet)."""
    key = manual_key(task, style, size, renderer_version)
    return (root or cache_root()) / "manuals" / _slug(task.id) / f"{style}-{size[0]}x{size[1]}-{key[:16]}"


def cached_pages(folder: Path) -> list[Path] | None:
    """The page files of a complete cached manual, or None when it is absent or incomplete."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    pages = [folder / name for name in manifest.get("pages", [])]
    if not pages or not all(p.is_file() for p in pages):
        return None
    return pages


def store_pages(folder: Path, render: Callable[[], list[Image.Image]], meta: dict[str, object]) -> list[Path]:
    """Render the pages and publish them at `folder` atomically; return the page paths.

    When another process published the same manual first, its copy is kept and returned.
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        names = []
        for k, img in enumerate(render(), start=1):
            name = f"step_{k:03d}.png"
            img.save(tmp / name, format="PNG", optimize=False)
            names.append(name)
        (tmp / MANIFEST).write_text(json.dumps({**meta, "pages": names}, indent=1, sort_keys=True))
        try:
            os.rename(tmp, folder)
        except OSError:
            # Someone else published it meanwhile (rename onto a non-empty folder fails): use theirs.
            existing = cached_pages(folder)
            if existing is None:
                raise
            return existing
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    pages = cached_pages(folder)
    if pages is None:
        raise OSError(f"manual cache folder {folder} is incomplete right after writing it")
    return pages
