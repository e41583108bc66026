"""The global foldability check's time and memory on map folds (accordion grids): every face in one stack.

Run: `python tests/bench/bench_foldability.py [--sizes 8 12 16 20]`. Each size runs in a fresh process so its
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 12, 16, 20])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one)))
        return
    for n in args.sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, check=True)
        fig = json.loads(out.stdout.strip().splitlines()[-1])
        emit(f"foldability_grid_{n}x{n}", fig.pop("seconds"), "s", **fig, **machine())


if __name__ == "__main__":
    main()
