"""A question episode (VSP, GamiBench): the agent answers one item, the family's scorer scores the answer."""

from __future__ import annotations

import time
from pathlib import Path

from agent.agents import make_agent
from agent.agents.base import AnswerTurn, QuestionAgent
from agent.episodes.job import EpisodeError, EpisodeJob, now_iso
from agent.episodes.progress import report
from agent.episodes.prompt_images import keep_prompt_images
from agent.llm.deadline import episode_deadline
from evaluator.episode import question_scores
from jarvis_sim.provenance import collect as collect_provenance
from jarvis_sim.records import EpisodeRecord, RoundRecord, Timings, TokenAccount
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily
from skills.stored import StoredBytes


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
