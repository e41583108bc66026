"""Where the shipped data and the user's cache live, in a checkout and in an installed wheel.

The data is the repository's top-level assets/ folder. A wheel carries the same files as jarvis_sim/assets
(pyproject.toml maps the folder there), so an installed package finds them beside this module and a checkout
finds them at its root; $JARVIS_ASSETS overrides both. Anything generated on first use goes to the user's
cache ($JARVIS_CACHE_DIR, else $XDG_CACHE_HOME/jarvis, else ~/.cache/jarvis), never into the package.
"""

from __future__ import annotations

import os
from pathlib import Path

ASSETS_ENV = "JARVIS_ASSETS"
CACHE_ENV = "JARVIS_CACHE_DIR"
PACKAGE_DIR = Path(__file__).resolve().parent


def repo_root() -> Path:
    """The repository root of a checkout (the folder holding pyproject.toml above this package)."""
    return PACKAGE_DIR.parent


def _candidates() -> list[Path]:
    return [PACKAGE_DIR / "assets", repo_root() / "assets"]


def assets_dir() -> Path:
    """The assets folder: $JARVIS_ASSETS, else the wheel's copy, else the checkout's; an error says what was tried."""
    env = os.environ.get(ASSETS_ENV)
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"${ASSETS_ENV} points at {path}, which is not a folder")
        return path
    for path in _candidates():
        if (path / "suites").is_dir():
            return path
    tried = " and ".join(str(p) for p in _candidates())
    raise FileNotFoundError(
        f"assets folder not found at {tried}; reinstall the jarvis package, or set ${ASSETS_ENV} to the folder "
        "holding suites/ and models/"
    )


def asset_path(*parts: str) -> Path:
    """A path under the assets folder, for module-level constants: never raises, so a missing folder is
    reported where a file is read (with its path) instead of breaking every import."""
    try:
        root = assets_dir()
    except FileNotFoundError:
        root = repo_root() / "assets"
    return root.joinpath(*parts)


def suites_dir() -> Path:
    """assets/suites: the shipped task suites (JSONL)."""
    return assets_dir() / "suites"


def cache_root() -> Path:
    """The user's cache for generated data: $JARVIS_CACHE_DIR, else $XDG_CACHE_HOME/jarvis, else ~/.cache/jarvis."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "jarvis"
