"""Same seed, same versions: the same scores and final state; another BLAS kernel: a bounded difference."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.runs.worker import WorkerRuntime
from jarvis_sim.provenance import blas_info
from tests.agent.oracle_episode import ROOT, oracle_outcome

TASK = "lego/v7-00009-stairs/000"  # jarvis-mini's shortest episode (two bricks on stairs)
SCRIPT = ROOT / "tests" / "agent" / "oracle_episode.py"
# tests/bench/bench_kernels.py measured, for jarvis-mini's first three tasks under the CPU's own kernel
# (SkylakeX), Haswell, Sandybridge and Prescott: final brick positions up to 0.012 mm apart, simulated time up to
# 0.6 s apart, the same connections and the same soft scores (spread 0.0) everywhere. Bars: about 8x the
# position spread (still far inside the pose score's tolerance) and half a point of score.
POSITION_BAR_M = 1e-4
SCORE_BAR = 0.5


def _links(outcome: dict) -> list[tuple[str, list[str], bool]]:
    return [(b["id"], sorted(b["connected_to"]), b["held"]) for b in outcome["final_state"]["bricks"]]


def _position_spread(a: dict, b: dict) -> float:
    pb = {x["id"]: x["position"] for x in b["final_state"]["bricks"]}
    return max(abs(p - q) for x in a["final_state"]["bricks"] for p, q in zip(x["position"], pb[x["id"]], strict=True))


@pytest.mark.slow
def test_oracle_episode_repeats_exactly_and_another_kernel_stays_within_bounds(tmp_path: Path) -> None:
    runtime = WorkerRuntime("mujoco")
    try:
        first = oracle_outcome(TASK, tmp_path / "first", runtime)
        second = oracle_outcome(TASK, tmp_path / "second", runtime)  # the same worker, reused as in a run
    finally:
        runtime.close()
    assert first["status"] == "done" and first["scores"]["soft_score"] > 90, first["error"]
    for key in ("scores", "final_state", "sim_time_s"):
        assert first[key] == second[key], key

    here = blas_info().get("core")
    other = "Sandybridge" if here == "Haswell" else "Haswell"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    proc = subprocess.run([sys.executable, str(SCRIPT), TASK], env={**env, "OPENBLAS_CORETYPE": other},
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    across = json.loads(proc.stdout.strip().splitlines()[-1])
    if here is not None:
        assert across["provenance"]["blas"]["core"] == other
    assert across["status"] == "done"
    assert _links(across) == _links(first)
    assert across["scores"] == pytest.approx(first["scores"], abs=SCORE_BAR)
    assert _position_spread(first, across) < POSITION_BAR_M
