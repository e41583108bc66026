"""Run one episode of any family: the one entry point of workers, batches, the server and the CLI."""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

from agent.episodes.assembly import run_assembly_episode
from agent.episodes.job import EpisodeJob, now_iso
from agent.episodes.planning import run_planning_episode
from agent.episodes.question import run_question_episode
from jarvis_sim.provenance import collect as collect_provenance
from jarvis_sim.records import EpisodeRecord, Timings
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily, family_of_task, load_task
from jarvis_sim.tasks.spec import TaskSpec


def run_episode(job: EpisodeJob, episode_dir: Path, runtime: Any = None) -> EpisodeRecord:
    """Run one episode of any family; failures become a record with status 'failed', never an exception.

    `runtime` is the worker's reusable state (its simulator backend); question episodes ignore it.
    """
    episode_dir.mkdir(parents=True, exist_ok=True)
    try:
        if job.task is not None:
            return run_assembly_episode(job, TaskSpec.model_validate(job.task), episode_dir, runtime)
        task = load_task(job.task_id)
        family = family_of_task(job.task_id)
        if isinstance(task, QuestionItem):
            assert isinstance(family, QuestionFamily)
            return run_question_episode(job, task, family, episode_dir)
        if family.name == "planning":
            return run_planning_episode(job, task, episode_dir, runtime)
        return run_assembly_episode(job, task, episode_dir, runtime)
    except Exception as exc:  # the record must say what went wrong; the worker must survive
        return EpisodeRecord(
            episode_id=job.episode_id,
            task_id=job.task_id,
            family=job.task_id.split("/", 1)[0],
            suite=job.suite,
            agent=job.agent.model_dump(),
            seed=job.agent.seed,
            status="failed",
            error=f"{type(exc).__name__}: {exc}",
            score_details={"traceback": traceback.format_exc(limit=8)},
            timings=Timings(started_at=now_iso(), finished_at=now_iso()),
            provenance=collect_provenance(),
        )
