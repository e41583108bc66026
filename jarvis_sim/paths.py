"""Where the shipped data lives: the assets/ folder at the repository root (or $JARVIS_ASSETS)."""

from __future__ import annotations

import os
from pathlib import Path

ASSETS_ENV = "JARVIS_ASSETS"


def repo_root() -> Path:
    """The repository root (the folder holding pyproject.toml above this package)."""
    return Path(__file__).resolve().parents[1]


def assets_dir() -> Path:
    """The assets folder: $JARVIS_ASSETS when set, else <repo root>/assets; an error says what was tried."""
    env = os.environ.get(ASSETS_ENV)
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"${ASSETS_ENV} points at {path}, which is not a folder")
        return path
    path = repo_root() / "assets"
    if not path.is_dir():
        raise FileNotFoundError(
            f"assets folder not found at {path}; set ${ASSETS_ENV} to the folder holding suites/ and models/"
        )
    return path


def suites_dir() -> Path:
    """assets/suites: the shipped task suites (JSONL)."""
    return assets_dir() / "suites"
