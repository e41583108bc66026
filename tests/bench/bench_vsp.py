"""`jarvis bench vsp`: load and score the official VSP items with the scripted agent; generate a fresh set.

Args: [--vsp-root DIR] [--n 100] [--workers 0] [--skip-generate]. Figures: official items loaded and
scored per second (both modes), with the scripted agent's accuracy; a fresh set of 46*n items with
images generated, with the time to re-load and score it. The REST figure comes with the server.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from common import emit, machine

from evaluator.answers import score_answer
from jarvis_sim.vsp import layout as L
from jarvis_sim.vsp.family import VspFamily
from jarvis_sim.vsp.generate import generate_set


def score_suite(fam: VspFamily, suite: str) -> tuple[int, float, float]:
    """(items, seconds, scripted accuracy %) for loading and scoring a suite in both modes."""
    t0 = time.perf_counter()
    ids = fam.task_ids(suite)
    correct = 0
    for tid in ids:
        item = fam.load(tid)
        answer = fam.scripted_answer(item)
        correct += score_answer(item, answer, "official").correct and score_answer(item, answer, "strict").correct
    return len(ids), time.perf_counter() - t0, 100.0 * correct / max(len(ids), 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vsp-root", default=None)
    ap.add_argument("--n", type=int, default=100, help="generated items per level (100 -> 4,600 items)")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--skip-generate", action="store_true")
    args = ap.parse_args()
    ctx = machine() | {"cpus": os.cpu_count()}
    root = L.resolve_root(args.vsp_root)
    if root is not None and (root / "VSP-main").is_dir():
        n, secs, acc = score_suite(VspFamily(root=root), "vsp")
        emit("vsp_official_load_score_s", secs, "s", items=n, scripted_accuracy=acc, target_s=60, **ctx)
        emit("vsp_official_items_per_s", n / secs, "items/s", **ctx)
    else:
        emit("vsp_official_load_score_s", float("nan"), "s", skipped="no official data; set JARVIS_VSP_ROOT", **ctx)
    if args.skip_generate:
        return
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        generate_set(Path(tmp), seed=12345, n=args.n, n_examples=8, workers=args.workers or None)
        gen = time.perf_counter() - t0
        n_files = sum(1 for p in Path(tmp).rglob("*") if p.is_file())
        emit("vsp_generate_s", gen, "s", items=46 * args.n, files=n_files, target_s=180, **ctx)
        n, secs, acc = score_suite(VspFamily(sets={"bench": Path(tmp)}), "vsp-bench")
        emit("vsp_generated_load_score_s", secs, "s", items=n, scripted_accuracy=acc, **ctx)


if __name__ == "__main__":
    main()
