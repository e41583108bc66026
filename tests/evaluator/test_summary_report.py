"""Aggregation (RunSummary), report.md, plots and comparisons over crafted run directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.config import SCORING_CONFIG_VERSION
from evaluator.episode import score_episode
from evaluator.report import compare, render_comparison, write_report
from evaluator.run_dir import read_run_dir
from evaluator.stats import mean_ci
from evaluator.summary import summarise
from jarvis_sim.records import EpisodeRecord, RoundRecord
from tests.evaluator.builders import perfect_state, shifted, start_state
from tests.evaluator.runs import TASKS, lego_record, standard_records, write_run


def summary_of(tmp_path: Path, records: list[EpisodeRecord], config: dict | None = None):  # type: ignore[no-untyped-def]
    return summarise(read_run_dir(write_run(tmp_path / "run", records, config)))


def test_difficulty_table_and_failed_actions(tmp_path: Path) -> None:
    records = standard_records()
    s = summary_of(tmp_path, records)
    assert list(s.by_difficulty) == ["easy", "medium", "hard", "overall"]
    easy = [r.scores["soft_score"] for r in records if r.difficulty == "easy"]
    assert s.by_difficulty["easy"].soft_score is not None
    assert s.by_difficulty["easy"].soft_score.mean == pytest.approx(sum(easy) / 3)
    assert s.by_difficulty["easy"].failed_actions_per_task.mean == pytest.approx(1.0)  # type: ignore[union-attr]
    assert s.by_difficulty["overall"].n == 8 and s.n_episodes == 8
    assert s.sub_scores["completion"].mean == pytest.approx(56.25)
    assert s.labels == {"model": "oracle", "tool_library": "verified", "agent": "oracle"}
    assert s.scoring_config_version == SCORING_CONFIG_VERSION


def test_heatmap_bins(tmp_path: Path) -> None:
    s = summary_of(tmp_path, standard_records())
    t = s.horizon_complexity
    assert t is not None and t.horizon_bins == ["1-2", "3-5", "6-10", "11+"]
    assert t.complexity_bins == ["0-29", "30-78", "79-149", "150-299", "300+"]
    assert t.cells[0][0].n == 8 and sum(c.n for row in t.cells for c in row) == 8


def test_failed_and_cancelled_episodes(tmp_path: Path) -> None:
    task = TASKS["easy"]
    base = dict(task_id=task.id, family="lego", difficulty="easy")
    failed = EpisodeRecord(episode_id="f", status="failed", error="simulator crashed", **base)  # type: ignore[arg-type]
    cancelled = EpisodeRecord(episode_id="c", status="cancelled", **base)  # type: ignore[arg-type]
    s = summary_of(tmp_path, [lego_record(task, perfect_state(task), 0), failed, cancelled])
    assert (s.n_failed, s.n_cancelled, s.n_episodes) == (1, 1, 3)
    assert s.soft_score is not None and s.soft_score.mean == pytest.approx(50.0) and s.soft_score.n == 2


def test_infrastructure_failures_are_left_out_never_scored(tmp_path: Path) -> None:
    """A wall-clock safety net's trip is the machine's failure: not 0, not re-scored from its final state."""
    task = TASKS["easy"]
    tripped = lego_record(task, start_state(task), 1).model_copy(update={
        "status": "failed", "error": "infrastructure failure: the program's wall-clock safety net (3 s) tripped",
        "infrastructure_failure": True, "scores": {}})
    assert score_episode(tripped, task).scores == {}  # offline re-scoring leaves it unscored too
    s = summary_of(tmp_path, [lego_record(task, perfect_state(task), 0), tripped])
    assert (s.n_failed, s.n_infrastructure_failures, s.n_episodes) == (1, 1, 2)
    assert s.soft_score is not None and s.soft_score.mean == pytest.approx(100.0) and s.soft_score.n == 1
    write_report([tmp_path / "run"], tmp_path / "out", with_plots=False)
    assert "1 infrastructure failures (a wall-clock safety net tripped) left out" in (tmp_path / "out" / "report.md").read_text()


def test_reflection_rounds_carry_forward_and_pair_deltas(tmp_path: Path) -> None:
    task = TASKS["medium"]
    idle, far, good = start_state(task), shifted(perfect_state(task), "a1", dx=0.006), perfect_state(task)
    rounds = [
        RoundRecord(index=0, kind="attempt", final_state=idle),
        RoundRecord(index=1, kind="reflection", final_state=far),
        RoundRecord(index=2, kind="reflection", final_state=good, sim_time_s=1e4),  # way over budget
    ]
    reflected = lego_record(task, good, 0, rounds=rounds, sim_time_s=1e4)
    direct = lego_record(task, good, 1)
    s = summary_of(tmp_path, [reflected, direct])
    r = {row.round: row for row in s.reflection}
    assert list(r) == ["R0", "R1", "R2"]
    assert r["R0"].soft_score.mean == pytest.approx(50.0)  # type: ignore[union-attr]
    far_score = reflected.rounds[1].scores["soft_score"]
    assert r["R1"].delta == pytest.approx(far_score / 2)  # the idle episode rose, the direct one stayed
    assert r["R2"].soft_score_no_time_penalty.mean == pytest.approx(100.0)  # type: ignore[union-attr]
    assert r["R2"].soft_score.mean == pytest.approx(90.0)  # type: ignore[union-attr]  # 20 points off one of two
    assert r["R2"].delta_no_time_penalty == pytest.approx((100.0 - far_score) / 2)


def test_no_reflection_table_without_reflection_rounds(tmp_path: Path) -> None:
    assert summary_of(tmp_path, standard_records()).reflection == []


def test_question_family_runs_are_grouped_generically(tmp_path: Path) -> None:
    def q(k: int, suite: str, level: str, correct: bool) -> EpisodeRecord:
        return EpisodeRecord(episode_id=f"q{k}", task_id=f"vsp/{suite}/{k}", family="vsp", suite=suite,
                             difficulty=level, answer="x",
                             scores={"correct": 100.0 * correct, "soft_score": 100.0 * correct})

    records = [q(0, "maze", "level3", True), q(1, "maze", "level4", False), q(2, "blocks", "t1", True)]
    s = summary_of(tmp_path, records, {"model": "gpt"})
    assert s.by_difficulty == {} and s.horizon_complexity is None
    assert s.groups["vsp/maze"].scores["correct"].mean == pytest.approx(50.0)
    assert set(s.groups["vsp/maze"].by_difficulty) == {"level3", "level4"}
    assert s.soft_score is not None and s.soft_score.mean == pytest.approx(200 / 3)
    report = write_report([tmp_path / "run"], tmp_path / "out")
    assert report[0].groups["vsp/blocks"].n == 1
    text = (tmp_path / "out" / "report.md").read_text()
    assert "## Group `vsp/maze` (2 episodes)" in text and "| correct | 50.0" in text


def test_bootstrap_interval() -> None:
    ci = mean_ci([0.0, 100.0] * 25)
    assert ci is not None and ci.mean == 50.0 and 30.0 < ci.lo < 50.0 < ci.hi < 70.0 and ci.n == 50
    assert mean_ci([0.0, 100.0] * 25) == ci  # seeded
    assert mean_ci([]) is None
    one = mean_ci([42.0])
    assert one is not None and (one.lo, one.hi) == (42.0, 42.0)


def test_bootstrap_is_the_percentile_bootstrap_of_the_seeded_resamples() -> None:
    """scipy.stats.bootstrap draws, in batches, the resamples the plain definition draws from the same generator."""
    import numpy as np

    from evaluator.stats import BOOTSTRAP_RESAMPLES

    rng = np.random.default_rng(5)
    for n in (2, 7, 50, 301):
        x = np.round(rng.random(n) * 4) * 25  # scores on a coarse grid, as per-task soft scores often are
        draws = np.random.default_rng(0)
        boot = np.concatenate([x[draws.integers(0, n, size=(k, n))].mean(axis=1)
                               for k in _batches(BOOTSTRAP_RESAMPLES, max(1, 2_000_000 // n))])
        lo, hi = np.quantile(boot, [0.025, 0.975])
        ci = mean_ci(list(x))
        assert ci is not None
        assert ci.lo == pytest.approx(min(lo, x.mean()), abs=1e-9) and ci.hi == pytest.approx(max(hi, x.mean()), abs=1e-9)


def _batches(total: int, size: int) -> list[int]:
    return [min(size, total - k) for k in range(0, total, size)]


def test_single_run_report_files(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", standard_records())
    write_report([run], tmp_path / "out")
    out = tmp_path / "out"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_episodes"] == 8 and summary["by_difficulty"]["overall"]["soft_score"]["n"] == 8
    text = (out / "report.md").read_text()
    assert "## Assembly by difficulty" in text and "![difficulty](difficulty.png)" in text
    for png in ("difficulty.png", "horizon_complexity.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_comparison_of_models_and_tool_libraries(tmp_path: Path) -> None:
    runs = []
    for model in ("gpt-4o", "claude"):
        for tools in ("low-level", "verified"):
            records = standard_records() if tools == "verified" else standard_records()[2:]
            runs.append(write_run(tmp_path / f"{model}-{tools}", records, {"model": model, "tool_library": tools}))
    summaries = write_report(runs, tmp_path / "out")
    c = compare(summaries)
    assert c.models == ["gpt-4o", "claude"] and c.tool_libraries == ["low-level", "verified"]
    assert c.overall["claude"]["verified"] == summaries[3].soft_score
    text = (tmp_path / "out" / "report.md").read_text()
    assert "## Overall soft score: model x tool library" in text
    assert "| Model | low-level | verified |" in text
    assert (tmp_path / "out" / "gpt-4o-verified" / "report.md").is_file()
    assert (tmp_path / "out" / "comparison.png").is_file()
    assert json.loads((tmp_path / "out" / "comparison.json").read_text())["models"] == ["gpt-4o", "claude"]
    assert "Run" in render_comparison(c)


def test_the_comparison_names_each_runs_agent(tmp_path: Path) -> None:
    from tests.evaluator.runs import standard_records, write_run

    runs = [write_run(tmp_path / name, standard_records(), config={"model": "m", "agent": {"name": name}})
            for name in ("oracle", "careful_oracle")]
    text = render_comparison(compare([summarise(read_run_dir(r)) for r in runs]))
    assert "| Run | Agent | Model |" in text and "| oracle | oracle | m |" in text
    assert "| careful_oracle | careful_oracle | m |" in text
