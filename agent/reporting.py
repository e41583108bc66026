"""End of a run: the evaluator's summary, report and plots written into the run directory."""

from __future__ import annotations

from typing import Any

from agent.run_store import RunDirectory
from evaluator.records import EpisodeRecord


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


def finish_run(run: RunDirectory) -> dict[str, Any]:
    """Write summary.json, report.md and plots for a run directory; returns the summary as a dict.

    Corrupt lines of episodes.jsonl are skipped (and named in the log), never fatal.
    """
    from evaluator.family_reports import append_family_sections
    from evaluator.report import REPORT_FILE, write_summary_outputs
    from evaluator.run_dir import read_run_dir
    from evaluator.summary import summarise

    data = read_run_dir(run.root, strict=False)
    data.records = latest_per_task(list(data.records))
    summary = summarise(data)
    write_summary_outputs(summary, run.root)
    append_family_sections(data.records, run.root / REPORT_FILE)  # as `jarvis report` writes them
    dumped: dict[str, Any] = summary.model_dump()
    return dumped
