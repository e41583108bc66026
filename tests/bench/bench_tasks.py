"""Benchmark: task-pool build time and peak memory; assembly checks on a 700-brick assembly.

`jarvis bench tasks [--assemblies N] [--workers W]` (default: the full paper-scale pool, 8987
assemblies, 2 workers). The pool is written to a temporary folder and deleted afterwards.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from common import emit, machine, median_ms, timed

from jarvis_sim.lego.generator import GeneratorConfig, generate_assembly
from jarvis_sim.tasks.pool import build_pool


def _peak_rss_mib() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def bench_pool(n: int, workers: int) -> None:
    """Build a pool of n assemblies; report wall time, tasks and peak memory (parent + largest worker)."""
    out = Path(tempfile.mkdtemp(prefix="jarvis-pool-"))
    try:
        t0 = time.perf_counter()
        fig = build_pool(n, 0, out, workers=workers)
        dt = time.perf_counter() - t0
        size_mib = sum(p.stat().st_size for p in out.iterdir()) / 2**20
    finally:
        shutil.rmtree(out, ignore_errors=True)
    own, child = _peak_rss_mib()
    emit("pool_build_time", dt, "s", assemblies=n, tasks=int(fig.horizons.size), workers=workers, full_scale=n >= 8987, **machine())
    emit("pool_tasks", int(fig.horizons.size), "tasks", assemblies=n)
    emit("pool_peak_rss_parent", own, "MiB")
    emit("pool_peak_rss_largest_worker", child, "MiB")
    emit("pool_peak_rss_total_bound", own + workers * child, "MiB", note="parent + workers x largest worker")
    emit("pool_output_size", size_mib, "MiB")


def bench_checks() -> None:
    """Overlap, connectivity and buildability on a fresh 700-brick assembly (no cached grid)."""
    # the checks' cost on 700 bricks: without the single-arm ordering, which trims a brick or two it cannot press
    a = generate_assembly("bench700", 3, kind="house", n_bricks=700, config=GeneratorConfig(single_arm=False))
    assert len(a) == 700, len(a)

    def run(fn_name: str) -> None:
        fresh = type(a)(a.bricks, a.baseplate, a.name)  # new object: caches start empty
        getattr(fresh, fn_name)()

    for name in ("overlaps", "connected_to_ground", "buildability_errors", "validate"):
        emit(f"assembly700_{name}", median_ms(timed(lambda n=name: run(n), 30)), "ms", bricks=700)

    def all_checks() -> None:
        fresh = type(a)(a.bricks, a.baseplate, a.name)
        fresh.overlaps()
        fresh.connected_to_ground()
        fresh.buildability_errors()

    emit("assembly700_all_checks", median_ms(timed(all_checks, 30)), "ms", bricks=700, limit_ms=20)
    emit("generate_700_bricks", median_ms(timed(lambda: generate_assembly("g", 3, kind="house", n_bricks=700), 5)), "ms")


def main() -> None:
    """Parse arguments and run both benchmarks."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--assemblies", type=int, default=8987)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    bench_checks()
    bench_pool(args.assemblies, args.workers)


if __name__ == "__main__":
    main()
