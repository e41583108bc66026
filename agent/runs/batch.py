"""Headless batch evaluation: a suite (or task list) x one agent config, on local worker processes or Ray.

Resumable: tasks whose (task_id, seed) already has a 'done' record in the run directory are skipped.
Records stream into episodes.jsonl as they finish; the report is written at the end.
"""

from __future__ import annotations

import logging
import multiprocessing
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Literal

from agent.episodes.job import EpisodeJob
from agent.runs.prerequisites import run_in_waves
from agent.runs.progress import RunProgress
from agent.runs.run_store import RunConfig, RunDirectory
from agent.runs.worker import WorkerRuntime, init_process, lost_record, run_in_process
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.registry import suite_task_ids

log = logging.getLogger(__name__)

Executor = Literal["local", "ray"]


def listed_task_ids(config: RunConfig) -> list[str]:
    """The run's task ids as listed: the explicit list and the user's own tasks, else the suite's.

    A server run may list a task twice (two episodes); a CLI run directory cannot (see resolve_task_ids)."""
    if config.task_ids or config.tasks:
        return [*config.task_ids, *(t.id for t in config.tasks)]
    if config.suite:
        return suite_task_ids(config.suite)
    raise ValueError("a run needs a suite or a list of task ids")


def resolve_task_ids(config: RunConfig) -> list[str]:
    """The task ids of a CLI run: each once, since its run directory keys episodes by (task, seed)."""
    ids = listed_task_ids(config)
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"task ids given more than once: {dup[:5]}")
    return ids


def pending_jobs(config: RunConfig, run: RunDirectory) -> tuple[list[EpisodeJob], int]:
    """Jobs still to run, and how many were skipped because they are already done."""
    done = run.finished_keys()
    jobs, skipped = [], 0
    inline = {t.id: t for t in config.tasks}
    for task_id in resolve_task_ids(config):
        if (task_id, config.agent.seed) in done:
            skipped += 1
            continue
        spec = inline.get(task_id)
        jobs.append(EpisodeJob(task_id=task_id, agent=config.agent, budget=config.budget, suite=config.suite,
                               task=None if spec is None else spec.model_dump(mode="json")))
    return jobs, skipped


def _local_results(
    jobs: list[EpisodeJob], root: Path, workers: int, backend: str, max_attempts: int = 2
) -> Iterator[EpisodeRecord]:
    if workers <= 0:
        runtime = WorkerRuntime(backend)
        try:
            for job in jobs:
                yield runtime.run(job, root, "task")
        finally:
            runtime.close()
        return
    # spawn: a fresh interpreter per worker; forking a process that holds GL contexts is unsafe.
    ctx = multiprocessing.get_context("spawn")
    attempts = {j.episode_id: 0 for j in jobs}
    todo = list(jobs)
    while todo:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=init_process, initargs=(backend,))
        broken: list[EpisodeJob] = []
        try:
            pending: dict[Future[str], EpisodeJob] = {}
            for j in todo:
                attempts[j.episode_id] += 1
                pending[pool.submit(run_in_process, j.to_json_obj(), str(root))] = j
            todo = []
            while pending:
                finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                for fut in finished:
                    job = pending.pop(fut)
                    try:
                        yield EpisodeRecord.model_validate_json(fut.result())
                    except BrokenProcessPool:
                        broken.append(job)
        finally:
            # Never wait for queued work on the way out (an error writing results, Ctrl-C).
            pool.shutdown(wait=True, cancel_futures=True)
        # A worker died (killed, out of memory): every unfinished job of the broken pool is retried once
        # on a fresh pool; a job that breaks the pool again is recorded as failed with the reason.
        for job in broken:
            if attempts[job.episode_id] >= max_attempts:
                yield lost_record(job, f"worker process died {attempts[job.episode_id]} time(s) while this "
                                       "episode was running or queued (killed or out of memory)")
            else:
                todo.append(job)
        if broken:
            log.warning("a worker process died: %d episode(s) go to a fresh pool", len(todo))


def _ray_results(jobs: list[EpisodeJob], root: Path, workers: int, backend: str, address: str | None) -> Iterator[EpisodeRecord]:
    from agent.runs.ray_executor import ray_results

    yield from ray_results(jobs, root, max(1, workers), backend, address)


def run_batch(
    config: RunConfig,
    out: Path,
    workers: int = 1,
    executor: Executor = "local",
    ray_address: str | None = None,
    on_record: Callable[[EpisodeRecord, RunProgress], None] | None = None,
    on_start: Callable[[RunProgress], None] | None = None,
) -> tuple[RunDirectory, RunProgress]:
    """Run (or resume) a batch; returns the run directory and final counters.

    `on_start` sees the counters before the first episode (to draw a progress bar), `on_record` after each.
    """
    run = RunDirectory.open(out, config)
    jobs, skipped = pending_jobs(config, run)
    progress = RunProgress(total=len(jobs) + skipped, skipped=skipped, started=time.perf_counter())
    if on_start is not None:
        on_start(progress)

    def run_jobs(wave: list[EpisodeJob]) -> Iterator[EpisodeRecord]:
        if executor == "ray":
            return _ray_results(wave, out, workers, config.backend, ray_address)
        return _local_results(wave, out, workers, config.backend)

    # Items gated on another's answer (GamiBench alternative views) wait for a later wave or are skipped.
    results = run_in_waves(jobs, run_jobs, run.records)
    for record in results:
        run.append(record)
        if record.status == "done":
            progress.done += 1
            progress.score_sum += record.scores.get("soft_score", 0.0)
        else:
            progress.failed += 1
            log.warning("episode %s on %s failed: %s", record.episode_id, record.task_id, record.error)
        if on_record is not None:
            on_record(record, progress)
    return run, progress
