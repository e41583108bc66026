"""`jarvis bench origami`: verifying ~100-crease patterns, and generating the whole GamiBench set.

Options: --fraction F renders only that share of the patterns' images (the output then says so).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from common import emit, machine, timed

from jarvis_sim.origami.foldability import check, local_violations
from jarvis_sim.origami.generator import fold_sequence, miura_ori


def bench_verify() -> None:
    """Local + global verification of patterns with about 100 creases."""
    cases = {"miura-ori": miura_ori(7, 8, 0.2)}
    rng = random.Random(7)
    for _ in range(20):
        cp = fold_sequence(rng, 7, "fold-seq-7")
        if cp is not None and 90 <= cp.crease_count <= 130:
            cases["fold-sequence"] = cp
            break
    for label, cp in cases.items():
        assert cp is not None
        t_local = timed(lambda cp=cp: local_violations(cp), 5)
        t_all = timed(lambda cp=cp: check(cp), 5)
        verdict = check(cp)
        emit(f"verify_{label}_local", statistics.median(t_local), "s", creases=cp.crease_count)
        emit(f"verify_{label}_local_and_global", statistics.median(t_all), "s", creases=cp.crease_count,
             foldable=verdict.foldable, target_s=1.0, **verdict.stats)


def bench_generate(fraction: float) -> None:
    """Build the library, render crease images and six views per pattern, build every item's composite."""
    from jarvis_sim.origami.benchmark import build_questions, generated_source, item_for
    from jarvis_sim.origami.library import build_library, write_library
    from jarvis_sim.origami.render import VIEWS

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "gamibench"
        os.environ["JARVIS_CACHE_DIR"] = str(Path(tmp) / "cache")
        t0 = time.perf_counter()
        entries = build_library()
        write_library(entries, out)
        t_lib = time.perf_counter() - t0
        emit("generate_patterns", t_lib, "s", valid=len(entries), impossible=len(entries))
        source = generated_source(out)
        keep = entries[: max(1, round(len(entries) * fraction))]
        t1 = time.perf_counter()
        for e in keep:
            source.path(e.name, "cp")
            source.path(e.name, "impossible_cp")
            for view in VIEWS:
                source.path(e.name, view)
        t_img = time.perf_counter() - t1
        emit("render_images", t_img, "s", patterns=len(keep), crease_images=2 * len(keep), views=6 * len(keep),
             fraction=len(keep) / len(entries), per_view_ms=1000 * t_img / max(1, 8 * len(keep)))
        names = [e.name for e in keep]
        levels: dict[str, str | None] = {e.name: e.level for e in keep}
        t2 = time.perf_counter()
        qs = build_questions(names, levels)
        for q in qs:
            item_for(q, source)
        t_items = time.perf_counter() - t2
        emit("build_items", t_items, "s", items=len(qs))
        scale = len(entries) / len(keep)
        total = t_lib + (t_img + t_items) * scale
        emit("generate_whole_set", total, "s", measured_fraction=len(keep) / len(entries),
             extrapolated=len(keep) < len(entries), target_s=600, cores=os.cpu_count(), **machine())


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--fraction", type=float, default=1.0)
    ap.add_argument("--skip-generate", action="store_true")
    args = ap.parse_args()
    bench_verify()
    if not args.skip_generate:
        bench_generate(args.fraction)
