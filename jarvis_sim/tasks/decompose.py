"""Decomposition of build sequences into tasks: consecutive segments of varying length.

A task is one segment of an assembly's build order: the bricks before it are the initial structure,
the segment's bricks are the action bricks (shown by the manual steps), and the prefix that ends
with it is the target. Segments tile the sequence from the first brick; with probability
`SECOND_SPLIT_P` a second split, shifted by 1-3 bricks, adds overlapping segments (the JARVIS pool has
about 26 tasks per assembly at a mean horizon of 4.9, more than one tiling of its assemblies gives).

Horizons: 1 + a negative binomial (gamma-Poisson, shape `HORIZON_SHAPE`) whose mean grows slowly
with the assembly's size (larger models have fuller manual pages), plus a rare long tail up to
`MAX_HORIZON`. This gives the paper's shape: mean about 4.9, median 4, 95% at most 10, max 43, and a
weak positive correlation with the initial complexity.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.tasks.difficulty import difficulty_fields
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TaskSpec, time_budget_s
from jarvis_sim.tasks.staging import stage_bricks, workspace_for

MAX_HORIZON = 43
HORIZON_SHAPE = 5.0
HORIZON_EXTRA_MEAN = 3.3  # mean of (horizon - 1) for a 60-brick assembly
HORIZON_SIZE_EXPONENT = 0.22
LONG_TAIL_P = 0.003
SECOND_SPLIT_P = 0.30


@dataclass(frozen=True)
class Segment:
    """Bricks `start` .. `start + length - 1` of a build order, grouped into manual steps."""

    start: int
    length: int
    steps: tuple[int, ...]  # bricks per manual step, summing to length

    @property
    def stop(self) -> int:
        """Index one past the segment's last brick."""
        return self.start + self.length


def _poisson(rng: random.Random, lam: float) -> int:
    if lam > 30.0:  # normal approximation; exact sampling is slow for large means
        return max(0, round(rng.gauss(lam, math.sqrt(lam))))
    limit, k, p = math.exp(-lam), 0, rng.random()
    while p > limit:
        p *= rng.random()
        k += 1
    return k


def sample_horizon(rng: random.Random, n_bricks: int) -> int:
    """Number of action bricks of one segment of an assembly of `n_bricks` bricks."""
    if rng.random() < LONG_TAIL_P:
        return rng.randint(11, MAX_HORIZON)
    mean = HORIZON_EXTRA_MEAN * (max(n_bricks, 1) / 60.0) ** HORIZON_SIZE_EXPONENT
    lam = rng.gammavariate(HORIZON_SHAPE, mean / HORIZON_SHAPE)
    return min(MAX_HORIZON, 1 + _poisson(rng, lam))


def sample_steps(rng: random.Random, length: int) -> tuple[int, ...]:
    """Split a segment into manual steps of 1-3 bricks (mostly one brick a step)."""
    steps: list[int] = []
    left = length
    while left > 0:
        r = rng.random()
        k = 1 if r < 0.6 else 2 if r < 0.9 else 3
        k = min(k, left)
        steps.append(k)
        left -= k
    return tuple(steps)


def decompose(n_bricks: int, seed: int | str) -> list[Segment]:
    """Segments of a build order of `n_bricks` bricks, sorted by start then length, no duplicates."""
    rng = random.Random(f"jarvis-decompose/{seed}")
    splits = 2 if rng.random() < SECOND_SPLIT_P else 1
    seen: set[tuple[int, int]] = set()
    out: list[Segment] = []
    for split in range(splits):
        pos = 0 if split == 0 else min(rng.randint(1, 3), n_bricks)
        while pos < n_bricks:
            length = min(sample_horizon(rng, n_bricks), n_bricks - pos)
            if (pos, length) not in seen:
                seen.add((pos, length))
                out.append(Segment(pos, length, sample_steps(rng, length)))
            pos += length
    return sorted(out, key=lambda s: (s.start, s.length))


def task_id(assembly_id: str, k: int) -> str:
    """Task id of the k-th segment of an assembly: `lego/<assembly>/<k>`."""
    return f"lego/{assembly_id}/{k:03d}"


def task_from_segment(assembly: Assembly, segment: Segment, tid: str, seed: int) -> TaskSpec:
    """The TaskSpec of one segment: initial prefix, staged action bricks, manual steps, budget."""
    bricks = assembly.bricks
    if not 0 <= segment.start < segment.stop <= len(bricks):
        raise ValueError(f"segment {segment} does not fit assembly {assembly.name} of {len(bricks)} bricks")
    initial = list(bricks[: segment.start])
    actions = list(bricks[segment.start : segment.stop])
    target = assembly.prefix(segment.stop)
    workspace = workspace_for(target)
    rng = random.Random(f"jarvis-stage/{tid}/{seed}")
    workspace, poses = stage_bricks(actions, workspace, target, rng)
    steps: list[ManualStep] = []
    k = 0
    for i, n in enumerate(segment.steps):
        steps.append(ManualStep(index=i, brick_ids=[b.id for b in actions[k : k + n]]))
        k += n
    return TaskSpec(
        id=tid,
        source_assembly=assembly.name,
        baseplate=assembly.baseplate,
        workspace=workspace,
        initial=initial,
        action_bricks=[ActionBrick(start=p, target=b) for p, b in zip(poses, actions, strict=True)],
        manual_steps=steps,
        time_budget_s=time_budget_s(len(actions)),
        difficulty_fields=difficulty_fields(len(initial), len(actions)),
        seed=seed,
    )
