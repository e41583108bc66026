"""JARVIS suites as Inspect Robots tasks (`--task jarvis-mini`, `--task jarvis-v2`) and their pure scorers.

A scene is one JARVIS task: its instruction (built from the TaskSpec's public view), its manual pages
(rendered PNG files, in `Scene.metadata["manual_images"]`) and the task id the `jarvis-mujoco` embodiment
loads. Scorers are pure functions of the recorded ground truth (task id, seed, world state, elapsed
simulated time) through JARVIS's evaluator (`evaluator.assembly.score_assembly`). Inspect Robots keeps no
step info in its log, so a scorer files the ground truth it read under the trial's metadata (`"jarvis"`),
which the log keeps: `rescore_log(path)` scores a saved log again with the same function.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_robots.scene import Scene, Target
from inspect_robots.scorer import Score
from inspect_robots.task import Task

from agent.integrations.robots_embodiment import INFO_KEY, TASK_KEY
from evaluator.assembly import score_assembly
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.colors import color
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.manuals import render_manual
from jarvis_sim.tasks.registry import load_task, suite_task_ids
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import seeded_scene

if TYPE_CHECKING:
    from inspect_robots.rollout import TrialRecord

METADATA_KEY = "jarvis"  # the trial metadata entry holding the scored ground truth
DEFAULT_CONTROL_HZ = 15.0  # the embodiment's default; the horizon below is counted in its steps


def instruction(task: TaskSpec) -> str:
    """The language goal of a task, from what an agent may see (its public view), never the targets."""
    bricks = ", ".join(f"{color(a.target.color).name} {part(a.target.part).name}"
                       for a in task.action_bricks)  # colours and parts are in its public view
    n = len(task.manual_steps)
    return (f"Build the LEGO structure the {n}-step manual shows: pick each loose brick ({bricks}) and press it "
            f"onto the studs where the manual places it, within {task.time_budget_s:.0f} s.")


def scene_for(task_id: str, manual_style: str = "booklet") -> Scene:
    """One JARVIS task as a Scene: instruction, manual pages and the task id; the seed comes from the eval."""
    task = load_task(task_id)
    if not isinstance(task, TaskSpec):
        raise ValueError(f"{task_id!r} is not a LEGO assembly task")
    pages = [str(p) for p in render_manual(task, manual_style)]
    return Scene(
        id=task_id.replace("/", "__"),  # scene ids become file names of frames
        instruction=instruction(task),
        target=Target(kind="jarvis_assembly", spec={"task_id": task_id}),
        metadata={TASK_KEY: task_id, "manual_images": pages, "manual_style": manual_style,
                  "time_budget_s": task.time_budget_s, "difficulty": task.difficulty},
    )


def suite_task(suite: str, limit: int | None = None, max_steps: int | None = None, epochs: int = 1) -> Task:
    """A JARVIS suite as an Inspect Robots Task; the horizon defaults to the largest time budget at 15 Hz."""
    ids = suite_task_ids(suite)[: limit or None]
    scenes = [scene_for(tid) for tid in ids]
    if max_steps is None:
        max_steps = int(max(float(s.metadata["time_budget_s"]) for s in scenes) * DEFAULT_CONTROL_HZ)
    return Task(name=suite, scenes=scenes, scorer=[assembly_score(), assembly_complete()], max_steps=int(max_steps),
                epochs=int(epochs), metadata={"jarvis_suite": suite})


def jarvis_mini(limit: int | None = None, max_steps: int | None = None, epochs: int = 1) -> Task:
    """jarvis-mini: 6 tasks, 2 per difficulty stratum."""
    return suite_task("jarvis-mini", _int(limit), _int(max_steps), int(epochs))


def jarvis_v2(limit: int | None = None, max_steps: int | None = None, epochs: int = 1) -> Task:
    """jarvis-v2: the paper-sized suite (50 tasks)."""
    return suite_task("jarvis-v2", _int(limit), _int(max_steps), int(epochs))


def _int(value: Any) -> int | None:
    return None if value is None else int(value)  # the CLI's -T passes strings


# --- scoring ------------------------------------------------------------------------------------


def recorded_truth(record: TrialRecord) -> dict[str, Any]:
    """The ground truth of a trial's last step (or, for a record read back from a log, its metadata)."""
    for step in reversed(record.steps):
        truth = step.result.info.get(INFO_KEY)
        if truth is not None:
            return dict(truth)
    if METADATA_KEY in record.metadata:
        return dict(record.metadata[METADATA_KEY])
    raise ValueError(f"trial {record.scene_id}/e{record.epoch}: no JARVIS ground truth recorded (not a "
                     f"{INFO_KEY!r} embodiment, or no step ran)")


def score_truth(truth: dict[str, Any]) -> dict[str, Any]:
    """JARVIS's evaluator over recorded ground truth: the pure function every scorer here calls."""
    task = load_task(str(truth["task_id"]))
    if not isinstance(task, TaskSpec):
        raise ValueError(f"{truth['task_id']!r} is not a LEGO assembly task")
    scene = seeded_scene(task, int(truth["seed"]))
    state = WorldState.model_validate(truth["world_state"])
    scores = score_assembly(scene, state, float(truth["elapsed_s"]))
    return {"soft_score": scores.soft_score, "completion": scores.completion, "pose": scores.pose,
            "validity": scores.validity, "stability": scores.stability,
            "complete": scores.completion >= 100.0 and scores.validity >= 100.0}


@dataclass(frozen=True)
class _AssemblyScore:
    name: str = "jarvis_assembly"

    def __call__(self, record: TrialRecord, target: Target | None) -> Score:
        truth = recorded_truth(record)
        record.metadata[METADATA_KEY] = truth  # what the log keeps, so it re-scores (module docstring)
        s = score_truth(truth)
        return Score(value=float(s["soft_score"]), metadata=s,
                     explanation=f"soft score {s['soft_score']:.1f} (completion {s['completion']:.0f}, "
                                 f"pose {s['pose']:.0f}, validity {s['validity']:.0f})")


@dataclass(frozen=True)
class _AssemblyComplete:
    name: str = "jarvis_complete"

    def __call__(self, record: TrialRecord, target: Target | None) -> Score:
        s = score_truth(recorded_truth(record))
        return Score(value=bool(s["complete"]), explanation="every brick placed and valid" if s["complete"] else
                     "not every brick placed and valid")


def assembly_score() -> _AssemblyScore:
    """JARVIS's soft score (0-100) of the final state."""
    return _AssemblyScore()


def assembly_complete() -> _AssemblyComplete:
    """Success iff every action brick is complete and valid in the final state."""
    return _AssemblyComplete()


def rescore_log(path: str | Path) -> list[dict[str, Any]]:
    """Score every trial of a saved Inspect Robots JSON log again from its recorded ground truth."""
    log = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for sample in log.get("samples", []):
        for epoch, meta in enumerate(sample.get("trial_metadata", [])):
            if not meta or METADATA_KEY not in meta:
                continue
            out.append({"scene_id": sample["scene_id"], "epoch": epoch, "logged": sample["epochs"][epoch],
                        **score_truth(meta[METADATA_KEY])})
    return out
