"""Gated items run in waves: asked after a right prerequisite (this run's or a resumed one's), else skipped."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from agent.config import AgentConfig, Budget
from agent.episodes.job import EpisodeJob
from agent.runs.prerequisites import SKIPPED_INCORRECT, SKIPPED_NOT_FOUND, prerequisite_of, run_in_waves
from jarvis_sim.origami.family import CODE_ENV, PLAN_ENV, ROOT_ENV
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.registry import suite_task_ids
from tests.fakes.gamibench_folder import build_code, build_folder


@pytest.fixture
def ids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv(ROOT_ENV, str(build_folder(tmp_path / "data")))
    monkeypatch.setenv(CODE_ENV, str(build_code(tmp_path / "code")))
    monkeypatch.delenv(PLAN_ENV, raising=False)
    return suite_task_ids("gamibench-official")


def _job(task_id: str) -> EpisodeJob:
    return EpisodeJob(task_id=task_id, agent=AgentConfig(name="scripted"), budget=Budget())


def _done(task_id: str, correct: bool) -> EpisodeRecord:
    return EpisodeRecord(episode_id=task_id, task_id=task_id, family="gamibench", scores={"correct": 100.0 * correct})


def test_waves_resume_and_missing_prerequisites(ids: list[str]) -> None:
    alts = [i for i in ids if "/alternative/" in i]
    std = [prerequisite_of(a) for a in alts]
    assert all(s is not None and "/standard/" in s for s in std)
    stored = [_done(str(std[0]), True), _done(str(std[1]), False)]  # from an earlier, resumed run
    asked: list[list[str]] = []

    def run_jobs(wave: list[EpisodeJob]) -> Iterable[EpisodeRecord]:
        asked.append([j.task_id for j in wave])
        for j in wave:
            rec = _done(j.task_id, True)
            stored.append(rec)
            yield rec

    # Three alternatives: prerequisite right before, wrong before, never run; and one free item.
    free = next(i for i in ids if "/impossible/" in i)
    out = list(run_in_waves([_job(alts[0]), _job(alts[1]), _job(alts[2]), _job(free)], run_jobs, lambda: stored))
    assert asked == [[free], [alts[0]]]
    by_id = {r.task_id: r for r in out}
    assert by_id[alts[1]].score_details["skipped"] == SKIPPED_INCORRECT
    assert by_id[alts[2]].score_details["skipped"] == SKIPPED_NOT_FOUND
    assert by_id[alts[0]].answer is None and by_id[alts[0]].scores["correct"] == 100.0  # asked (fake record)
