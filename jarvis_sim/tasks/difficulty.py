"""Task difficulty D_i, stratification into Easy / Medium / Hard, and stratified sampling.

Formula (fixed references, so a task's D_i does not depend on which pool it was drawn from):

    c_i = ln(1 + C_i) / ln(1 + C_REF)        C_i: bricks present at the start (initial complexity)
    w_i = ln(W_i) / ln(W_REF)                W_i: action bricks to place (assembly workload, >= 1)
    D_i = clip(ALPHA_C * c_i + ALPHA_W * w_i, 0, 1)     with ALPHA_W = 0.65 > ALPHA_C = 0.35

C_REF = 740 and W_REF = 43 are the largest initial complexity and horizon of the JARVIS pool. The
logarithms reflect diminishing returns: going from 1 to 3 action bricks changes a task more than
going from 21 to 23. The workload is weighted higher because every action brick is a full
perceive-grasp-place cycle the agent must get right, while the initial structure mostly adds visual
clutter and collision risk.

Stratification ranks tasks by D_i: the bottom 40% are Easy, the next 30% Medium, the top 30% Hard.
A suite samples each stratum at near-uniform intervals of D: the stratum, ranked by D, is cut into n
intervals holding equal numbers of tasks and the task nearest each interval's median D is taken,
preferring a source assembly not used yet (see `sample_stratum`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jarvis_sim.tasks.spec import Difficulty, DifficultyFields

C_REF = 740
W_REF = 43
ALPHA_C = 0.35
ALPHA_W = 0.65
STRATA: tuple[tuple[Difficulty, float], ...] = (("easy", 0.4), ("medium", 0.3), ("hard", 0.3))


def difficulty_score(initial_complexity: int, workload: int) -> tuple[float, float, float]:
    """(c_i, w_i, D_i) for a task; see the module docstring for the formula."""
    if initial_complexity < 0 or workload < 1:
        raise ValueError(f"need initial complexity >= 0 and workload >= 1, got {initial_complexity}, {workload}")
    c = min(1.0, math.log1p(initial_complexity) / math.log1p(C_REF))
    w = min(1.0, math.log(workload) / math.log(W_REF))
    d = min(1.0, max(0.0, ALPHA_C * c + ALPHA_W * w))
    return c, w, d


def difficulty_fields(initial_complexity: int, workload: int) -> DifficultyFields:
    """The TaskSpec difficulty fields (rounded to 1e-6 so JSON files are stable)."""
    c, w, d = difficulty_score(initial_complexity, workload)
    return DifficultyFields(
        initial_complexity=initial_complexity,
        workload=workload,
        complexity_norm=round(c, 6),
        workload_norm=round(w, 6),
        score=round(d, 6),
    )


def stratum_thresholds(scores: Sequence[float]) -> tuple[float, float]:
    """D values splitting a pool 40/30/30: a task is Easy below the first, Hard at or above the second."""
    if not scores:
        raise ValueError("cannot stratify an empty pool")
    s = sorted(scores)
    n = len(s)
    return s[min(n - 1, math.ceil(0.4 * n))], s[min(n - 1, math.ceil(0.7 * n))]


def stratum_of(score: float, thresholds: tuple[float, float]) -> Difficulty:
    """The stratum of a D value under pool thresholds."""
    if score < thresholds[0]:
        return "easy"
    if score < thresholds[1]:
        return "medium"
    return "hard"


@dataclass(frozen=True)
class Candidate:
    """A task that may enter a suite: its id, D_i and source assembly."""

    task_id: str
    score: float
    source: str


def sample_stratum(
    candidates: Sequence[Candidate],
    n: int,
    used_sources: set[str] | None = None,
    accept: Callable[[Candidate], bool] | None = None,
) -> list[Candidate]:
    """n tasks at near-uniform intervals of D within a stratum, preferring source assemblies not used yet.

    The candidates, ranked by D, are cut into n intervals holding equal numbers of tasks (quantile
    intervals, so the suite follows the pool's distribution instead of over-sampling its sparse
    extremes); from each interval the task nearest its median D is taken, skipping tasks whose source
    is already used when the interval has another. `used_sources` is updated in place so several
    strata can share it. Deterministic: ties break by task id.

    `accept`, when given, is asked of each interval's tasks in that order and the first it accepts is taken,
    so a costly eligibility test runs on a few tasks per interval and the intervals stay those of the whole
    stratum. An interval with no accepted task is an error naming it.
    """
    if n <= 0:
        return []
    if len(candidates) < n:
        raise ValueError(f"a stratum with {len(candidates)} candidates cannot give {n} tasks")
    used = used_sources if used_sources is not None else set()
    ranked = sorted(candidates, key=lambda c: (c.score, c.task_id))
    picks: list[Candidate] = []
    for k in range(n):
        interval = ranked[k * len(ranked) // n : (k + 1) * len(ranked) // n]
        target = interval[len(interval) // 2].score
        order = sorted(interval, key=lambda c: (abs(c.score - target), c.task_id))
        fresh = [c for c in order if c.source not in used]
        ranked_picks = fresh + [c for c in order if c.source in used]
        pick = next((c for c in ranked_picks if accept is None or accept(c)), None)
        if pick is None:
            raise ValueError(f"no task of interval {k + 1} of {n} (D {interval[0].score:.3f}-{interval[-1].score:.3f}, "
                             f"{len(interval)} tasks) is accepted")
        picks.append(pick)
        used.add(pick.source)
    return picks
