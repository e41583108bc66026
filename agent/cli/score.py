"""`jarvis score RUN_DIR` (re-score stored episodes offline) and `jarvis report RUN_DIR... --out DIR`."""

from __future__ import annotations

from pathlib import Path

import typer

from agent.runs.reporting import add_cached_floors
from evaluator.config import ScoringConfig, ScoringConfigError, load_scoring_config
from evaluator.episode import TasksFileError, read_tasks_file, rescore_run
from evaluator.report import write_report, write_run_report
from evaluator.run_dir import RunDirError
from jarvis_sim.tasks.registry import UnknownKeyError


def score_run(
    run_dir: Path, config_file: Path | None = None, tasks_file: Path | None = None, strict: bool = True,
    with_plots: bool = True,
) -> str:
    """Re-score a run with a config, then rewrite its summary.json, report.md and plots; returns a status line."""
    config = load_scoring_config(config_file) if config_file else ScoringConfig()
    tasks = read_tasks_file(tasks_file) if tasks_file else None
    result = rescore_run(run_dir, config, tasks, strict=strict)
    summary = write_run_report(run_dir, strict=strict, records="rescored", with_plots=with_plots,
                               add_floors=add_cached_floors)
    soft = summary.soft_score.fmt() if summary.soft_score else "–"
    lines = [f"re-scored {result.rescored} episode(s) into {result.written} "
             f"({result.unchanged} without a final state kept as stored); soft score {soft}"]
    lines += [f"skipped: {p}" for p in result.problems]
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add the `score` and `report` commands."""

    @app.command("score")
    def score_cmd(
        run_dir: Path = typer.Argument(..., help="Run directory (config.json, episodes.jsonl)."),
        config: Path | None = typer.Option(None, "--config", help="ScoringConfig JSON; defaults when omitted."),
        tasks: Path | None = typer.Option(None, "--tasks", help="JSONL of tasks; else load ids from the registry."),
        skip_bad_lines: bool = typer.Option(False, help="Report and skip corrupt lines instead of stopping."),
        plots: bool = typer.Option(True, help="Draw PNG plots."),
    ) -> None:
        """Re-score stored episodes offline into episodes.rescored.jsonl (episodes.jsonl is kept as is)."""
        try:
            typer.echo(score_run(run_dir, config, tasks, strict=not skip_bad_lines, with_plots=plots))
        except (RunDirError, ScoringConfigError, TasksFileError, UnknownKeyError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None

    @app.command("report")
    def report_cmd(
        run_dirs: list[Path] = typer.Argument(..., help="One or more run directories."),
        out: Path = typer.Option(..., "--out", help="Output directory for report.md, summary.json, plots."),
        skip_bad_lines: bool = typer.Option(False, help="Report and skip corrupt lines instead of stopping."),
        records: str = typer.Option("auto", help="auto (rescored if newer) | original | rescored"),
        plots: bool = typer.Option(True, help="Draw PNG plots."),
    ) -> None:
        """Tables and plots of one run, or of several side by side."""
        if records not in ("auto", "original", "rescored"):
            raise typer.BadParameter(f"records must be auto, original or rescored, not {records!r}")
        try:
            summaries = write_report(run_dirs, out, strict=not skip_bad_lines, records=records,  # type: ignore[arg-type]
                                     with_plots=plots, add_floors=add_cached_floors)
        except RunDirError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        for s in summaries:
            soft = s.soft_score.fmt() if s.soft_score else "–"
            typer.echo(f"{s.run}: {s.n_episodes} episodes, soft score {soft}"
                       + (f", {len(s.skipped_lines)} line(s) skipped" if s.skipped_lines else ""))
        typer.echo(f"report: {out / 'report.md'}")
