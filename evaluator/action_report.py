"""The report section of the effective-action analysis (JARVIS Table 6), from stored records.

One row per difficulty and one overall: episodes, placement actions, effective actions and their
share, and over the effective actions (pooled across episodes): the mean per-action score with its
95% bootstrap interval, the mean pose credit, and the shares complete and valid. Beside it, the
episodes' mean soft score without time penalty, the whole-episode number the per-action one refines.
Built from each record's score_details['effective_actions'] (evaluator.effective_actions), so a report
never reloads a task or a simulator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluator.stats import mean_ci
from jarvis_sim.records import EpisodeRecord

DIFFICULTY_ORDER = ("easy", "medium", "hard")


def _actions(record: EpisodeRecord) -> list[dict[str, Any]]:
    rows = record.score_details.get("effective_actions")
    return [a for a in rows if isinstance(a, dict)] if isinstance(rows, list) else []


def _row(name: str, records: Sequence[EpisodeRecord]) -> list[str]:
    actions = [a for r in records for a in _actions(r)]
    effective = [a for a in actions if a.get("effective") and isinstance(a.get("score"), int | float)]
    score = mean_ci([float(a["score"]) for a in effective])
    pose = mean_ci([float(a["pose"]) for a in effective if isinstance(a.get("pose"), int | float)])
    no_tp = mean_ci([r.scores["soft_score_no_time_penalty"] for r in records if "soft_score_no_time_penalty" in r.scores])

    def share(k: int, n: int) -> str:
        return f"{100.0 * k / n:.1f}" if n else "–"

    return [
        name, str(len(records)), str(len(actions)), str(len(effective)), share(len(effective), len(actions)),
        score.fmt() if score else "–", f"{pose.mean:.1f}" if pose else "–",
        share(sum(bool(a.get("complete")) for a in effective), len(effective)),
        share(sum(bool(a.get("valid")) for a in effective), len(effective)),
        no_tp.fmt() if no_tp else "–",
    ]


def effective_actions_section(records: Sequence[EpisodeRecord]) -> str:
    """The markdown section over a run's finished assembly episodes ('' when none kept placements)."""
    scored = [r for r in records if "placement_actions" in r.scores]
    if not scored:
        return ""
    by: dict[str, list[EpisodeRecord]] = {}
    for r in scored:
        by.setdefault(r.difficulty or "unknown", []).append(r)
    names = [d for d in DIFFICULTY_ORDER if d in by] + sorted(d for d in by if d not in DIFFICULTY_ORDER)
    header = ["Difficulty", "Episodes", "Placement actions", "Effective actions", "Effective %",
              "Score per effective action", "Pose", "Complete %", "Valid %", "Episode soft score (no time penalty)"]
    rows = [_row(d.capitalize(), by[d]) for d in names] + [_row("Overall", scored)]
    lines = [
        "## Effective actions (JARVIS Table 6)", "",
        "Each pick-and-place toward the build scored against the brick it was meant for (ground-truth-guided), "
        "without time penalty, averaged over effective actions (the skill returned and the released brick "
        "was assigned to a target). Scores 0-100; 95% bootstrap intervals in brackets.", "",
        "| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|",
        *["| " + " | ".join(r) + " |" for r in rows], "",
    ]
    return "\n".join(lines)
