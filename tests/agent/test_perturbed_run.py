"""A jarvis-v1-perturbed pair run end to end: the disturbance fires in the simulator and the report pairs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.runs.batch import run_batch
from agent.runs.reporting import finish_run
from agent.runs.run_store import RunConfig
from jarvis_sim.tasks.perturbed import perturbed_tasks, twin_id


@pytest.mark.slow
def test_oracle_meets_a_displaced_brick(tmp_path: Path) -> None:
    twin = next(t for t in perturbed_tasks() if t.perturbations[0].kind == "displace_brick")
    plain = twin_id(twin.id)
    assert plain is not None
    cfg = RunConfig(task_ids=[plain, twin.id], agent=AgentConfig(name="oracle"))
    run, _ = run_batch(cfg, tmp_path / "run", workers=0)
    finish_run(run)
    records = {r.task_id: r for r in run.records()}
    calls = [c for rnd in records[twin.id].rounds for c in rnd.skill_calls]
    assert [c.disturbed for c in calls if c.disturbed] == [["displace_brick"]]
    assert not any(c.disturbed for rnd in records[plain].rounds for c in rnd.skill_calls)
    # The oracle's program looks again after each manual step (repair()) and builds the displaced brick again.
    moved = twin.perturbations[0].brick_id
    final = next(b for b in (records[twin.id].final_state.bricks if records[twin.id].final_state else []) if b.id == moved)
    (x, y, z), _ = twin.target_world_pose(moved or "")
    assert abs(final.position[0] - x) + abs(final.position[1] - y) + abs(final.position[2] - z) < 0.001
    assert records[twin.id].scores["soft_score"] == records[plain].scores["soft_score"] == 100.0
    assert sum(c.name == "place_at" for rnd in records[twin.id].rounds for c in rnd.skill_calls) == len(twin.action_bricks) + 1
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## Error recovery (perturbed twins)" in report and f"| {plain} | displace_brick | yes |" in report
