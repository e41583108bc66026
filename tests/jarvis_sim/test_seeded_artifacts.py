"""Seeded artifacts are the same bytes whatever BLAS kernel or numpy SIMD target the process runs on."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jarvis_sim.tasks.suites import suite_path

SCRIPT = Path(__file__).with_name("seeded_digests.py")
# OpenBLAS picks its kernel at start-up from the CPU unless OPENBLAS_CORETYPE names one (some machines of
# this project set it); numpy picks its SIMD loops from the CPU unless told to skip some. The last entry
# is a machine without AVX-512 or AVX2 as numpy sees it (its arctan2, for one, then rounds differently).
KERNELS: dict[str, dict[str, str]] = {
    "default": {},
    "Haswell": {"OPENBLAS_CORETYPE": "Haswell"},
    "Sandybridge": {"OPENBLAS_CORETYPE": "Sandybridge"},
    "numpy-x86-64-v2": {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"},
}


@pytest.mark.slow
def test_seeded_artifacts_do_not_depend_on_the_blas_kernel(tmp_path: Path) -> None:
    procs = {}
    for name, extra in KERNELS.items():
        env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES")}
        env.update(extra, OPENBLAS_NUM_THREADS="1")
        out = tmp_path / f"{name}.json"
        procs[name] = (out, subprocess.Popen([sys.executable, str(SCRIPT), str(out)], env=env,
                                             stderr=subprocess.PIPE, text=True))
    found: dict[str, dict[str, str]] = {}
    for name, (out, proc) in procs.items():
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{name}: {err[-2000:]}"
        found[name] = json.loads(out.read_text(encoding="utf-8"))
    reference = found["default"]
    # jarvis-v2's own bytes are checked by tests/jarvis_sim/tasks/test_suites.py (regeneration, minutes).
    assert reference["suite/jarvis-mini"] == hashlib.sha256(suite_path("jarvis-mini").read_bytes()).hexdigest()
    for name, got in found.items():
        differ = sorted(k for k in reference if got.get(k) != reference[k])
        assert not differ, f"{name} ({KERNELS[name]}) regenerates different bytes for {differ}"
