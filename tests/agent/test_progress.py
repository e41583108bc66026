"""What an assembly episode reports while it runs: phases in order, rounds, skill calls and manual steps done."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.config import AgentConfig, Budget
from agent.episodes.job import EpisodeJob
from agent.episodes.progress import EpisodeProgress
from agent.episodes.run import run_episode
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.tasks.suites import load_suite
from tests.fakes.sim_runtime import OneBackendRuntime


def test_progress_rejects_unknown_fields_and_hides_untracked_steps() -> None:
    p = EpisodeProgress(4, track_steps=False)
    p.update(steps_total=3, steps_done=1)
    snap = p.snapshot()
    assert snap["rounds_total"] == 4 and snap["steps_total"] == 3 and "steps_done" not in snap
    with pytest.raises(KeyError, match="unknown progress field"):
        p.update(stepz=1)


@pytest.mark.slow
def test_an_oracle_episode_reports_each_phase_and_the_steps_it_built(tmp_path: Path) -> None:
    task = load_suite("jarvis-mini")[0]
    seen: list[dict[str, Any]] = []
    progress = EpisodeProgress(Budget().rounds, on_change=lambda: seen.append(progress.snapshot()))
    backend = make_backend("mujoco")
    try:
        job = EpisodeJob(task_id=task.id, agent=AgentConfig(name="oracle"), budget=Budget(), progress=progress)
        record = run_episode(job, tmp_path, OneBackendRuntime(backend))
    finally:
        backend.close()
    assert record.status == "done", record.error
    phases = [s["phase"] for s in seen]
    distinct = [ph for k, ph in enumerate(phases) if k == 0 or phases[k - 1] != ph]
    assert distinct == ["loading", "thinking", "executing", "thinking", "scoring"], distinct
    executing = [s for s in seen if s["phase"] == "executing"]
    assert executing[-1]["skill_calls"] == len(record.rounds[0].skill_calls) > 0
    after = next(s for s in seen if s["phase"] == "thinking" and s["rounds_done"] == 1)
    assert after["steps_total"] == len(task.manual_steps) and after["round"] == 2
    assert after["sim_time_s"] == pytest.approx(record.rounds[0].sim_time_s, abs=1e-3)
    # Steps done agree with the evaluator's final verdict: a step counts when all its bricks are complete and valid.
    good = {b["target"] for b in record.score_details["bricks"] if b["complete"] and b["valid"]}
    assert after["steps_done"] == sum(all(i in good for i in s.brick_ids) for s in task.manual_steps)
    assert after["steps_done"] >= 1  # the oracle builds at least the first step
