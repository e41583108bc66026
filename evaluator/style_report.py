"""Manual-style robustness: the same tasks and agent once per manual style, scored side by side.

The input is one RunSummary per style (each a complete run directory); the output is the table the
study reports (score by style, with the spread between the best and the worst style) and a per-task
table, so a style that hurts one kind of task shows even when the means agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.summary import RunSummary

STYLE_REPORT_FILE = "report.md"
STYLE_SUMMARY_FILE = "styles.json"


def _mean(summary: RunSummary, key: str) -> float | None:
    if key == "soft_score":
        return summary.soft_score.mean if summary.soft_score is not None else None
    ci = summary.sub_scores.get(key)
    return ci.mean if ci is not None else None


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}"


def style_table(by_style: Mapping[str, RunSummary]) -> dict[str, Any]:
    """Scores by style (JSON-ready): per style the means, per task the soft score in every style."""
    rows: dict[str, dict[str, Any]] = {}
    for style, s in by_style.items():
        rows[style] = {
            "n_episodes": s.n_episodes,
            "n_failed": s.n_failed,
            "soft_score": _mean(s, "soft_score"),
            "soft_score_ci": [s.soft_score.lo, s.soft_score.hi] if s.soft_score is not None else None,
            "strict_soft_score": _mean(s, "strict_soft_score"),
            "completion": _mean(s, "completion"),
            "pose": _mean(s, "pose"),
        }
    means = [float(r["soft_score"]) for r in rows.values() if r["soft_score"] is not None]
    tasks: dict[str, dict[str, float | None]] = {}
    for style, s in by_style.items():
        for ep in s.episodes:
            tasks.setdefault(ep.task_id, {})[style] = ep.soft_score
    return {
        "styles": rows,
        "spread": round(max(means) - min(means), 3) if means else None,
        "tasks": tasks,
    }


def style_markdown(by_style: Mapping[str, RunSummary], run_dirs: Mapping[str, str], note: str = "") -> str:
    """report.md of a style study: the score-by-style table, then score by task and style."""
    t = style_table(by_style)
    styles = list(by_style)
    lines = ["# Manual-style robustness", "",
             "The same tasks, agent, seed and budget, once per manual style (only the manual's look changes).", "",
             "| Style | episodes | failed | soft score [95% CI] | strict soft score | completion | pose | run |",
             "|---|---|---|---|---|---|---|---|"]
    for style in styles:
        r = t["styles"][style]
        ci = by_style[style].soft_score
        lines.append(f"| {style} | {r['n_episodes']} | {r['n_failed']} | {ci.fmt() if ci is not None else '–'} "
                     f"| {_fmt(r['strict_soft_score'])} | {_fmt(r['completion'])} | {_fmt(r['pose'])} "
                     f"| `{run_dirs[style]}` |")
    lines += ["", f"Spread of the mean soft score between styles: {_fmt(t['spread'])} points.", ""]
    if note:
        lines += [note, ""]
    lines += [
              "## Soft score by task", "", "| Task | " + " | ".join(styles) + " |",
              "|---|" + "---|" * len(styles)]
    for task_id, per in t["tasks"].items():
        lines.append(f"| {task_id} | " + " | ".join(_fmt(per.get(s)) for s in styles) + " |")
    return "\n".join(lines) + "\n"
