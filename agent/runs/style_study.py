"""The manual-style robustness study: one run per manual style, then the score-by-style report.

Each style gets a complete run directory `<out>/<style>/` (resumable like any run, with its own
report.md); `<out>/report.md` and `<out>/styles.json` compare them (evaluator.style_report).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.runs.run_store import RunConfig
from evaluator.report import SUMMARY_FILE
from evaluator.style_report import STYLE_REPORT_FILE, STYLE_SUMMARY_FILE, style_markdown, style_table
from evaluator.summary import RunSummary
from jarvis_sim.manuals.styles import get_style, manual_styles

ALL_STYLES = "all"
# Agents that never look at the manual: their scores cannot depend on its style.
MANUAL_BLIND = {"oracle": "writes its program from the target", "null": "does nothing",
                "shuffle": "moves loose bricks at random"}


def study_styles(spec: str) -> list[str] | None:
    """The styles a --manual-style value asks for: 'all' or a comma list; None for one plain style."""
    if spec == ALL_STYLES:
        return list(manual_styles())
    if "," not in spec:
        return None
    names = [s.strip() for s in spec.split(",") if s.strip()]
    for name in names:
        get_style(name)  # an unknown name lists the valid ones
    if len(set(names)) != len(names):
        raise ValueError(f"--manual-style {spec!r} names a style twice")
    return names


def run_style_study(config: RunConfig, styles: list[str], out: Path,
                    run_one: Callable[[RunConfig, Path], Any]) -> dict[str, Any]:
    """Run `config` once per style into <out>/<style> with `run_one`, then write the comparison."""
    summaries: dict[str, RunSummary] = {}
    for style in styles:
        styled = config.model_copy(update={"agent": config.agent.model_copy(update={"manual_style": style})})
        run_one(styled, out / style)
        summaries[style] = RunSummary.model_validate_json((out / style / SUMMARY_FILE).read_text(encoding="utf-8"))
    table = style_table(summaries)
    (out / STYLE_SUMMARY_FILE).write_text(json.dumps(table, indent=1), encoding="utf-8")
    blind = MANUAL_BLIND.get(config.agent.name)
    note = (f"The {config.agent.name} agent {blind} and never reads the manual: any difference between styles "
            "here comes from the simulator, not from the manual." if blind else "")
    (out / STYLE_REPORT_FILE).write_text(style_markdown(summaries, {s: s + "/" for s in styles}, note),
                                         encoding="utf-8")
    return table
