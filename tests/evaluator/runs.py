"""Building run directories of crafted episode records for the report and re-scoring tests."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.episode import score_episode
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.records import EpisodeRecord, RoundRecord, SkillCallRecord, Timings
from jarvis_sim.tasks.spec import TaskSpec
from tests.evaluator.builders import make_task, perfect_state, shifted, start_state

TASKS = {
    d: make_task(task_id=f"lego/test/{d}", difficulty=d) for d in ("easy", "medium", "hard")
}


def lego_record(task: TaskSpec, state: WorldState, k: int, failed_calls: int = 0,
                rounds: list[RoundRecord] | None = None, sim_time_s: float = 20.0) -> EpisodeRecord:
    """A scored assembly episode."""
    calls = [SkillCallRecord(name="pick", ok=False, error="missed")] * failed_calls
    rec = EpisodeRecord(
        episode_id=f"{task.id}#{k}", task_id=task.id, family="lego", suite="test", difficulty=task.difficulty,
        agent={"name": "oracle"}, rounds=rounds or [RoundRecord(index=0, skill_calls=calls)],
        final_state=state, timings=Timings(sim_time_s=sim_time_s),
    )
    return score_episode(rec, task)


def standard_records() -> list[EpisodeRecord]:
    """Six assembly episodes: a perfect, a partial and an idle one at three difficulties."""
    out = []
    for d, task in TASKS.items():
        out.append(lego_record(task, perfect_state(task), 0))
        out.append(lego_record(task, shifted(perfect_state(task), "a1", dx=0.004), 1, failed_calls=2))
        if d != "hard":
            out.append(lego_record(task, start_state(task), 2, failed_calls=1))
    return out


def write_run(path: Path, records: list[EpisodeRecord], config: dict | None = None,
              extra_lines: list[str] = ()) -> Path:  # type: ignore[assignment]
    """A run directory with config.json and episodes.jsonl (extra raw lines appended)."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(config or {"model": "oracle", "tool_library": "verified"}))
    lines = [r.model_dump_json() for r in records] + list(extra_lines)
    (path / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    return path
