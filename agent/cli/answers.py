"""`jarvis answers score FILE.jsonl`: score answers produced elsewhere, for any question family."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import typer

from evaluator.answers import AnswerScore, ScoringMode, score_answer
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import UnknownKeyError, load_task


class AnswersFileError(ValueError):
    """A malformed answers file; the message names the line."""


def read_answers(path: Path) -> list[tuple[str, str]]:
    """(task_id, answer) pairs from a JSONL file; a bad line raises AnswersFileError naming it."""
    return [(task_id, answer) for _, task_id, answer in read_numbered_answers(path)]


def read_numbered_answers(path: Path) -> list[tuple[int, str, str]]:
    """(line number, task_id, answer) from a JSONL file; a line that is not such an object raises AnswersFileError."""
    out: list[tuple[int, str, str]] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise AnswersFileError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("task_id"), str):
                raise AnswersFileError(f"{path}:{lineno}: expected an object with a string 'task_id'")
            answer = obj.get("answer", "")
            out.append((lineno, obj["task_id"], answer if isinstance(answer, str) else json.dumps(answer)))
    return out


def score_answers(lines: list[tuple[int, str, str]], mode: ScoringMode,
                  source: str = "answers") -> tuple[list[AnswerScore], dict[str, Any]]:
    """Score (line, task_id, answer) triples; returns per-item scores and a summary per family/kind/level. A line whose task id is unknown or not a question is left out and named in the summary's
    `unscored` ({line, task_id, error}); the rest are scored."""
    scores: list[AnswerScore] = []
    unscored: list[dict[str, Any]] = []
    groups: dict[str, list[AnswerScore]] = defaultdict(list)
    for lineno, task_id, answer in lines:
        try:
            item = load_task(task_id)
        except (UnknownKeyError, KeyError) as exc:
            unscored.append({"line": lineno, "task_id": task_id, "error": f"{source}:{lineno}: {exc.args[0]}"})
            continue
        if not isinstance(item, QuestionItem):
            unscored.append({"line": lineno, "task_id": task_id, "error": f"{source}:{lineno}: task {task_id} is not "
                                                                          f"a question item (family {item.family})"})
            continue
        s = score_answer(item, answer, mode)
        scores.append(s)
        groups[f"{item.family}/{item.kind}" + (f"/{item.level}" if item.level else "")].append(s)
    summary = {
        "n_items": len(scores),
        "n_unscored": len(unscored),
        "unscored": unscored,
        "accuracy": _mean([s.correct for s in scores]),
        "invalid": sum(not s.valid for s in scores),
        "mode": mode,
        "groups": {
            k: {"n": len(v), "accuracy": _mean([s.correct for s in v]), "invalid": sum(not s.valid for s in v)}
            for k, v in sorted(groups.items())
        },
    }
    return scores, summary


def _mean(xs: list[bool]) -> float:
    return round(100.0 * sum(xs) / len(xs), 3) if xs else 0.0


def register(app: typer.Typer) -> None:
    """Add the `answers` command group."""
    answers = typer.Typer(help="Score answers to question items (VSP, GamiBench) produced elsewhere.")
    app.add_typer(answers, name="answers")

    @answers.command("score")
    def score_cmd(
        file: Path = typer.Argument(..., exists=True, dir_okay=False, help="JSONL: one {task_id, answer} a line"),
        mode: str = typer.Option("official", help="official | strict"),
    ) -> None:
        """Print one JSON object per item, then a summary object."""
        if mode not in ("official", "strict"):
            raise typer.BadParameter(f"mode must be 'official' or 'strict', not {mode!r}")
        try:
            scores, summary = score_answers(read_numbered_answers(file), mode, str(file))  # type: ignore[arg-type]
        except AnswersFileError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        for problem in summary["unscored"]:
            typer.echo(f"not scored: {problem['error']}", err=True)
        for s in scores:
            sys.stdout.write(json.dumps(s.model_dump()) + "\n")
        sys.stdout.write(json.dumps({"summary": summary}) + "\n")
        if not scores and summary["unscored"]:
            raise typer.Exit(2)  # nothing in the file could be scored
