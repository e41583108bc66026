"""The JARVIS paper's suite statistics, a suite's own, and a draw that matches them.

The paper's 50 tasks: action bricks mean 5.18, median 3.5, max 29, half of them at 3-5; initial bricks
mean 74.96, median 58.5, max 236; drawn from a validation pool of 1,067 tasks over 48 assemblies.

`match_statistics` starts from the stratified draw (jarvis_sim.tasks.difficulty.sample_stratum) and
swaps one task at a time for another of the same stratum while that brings the suite's statistics
closer to the paper's, so the strata counts and the difficulty ordering stay as drawn. Plain Python
arithmetic on integers and floats, in a fixed order: the same bytes on every machine and BLAS kernel.
"""

from __future__ import annotations

import bisect
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from jarvis_sim.tasks.spec import Difficulty


@dataclass(frozen=True)
class SuiteStats:
    """What the paper reports about its suite (and we about ours)."""

    n_tasks: int
    horizon_mean: float
    horizon_median: float
    horizon_max: int
    share_3_to_5: float  # fraction of tasks with 3-5 action bricks
    initial_mean: float
    initial_median: float
    initial_max: int

    def as_dict(self) -> dict[str, float | int]:
        """The figures, rounded for tables."""
        return {"n_tasks": self.n_tasks, "action_bricks_mean": round(self.horizon_mean, 2),
                "action_bricks_median": self.horizon_median, "action_bricks_max": self.horizon_max,
                "share_3_to_5_action_bricks": round(self.share_3_to_5, 3),
                "initial_bricks_mean": round(self.initial_mean, 2), "initial_bricks_median": self.initial_median,
                "initial_bricks_max": self.initial_max}


PAPER = SuiteStats(n_tasks=50, horizon_mean=5.18, horizon_median=3.5, horizon_max=29, share_3_to_5=0.5,
                   initial_mean=74.96, initial_median=58.5, initial_max=236)
PAPER_POOL_TASKS = 1067
PAPER_POOL_ASSEMBLIES = 48


def suite_stats(horizons: Sequence[int], initials: Sequence[int]) -> SuiteStats:
    """The statistics of a list of tasks given as (action bricks, initial bricks)."""
    if not horizons or len(horizons) != len(initials):
        raise ValueError("need one initial count per task, and at least one task")
    return SuiteStats(
        n_tasks=len(horizons),
        horizon_mean=sum(horizons) / len(horizons),
        horizon_median=float(statistics.median(horizons)),
        horizon_max=max(horizons),
        share_3_to_5=sum(3 <= h <= 5 for h in horizons) / len(horizons),
        initial_mean=sum(initials) / len(initials),
        initial_median=float(statistics.median(initials)),
        initial_max=max(initials),
    )


def distance(got: SuiteStats, want: SuiteStats = PAPER) -> float:
    """Sum of the relative deviations of every figure (0: every figure matches)."""
    return (abs(got.horizon_mean - want.horizon_mean) / want.horizon_mean
            + abs(got.horizon_median - want.horizon_median) / want.horizon_median
            + abs(got.horizon_max - want.horizon_max) / want.horizon_max
            + abs(got.share_3_to_5 - want.share_3_to_5)
            + abs(got.initial_mean - want.initial_mean) / want.initial_mean
            + abs(got.initial_median - want.initial_median) / want.initial_median
            + abs(got.initial_max - want.initial_max) / want.initial_max)


@dataclass(frozen=True)
class PoolTask:
    """A validation-pool task as the draw sees it."""

    task_id: str
    source: str
    stratum: Difficulty
    horizon: int
    initial: int


class _Draft:
    """A suite being matched: its tasks and running figures, so a trial swap costs O(n), not a full recount."""

    def __init__(self, tasks: Sequence[PoolTask], want: SuiteStats):
        self.tasks = list(tasks)
        self.want = want
        self.horizons = sorted(t.horizon for t in self.tasks)
        self.initials = sorted(t.initial for t in self.tasks)
        self.sources: dict[str, int] = {}
        for t in self.tasks:
            self.sources[t.source] = self.sources.get(t.source, 0) + 1
        self.ids = {t.task_id for t in self.tasks}

    @staticmethod
    def _median(values: list[int]) -> float:
        n = len(values)
        return float(values[n // 2]) if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2

    @staticmethod
    def _replaced(values: list[int], old: int, new: int) -> list[int]:
        out = list(values)
        del out[bisect.bisect_left(out, old)]
        bisect.insort(out, new)
        return out

    def cost(self, k: int | None = None, new: PoolTask | None = None) -> float:
        """The cost of the draft, or of the draft with task k replaced by `new`."""
        hs, cs, repeats = self.horizons, self.initials, len(self.tasks) - len(self.sources)
        if k is not None and new is not None:
            old = self.tasks[k]
            hs = self._replaced(hs, old.horizon, new.horizon)
            cs = self._replaced(cs, old.initial, new.initial)
            if old.source != new.source:
                repeats += (self.sources[old.source] == 1) - (self.sources.get(new.source, 0) == 0)
        n = len(hs)
        got = SuiteStats(n, sum(hs) / n, self._median(hs), hs[-1], sum(3 <= h <= 5 for h in hs) / n,
                         sum(cs) / n, self._median(cs), cs[-1])
        # A source assembly used twice costs a little: the paper's tasks come from different assemblies
        # wherever the pool allows.
        return distance(got, self.want) + 0.01 * repeats

    def swap(self, k: int, new: PoolTask) -> None:
        """Replace task k by `new`."""
        old = self.tasks[k]
        self.horizons = self._replaced(self.horizons, old.horizon, new.horizon)
        self.initials = self._replaced(self.initials, old.initial, new.initial)
        self.sources[old.source] -= 1
        if not self.sources[old.source]:
            del self.sources[old.source]
        self.sources[new.source] = self.sources.get(new.source, 0) + 1
        self.ids.discard(old.task_id)
        self.ids.add(new.task_id)
        self.tasks[k] = new


def match_statistics(drawn: Sequence[PoolTask], pool: Sequence[PoolTask], want: SuiteStats = PAPER,
                     seed: str = "jarvis-suite", trials: int = 40000, restarts: int = 8) -> list[PoolTask]:
    """The drawn suite after same-stratum swaps that bring its statistics to `want`.

    Each attempt is threshold accepting (a deterministic cousin of simulated annealing: a swap is taken
    when it costs at most a threshold more, the threshold falling linearly to zero) from the drawn suite,
    then best single swaps until none helps. Attempts, seeded `seed/0`, `seed/1` ..., stop at the first
    that meets every figure exactly, or after `restarts`; the cheapest suite seen is returned.
    """
    by_stratum: dict[str, list[PoolTask]] = {}
    for t in sorted(pool, key=lambda t: t.task_id):
        by_stratum.setdefault(t.stratum, []).append(t)
    best: list[PoolTask] = list(drawn)
    best_cost = _Draft(best, want).cost()
    for attempt in range(restarts):
        tasks = _one_attempt(drawn, by_stratum, want, f"{seed}/{attempt}", trials)
        cost = _Draft(tasks, want).cost()
        if cost < best_cost - 1e-12:
            best, best_cost = tasks, cost
        if distance(suite_stats([t.horizon for t in best], [t.initial for t in best]), want) < 1e-12:
            break
    return best


def _one_attempt(drawn: Sequence[PoolTask], by_stratum: dict[str, list[PoolTask]], want: SuiteStats, seed: str,
                 trials: int) -> list[PoolTask]:
    rng = random.Random(f"jarvis-match-statistics/{seed}")
    draft = _Draft(drawn, want)
    cost = draft.cost()
    best_cost, best = cost, list(draft.tasks)
    n = len(draft.tasks)
    for step in range(trials):
        threshold = 0.05 * (1 - step / trials)
        # Every third move swaps two tasks at once: one figure (a maximum, say) often cannot move without
        # another task making up for it in the means.
        first: tuple[int, PoolTask] | None = None
        if step % 3 == 2:
            k0 = rng.randrange(n)
            opts0 = by_stratum[draft.tasks[k0].stratum]
            new0 = opts0[rng.randrange(len(opts0))]
            if new0.task_id in draft.ids:
                continue
            first = (k0, draft.tasks[k0])
            draft.swap(k0, new0)
        k = rng.randrange(n)
        options = by_stratum[draft.tasks[k].stratum]
        new = options[rng.randrange(len(options))]
        trial = draft.cost(k, new) if new.task_id not in draft.ids else float("inf")
        if trial <= cost + threshold:
            draft.swap(k, new)
            cost = trial
            if cost < best_cost - 1e-12:
                best_cost, best = cost, list(draft.tasks)
        elif first is not None:
            draft.swap(*first)  # undo the first half of a rejected double move
    draft = _Draft(best, want)
    cost = best_cost
    while True:  # polish: the best single swap, until none helps
        choice: tuple[float, int, PoolTask] | None = None
        for k, old in enumerate(draft.tasks):
            for new in by_stratum[old.stratum]:
                if new.task_id not in draft.ids and (c := draft.cost(k, new)) < (choice[0] if choice else cost) - 1e-12:
                    choice = (c, k, new)
        if choice is None:
            return draft.tasks
        cost, k, new = choice
        draft.swap(k, new)
