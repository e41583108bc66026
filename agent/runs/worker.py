"""A worker's reusable state: one simulator backend, created on first use and kept across episodes.

The headless batch runner, the server's worker processes and Ray actors all run episodes through
`WorkerRuntime.run`, so the three share one code path.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Literal

from agent.episodes.job import EpisodeJob, now_iso
from agent.episodes.run import run_episode
from agent.runs.run_store import claim_episode_dir
from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.records import EpisodeRecord, Timings

log = logging.getLogger(__name__)

# How an episode's artifacts folder is named: by the episode id, or by the task id (+ -k when repeated).
FolderNaming = Literal["episode", "task"]


class WorkerRuntime:
    """Owns at most one backend instance and reuses it for every assembly episode."""

    def __init__(self, backend_name: str = "mujoco"):
        self.backend_name = backend_name
        self._backend: Backend | None = None
        self.episodes_run = 0

    def backend(self) -> Backend:
        """The worker's simulator, started on first use."""
        if self._backend is None:
            self._backend = make_backend(self.backend_name)
        return self._backend

    def run(self, job: EpisodeJob, run_root: Path, folder: FolderNaming = "episode") -> EpisodeRecord:
        """Run one episode with artifacts under run_root/episodes/<episode id> or <task id>[-k].

        Batch runs name folders by task (a person browses them); the server keeps episode ids, the
        name its REST API serves artifacts under.
        """
        episode_dir = claim_episode_dir(run_root, job.task_id) if folder == "task" else run_root / "episodes" / job.episode_id
        record = run_episode(job, episode_dir, runtime=self)
        record.artifacts_dir = str(Path("episodes") / episode_dir.name)
        self.episodes_run += 1
        return record

    def close(self) -> None:
        """Free the simulator."""
        if self._backend is not None:
            try:
                self._backend.close()
            finally:
                self._backend = None


# --- process-pool plumbing: one runtime per worker process ----------------------------------------
_PROCESS_RUNTIME: WorkerRuntime | None = None


def init_process(backend_name: str) -> None:
    """ProcessPoolExecutor initializer: create this process's runtime."""
    global _PROCESS_RUNTIME
    _PROCESS_RUNTIME = WorkerRuntime(backend_name)


def run_in_process(job_obj: dict[str, Any], run_root: str) -> str:
    """Run a job in this worker process; returns the record as JSON (cheap to pickle)."""
    if _PROCESS_RUNTIME is None:
        init_process("mujoco")
    assert _PROCESS_RUNTIME is not None
    return _PROCESS_RUNTIME.run(EpisodeJob.from_json_obj(job_obj), Path(run_root), "task").model_dump_json()


def lost_record(job: EpisodeJob, reason: str) -> EpisodeRecord:
    """A failed record for an episode whose worker died before it could report (so it is never lost)."""
    return EpisodeRecord(
        episode_id=job.episode_id, task_id=job.task_id, family=job.task_id.split("/", 1)[0], suite=job.suite,
        agent=job.agent.model_dump(), seed=job.agent.seed, status="failed", error=reason,
        timings=Timings(started_at=now_iso(), finished_at=now_iso()),
    )
