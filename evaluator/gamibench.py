"""GamiBench answers and metrics: parse one letter A-E, then normal accuracy, viewpoint consistency
(VC), impossible-fold selection rate (IFSR), impossible accuracy and answer-position bias.

Parsing follows GamiBench: strip special `<|...|>` tokens and whitespace, then the answer must be exactly
one letter A-E; anything else is a parse error that counts as wrong and is reported.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from evaluator.answer_score import AnswerScore, ScoringMode, register_answer_scorer
from jarvis_sim.tasks.question import QuestionItem

CHOICES = ("A", "B", "C", "D", "E")
IMPOSSIBLE = "E"
_SPECIAL_TOKEN = re.compile(r"<\|.*?\|>", re.DOTALL)
LEVELS = ("simple", "complex")


class GamiBenchParseError(ValueError):
    """An answer that is not exactly one letter A-E."""


def parse_answer(text: str) -> str:
    """The chosen letter; raises GamiBenchParseError naming what was found instead."""
    cleaned = _SPECIAL_TOKEN.sub("", text or "").strip()
    if cleaned not in CHOICES:
        shown = cleaned if len(cleaned) <= 40 else cleaned[:40] + "..."
        raise GamiBenchParseError(f"expected exactly one letter A-E, got {shown!r}")
    return cleaned


@register_answer_scorer("gamibench")
def score_gamibench(item: QuestionItem, answer: str, mode: ScoringMode = "official") -> AnswerScore:
    """Score one GamiBench answer (the same parsing in official and strict mode)."""
    details: dict[str, Any] = {"kind": item.kind, "level": item.level, "expected": item.answer}
    try:
        letter = parse_answer(answer)
    except GamiBenchParseError as exc:
        details.update(chosen=None, parse_error=str(exc))
        return AnswerScore(task_id=item.id, correct=False, valid=False, score=0.0, mode=mode, details=details)
    correct = letter == item.answer
    details["chosen"] = letter
    return AnswerScore(task_id=item.id, correct=correct, valid=True, score=100.0 if correct else 0.0, mode=mode,
                       details=details)


def _pct(num: int, den: int) -> float | None:
    return round(100.0 * num / den, 3) if den else None


def _level(item: QuestionItem) -> str:
    return item.level or "all"  # the official data has no classes: one row for everything


def skipped_ids(rows: Sequence[tuple[QuestionItem, AnswerScore]]) -> set[str]:
    """Alternative-view items the official runner does not ask: their standard item was not answered right
    (or is missing). Derived from the rule, so a run that asked them anyway scores the same."""
    standard_ok = {item.meta.get("pattern"): s.correct for item, s in rows if item.kind == "standard"}
    return {item.id for item, _ in rows if item.kind == "alternative" and not standard_ok.get(item.meta.get("pattern"))}


def gamibench_metrics(results: Iterable[tuple[QuestionItem, AnswerScore]]) -> dict[str, Any]:
    """Metrics of the paper per level (simple, complex) and their macro-average, plus position bias."""
    rows = [(item, s) for item, s in results if item.family == "gamibench"]
    skipped = skipped_ids(rows)
    per_level: dict[str, dict[str, Any]] = {}
    levels = sorted({_level(item) for item, _ in rows}, key=lambda x: (x not in LEVELS, x))
    for level in levels:
        std = [s for item, s in rows if item.kind == "standard" and _level(item) == level]
        alt = [s for item, s in rows if item.kind == "alternative" and _level(item) == level and item.id not in skipped]
        imp = [s for item, s in rows if item.kind == "impossible" and _level(item) == level]
        per_level[level] = {
            "n_standard": len(std),
            "normal_accuracy": _pct(sum(s.correct for s in std), len(std)),
            "n_alternative_asked": len(alt),
            "viewpoint_consistency": _pct(sum(s.correct for s in alt), len(alt)),
            "ifsr": _pct(sum(s.details.get("chosen") == IMPOSSIBLE for s in std), len(std)),
            "n_impossible": len(imp),
            "impossible_accuracy": _pct(sum(s.correct for s in imp), len(imp)),
        }
    macro: dict[str, float | None] = {}
    for key in ("normal_accuracy", "viewpoint_consistency", "ifsr", "impossible_accuracy"):
        vals = [per_level[lv][key] for lv in LEVELS if lv in per_level and per_level[lv][key] is not None]
        macro[key] = round(sum(vals) / len(vals), 3) if vals else None
    asked = [(item, s) for item, s in rows if item.id not in skipped]
    chosen = Counter(s.details.get("chosen") or "parse_error" for _, s in asked)
    expected = Counter(str(item.answer) for item, _ in asked)
    return {
        "n_items": len(rows),
        "n_skipped": len(skipped),
        "parse_errors": sum(not s.valid for _, s in asked),
        "levels": per_level,
        "macro": macro,
        "position_bias": {
            "chosen": {k: chosen.get(k, 0) for k in (*CHOICES, "parse_error")},
            "correct": {k: expected.get(k, 0) for k in CHOICES},
        },
    }


OFFICIAL_TASK_TYPES = {"standard": "standard_mcq", "alternative": "alternative_view", "impossible": "impossible_fold"}


def official_summary(results: Iterable[tuple[QuestionItem, AnswerScore]]) -> dict[str, Any]:
    """The official runner's summary: totals, accuracy and answer rate over all items (a skipped item is
    wrong and unanswered), parse failures, skipped items, and accuracy per official task type."""
    rows = [(item, s) for item, s in results if item.family == "gamibench"]
    skipped = skipped_ids(rows)
    correct = {item.id for item, s in rows if s.correct and item.id not in skipped}
    answered = sum(s.valid and item.id not in skipped for item, s in rows)
    total = len(rows)
    per_type: dict[str, list[bool]] = {}
    for item, _ in rows:
        per_type.setdefault(OFFICIAL_TASK_TYPES.get(item.kind, item.kind), []).append(item.id in correct)
    return {
        "total_tasks": total,
        "answered_tasks": answered,
        "correct_tasks": len(correct),
        "accuracy": round(len(correct) / total, 4) if total else 0.0,
        "answer_rate": round(answered / total, 4) if total else 0.0,
        "parse_failures": sum(not s.valid and item.id not in skipped for item, s in rows),
        "skipped_tasks": len(skipped),
        "per_task_accuracy": {k: round(sum(v) / len(v), 4) for k, v in per_type.items()},
    }
