"""The difficulty formula, the 40/30/30 stratification and stratified sampling."""

from __future__ import annotations

import itertools

import pytest

from jarvis_sim.tasks.difficulty import (
    Candidate,
    difficulty_score,
    sample_stratum,
    stratum_of,
    stratum_thresholds,
)


def test_workload_weighs_more_than_complexity() -> None:
    _, _, base = difficulty_score(50, 3)
    assert difficulty_score(50, 4)[2] > base
    assert difficulty_score(51, 3)[2] > base
    # Doubling the normalised workload moves D more than doubling the normalised complexity.
    c, w, _ = difficulty_score(20, 5)
    assert difficulty_score(740, 1)[2] < difficulty_score(0, 43)[2]
    assert 0.0 < c < 1.0 and 0.0 < w < 1.0
    assert difficulty_score(0, 1)[2] == 0.0 and difficulty_score(740, 43)[2] == pytest.approx(1.0)


def test_bad_inputs_rejected() -> None:
    with pytest.raises(ValueError):
        difficulty_score(-1, 2)
    with pytest.raises(ValueError):
        difficulty_score(3, 0)


def test_stratification_is_40_30_30() -> None:
    scores = [i / 1000 for i in range(1000)]
    t = stratum_thresholds(scores)
    labels = [stratum_of(s, t) for s in scores]
    assert labels.count("easy") == 400 and labels.count("medium") == 300 and labels.count("hard") == 300
    assert all(labels[i] == "easy" for i in range(400))


def test_sampling_spreads_over_the_stratum_and_prefers_new_sources() -> None:
    cands = [Candidate(f"t{i:03d}", i / 100, f"a{i // 10}") for i in range(100)]
    picks = sample_stratum(cands, 5, set())
    scores = [p.score for p in picks]
    assert scores == sorted(scores)
    gaps = [b - a for a, b in itertools.pairwise(scores)]
    assert max(gaps) - min(gaps) < 0.03  # near-uniform intervals
    assert len({p.source for p in picks}) == 5
    first = {p.source for p in picks}
    used = set(first)
    again = sample_stratum(cands, 5, used)
    assert not first.intersection(p.source for p in again)


def test_too_few_candidates_is_an_error() -> None:
    with pytest.raises(ValueError, match="cannot give"):
        sample_stratum([Candidate("a", 0.1, "x")], 2)


def test_an_eligibility_test_skips_tasks_within_each_interval() -> None:
    cands = [Candidate(f"t{i:03d}", i / 100, f"a{i}") for i in range(100)]
    plain = sample_stratum(cands, 5)
    asked: list[str] = []

    def odd_only(c: Candidate) -> bool:
        asked.append(c.task_id)
        return int(c.task_id[1:]) % 2 == 1

    picks = sample_stratum(cands, 5, accept=odd_only)
    assert all(int(p.task_id[1:]) % 2 == 1 for p in picks)
    # Each pick stays in its own interval (the whole stratum's quantiles), next to the plain pick.
    for k, (a, b) in enumerate(zip(plain, picks, strict=True)):
        assert 20 * k <= int(b.task_id[1:]) < 20 * (k + 1) and abs(a.score - b.score) <= 0.011
    assert len(asked) < 20  # the test runs on a few tasks per interval, not the whole stratum
    with pytest.raises(ValueError, match="interval 1 of 5"):
        sample_stratum(cands, 5, accept=lambda c: False)
