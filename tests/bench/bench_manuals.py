"""Manual rendering cost per page, per style (`jarvis bench manuals`).

Figures: `manual_setup_ms` (scene build and first GL context), `manual_step_ms` (one finished page:
renders, line art or photo finish, marking, callout), and as a baseline from the same run
`raw_rgb_ms`, one plain MuJoCo colour render of the same scene and size; `step_over_raw` is their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from common import emit, machine, median_ms, timed

from jarvis_sim.manuals import manual_styles
from jarvis_sim.manuals.manual import ManualRenderer
from tests.jarvis_sim.manuals.crafted import crafted_task


def main() -> None:
    """Time every style on the crafted 3-step task (or a suite task given with --task)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", default=None, help="task id (default: the crafted 3-step test task)")
    ap.add_argument("--width", type=int, default=800)
    ap.add_argument("--height", type=int, default=600)
    ap.add_argument("--repeat", type=int, default=2, help="passes over all steps")
    args = ap.parse_args()
    if args.task:
        from jarvis_sim.tasks.registry import load_task

        task = load_task(args.task)
    else:
        task = crafted_task()
    size = (args.width, args.height)
    ctx = {"task": task.id, "size": f"{size[0]}x{size[1]}", **machine()}
    for style in manual_styles():
        t0 = time.perf_counter()
        with ManualRenderer(task, style, size) as r:
            r.scene.render(rgb=True)  # the first render creates the GL context
            setup = time.perf_counter() - t0
            steps = []
            for _ in range(args.repeat):
                r._icons.clear()  # part pictures are cached per manual: time them every pass, as a first pass
                for k in range(len(task.manual_steps)):
                    steps += timed(lambda k=k: r.render_step(k), 1)
            raw = timed(lambda: r.scene.render(rgb=True), 5)
        emit("manual_setup_ms", setup * 1000, "ms", style=style, **ctx)
        emit("manual_step_ms", median_ms(steps), "ms", style=style, steps=len(steps), **ctx)
        emit("raw_rgb_ms", median_ms(raw), "ms", style=style, **ctx)
        emit("step_over_raw", statistics.median(steps) / statistics.median(raw), "ratio", style=style, **ctx)


if __name__ == "__main__":
    main()
