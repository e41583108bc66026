"""An episode as the episode page shows it: rounds with their program lines, failing line marked, and images.

Image paths in a record are relative to its episode folder (`artifacts_dir`, relative to the run); here
they become paths relative to the run directory, the form the page's /runs/{run}/files/... links take.
Images that are not on disk are listed by name, never linked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from agent.server.dashboard.final_state import FinalPicture, final_pictures
from evaluator.episode_table import EpisodeRow, episode_row
from jarvis_sim.records import EpisodeRecord, RoundRecord, SkillCallRecord


@dataclass
class CodeLine:
    """One line of a round's program; `failed` marks the line its error came from."""

    number: int
    text: str
    failed: bool = False


@dataclass
class RoundView:
    """One round of an episode, ready to render."""

    record: RoundRecord
    lines: list[CodeLine]
    failing_line: int | None
    calls: list[SkillCallRecord]
    prompt_images: list[str] = field(default_factory=list)
    observation_images: list[str] = field(default_factory=list)
    missing_images: list[str] = field(default_factory=list)
    before_images: list[str] = field(default_factory=list)  # the view the round started from (previous round's)


@dataclass
class QuestionVerdict:
    """A question episode's answer as the scorer read it: right or wrong, and what it parsed."""

    correct: bool
    valid: bool
    strict_correct: bool | None
    parsed: str | None  # the choice, plan or values the scorer took from the answer
    error: str | None  # why the answer could not be read
    details: dict[str, Any]


# Keys the families' scorers use for what they read from an answer (evaluator.vsp, evaluator.gamibench).
PARSED_KEYS = ("chosen", "parsed", "plan", "choice", "values", "marker")


def question_verdict(record: EpisodeRecord) -> QuestionVerdict | None:
    """The verdict of a scored question episode (VSP, GamiBench, ...); None for other episodes."""
    if "correct" not in record.scores:
        return None
    official = record.score_details.get("official")
    details: dict[str, Any] = official if isinstance(official, dict) else {}
    parsed = next((details[k] for k in PARSED_KEYS if details.get(k) not in (None, "", [])), None)
    strict = record.scores.get("strict_correct")
    return QuestionVerdict(
        correct=record.scores["correct"] >= 100.0, valid=record.scores.get("valid", 100.0) >= 100.0,
        strict_correct=None if strict is None else strict >= 100.0,
        parsed=None if parsed is None else (parsed if isinstance(parsed, str) else json.dumps(parsed)),
        error=str(details["error"]) if details.get("error") else None, details=details,
    )


@dataclass
class EpisodePage:
    """Everything the episode page shows."""

    record: EpisodeRecord
    row: EpisodeRow
    rounds: list[RoundView]
    brick_scores: list[dict[str, Any]]
    final: list[FinalPicture] = field(default_factory=list)
    verdict: QuestionVerdict | None = None


def failing_line(rnd: RoundRecord) -> int | None:
    """The program line a round failed on: its outcome line, else the line of its first failed skill call."""
    if rnd.outcome_line:
        return rnd.outcome_line
    return next((c.line for c in rnd.skill_calls if not c.ok and c.line), None)


def _images(names: list[str], base: str, run_root: Path, missing: list[str]) -> list[str]:
    out = []
    for name in names:
        rel = f"{base}/{name}" if base else name
        if (run_root / rel).is_file():
            out.append(rel)
        else:
            missing.append(name)
    return out


def _brick_scores(record: EpisodeRecord) -> list[dict[str, Any]]:
    """Per-brick explanations, when the assembly score details hold a list of them."""
    for key in ("bricks", "per_brick"):
        value = record.score_details.get(key)
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            return value
        if isinstance(value, dict):
            return [{"brick": k, **v} if isinstance(v, dict) else {"brick": k, "value": v} for k, v in value.items()]
    return []


def episode_page_data(record: EpisodeRecord, run_root: Path) -> EpisodePage:
    """The episode page's content for one record of the run at run_root."""
    base = record.artifacts_dir or ""
    rounds = []
    for rnd in record.rounds:
        bad = failing_line(rnd)
        lines = [CodeLine(k, text, k == bad) for k, text in enumerate((rnd.code or "").splitlines(), 1)]
        missing: list[str] = []
        rounds.append(RoundView(
            record=rnd, lines=lines, failing_line=bad, calls=rnd.skill_calls,
            prompt_images=_images(rnd.prompt_images, base, run_root, missing),
            observation_images=_images(rnd.observation_images, base, run_root, missing), missing_images=missing,
        ))
    for prev, cur in pairwise(rounds):
        cur.before_images = prev.observation_images
    final = final_pictures(record, base, lambda rel: (run_root / rel).is_file())
    return EpisodePage(record=record, row=episode_row(record), rounds=rounds, brick_scores=_brick_scores(record),
                       final=final, verdict=question_verdict(record))
