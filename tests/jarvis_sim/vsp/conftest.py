"""Shared fixtures: the official data (skipped where absent) and a tiny generated set."""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvis_sim.vsp import layout as L
from jarvis_sim.vsp.family import VspFamily
from jarvis_sim.vsp.generate import generate_set


@pytest.fixture(scope="session")
def official_root() -> Path:
    root = L.resolve_root()
    if root is None or not (root / "VSP-main").is_dir():
        pytest.skip(f"official VSP data absent (set ${L.ENV_ROOT})")
    return root


@pytest.fixture(scope="session")
def gen_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_set(tmp_path_factory.mktemp("vspgen"), seed=3, n=2, n_examples=4, workers=1)


@pytest.fixture(scope="session")
def family() -> VspFamily:
    return VspFamily()
