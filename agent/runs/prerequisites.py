"""Items asked only after another was answered right (GamiBench's rule for alternative-view questions).

A run asks its items in waves: first those that depend on nothing, then each item whose prerequisite's
record says it was answered right. The others are never asked; they get a skipped record that counts as
wrong, with the reason the official runner gives (prerequisite_incorrect, prerequisite_result_not_found).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from agent.episodes.job import EpisodeJob, now_iso
from jarvis_sim.provenance import collect as collect_provenance
from jarvis_sim.records import EpisodeRecord, Timings
from jarvis_sim.tasks.registry import QuestionFamily, UnknownKeyError, family_of_task

SKIPPED_INCORRECT = "prerequisite_incorrect"
SKIPPED_NOT_FOUND = "prerequisite_result_not_found"


def prerequisite_of(task_id: str) -> str | None:
    """The task that must be answered right before this one is asked, per its family."""
    try:
        family = family_of_task(task_id)
    except UnknownKeyError:
        return None
    return family.prerequisite(task_id) if isinstance(family, QuestionFamily) else None


def skipped_record(job: EpisodeJob, prerequisite: str, reason: str) -> EpisodeRecord:
    """The record of an item not asked because its prerequisite was not answered right: wrong, no answer."""
    now = now_iso()
    details = {"skipped": reason, "prerequisite": prerequisite}
    return EpisodeRecord(
        episode_id=job.episode_id, task_id=job.task_id, family=job.task_id.split("/", 1)[0], suite=job.suite,
        agent=job.agent.model_dump(), seed=job.agent.seed, status="done", answer=None,
        scores={"soft_score": 0.0, "correct": 0.0, "valid": 0.0, "strict_correct": 0.0},
        score_details={"official": details, "strict": details, **details},
        scoring_config={"modes": ["official", "strict"]}, provenance=collect_provenance(),
        timings=Timings(started_at=now, finished_at=now),
    )


def run_in_waves(
    jobs: list[EpisodeJob],
    run_jobs: Callable[[list[EpisodeJob]], Iterable[EpisodeRecord]],
    stored: Callable[[], Iterable[EpisodeRecord]],
) -> Iterator[EpisodeRecord]:
    """Every job's record: free jobs first, then gated ones whose prerequisite was right, the rest skipped.

    `stored` reads the run's records; the caller must have stored each yielded record before asking for
    the next, so a wave sees the answers of the waves before it (and of earlier, resumed runs).
    """
    waiting = [(j, prerequisite_of(j.task_id)) for j in jobs]
    ready = [j for j, pre in waiting if pre is None]
    gated = [(j, pre) for j, pre in waiting if pre is not None]
    if not gated:  # nearly every run: one wave, no need to read the stored records back
        yield from run_jobs(ready)
        return
    while True:
        if ready:
            yield from run_jobs(ready)
        verdicts: dict[tuple[str, int], bool] = {}
        for r in stored():
            if r.status == "done":
                verdicts[(r.task_id, r.seed)] = r.scores.get("correct", 0.0) >= 100.0
        gated_ids = {j.task_id for j, _ in gated}
        ready, still = [], []
        for job, pre in gated:
            key = (pre, job.agent.seed)
            if verdicts.get(key):
                ready.append(job)
            elif key in verdicts:
                yield skipped_record(job, pre, SKIPPED_INCORRECT)
            elif pre in gated_ids:
                still.append((job, pre))  # its prerequisite is itself waiting for a later wave
            else:
                yield skipped_record(job, pre, SKIPPED_NOT_FOUND)
        gated = still
        if not ready:
            break
    for job, pre in gated:  # a cycle of prerequisites: none can ever be asked
        yield skipped_record(job, pre, SKIPPED_NOT_FOUND)
