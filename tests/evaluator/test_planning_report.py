"""The planning table (JARVIS Table 4) from stored planning records, in run and comparison reports."""

from __future__ import annotations

import json
from pathlib import Path

from agent.agents.oracle import oracle_plan
from evaluator.episode import score_episode
from evaluator.planning_report import planning_section
from evaluator.report import write_report
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.planning_family import planning_task_id
from jarvis_sim.tasks.registry import load_task, suite_task_ids
from jarvis_sim.tasks.spec import TaskSpec
from tests.evaluator.runs import write_run


def _plan_record(task_id: str, answer: str, k: int) -> EpisodeRecord:
    task = load_task(task_id)
    assert isinstance(task, TaskSpec)
    bare = EpisodeRecord(episode_id=f"p{k}", task_id=task_id, family="planning", answer=answer)
    return score_episode(bare, task)


def _shifted(task_id: str, dx_mm: float) -> str:
    text = oracle_plan(load_task(task_id))  # type: ignore[arg-type]
    plan = json.loads(text.removeprefix("```json\n").removesuffix("\n```"))
    for entry in plan["plan"]:
        entry["x_mm"] += dx_mm
    return json.dumps(plan)


def _records() -> list[EpisodeRecord]:
    lego = suite_task_ids("jarvis-mini")[:2]
    out = []
    for k, lid in enumerate(lego):
        out.append(_plan_record(planning_task_id("rgb", lid), "I cannot tell from the picture.", 3 * k))
        out.append(_plan_record(planning_task_id("rgbd", lid), _shifted(planning_task_id("rgbd", lid), 4.0), 3 * k + 1))
        tid = planning_task_id("rgbd_3d", lid)
        out.append(_plan_record(tid, oracle_plan(load_task(tid)), 3 * k + 2))  # type: ignore[arg-type]
    return out


def _cells(text: str, label: str) -> list[str]:
    row = next(line for line in text.splitlines() if line.startswith(f"| {label} |"))
    return [c.strip() for c in row.strip("|").split("|")]


def test_rows_per_observation_setting_with_the_paper_columns() -> None:
    records = _records()
    required = sum(int(r.score_details["n_required"]) for r in records) // 3
    text = planning_section(records)
    assert "| Observation | Tasks | Parse failures | Matched steps | Missing steps |" in text
    assert _cells(text, "RGB") == ["RGB", "2", "2", "0", str(required), "0", "0.0", "–", "–"]
    assert _cells(text, "RGB-D") == ["RGB-D", "2", "0", str(required), "0", "0", "100.0", "4.0", "0.0"]
    assert _cells(text, "RGB-D + 3D descriptors")[3:9] == [str(required), "0", "0", "100.0", "0.0", "0.0"]
    assert _cells(text, "All")[1:4] == ["6", "2", str(2 * required)]


def test_comparison_reports_carry_each_runs_planning_table(tmp_path: Path) -> None:
    records = _records()
    a = write_run(tmp_path / "model-a", records, {"model": "a"})
    b = write_run(tmp_path / "model-b", records[3:], {"model": "b"})
    write_report([a, b], tmp_path / "out", with_plots=False)
    for name in ("model-a", "model-b"):
        assert "## Manual planning and spatial grounding" in (tmp_path / "out" / name / "report.md").read_text()
