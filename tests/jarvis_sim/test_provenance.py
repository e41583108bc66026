"""Provenance names the BLAS kernel actually running, the versions and the MuJoCo engine settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jarvis_sim.provenance import collect, differences

ROOT = Path(__file__).resolve().parents[2]


def test_records_versions_platform_and_simd() -> None:
    p = collect()
    assert p.packages["numpy"] and p.packages["mujoco"] and p.packages["python-sat"]
    assert p.python.startswith("CPython ") and p.platform["machine"]
    assert "full" not in {k.split(":", 1)[1] for k in p.fingerprint() if k.startswith("platform:")}


def test_blas_core_is_the_kernel_running_not_a_guess() -> None:
    code = "import json; from jarvis_sim.provenance import collect; p = collect(); print(json.dumps([p.blas, p.env]))"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    got = {}
    for core in ("Haswell", "Sandybridge"):
        out = subprocess.run([sys.executable, "-c", code], env={**env, "OPENBLAS_CORETYPE": core}, check=True,
                             capture_output=True, text=True, cwd=ROOT).stdout
        blas, seen_env = json.loads(out)
        got[core] = blas.get("core")
        assert seen_env["OPENBLAS_CORETYPE"] == core
    if got["Haswell"] is None:
        pytest.skip("numpy here is not linked against a bundled OpenBLAS that names its kernel")
    assert got == {"Haswell": "Haswell", "Sandybridge": "Sandybridge"}


def test_simulator_settings_of_the_mujoco_backend() -> None:
    from jarvis_sim.backends.registry import make_backend
    from tests.fakes.lego_tasks import stack_task

    b = make_backend("mujoco")
    try:
        b.load(stack_task(1, 1))
        sim = collect(b).simulator
    finally:
        b.close()
    assert sim["backend"] == "mujoco"
    assert sim["config"]["timestep_s"] == sim["engine"]["timestep"]
    assert sim["engine"]["integrator"].startswith("mjINT_") and sim["engine"]["solver"].startswith("mjSOL_")


def test_differences_lists_only_keys_that_differ() -> None:
    a = {"package:numpy": "2.4.6", "blas:core": "SkylakeX"}
    b = {"package:numpy": "2.4.6", "blas:core": "Haswell", "env:OPENBLAS_CORETYPE": "Haswell"}
    assert differences([a, b]) == {"blas:core": ["SkylakeX", "Haswell"], "env:OPENBLAS_CORETYPE": ["–", "Haswell"]}
    assert differences([a, dict(a)]) == {}
