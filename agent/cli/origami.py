"""`jarvis origami ...`: check a FOLD file's foldability, (re)build the GamiBench set, score answers."""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import typer

from jarvis_sim.origami.fold_format import FoldFormatError, read_fold
from jarvis_sim.origami.foldability import CheckLimits, check
from jarvis_sim.origami.library import ASSETS, DEFAULT_SEED


def parse_precision(text: str) -> float | None:
    """--precision: 'auto' (None: what the file's digits imply), 'exact' (0) or a coordinate noise in file units."""
    if text == "auto":
        return None
    if text == "exact":
        return 0.0
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise typer.BadParameter(f"{text!r}: expected 'auto', 'exact' or a coordinate noise >= 0 in the file's units")
    return value


def check_file(path: Path, limits: CheckLimits | None = None, progress: bool = False,
               noise: float | None = None, write_fold: Path | None = None) -> dict[str, object]:
    """The verifier's verdict on a .fold file as a JSON-ready dict (undecided past the limits).

    `noise`: the coordinates' uncertainty (None: estimated from the file's digits; 0: exact). `write_fold`: where
    to write the file back with the layer order found as FOLD faceOrders (only when it folds).
    """
    from jarvis_sim.origami.fold_orders import write_with_face_orders

    cp = read_fold(path)
    out: dict[str, object] = {"file": str(path), "creases": cp.crease_count}

    def say(line: str) -> None:
        sys.stderr.write(f"{path.name}: {line}\n")

    verdict = check(cp, limits=limits, progress=say if progress else None, noise=noise)
    out.update(verdict.to_json())
    if write_fold is not None:
        if verdict.state is not None:
            out["face_orders_written"] = str(write_with_face_orders(path, write_fold, cp, verdict.state))
        else:
            why = "it is undecided" if not verdict.decided else "no layer order exists" if verdict.global_checked \
                else "the local rules fail, so no layer order was sought"
            out["face_orders_written"] = None
            out["face_orders_not_written"] = f"{write_fold} not written: {why}"
    return out


def generate_set(out: Path, seed: int, render: bool) -> dict[str, object]:
    """Build the pattern library (FOLD files + manifest) and optionally render every image."""
    from jarvis_sim.origami.benchmark import render_all
    from jarvis_sim.origami.library import build_library, write_library

    t0 = time.perf_counter()
    entries = build_library(seed)
    write_library(entries, out, seed)
    result: dict[str, object] = {"out": str(out), "patterns": len(entries), "impossible": len(entries),
                                 "seconds_patterns": round(time.perf_counter() - t0, 2)}
    if render:
        t1 = time.perf_counter()
        result.update(render_all(out))
        result["seconds_render"] = round(time.perf_counter() - t1, 2)
    return result


def register(app: typer.Typer) -> None:
    """Add the `origami` command group."""
    origami = typer.Typer(help="Origami crease patterns and the GamiBench set.")
    app.add_typer(origami, name="origami")

    @origami.command("check")
    def check_cmd(
        file: Path = typer.Argument(..., exists=True, dir_okay=False, help="a .fold file"),
        time_limit: float = typer.Option(CheckLimits.time_s, "--time-limit", min=0.1,
                                         help="seconds for the global check, building and solving; past it: "
                                              "undecided"),
        memory_mb: int = typer.Option(CheckLimits.memory_mb, "--memory-mb", min=64,
                                      help="memory for the layer problem (sets the largest attempted); past it: "
                                           "undecided"),
        max_clauses: int = typer.Option(None, "--max-clauses", min=1000,
                                        help="largest layer problem attempted, in clauses, instead of what "
                                             "--memory-mb allows"),
        write_fold: Path = typer.Option(None, "--write-fold", dir_okay=False,
                                        help="write the file back here with the layer order found as FOLD "
                                             "faceOrders (when it folds)"),
        progress: bool = typer.Option(False, "--progress", help="print each stage of a long check to stderr"),
        precision: str = typer.Option(
            "auto", "--precision", metavar="auto|exact|NOISE",
            help="how exact the coordinates are: 'auto' reads it from the file's digits (float32, N decimals, N "
                 "significant digits), 'exact' checks them as written, or a noise in the file's units; a pattern "
                 "that fails as written is checked again with tolerances widened to that noise"),
    ) -> None:
        """Print the verdict as JSON: foldable, violated rules with vertex and crease indices.

        Exit status: 0 decided, 2 malformed file, 3 undecided (a limit was reached; the JSON says which). The
        default budget (120 s, 2 GiB) decides a layer problem of up to about 15 million clauses.
        """
        try:
            limits = CheckLimits(time_s=time_limit, memory_mb=memory_mb, max_clauses=max_clauses)
            verdict = check_file(file, limits, progress, parse_precision(precision), write_fold)
        except FoldFormatError as exc:
            sys.stdout.write(json.dumps({"file": str(file), "foldable": False, "error": str(exc)}) + "\n")
            raise typer.Exit(2) from None
        sys.stdout.write(json.dumps(verdict) + "\n")
        if not verdict.get("decided", True):
            raise typer.Exit(3)

    @origami.command("generate")
    def generate_cmd(
        out: Path = typer.Option(ASSETS, help="where FOLD files and manifest.json go"),
        seed: int = typer.Option(DEFAULT_SEED, help="generator seed"),
        render: bool = typer.Option(False, help="also render every image into the cache"),
    ) -> None:
        """(Re)build the GamiBench pattern set; byte-identical for the same seed."""
        sys.stdout.write(json.dumps(generate_set(out, seed, render)) + "\n")

    @origami.command("score")
    def score_cmd(file: Path = typer.Argument(..., exists=True, dir_okay=False, help="JSONL: {task_id, answer}")) -> None:
        """GamiBench metrics (normal accuracy, VC, IFSR, impossible accuracy, position bias) for answers."""
        from agent.cli.answers import read_answers
        from evaluator.answers import score_answer
        from evaluator.gamibench import gamibench_metrics
        from jarvis_sim.tasks.question import QuestionItem
        from jarvis_sim.tasks.registry import load_task

        rows = []
        for task_id, answer in read_answers(file):
            item = load_task(task_id)
            if isinstance(item, QuestionItem):
                rows.append((item, score_answer(item, answer)))
        sys.stdout.write(json.dumps(gamibench_metrics(rows)) + "\n")
