"""End of a run: the evaluator's summary, report and plots written into the run directory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from agent.runs.run_store import RunDirectory
from jarvis_sim.records import EpisodeRecord

if TYPE_CHECKING:
    from evaluator.run_dir import RunData
    from evaluator.summary import RunSummary


def latest_per_task(records: list[EpisodeRecord]) -> list[EpisodeRecord]:
    """One record per (task, seed): the last 'done' one, else the last one (a resumed run retries failures).

    Records are never rewritten on disk, so a task that failed and then succeeded on resume has two lines;
    the report counts it once.
    """
    chosen: dict[tuple[str, int], EpisodeRecord] = {}
    for rec in records:
        key = (rec.task_id, rec.seed)
        prev = chosen.get(key)
        if prev is None or rec.status == "done" or prev.status != "done":
            chosen[key] = rec
    order = {key: k for k, key in enumerate(dict.fromkeys((r.task_id, r.seed) for r in records))}
    return sorted(chosen.values(), key=lambda r: order[(r.task_id, r.seed)])


def one_per_episode(records: list[EpisodeRecord]) -> list[EpisodeRecord]:
    """One record per episode id, in order: for runs whose tasks may repeat (a REST run of ['a', 'a'] is
    two episodes of 'a', both counted), where a retry is the same episode id, not a second line per task."""
    chosen: dict[str, EpisodeRecord] = {}
    for rec in records:
        chosen[rec.episode_id] = rec
    return list(chosen.values())


def add_cached_floors(data: RunData, summary: RunSummary) -> None:
    """Put the floors (agent.runs.floors) cached for a run's tasks and seed into its summary, or say they are missing."""
    from agent.runs.floors import cached_floors, floor_task_ids, needs_floors
    from agent.runs.run_store import RunConfig
    from evaluator.run_dir import read_run_dir
    from evaluator.summary import floor_row

    try:
        config = RunConfig.model_validate(data.config) if data.config else None
    except ValidationError:  # a config.json of another schema: its report simply has no floors
        config = None
    if config is None or not needs_floors(config):
        return
    left_out = []
    for name, path in cached_floors(config).items():
        floor = read_run_dir(path, strict=False)
        floor.records = latest_per_task(list(floor.records))
        # A floor is a measurement: one whose episodes failed or are missing is left out with the reason, never
        # shown as a row of zeros (a failed floor episode is retried by the next run, so nothing bad stays cached).
        failed = [r for r in floor.records if r.status != "done"]
        missing = len(set(floor_task_ids(config))) - len({r.task_id for r in floor.records})
        if failed or missing > 0:
            why = f"{len(failed)} of its episodes failed" + (f" ({failed[0].error})" if failed and failed[0].error else "")
            if missing > 0:
                why = f"{missing} of the run's tasks have no episode" + (f", {why}" if failed else "")
            left_out.append(f"`{name}` left out: {why}.")
            continue
        summary.floors[name] = floor_row(floor)
    if len(summary.floors) < 2:
        summary.floors_note = " ".join([*left_out, "Floors not run for these tasks and seed yet: rerun the run's "
                                        "`jarvis run` command without `--no-floors` to add them."])


def finish_run(run: RunDirectory, per_episode: bool = False) -> dict[str, Any]:
    """Write summary.json, report.md and plots for a run directory; returns the summary as a dict.

    `per_episode` counts every episode id once (the server's runs, whose database says which episodes
    exist); otherwise one record per (task, seed), as a resumed CLI run retries its failures.
    An assembly run's report shows the floors (agent.runs.floors) found in the cache for its tasks and seed.
    Corrupt lines of episodes.jsonl are skipped (and named in the log), never fatal.
    """
    from evaluator.family_reports import append_family_sections
    from evaluator.report import REPORT_FILE, write_summary_outputs
    from evaluator.run_dir import read_run_dir
    from evaluator.summary import summarise

    # A run cancelled before any episode finished has no records file yet: its report is an empty one.
    run.episodes_path.touch(exist_ok=True)
    data = read_run_dir(run.root, strict=False)
    data.records = one_per_episode(list(data.records)) if per_episode else latest_per_task(list(data.records))
    summary = summarise(data)
    add_cached_floors(data, summary)
    write_summary_outputs(summary, run.root)
    append_family_sections(data.records, run.root / REPORT_FILE)  # as `jarvis report` writes them
    dumped: dict[str, Any] = summary.model_dump()
    return dumped
