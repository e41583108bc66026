"""The full task pool at the paper's scale, built in parallel and written as it streams.

Output folder:
- `assemblies.jsonl`: one assembly a line, `{"id", "bricks": [[part, colour, x, y, z, yaw], ...]}`
  in build order (compact: the pool holds about a million bricks).
- `tasks.jsonl`: one task a line, compact: the segment of its assembly (`start`, `horizon`, `steps`),
  difficulty fields, workspace origin, staging area and the loose bricks' start poses. A full TaskSpec
  is `jarvis_sim.tasks.collection.rebuild_task(id)` (identical to what these rows describe).
- `report.json` and PNG figures (jarvis_sim.tasks.pool_report).

Each worker builds whole assemblies (generation, validation, decomposition, staging); the parent
writes lines in assembly order, so the files are identical for any number of workers.
"""

from __future__ import annotations

import json
import multiprocessing
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from jarvis_sim.lego import units as u
from jarvis_sim.tasks.collection import make_assembly, segments_of
from jarvis_sim.tasks.decompose import task_id
from jarvis_sim.tasks.difficulty import difficulty_score
from jarvis_sim.tasks.staging import stage_bricks_clear_of, workspace_for_bounds

CHUNK = 25  # assemblies per work item: large enough to amortise pickling, small for a smooth bar


@dataclass
class ChunkResult:
    """What a worker returns for a run of assemblies: finished JSONL lines and the figures for the report."""

    assembly_lines: list[str]
    task_lines: list[str]
    horizons: list[int]
    complexities: list[int]
    scores: list[float]
    sizes: list[int]


def _assembly_tasks(index: int, seed: int, out: ChunkResult) -> None:
    a = make_assembly("p", seed, index)
    bricks = a.bricks
    out.sizes.append(len(bricks))
    out.assembly_lines.append(
        json.dumps(
            {"id": a.name, "bricks": [[b.part, b.color, b.x, b.y, b.z, b.yaw] for b in bricks]},
            separators=(",", ":"),
        )
    )
    # Footprint bounds of every prefix, so each task's workspace costs O(1).
    bounds: list[tuple[int, int, int, int]] = []
    x0 = y0 = 1 << 30
    x1 = y1 = -(1 << 30)
    for b in bricks:
        ex, ey = b.extent
        x0, y0, x1, y1 = min(x0, b.x), min(y0, b.y), max(x1, b.x + ex), max(y1, b.y + ey)
        bounds.append((x0, y0, x1, y1))
    for k, seg in enumerate(segments_of(a)):
        tid = task_id(a.name, k)
        box = bounds[seg.stop - 1]
        ws = workspace_for_bounds(box)
        max_y = ws.lattice_origin[1] + box[3] * u.STUD_PITCH_M
        rng = random.Random(f"jarvis-stage/{tid}/{seed}")
        ws, poses = stage_bricks_clear_of(bricks[seg.start : seg.stop], ws, max_y, rng, a.name)
        c, w, d = difficulty_score(seg.start, seg.length)
        out.horizons.append(seg.length)
        out.complexities.append(seg.start)
        out.scores.append(d)
        out.task_lines.append(
            json.dumps(
                {
                    "id": tid,
                    "source_assembly": a.name,
                    "start": seg.start,
                    "horizon": seg.length,
                    "steps": list(seg.steps),
                    "score": round(d, 6),
                    "complexity_norm": round(c, 6),
                    "workload_norm": round(w, 6),
                    "lattice_origin": list(ws.lattice_origin),
                    "staging": [list(ws.staging_min), list(ws.staging_max)],
                    "starts": [[p.x, p.y, p.yaw] for p in poses],
                },
                separators=(",", ":"),
            )
        )


def _chunk(args: tuple[int, int, int]) -> ChunkResult:
    lo, hi, seed = args
    out = ChunkResult([], [], [], [], [], [])
    for i in range(lo, hi):
        _assembly_tasks(i, seed, out)
    return out


@dataclass
class PoolFigures:
    """Per-task and per-assembly figures gathered while the pool streams to disk."""

    horizons: np.ndarray
    complexities: np.ndarray
    scores: np.ndarray
    sizes: np.ndarray


def build_pool(
    n_assemblies: int,
    seed: int,
    out_dir: Path,
    workers: int = 2,
    on_progress: Callable[[int], None] | None = None,
) -> PoolFigures:
    """Generate `n_assemblies` assemblies and all their tasks into out_dir (JSONL); return the figures.

    `on_progress(k)` is called with the number of assemblies finished since the last call.
    """
    if n_assemblies < 1:
        raise ValueError(f"need at least one assembly, got {n_assemblies}")
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = [(lo, min(lo + CHUNK, n_assemblies), seed) for lo in range(0, n_assemblies, CHUNK)]
    h: list[int] = []
    c: list[int] = []
    d: list[float] = []
    s: list[int] = []
    with (
        open(out_dir / "assemblies.jsonl", "w", encoding="utf-8") as fa,
        open(out_dir / "tasks.jsonl", "w", encoding="utf-8") as ft,
    ):
        for res in _results(jobs, workers):
            fa.write("\n".join(res.assembly_lines) + "\n")
            ft.write("\n".join(res.task_lines) + "\n")
            h += res.horizons
            c += res.complexities
            d += res.scores
            s += res.sizes
            if on_progress:
                on_progress(len(res.sizes))
    return PoolFigures(np.array(h), np.array(c), np.array(d), np.array(s))


def _results(jobs: list[tuple[int, int, int]], workers: int) -> Iterator[ChunkResult]:
    if workers <= 1:
        yield from map(_chunk, jobs)
        return
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers) as pool:
        yield from pool.imap(_chunk, jobs)
