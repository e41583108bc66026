"""What a worker needs to run one episode (the job), and the small facts every episode shares: ids, times, errors."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agent.config import AgentConfig, Budget
from agent.episodes.progress import EpisodeProgress


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
