"""The per-episode table, the named failures and the honest plots of a run report."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from evaluator import plots
from evaluator.report import write_report
from evaluator.run_dir import read_run_dir
from evaluator.summary import summarise
from jarvis_sim.records import EpisodeRecord
from tests.evaluator.builders import perfect_state, shifted
from tests.evaluator.runs import TASKS, lego_record, standard_records, write_run


def _failed(task_id: str, error: str | None) -> EpisodeRecord:
    return EpisodeRecord(episode_id=f"{task_id}#f", task_id=task_id, family="lego", difficulty="easy",
                         status="failed", error=error)


def test_rows_carry_task_size_scores_and_failures(tmp_path: Path) -> None:
    records = standard_records()
    summary = summarise(read_run_dir(write_run(tmp_path / "r", records)))
    assert [r.episode_id for r in summary.episodes] == [r.episode_id for r in records]
    partial = next(r for r in summary.episodes if r.episode_id == "lego/test/medium#1")
    source = next(r for r in records if r.episode_id == "lego/test/medium#1")
    assert partial.difficulty == "medium" and partial.failed_actions == 2
    assert partial.horizon == source.score_details["task"]["horizon"]
    assert partial.initial_bricks == source.score_details["task"]["initial_complexity"]
    assert partial.soft_score == source.scores["soft_score"] < 100.0
    assert partial.sub_scores["pose"] == source.scores["pose"]
    assert partial.reason is None


def test_report_links_each_assembly_episodes_end_pictures(tmp_path: Path) -> None:
    from jarvis_sim.records import FinalView

    views = [FinalView(kind=k, image=f"final_{k}.png", width=4, height=3) for k in ("camera", "final", "target")]
    pictured = lego_record(TASKS["easy"], perfect_state(TASKS["easy"]), 0).model_copy(
        update={"final_views": views, "artifacts_dir": "episodes/lego_test_easy"})
    older = lego_record(TASKS["medium"], perfect_state(TASKS["medium"]), 1)  # kept before pictures were taken
    run = write_run(tmp_path / "r", [pictured, older])
    write_report([run], run, with_plots=False)  # as `jarvis run` writes it: links relative to the run directory
    table = (run / "report.md").read_text().split("## Episodes")[1]
    assert "| Final state |" in table
    row = next(line for line in table.splitlines() if "lego/test/easy" in line)
    assert row.endswith("| [built](episodes/lego_test_easy/final_final.png) · [target](episodes/lego_test_easy/"
                        "final_target.png) · [camera](episodes/lego_test_easy/final_camera.png) |")
    assert next(line for line in table.splitlines() if "lego/test/medium" in line).endswith("| – |")
    write_report([run], tmp_path / "elsewhere", with_plots=False)  # `jarvis report RUN --out DIR`: links reach back
    assert "[built](../r/episodes/lego_test_easy/final_final.png)" in (tmp_path / "elsewhere" / "report.md").read_text()


def test_report_names_each_failure_with_its_reason_and_counts_it_as_zero(tmp_path: Path) -> None:
    records = [lego_record(TASKS["easy"], perfect_state(TASKS["easy"]), 0),
               _failed("lego/test/hard", "SkillError: brick b3 is held by the structure\ntraceback..."),
               _failed("lego/test/medium", None),
               EpisodeRecord(episode_id="c", task_id="lego/test/easy", family="lego", status="cancelled")]
    out = tmp_path / "out"
    write_report([write_run(tmp_path / "r", records)], out)
    md = (out / "report.md").read_text()
    assert "1 finished, 2 failed and counted as 0, 1 cancelled and left out" in md
    assert "- `lego/test/hard` (failed, episode `lego/test/hard#f`): SkillError: brick b3 is held by the structure\n" in md
    assert "`lego/test/medium` (failed, episode `lego/test/medium#f`): failed (no reason was recorded)" in md
    table = md.split("## Episodes")[1].split("\n## ")[0]
    hard_row = next(line for line in table.splitlines() if line.startswith("| `lego/test/hard`"))
    assert "| failed | easy |" in hard_row and "| 0.0 |" in hard_row  # counted as 0, shown as 0
    cancelled_row = next(line for line in table.splitlines() if "| cancelled |" in line)
    assert "| – |" in cancelled_row  # left out: no score at all


def test_comparison_plot_leaves_a_missing_stratum_absent(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    full = summarise(read_run_dir(write_run(tmp_path / "a", standard_records())))
    easy_only = summarise(read_run_dir(write_run(tmp_path / "b", [
        lego_record(TASKS["easy"], shifted(perfect_state(TASKS["easy"]), "a1", dx=0.004), 0)])))
    drawn: list[list[float]] = []
    real_pyplot = plots._pyplot

    def spy() -> object:
        plt = real_pyplot()
        original = plt.Axes.bar

        def bar(ax, xs, heights, *a, **k):  # type: ignore[no-untyped-def]
            drawn.append(list(xs))
            return original(ax, xs, heights, *a, **k)

        monkeypatch.setattr(plt.Axes, "bar", bar)
        return plt

    monkeypatch.setattr(plots, "_pyplot", spy)
    assert plots.plot_comparison([full, easy_only], ["full", "easy only"], tmp_path / "c.png") is not None
    # Four strata (easy, medium, hard, overall): the full run draws four bars, the easy-only run two
    # (easy and overall), never a zero-height medium or hard bar.
    assert [len(x) for x in drawn] == [4, 2]


def test_score_distribution_plot_per_difficulty(tmp_path: Path) -> None:
    summary = summarise(read_run_dir(write_run(tmp_path / "r", standard_records())))
    path = plots.plot_score_distribution(summary, tmp_path / "d.png")
    assert path is not None and Image.open(path).size[0] > 300
    assert plots.plot_score_distribution(summary.model_copy(update={"episodes": []}), tmp_path / "e.png") is None


def test_question_episodes_get_a_right_or_wrong_column(tmp_path: Path) -> None:
    def asked(k: int, right: bool) -> EpisodeRecord:
        score = 100.0 if right else 0.0
        return EpisodeRecord(episode_id=f"q{k}", task_id=f"vsp/x/{k}", family="vsp", status="done",
                             scores={"soft_score": score, "correct": score, "valid": 100.0})

    run = write_run(tmp_path / "q", [asked(0, True), asked(1, False)])
    rows = summarise(read_run_dir(run)).episodes
    assert [r.correct for r in rows] == [True, False]
    write_report([run], run, with_plots=False)
    table = (run / "report.md").read_text().split("## Episodes")[1].splitlines()
    assert "| Correct |" in table[2] and "| 100.0 | yes |" in table[4] and "| 0.0 | no |" in table[5]


def _with_failures(k: int, kinds: list[str | None]) -> EpisodeRecord:
    from jarvis_sim.records import RoundRecord, SkillCallRecord

    calls = [SkillCallRecord(name="pick", ok=False, error_kind=kind, error="no") for kind in kinds]
    calls.append(SkillCallRecord(name="go_home", ok=True))
    rec = lego_record(TASKS["easy"], perfect_state(TASKS["easy"]), k)
    return rec.model_copy(update={"episode_id": f"f{k}", "seed": k, "rounds": [RoundRecord(index=0, skill_calls=calls)]})


def test_failed_actions_are_counted_by_kind_tabled_and_plotted_per_episode(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    run = write_run(tmp_path / "r", [_with_failures(0, ["path_blocked", "grasp_failed", "path_blocked"]),
                                     _with_failures(1, ["path_blocked", None])])
    summary = summarise(read_run_dir(run))
    assert summary.failed_action_kinds == {"path_blocked": 3, "error": 1, "grasp_failed": 1}  # most first
    write_report([run], run)
    md = (run / "report.md").read_text()
    assert "| `path_blocked` | 3 | 1.50 |" in md.split("## Failed actions by kind")[1]
    assert (run / "failed_actions.png").read_bytes()[:4] == b"\x89PNG"

    quiz = summarise(read_run_dir(write_run(tmp_path / "q", [EpisodeRecord(
        episode_id="q", task_id="vsp/x/0", family="vsp", scores={"soft_score": 0.0, "correct": 0.0})])))
    drawn: list[list[float]] = []
    real_pyplot = plots._pyplot

    def spy() -> object:
        plt = real_pyplot()
        original = plt.Axes.barh

        def barh(ax, ys, widths, *a, **k):  # type: ignore[no-untyped-def]
            drawn.append(list(widths))
            return original(ax, ys, widths, *a, **k)

        monkeypatch.setattr(plt.Axes, "barh", barh)
        return plt

    monkeypatch.setattr(plots, "_pyplot", spy)
    assert plots.plot_failed_actions([summary, quiz], ["model a", "quiz"], tmp_path / "f.png") is not None
    assert drawn == [[1.5, 0.5, 0.5]]  # per episode; the run without assembly episodes draws no zero bars
    assert plots.plot_failed_actions([quiz], ["quiz"], tmp_path / "none.png") is None


def test_reflection_curves_one_per_run_that_reflected(tmp_path: Path) -> None:
    from evaluator.stats import MeanCI
    from evaluator.summary import RoundRow

    reflected = summarise(read_run_dir(write_run(tmp_path / "a", standard_records())))
    reflected.reflection = [RoundRow(round=f"R{k}", n=3, soft_score=MeanCI(mean=50 + 10 * k, lo=40, hi=90, n=3))
                            for k in range(3)]
    flat = summarise(read_run_dir(write_run(tmp_path / "b", standard_records())))
    assert plots.plot_rounds_comparison([flat], ["flat"], tmp_path / "none.png") is None
    assert plots.plot_rounds_comparison([reflected, flat], ["r", "flat"], tmp_path / "r.png") is not None
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
