"""Batch evaluation on a Ray cluster: one actor per simulator, results streamed back as they finish.

Ray is an optional extra (`pip install 'jarvis[ray]'`); it is imported only when this executor is chosen.
Every actor must see the same run directory path (a shared filesystem) for artifacts; records come
back over Ray and the driver writes episodes.jsonl.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent.episodes.job import EpisodeJob
from jarvis_sim.records import EpisodeRecord

FORWARDED_ENV = ("JARVIS_PLUGINS", "MUJOCO_GL", "PYOPENGL_PLATFORM")


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError("the Ray executor needs Ray: pip install 'jarvis[ray]'") from exc
    return ray


class _SimulatorActor:
    """A Ray actor owning one WorkerRuntime (and so one simulator) for its lifetime."""

    def __init__(self, backend: str):
        from agent.runs.worker import WorkerRuntime

        self.runtime = WorkerRuntime(backend)

    def run(self, job_obj: dict[str, Any], run_root: str) -> str:
        return self.runtime.run(EpisodeJob.from_json_obj(job_obj), Path(run_root), "task").model_dump_json()


def ray_results(
    jobs: list[EpisodeJob], root: Path, n_actors: int, backend: str, address: str | None
) -> Iterator[EpisodeRecord]:
    """Run jobs on n_actors Ray actors; yield records in completion order.

    An actor that dies (its node lost, its process killed) is replaced; the episode it was running is
    recorded as failed with the reason, never dropped.
    """
    from agent.runs.worker import lost_record

    ray = _import_ray()
    if not ray.is_initialized():
        # Actors must see the same plug-ins and GL platform as this driver.
        env = {k: os.environ[k] for k in FORWARDED_ENV if k in os.environ}
        ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
                 runtime_env={"env_vars": env} if env else None)
    actor_cls = ray.remote(num_cpus=1)(_SimulatorActor)
    actors = [actor_cls.remote(backend) for _ in range(min(n_actors, max(1, len(jobs))))]
    queue = list(reversed(jobs))
    in_flight: dict[Any, tuple[Any, EpisodeJob]] = {}

    def dispatch(actor: Any) -> None:
        if queue:
            job = queue.pop()
            in_flight[actor.run.remote(job.to_json_obj(), str(root))] = (actor, job)

    for actor in actors:
        dispatch(actor)
    try:
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            ref = ready[0]
            actor, job = in_flight.pop(ref)
            try:
                record = EpisodeRecord.model_validate_json(ray.get(ref))
            except ray.exceptions.RayError as exc:
                record = lost_record(job, f"Ray actor failed while running this episode: {type(exc).__name__}")
                actors.remove(actor)
                actor = actor_cls.remote(backend)
                actors.append(actor)
            yield record
            dispatch(actor)
    finally:
        for actor in actors:
            ray.kill(actor)
