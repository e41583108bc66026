"""Reading a run directory: config.json and episodes.jsonl (one EpisodeRecord a line).

A malformed directory is rejected with a message naming the file. A malformed line is an error naming
the file and line; asked to be lenient (strict=False), the reader reports it and keeps every other line,
so one corrupt line never loses a run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from jarvis_sim.records import EpisodeRecord

CONFIG_FILE = "config.json"
EPISODES_FILE = "episodes.jsonl"
RESCORED_FILE = "episodes.rescored.jsonl"

RecordsChoice = Literal["auto", "original", "rescored"]


class RunDirError(ValueError):
    """A run directory or file that cannot be read; the message names the file (and line)."""


@dataclass(frozen=True)
class LineProblem:
    """A line of an episodes file that was skipped, and why."""

    path: Path
    line: int | None  # None when the problem is with a whole record rather than its text
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


@dataclass
class RunData:
    """One run directory, read: its config, its records and the lines that had to be skipped."""

    path: Path
    config: dict[str, Any]
    records: list[EpisodeRecord]
    records_file: Path
    problems: list[LineProblem] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The run's directory name."""
        return self.path.name


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"not a valid EpisodeRecord: {where}: {first['msg']}{more}"


def read_episodes(path: Path, strict: bool = True) -> tuple[list[EpisodeRecord], list[LineProblem]]:
    """Records of an episodes file; a bad line raises RunDirError, or is reported and skipped if not strict."""
    records: list[EpisodeRecord] = []
    problems: list[LineProblem] = []
    try:
        fh = path.open("rb")  # bytes, decoded line by line, so bad bytes cost only their own line
    except OSError as exc:
        raise RunDirError(f"{path}: cannot read ({exc.strerror})") from None
    with fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8"))
                if not isinstance(obj, dict):
                    raise RunDirError("expected a JSON object")
                records.append(EpisodeRecord.model_validate(obj))
            except UnicodeDecodeError:
                problem = LineProblem(path, lineno, "not UTF-8 text")
            except json.JSONDecodeError as exc:
                problem = LineProblem(path, lineno, f"not valid JSON ({exc.msg} at column {exc.colno})")
            except ValidationError as exc:
                problem = LineProblem(path, lineno, _describe(exc))
            except RunDirError as exc:
                problem = LineProblem(path, lineno, str(exc))
            else:
                continue
            if strict:
                raise RunDirError(str(problem))
            problems.append(problem)
    return records, problems


def read_config(run_dir: Path) -> dict[str, Any]:
    """The run's config.json as a JSON object."""
    if not run_dir.is_dir():
        raise RunDirError(f"{run_dir}: no such run directory")
    path = run_dir / CONFIG_FILE
    if not path.is_file():
        raise RunDirError(f"{run_dir}: not a run directory (no {CONFIG_FILE})")
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RunDirError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RunDirError(f"{path}: cannot read ({exc})") from None
    if not isinstance(obj, dict):
        raise RunDirError(f"{path}: expected a JSON object, got {type(obj).__name__}")
    return obj


def records_path(run_dir: Path, choice: RecordsChoice = "auto") -> Path:
    """Which episodes file to read: the rescored one when it exists and is not older than the original."""
    original, rescored = run_dir / EPISODES_FILE, run_dir / RESCORED_FILE
    if choice == "original":
        return original
    if choice == "rescored":
        if not rescored.is_file():
            raise RunDirError(f"{run_dir}: no {RESCORED_FILE} (run `jarvis score` first)")
        return rescored
    if rescored.is_file() and original.is_file() and rescored.stat().st_mtime >= original.stat().st_mtime:
        return rescored
    return original


def read_run_dir(run_dir: Path, strict: bool = True, records: RecordsChoice = "auto") -> RunData:
    """Read a run directory; see the module docstring for what is rejected and what is skipped."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunDirError(f"{run_dir}: no such run directory")
    config = read_config(run_dir)
    path = records_path(run_dir, records)
    if not path.is_file():
        raise RunDirError(f"{run_dir}: not a run directory (no {EPISODES_FILE})")
    recs, problems = read_episodes(path, strict=strict)
    return RunData(run_dir, config, recs, path, problems)
