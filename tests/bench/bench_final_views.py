"""What an episode's end pictures cost: the backend's camera with segmentation, and built beside target.

Run: `jarvis bench final_views [--suite jarvis-v1] [--tasks 5] [--repeat 3]`. Each task is loaded in the
MuJoCo backend as an episode loads it; the end state measured is the loaded scene itself (the pictures cost
the same whatever was built). Same-run baseline: one top-camera RGB render, the frame every round already
pays for its observation.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root

os.environ.setdefault("MUJOCO_GL", "osmesa")
os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")

from common import emit, machine, median_ms, timed


def main() -> None:
    """Print one JSON object per figure."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", default="jarvis-v1")
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from agent.episodes.final_views import built_and_target_views, capture_final_views
    from jarvis_sim.backends.registry import make_backend
    from jarvis_sim.tasks.registry import load_task, suite_task_ids

    backend = make_backend("mujoco")
    base, whole, pair, bricks = [], [], [], []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for task_id in suite_task_ids(args.suite)[: args.tasks]:
                task = load_task(task_id)
                backend.load(task)  # type: ignore[arg-type]
                state = backend.world_state()
                bricks.append(len(state.bricks))
                base += timed(lambda: backend.render("top", rgb=True, depth=False, segmentation=False), args.repeat)
                whole += timed(lambda t=task, s=state: capture_final_views(backend, "top", t, s, Path(tmp)),  # type: ignore[misc]
                               args.repeat)
                pair += timed(lambda t=task, s=state: built_and_target_views(t, s, Path(tmp)),  # type: ignore[misc]
                              args.repeat)
    finally:
        backend.close()
    ctx = {"suite": args.suite, "tasks": args.tasks, "repeat": args.repeat,
           "bricks_median": sorted(bricks)[len(bricks) // 2], **machine()}
    b = median_ms(base)
    emit("final_views.baseline_top_camera_rgb", b, "ms", **ctx)
    emit("final_views.all_three_pictures", median_ms(whole), "ms", ratio_to_baseline=round(median_ms(whole) / b, 2),
         **ctx)
    emit("final_views.built_and_target", median_ms(pair), "ms", ratio_to_baseline=round(median_ms(pair) / b, 2), **ctx)


if __name__ == "__main__":
    main()
