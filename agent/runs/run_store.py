"""The run directory on disk: config.json, episodes.jsonl (one EpisodeRecord a line), per-episode artifacts.

One writer appends to episodes.jsonl; every line is flushed and fsynced before the next episode is
reported done, so an interrupted run loses at most the episode that was running. A corrupt line
(a torn write, a disk error) is skipped with a warning and its task is simply run again on resume.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent.config import AgentConfig, Budget
from jarvis_sim.provenance import Provenance, differences
from jarvis_sim.provenance import collect as collect_provenance
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.spec import TaskSpec

log = logging.getLogger(__name__)

# 2: `provenance` of the process that created the run; version-1 configs read with provenance None.
RUN_CONFIG_VERSION = 2


class RunConfig(BaseModel):
    """What a run is: tasks x one agent config, with its budget. Saved as config.json."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = RUN_CONFIG_VERSION
    suite: str | None = None
    task_ids: list[str] = Field(default_factory=list)
    tasks: list[TaskSpec] = Field(
        default_factory=list,
        description="The user's own tasks (from --tasks-file), stored whole so the run directory is self-contained.",
    )
    agent: AgentConfig = AgentConfig()
    budget: Budget = Budget()
    backend: str = "mujoco"
    provenance: Provenance | None = Field(
        None, description="Versions and BLAS kernel of the process that created the run (filled in on creation)."
    )

    def run_identity(self) -> dict[str, Any]:
        """What must match to resume a run: the work asked for, not the schema or the machine it started on."""
        return self.model_dump(exclude={"schema_version", "provenance"})


class RunDirError(ValueError):
    """A run directory that cannot be used as asked."""


class RunDirectory:
    """A run directory, created fresh or reopened to resume."""

    def __init__(self, root: Path):
        self.root = root
        self.episodes_path = root / "episodes.jsonl"
        self.config_path = root / "config.json"

    @classmethod
    def open(cls, root: Path, config: RunConfig) -> RunDirectory:
        """Create the directory, or reopen it when its config.json matches (resume)."""
        run = cls(root)
        root.mkdir(parents=True, exist_ok=True)
        if run.config_path.exists():
            try:
                stored = RunConfig.model_validate_json(run.config_path.read_text(encoding="utf-8"))
            except ValidationError as exc:
                raise RunDirError(f"{run.config_path}: not a JARVIS run config ({exc.error_count()} errors)") from None
            if stored.run_identity() != config.run_identity():
                raise RunDirError(
                    f"{root} holds a different run (config.json differs); choose another --out or reuse its config"
                )
            if stored.provenance is not None:
                changed = differences([stored.provenance.fingerprint(), collect_provenance().fingerprint()])
                if changed:  # allowed (each record keeps its own), but the report will flag the mix
                    log.warning("resuming %s under other versions than it started with: %s", root, ", ".join(changed))
        else:
            if config.provenance is None:
                config = config.model_copy(update={"provenance": collect_provenance()})
            _atomic_write(run.config_path, config.model_dump_json(indent=2))
        return run

    def episode_dir(self, episode_id: str) -> Path:
        """Where one episode's artifacts went in run directories older than task-named folders."""
        return self.root / "episodes" / episode_id

    def claim_episode_dir(self, task_id: str) -> Path:
        """A fresh artifacts folder named by the task id (suffix -2, -3 ... when the task is run again)."""
        return claim_episode_dir(self.root, task_id)

    def records(self) -> list[EpisodeRecord]:
        """Every readable record; corrupt lines (bad JSON, bad bytes, a torn write) are logged and skipped."""
        if not self.episodes_path.exists():
            return []
        from evaluator.run_dir import read_episodes

        out, problems = read_episodes(self.episodes_path, strict=False)
        for problem in problems:
            log.warning("skipping a corrupt episode line: %s", problem)
        return out

    def finished_keys(self) -> set[tuple[str, int]]:
        """(task_id, seed) of episodes already done (failed ones are retried on resume)."""
        return {(r.task_id, r.seed) for r in self.records() if r.status == "done"}

    def append(self, record: EpisodeRecord) -> None:
        """Append one record durably, under an exclusive lock (the server's workers and its API share the file);
        a torn last line (a killed writer) is closed first so it costs only itself."""
        line = (record.model_dump_json() + "\n").encode("utf-8")
        with self.episodes_path.open("a+b") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                end = fh.seek(0, os.SEEK_END)
                if end > 0:
                    fh.seek(end - 1)
                    if fh.read(1) != b"\n":
                        fh.write(b"\n")
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def write_json(self, name: str, obj: Any) -> None:
        """Write a JSON file in the run directory atomically."""
        _atomic_write(self.root / name, json.dumps(obj, indent=2, sort_keys=True))


def episode_folder_name(task_id: str) -> str:
    """A task id as one folder name: path separators and odd characters become '_'."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", task_id).strip("._") or "episode"
    return name[:150]


def claim_episode_dir(run_root: Path, task_id: str) -> Path:
    """Create and return run_root/episodes/<task id>[-k]; mkdir without exist_ok claims it atomically,
    so two workers running the same task never share a folder."""
    parent = run_root / "episodes"
    parent.mkdir(parents=True, exist_ok=True)
    base = episode_folder_name(task_id)
    for k in range(1, 10_000):
        path = parent / (base if k == 1 else f"{base}-{k}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise RunDirError(f"{parent}: over 10000 folders for task {task_id!r}")


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
