"""`jarvis bench detours [--seeds N]`: do OMPL's detours round a built structure leave it standing?

The scene of tests/fakes/detour_scene.py: the closed hand low beside a 36-brick block, the target on its far side,
so the straight line is blocked and RRT-Connect must find a way over or round. For each of N planner seeds the
detour is planned and executed from the same snapshot, once with no clearance (states merely contact-free, as
before) and once with the planner's clearance (skills/planners/ompl.py CLEARANCE_M). Figures: the share of
detours that moved any brick more than 1 mm, the median planning time, and the clearance's cost as a ratio
against the zero-clearance planner measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np
from common import emit, machine

from jarvis_sim.backends.base import BackendError
from skills.errors import SkillError
from skills.planners.ompl import CLEARANCE_M, OmplPlanner
from tests.fakes.detour_scene import detour_scene, disturbed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=100)
    args = parser.parse_args()
    ctx = machine()
    scene = detour_scene()
    backend = scene.backend
    start = backend.save_state()
    before = {b.id: b.position for b in backend.world_state().bricks}
    results: dict[float, dict[str, list[float]]] = {}
    for clearance in (0.0, CLEARANCE_M):
        stats: dict[str, list[float]] = {"disturbed": [], "plan_s": [], "failed": [], "miss_mm": [], "diverged": []}
        for seed in range(args.seeds):
            backend.restore_state(start)
            planner = OmplPlanner(seed=seed, clearance_m=clearance)
            try:
                planner.move_to(scene.ctx, scene.far, scene.quaternion, speed=0.2)
            except SkillError:
                stats["failed"].append(1.0)
                continue
            except BackendError:  # the physics blew up (a hard collision): as disturbing as it gets
                stats["diverged"].append(1.0)
                stats["disturbed"].append(1.0)
                continue
            stats["plan_s"].append(planner.last.plan_s + planner.last.simplify_s)
            stats["disturbed"].append(1.0 if disturbed(before, backend) else 0.0)
            stats["miss_mm"].append(float(np.linalg.norm(backend.robot_state().ee_position - scene.far)) * 1000)
        results[clearance] = stats
        tag = f"{clearance * 1000:.0f}mm"
        n = len(stats["disturbed"])
        emit(f"detours_disturbing_pct_clearance_{tag}", 100.0 * sum(stats["disturbed"]) / max(n, 1), "%",
             detours=n, disturbing=int(sum(stats["disturbed"])), diverged=len(stats["diverged"]),
             not_found=len(stats["failed"]), **ctx)
        emit(f"detour_plan_median_s_clearance_{tag}", statistics.median(stats["plan_s"]) if n else float("nan"), "s",
             worst_s=max(stats["plan_s"], default=float("nan")), **ctx)
        emit(f"detour_arrival_miss_median_mm_clearance_{tag}", statistics.median(stats["miss_mm"]) if n else float("nan"),
             "mm", **ctx)
    base, safe = results[0.0]["plan_s"], results[CLEARANCE_M]["plan_s"]
    if base and safe:
        emit("detour_plan_time_ratio_clearance_vs_none", statistics.median(safe) / statistics.median(base), "x", **ctx)
    backend.close()


if __name__ == "__main__":
    main()
