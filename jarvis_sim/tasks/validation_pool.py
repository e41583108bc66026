"""The validation pools that suites are drawn from, by name.

`v1`: every task of the first 400 assemblies of validation seed 7 (jarvis-v1 and jarvis-mini).
`v2`: the pool as the JARVIS paper sizes it, 1,067 tasks over 48 assemblies (jarvis-v2). Its assemblies
come from validation seed 107, the first seed whose first 48 Panda-sized assemblies (at most 240
bricks) hold a task of 29 action bricks and a task on a 236-brick start, the maxima of the paper's
suite. Those 48 hold 915 tasks; greedy swaps for the seed's next 60 Panda-sized assemblies (each time the
pair that brings the count nearest 1,067; the two holding those maxima are never swapped out) bring the
pool to exactly 1,067 tasks: two swaps, for v107-00056-vehicle and v107-00097-random_stack.
Seed 107 is generated for one arm (GeneratorConfig.single_arm); a build trimmed of what one arm cannot press on is
refilled to its drawn size, so every assembly has the size it had before the check and the pool the same segments:
the same 1,067 task ids, starts and lengths, of bricks one arm can build.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.lego.generator import AssemblyTooLarge
from jarvis_sim.tasks.collection import make_assembly, segments_of
from jarvis_sim.tasks.decompose import Segment
from jarvis_sim.tasks.paper_stats import PAPER, PAPER_POOL_ASSEMBLIES, PAPER_POOL_TASKS


@dataclass(frozen=True)
class PoolRecipe:
    """Which assemblies of the validation split a pool holds."""

    name: str
    seed: int
    n_assemblies: int
    max_bricks: int | None = None  # only assemblies a Panda can build on its table
    n_tasks: int | None = None  # swap assemblies until the pool holds exactly this many tasks
    candidates: int = 0  # how many further assemblies the swaps may draw on


POOLS: dict[str, PoolRecipe] = {
    "v1": PoolRecipe("v1", seed=7, n_assemblies=400),
    "v2": PoolRecipe("v2", seed=107, n_assemblies=PAPER_POOL_ASSEMBLIES, max_bricks=240,
                     n_tasks=PAPER_POOL_TASKS, candidates=60),
}


@dataclass(frozen=True)
class PoolAssembly:
    """An assembly of a pool with its segments (its tasks)."""

    assembly: Assembly
    segments: tuple[Segment, ...]


def _holds_paper_maximum(a: PoolAssembly) -> bool:
    return any(s.length == PAPER.horizon_max or s.start == PAPER.initial_max for s in a.segments)


def _swap_to_size(chosen: list[PoolAssembly], spare: Sequence[PoolAssembly], n_tasks: int) -> list[PoolAssembly]:
    """Swap chosen assemblies for spare ones, one pair at a time, the pair bringing the task count nearest
    n_tasks first (ties: the latest chosen out, the earliest spare in), until the count is reached."""
    chosen, spare = list(chosen), list(spare)
    total = sum(len(a.segments) for a in chosen)
    while total != n_tasks:
        best: tuple[int, int, int] | None = None  # (distance after, -out index, in index)
        for i, out in enumerate(chosen):
            if _holds_paper_maximum(out):
                continue
            for j, inn in enumerate(spare):
                after = abs(total - len(out.segments) + len(inn.segments) - n_tasks)
                key = (after, -i, j)
                if after < abs(total - n_tasks) and (best is None or key < best):
                    best = key
        if best is None:
            raise ValueError(f"cannot bring the pool to {n_tasks} tasks (it holds {total})")
        i, j = -best[1], best[2]
        total += len(spare[j].segments) - len(chosen[i].segments)
        chosen[i], spare[j] = spare[j], chosen[i]
    return sorted(chosen, key=lambda a: a.assembly.name)


@cache
def pool_assemblies(name: str) -> tuple[PoolAssembly, ...]:
    """The assemblies of a named validation pool, with their segments, in index order."""
    if name not in POOLS:
        raise KeyError(f"unknown validation pool {name!r}; known: {', '.join(sorted(POOLS))}")
    r = POOLS[name]
    found: list[PoolAssembly] = []
    index = 0
    while len(found) < r.n_assemblies + r.candidates:
        try:  # generation stops as soon as an assembly places more bricks than the pool keeps
            a = make_assembly("v", r.seed, index, max_bricks=r.max_bricks)
        except AssemblyTooLarge:
            a = None
        index += 1
        if a is not None and (r.max_bricks is None or len(a) <= r.max_bricks):
            found.append(PoolAssembly(a, tuple(segments_of(a))))
    chosen = found[: r.n_assemblies]
    if r.n_tasks is not None:
        chosen = _swap_to_size(chosen, found[r.n_assemblies:], r.n_tasks)
    return tuple(chosen)
