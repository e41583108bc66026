"""The global foldability check's time and memory on map folds (accordion grids): every face in one stack.

Run: `python tests/bench/bench_foldability.py [--sizes 8 12 16 20]`; `--arrangement` instead times the folded overlay's
planar arrangement (jarvis_sim.origami.planar.arrange) on patterns of 1k/4k/20k vertices whose folded sides overlap
without coinciding, beside the all-pairs arrangement it replaced (up to 1k only: it is quadratic), and the whole
check of each under `--time-limit 5`. Each size runs in a fresh process so its
peak resident memory is its own; the SAT solve runs in a forked child (whose peak is reported beside it). Prints
one JSON object per size: seconds, clauses, peak MB of the checking process and of the solver child, and peak
bytes per clause (what jarvis_sim.origami.layer_cnf.BYTES_PER_CLAUSE is set from).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repo root, for tests.*

from common import emit, machine  # noqa: E402


def one(n: int) -> dict[str, object]:
    """Check an n x n map fold with the default budget; the figures as a dict."""
    from jarvis_sim.origami.foldability import check
    from tests.jarvis_sim.origami.test_fold_hostile import accordion_grid

    cp = accordion_grid(n)
    t0 = time.perf_counter()
    verdict = check(cp)
    seconds = time.perf_counter() - t0
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    clauses = int(verdict.stats.get("clauses", 0))
    return {"n": n, "decided": verdict.decided, "foldable": verdict.foldable if verdict.decided else None,
            "seconds": round(seconds, 2), "clauses": clauses, "peak_mb": round(own), "solver_child_peak_mb": round(child),
            "bytes_per_clause": round(max(own, child) * 2**20 / clauses) if clauses else None,
            "undecided_reason": verdict.undecided_reason}


def arrangement(vertices: list[int]) -> None:
    """The overlay arrangement's wall time per pattern size, and the all-pairs one's up to 1k vertices."""
    from jarvis_sim.origami.check_budget import CheckLimits
    from jarvis_sim.origami.fold_format import from_fold
    from jarvis_sim.origami.foldability import FOLDED_TOL, check, edge_images, folded_state
    from jarvis_sim.origami.planar import arrange
    from tests.jarvis_sim.origami.test_planar_index import brute_force_arrange, fine_boundary_fold

    for n in vertices:
        t0 = time.perf_counter()
        cp = from_fold(fine_boundary_fold(n))
        read_s = time.perf_counter() - t0
        state, _, _ = folded_state(cp)
        segments = np.array(list(edge_images(cp, state)), dtype=float).reshape(-1, 2, 2)
        t0 = time.perf_counter()
        arr = arrange(segments, tol=FOLDED_TOL)
        indexed_s = time.perf_counter() - t0
        extra: dict[str, object] = {}
        if n <= 1000:  # the all-pairs arrangement is quadratic: 5 s at 1k here, hours at 100k
            t0 = time.perf_counter()
            brute_force_arrange(segments, tol=FOLDED_TOL)
            extra["all_pairs_s"] = round(time.perf_counter() - t0, 3)
            extra["speedup"] = round(float(extra["all_pairs_s"]) / indexed_s, 1)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        verdict = check(cp, limits=CheckLimits(time_s=5.0))
        emit(f"arrangement_{n}_vertices", indexed_s, "s", segments=len(segments), arrangement_vertices=len(arr.vertices),
             read_s=round(read_s, 3), check_s=round(time.perf_counter() - t0, 3), check_time_limit_s=5.0,
             decided=verdict.decided, foldable=verdict.foldable if verdict.decided else None,
             undecided_reason=verdict.undecided_reason, **extra, **machine())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 12, 16, 20])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--arrangement", type=int, nargs="*", metavar="VERTICES",
                        help="time the overlay arrangement on patterns of these many vertices (default 1000 4000 20000)")
    args = parser.parse_args()
    if args.arrangement is not None:
        arrangement(args.arrangement or [1000, 4000, 20000])
        return
    if args.one:
        print(json.dumps(one(args.one)))
        return
    for n in args.sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, check=True)
        fig = json.loads(out.stdout.strip().splitlines()[-1])
        emit(f"foldability_grid_{n}x{n}", fig.pop("seconds"), "s", **fig, **machine())


if __name__ == "__main__":
    main()
