"""Scoring a stored episode, and re-scoring a whole run offline with any ScoringConfig.

`score_episode` is the one code path from an EpisodeRecord to its scores, used both when an episode
ends and when a run is re-scored: assembly episodes through `score_assembly` (the final state and every
round that kept its state), question episodes through their family's answer scorer. Re-scoring never
touches episodes.jsonl: results go to episodes.rescored.jsonl, written whole and then renamed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evaluator.answers import score_answer
from evaluator.assembly import score_assembly
from evaluator.config import ScoringConfig, strict_profile
from evaluator.effective_actions import effective_action_scores, score_actions
from evaluator.plan_answers import planning_scores
from evaluator.run_dir import (
    EPISODES_FILE,
    RESCORED_FILE,
    LineProblem,
    RunDirError,
    read_config,
    read_episodes,
)
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import seeded_scene

Task = TaskSpec | QuestionItem
TaskResolver = Callable[[str], Task]
RESCORED_CONFIG_FILE = "scoring_config.rescored.json"


def task_info(task: TaskSpec) -> dict[str, Any]:
    """Task size and difficulty, kept in score_details so reports need not reload the task."""
    return {
        "horizon": len(task.action_bricks),
        "initial_complexity": len(task.initial),
        "difficulty": task.difficulty,
    }


PLANNING_FAMILY = "planning"


def planning_setting(task_id: str) -> dict[str, str]:
    """The observation setting of a planning task, from its id (planning/<observation>/...)."""
    from jarvis_sim.tasks.planning_family import parse_planning_id

    observation, lego_id = parse_planning_id(task_id)
    return {"observation": observation, "lego_task": lego_id}


def _elapsed(record_time: float | None, state_time: float) -> float | None:
    if record_time is not None and record_time > 0.0:
        return record_time
    return state_time if state_time > 0.0 else None


def question_scores(item: QuestionItem, answer: str) -> tuple[dict[str, float], dict[str, Any]]:
    """Scores of an answer in both modes (official drives soft_score), and each mode's details."""
    official = score_answer(item, answer, "official")
    strict = score_answer(item, answer, "strict")
    scores = {
        "soft_score": official.score,
        "correct": 100.0 * official.correct,
        "valid": 100.0 * official.valid,
        "strict_correct": 100.0 * strict.correct,
    }
    return scores, {"official": official.details, "strict": strict.details}


def score_episode(record: EpisodeRecord, task: Task, config: ScoringConfig | None = None) -> EpisodeRecord:
    """A copy of the record with scores, details and the config filled in from its stored outcome.

    An assembly episode without a final state (it failed before one was taken) and an infrastructure failure
    (a wall-clock safety net ended it: what it built says nothing about the agent) are returned unchanged.
    """
    cfg = config or ScoringConfig()
    if record.task_id != task.id:
        raise ValueError(f"episode {record.episode_id} is for task {record.task_id!r}, not {task.id!r}")
    if record.infrastructure_failure:
        return record
    if isinstance(task, QuestionItem):
        scores, details = question_scores(task, record.answer or "")
        return record.model_copy(update={"scores": scores, "score_details": details,
                                         "scoring_config": {"modes": ["official", "strict"]}})
    if record.family == PLANNING_FAMILY:  # a plan answer (JARVIS Table 4), scored against the manual steps
        scores, details = planning_scores(task, record.answer or "", cfg)
        return record.model_copy(update={
            "scores": scores, "score_details": {**details, "task": task_info(task), **planning_setting(task.id)},
            "scoring_config": cfg.to_json_obj(), "difficulty": record.difficulty or task.difficulty,
        })
    if record.final_state is None:
        return record
    task = seeded_scene(task, record.seed)  # the episode's scene: its loose bricks started where its seed put them
    result = score_assembly(task, record.final_state, _elapsed(record.timings.sim_time_s, record.final_state.sim_time_s), cfg)
    rounds = [
        rnd.model_copy(
            update={
                "scores": score_assembly(
                    task, rnd.final_state, _elapsed(rnd.sim_time_s, rnd.final_state.sim_time_s), cfg
                ).scores()
            }
        )
        if rnd.final_state is not None
        else rnd
        for rnd in record.rounds
    ]
    strict = score_assembly(task, record.final_state, result.elapsed_s, strict_profile(cfg))
    # The strict profile beside the paper's: validity only for bricks that earned pose credit.
    scores = {**result.scores(), "strict_soft_score": strict.soft_score, "strict_validity": strict.validity}
    details = {**result.details(), "task": task_info(task)}
    if any(rnd.code is not None for rnd in record.rounds):  # the effective-action analysis (Table 6)
        actions = score_actions(task, record, cfg)
        scores.update(effective_action_scores(actions))
        details["effective_actions"] = [a.explain() for a in actions]
    return record.model_copy(
        update={
            "scores": scores,
            "score_details": details,
            "scoring_config": cfg.to_json_obj(),
            "rounds": rounds,
            "difficulty": record.difficulty or task.difficulty,
        }
    )


class TasksFileError(ValueError):
    """A malformed tasks file; the message names the line."""


def read_tasks_file(path: Path) -> dict[str, Task]:
    """Tasks by id from a JSONL file of TaskSpec (family 'lego') or QuestionItem objects."""
    out: dict[str, Task] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TasksFileError(f"{path}: cannot read ({exc})") from None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise TasksFileError(f"{path}:{lineno}: expected a JSON object")
            task: Task = (
                TaskSpec.model_validate(obj) if obj.get("family", "lego") == "lego" else QuestionItem.model_validate(obj)
            )
        except json.JSONDecodeError as exc:
            raise TasksFileError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise TasksFileError(f"{path}:{lineno}: not a valid task: {where}: {first['msg']}") from None
        out[task.id] = task
    return out


def registry_resolver() -> TaskResolver:
    """Load tasks by id through the family registry (jarvis_sim.tasks.registry.load_task)."""
    from jarvis_sim.tasks.registry import load_task

    return load_task


@dataclass
class RescoreResult:
    """What re-scoring a run did."""

    records: list[EpisodeRecord]
    written: Path
    rescored: int = 0
    unchanged: int = 0  # assembly episodes with no final state
    problems: list[LineProblem] = field(default_factory=list)


def rescore_run(
    run_dir: Path,
    config: ScoringConfig | None = None,
    tasks: Mapping[str, Task] | None = None,
    strict: bool = True,
) -> RescoreResult:
    """Re-score every episode of a run into episodes.rescored.jsonl; episodes.jsonl is never modified.

    Tasks come from `tasks` when given (a task missing there is an error), else from the registry.
    Not strict: a corrupt line or an unloadable task is reported and the episode skipped (its
    original line is still in episodes.jsonl).
    """
    cfg = config or ScoringConfig()
    run_dir = Path(run_dir)
    read_config(run_dir)  # a directory without a valid config.json is not a run
    source = run_dir / EPISODES_FILE
    if not source.is_file():
        raise RunDirError(f"{run_dir}: not a run directory (no {EPISODES_FILE})")
    records, problems = read_episodes(source, strict=strict)
    resolve = registry_resolver() if tasks is None else None
    cache: dict[str, Task] = {}
    out: list[EpisodeRecord] = []
    result = RescoreResult(records=out, written=run_dir / RESCORED_FILE, problems=problems)
    for r in records:
        try:
            task = cache.get(r.task_id)
            if task is None:
                if tasks is not None:
                    if r.task_id not in tasks:
                        raise KeyError(f"task {r.task_id!r} is not in the tasks file")
                    task = tasks[r.task_id]
                else:
                    assert resolve is not None
                    task = resolve(r.task_id)
                cache[r.task_id] = task
            new = score_episode(r, task, cfg)
        except (KeyError, ValueError) as exc:
            message = f"episode {r.episode_id}: cannot re-score: {exc.args[0] if exc.args else exc}"
            if strict:
                raise RunDirError(f"{source}: {message}") from None
            result.problems.append(LineProblem(source, None, message))
            continue
        if new is r:
            result.unchanged += 1
        else:
            result.rescored += 1
        out.append(new)
    tmp = result.written.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for rec in out:
            fh.write(rec.model_dump_json() + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(result.written)
    (run_dir / RESCORED_CONFIG_FILE).write_text(json.dumps(cfg.to_json_obj(), indent=2) + "\n", encoding="utf-8")
    return result
