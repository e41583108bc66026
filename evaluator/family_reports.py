"""Report sections per task family: the tables their papers publish, from stored records.

LEGO assembly: the effective-action analysis (JARVIS Table 6, evaluator.action_report) and error recovery
over perturbed twins (evaluator.perturbation_report). Planning:
the planning and grounding table per observation setting (JARVIS Table 4, evaluator.planning_report).
VSP: results per task and level, the main-task table (success by level) and the sub-task table (T1-T4
with random-guess rows). GamiBench: normal accuracy, viewpoint consistency, IFSR and impossible accuracy
per class with the macro-average, and the answer-position bias. Both are rebuilt from each record's
stored verdict (official mode), so a report never re-asks a model.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from evaluator.answers import AnswerScore
from jarvis_sim.records import EpisodeRecord


def _verdict(record: EpisodeRecord) -> AnswerScore:
    details = record.score_details.get("official", {})
    return AnswerScore(
        task_id=record.task_id,
        correct=record.scores.get("correct", 0.0) >= 100.0,
        valid=record.scores.get("valid", 100.0) >= 100.0,
        score=max(0.0, min(100.0, record.scores.get("soft_score", 0.0))),
        details=details if isinstance(details, dict) else {},
    )


def vsp_section(records: Sequence[EpisodeRecord]) -> str:
    """The VSP tables (evaluator.vsp.tables_markdown) over the run's VSP episodes."""
    from evaluator.vsp import tables_markdown

    return "## VSP\n\n" + tables_markdown([_verdict(r) for r in records]) + "\n"


def gamibench_section(records: Sequence[EpisodeRecord]) -> str:
    """The GamiBench metrics (evaluator.gamibench.gamibench_metrics) over the run's GamiBench episodes."""
    from evaluator.gamibench import gamibench_metrics, official_summary
    from jarvis_sim.tasks.question import QuestionItem
    from jarvis_sim.tasks.registry import load_task

    pairs = []
    for r in records:
        item = load_task(r.task_id)
        if isinstance(item, QuestionItem):
            pairs.append((item, _verdict(r)))
    m = gamibench_metrics(pairs)
    lines = ["## GamiBench", "", "| Class | normal accuracy | viewpoint consistency | IFSR | impossible accuracy |",
             "|---|---|---|---|---|"]
    for level, row in sorted(m["levels"].items()):
        lines.append(f"| {level} | {_fmt(row['normal_accuracy'])} | {_fmt(row['viewpoint_consistency'])} "
                     f"| {_fmt(row['ifsr'])} | {_fmt(row['impossible_accuracy'])} |")
    mac = m["macro"]
    lines.append(f"| macro-average | {_fmt(mac['normal_accuracy'])} | {_fmt(mac['viewpoint_consistency'])} "
                 f"| {_fmt(mac['ifsr'])} | {_fmt(mac['impossible_accuracy'])} |")
    lines += ["", f"Parse errors: {m['parse_errors']} of {m['n_items']}; alternative-view items not asked "
              f"(standard item wrong, counted wrong): {m['n_skipped']}.",
              "", "Answer-position bias (chosen vs correct letters): `" + json.dumps(m["position_bias"]) + "`", ""]
    o = official_summary(pairs)
    per_type = ", ".join(f"{k} {100 * v:.1f}%" for k, v in o["per_task_accuracy"].items())
    lines += ["As the official runner summarises it:", "",
              "| tasks | answered | correct | accuracy | answer rate | parse failures | skipped |",
              "|---|---|---|---|---|---|---|",
              f"| {o['total_tasks']} | {o['answered_tasks']} | {o['correct_tasks']} | {100 * o['accuracy']:.1f}% "
              f"| {100 * o['answer_rate']:.1f}% | {o['parse_failures']} | {o['skipped_tasks']} |",
              "", f"Accuracy per task type: {per_type}.", ""]
    return "\n".join(lines)


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}"


def lego_section(records: Sequence[EpisodeRecord]) -> str:
    """The assembly family's extra tables: the effective-action analysis (evaluator.action_report) and, for
    runs with perturbed twins, error recovery (evaluator.perturbation_report)."""
    from evaluator.action_report import effective_actions_section
    from evaluator.perturbation_report import perturbation_section

    recovery = perturbation_section(records)
    return effective_actions_section(records) + ("\n" + recovery if recovery else "")


def planning_section(records: Sequence[EpisodeRecord]) -> str:
    """The planning table (JARVIS Table 4) per observation setting (evaluator.planning_report)."""
    from evaluator.planning_report import planning_section as render

    return render(records)


FAMILY_SECTIONS: dict[str, Callable[[Sequence[EpisodeRecord]], str]] = {
    "lego": lego_section,
    "planning": planning_section,
    "vsp": vsp_section,
    "gamibench": gamibench_section,
}


def family_sections(records: Sequence[EpisodeRecord]) -> str:
    """Markdown sections for every question family present among the finished records."""
    out = []
    for family, render in FAMILY_SECTIONS.items():
        rows = [r for r in records if r.family == family and r.status == "done"]
        text = render(rows) if rows else ""
        if text:
            out.append(text)
    return "\n".join(out)


def append_family_sections(records: Sequence[EpisodeRecord], report: Path) -> None:
    """Append the families' sections (if any) to a report.md just written from the same records."""
    extra = family_sections(records)
    if extra:
        with report.open("a", encoding="utf-8") as fh:
            fh.write("\n" + extra)
