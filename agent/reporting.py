"""End of a run: the evaluator's summary, report and plots written into the run directory."""

from __future__ import annotations

from typing import Any

from agent.run_store import RunDirectory


def finish_run(run: RunDirectory) -> dict[str, Any]:
    """Write summary.json, report.md and plots for a run directory; returns the summary as a dict."""
    from evaluator.report import write_run_report

    summary = write_run_report(run.root)
    return summary.model_dump() if hasattr(summary, "model_dump") else dict(summary)
