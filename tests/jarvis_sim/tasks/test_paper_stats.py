"""Suite statistics and the draw matched to a target: strata kept, figures met, deterministic."""

from __future__ import annotations

import random

import pytest

from jarvis_sim.tasks.paper_stats import PoolTask, SuiteStats, distance, match_statistics, suite_stats


def test_suite_stats_figures() -> None:
    s = suite_stats([1, 3, 4, 5, 29, 2], [0, 10, 20, 30, 40, 236])
    assert (s.horizon_mean, s.horizon_median, s.horizon_max) == (44 / 6, 3.5, 29)
    assert s.share_3_to_5 == 0.5 and (s.initial_median, s.initial_max) == (25.0, 236)
    assert distance(s, s) == 0.0
    with pytest.raises(ValueError, match="one initial count per task"):
        suite_stats([1, 2], [3])


def _pool() -> list[PoolTask]:
    rng = random.Random(3)
    out = []
    for i in range(300):
        stratum = ("easy", "medium", "hard")[i % 3]
        h = {"easy": rng.randint(1, 3), "medium": rng.randint(2, 6), "hard": rng.randint(4, 30)}[stratum]
        out.append(PoolTask(f"t{i:03d}", f"a{i // 6}", stratum, h, rng.randint(0, 240)))  # type: ignore[arg-type]
    return out


def test_matching_meets_the_target_and_keeps_the_strata() -> None:
    pool = _pool()
    drawn = [t for t in pool if t.stratum == "easy"][:4] + [t for t in pool if t.stratum == "hard"][:4]
    want = SuiteStats(n_tasks=8, horizon_mean=6.0, horizon_median=3.5, horizon_max=20, share_3_to_5=0.5,
                      initial_mean=100.0, initial_median=90.0, initial_max=200)
    before = distance(suite_stats([t.horizon for t in drawn], [t.initial for t in drawn]), want)
    got = match_statistics(drawn, pool, want, seed="test")
    after = distance(suite_stats([t.horizon for t in got], [t.initial for t in got]), want)
    assert after < before and after < 0.05
    assert [t.stratum for t in got] == [t.stratum for t in drawn]  # swaps stay within a stratum
    assert len({t.task_id for t in got}) == len(got)
    assert got == match_statistics(drawn, pool, want, seed="test")  # deterministic
