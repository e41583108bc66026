"""Spread of the oracle's outcome across BLAS kernels: the same task and seed under several OPENBLAS_CORETYPE.

MuJoCo's own arithmetic does not go through BLAS, but the controllers and IK around it use numpy, whose
OpenBLAS kernel (chosen from the CPU, or forced by OPENBLAS_CORETYPE) rounds differently; the trajectories
then part by microns. Each task runs once per kernel in a fresh subprocess; the figures are the spread of
the soft score, of the simulated time and of every final brick position against the first kernel (the
same-run baseline). Usage: `jarvis bench kernels [--tasks N] [--cores Haswell,SkylakeX,...]`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from common import emit, machine  # noqa: E402  (run by `jarvis bench`, which puts tests/bench on sys.path)

SCRIPT = ROOT / "tests" / "agent" / "oracle_episode.py"


def run_under(core: str, task_id: str) -> dict:
    """One oracle episode in a subprocess whose OpenBLAS runs kernel `core` ('' = the CPU's own)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if core:
        env["OPENBLAS_CORETYPE"] = core
    out = subprocess.run([sys.executable, str(SCRIPT), task_id], env=env, check=True, capture_output=True,
                         text=True, cwd=ROOT).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def position_spread(a: dict, b: dict) -> float:
    """Largest distance between the same brick's final positions in two outcomes (m)."""
    pa = {x["id"]: x["position"] for x in a["final_state"]["bricks"]}
    pb = {x["id"]: x["position"] for x in b["final_state"]["bricks"]}
    return max(max(abs(p - q) for p, q in zip(pa[k], pb[k], strict=True)) for k in pa)


def main() -> None:
    """Run the chosen tasks under each kernel and print the spreads."""
    from jarvis_sim.tasks.registry import suite_task_ids

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", default="jarvis-mini")
    ap.add_argument("--tasks", type=int, default=3, help="the first N tasks of the suite")
    ap.add_argument("--cores", default=",SkylakeX,Haswell,Sandybridge,Prescott",
                    help="OPENBLAS_CORETYPE values ('' = the CPU's own kernel), comma-separated")
    args = ap.parse_args()
    cores = args.cores.split(",")
    for task_id in suite_task_ids(args.suite)[: args.tasks]:
        outcomes = {c: run_under(c, task_id) for c in cores}
        base = outcomes[cores[0]]
        ran = {c or "cpu-default": o["provenance"]["blas"].get("core") for c, o in outcomes.items()}
        scores = [o["scores"].get("soft_score", 0.0) for o in outcomes.values()]
        times = [o["sim_time_s"] for o in outcomes.values()]
        same_links = all(
            [(x["id"], sorted(x["connected_to"]), x["held"]) for x in o["final_state"]["bricks"]]
            == [(x["id"], sorted(x["connected_to"]), x["held"]) for x in base["final_state"]["bricks"]]
            for o in outcomes.values())
        ctx = {"task": task_id, "kernels_run": ran, **machine()}
        emit("oracle_soft_score_spread", max(scores) - min(scores), "points", scores=scores, **ctx)
        emit("oracle_sim_time_spread", max(times) - min(times), "s", sim_times=times, **ctx)
        emit("oracle_final_position_spread", 1000 * max(position_spread(base, o) for o in outcomes.values()), "mm",
             same_connections=same_links, baseline=cores[0] or "cpu-default", **ctx)


if __name__ == "__main__":
    main()
