"""One episode of any family, from task id to scored EpisodeRecord.

Question items (VSP, GamiBench): prompt with images -> answer -> parse -> score, no simulator.
Assembly tasks: load the scene in a backend, let the agent run programs through the sandbox and the
skill RPC, then score the final ground truth. Both end in an EpisodeRecord written by the caller.
"""

from __future__ import annotations

import time
import traceback
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.agents import make_agent
from agent.agents.base import AnswerTurn, QuestionAgent
from agent.config import AgentConfig, Budget
from agent.episodes.progress import EpisodeProgress, report
from agent.llm.deadline import episode_deadline
from evaluator.episode import question_scores
from jarvis_sim.provenance import collect as collect_provenance
from jarvis_sim.records import EpisodeRecord, RoundRecord, Timings, TokenAccount
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily, family_of_task, load_task
from jarvis_sim.tasks.spec import TaskSpec
from skills.stored import StoredBytes


class EpisodeError(RuntimeError):
    """The episode could not run (an agent that does not fit the task, a broken task)."""


@dataclass
class EpisodeJob:
    """What a worker needs to run one episode."""

    task_id: str
    agent: AgentConfig
    budget: Budget
    episode_id: str = ""
    suite: str | None = None
    task: dict[str, Any] | None = None  # a user's TaskSpec (JSON) travelling with the job; None: load by id
    # Where the episode reports what it has done so far (the server's worker reads it); never serialised.
    progress: EpisodeProgress | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.episode_id:
            self.episode_id = new_episode_id()

    def to_json_obj(self) -> dict[str, Any]:
        """Plain JSON for queues and process boundaries."""
        return {
            "task_id": self.task_id,
            "agent": self.agent.model_dump(),
            "budget": self.budget.model_dump(),
            "episode_id": self.episode_id,
            "suite": self.suite,
            **({"task": self.task} if self.task is not None else {}),
        }

    @classmethod
    def from_json_obj(cls, obj: dict[str, Any]) -> EpisodeJob:
        """Inverse of to_json_obj."""
        return cls(
            task_id=obj["task_id"],
            agent=AgentConfig.model_validate(obj["agent"]),
            budget=Budget.model_validate(obj["budget"]),
            episode_id=obj["episode_id"],
            suite=obj.get("suite"),
            task=obj.get("task"),
        )


def new_episode_id() -> str:
    """A fresh, sortable episode id."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:10]


def now_iso() -> str:
    """The current UTC time, ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def run_question_episode(job: EpisodeJob, item: QuestionItem, family: QuestionFamily,
                         episode_dir: Path | None = None) -> EpisodeRecord:
    """Ask the agent, then score and record its answer (its images copied into `episode_dir` when given)."""
    started, t0 = now_iso(), time.perf_counter()
    agent = make_agent(job.agent)
    if not isinstance(agent, QuestionAgent):
        raise EpisodeError(f"agent {job.agent.name!r} cannot answer question items ({item.family})")
    report(job.progress, "answering", rounds_total=1)
    with episode_deadline(job.budget.wall_s):  # the wall budget ends a model call in flight
        turn = agent.answer_question(item, family)
    report(job.progress, "scoring", rounds_done=1)
    return question_record(job, item, turn, started, time.perf_counter() - t0, episode_dir)


def question_record(job: EpisodeJob, item: QuestionItem, turn: AnswerTurn, started: str, wall: float,
                    episode_dir: Path | None = None) -> EpisodeRecord:
    """Score an answer in both modes and build the episode's record.

    With `episode_dir` the item's images are kept in it and the record names those copies; without one
    (an episode outside a run) it names the item's own files.
    """
    from agent.episodes.prompt_images import keep_prompt_images

    scores, details = question_scores(item, turn.text)  # the whole answer is scored; the record keeps a bounded one
    answer = StoredBytes(job.budget.record_bytes).keep_text(turn.text)
    images = keep_prompt_images(item.images, episode_dir) if episode_dir is not None else list(item.images)
    return EpisodeRecord(
        episode_id=job.episode_id,
        task_id=item.id,
        family=item.family,
        suite=job.suite,
        difficulty=item.level,
        agent=job.agent.model_dump(),
        seed=job.agent.seed,
        rounds=[
            RoundRecord(
                index=0,
                kind="answer",
                prompt_text=turn.prompt_text,
                prompt_images=images,
                response=answer,
                outcome="ok" if scores["valid"] else "error",
                tokens_in=turn.tokens_in,
                tokens_out=turn.tokens_out,
                cost_usd=turn.cost_usd,
                wall_s=wall,
            )
        ],
        answer=answer,
        scores=scores,
        score_details=details,
        scoring_config={"modes": ["official", "strict"]},
        provenance=collect_provenance(),
        timings=Timings(started_at=started, finished_at=now_iso(), wall_s=wall),
        tokens=TokenAccount(
            input=turn.tokens_in, output=turn.tokens_out, cost_usd=turn.cost_usd, requests=1, cached=int(turn.cached)
        ),
    )


def run_episode(job: EpisodeJob, episode_dir: Path, runtime: Any = None) -> EpisodeRecord:
    """Run one episode of any family; failures become a record with status 'failed', never an exception.

    `runtime` is the worker's reusable state (its simulator backend); question episodes ignore it.
    """
    episode_dir.mkdir(parents=True, exist_ok=True)
    try:
        if job.task is not None:
            from agent.episodes.assembly import run_assembly_episode

            return run_assembly_episode(job, TaskSpec.model_validate(job.task), episode_dir, runtime)
        task = load_task(job.task_id)
        family = family_of_task(job.task_id)
        if isinstance(task, QuestionItem):
            assert isinstance(family, QuestionFamily)
            return run_question_episode(job, task, family, episode_dir)
        if family.name == "planning":
            from agent.episodes.planning import run_planning_episode

            return run_planning_episode(job, task, episode_dir, runtime)
        from agent.episodes.assembly import run_assembly_episode

        return run_assembly_episode(job, task, episode_dir, runtime)
    except Exception as exc:  # the record must say what went wrong; the worker must survive
        return EpisodeRecord(
            episode_id=job.episode_id,
            task_id=job.task_id,
            family=job.task_id.split("/", 1)[0],
            suite=job.suite,
            agent=job.agent.model_dump(),
            seed=job.agent.seed,
            status="failed",
            error=f"{type(exc).__name__}: {exc}",
            score_details={"traceback": traceback.format_exc(limit=8)},
            timings=Timings(started_at=now_iso(), finished_at=now_iso()),
            provenance=collect_provenance(),
        )
