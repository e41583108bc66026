"""REST bodies: Create / Public / ListPublic(data, count) families, versioned with the API prefix /v1."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent.config import AgentConfig, Budget


class Strict(BaseModel):
    """Base of request bodies: unknown fields are errors."""

    model_config = ConfigDict(extra="forbid")


class EpisodeCreate(Strict):
    """Submit an episode: a task and an agent ('external' reserves it for your own agent)."""

    task_id: str = Field(min_length=1, max_length=256)
    agent: AgentConfig = AgentConfig()
    budget: Budget = Budget()


class EpisodeCreated(BaseModel):
    """Answer to a submission: the id, and for interactive episodes what the agent sees first."""

    id: str
    status: str
    interactive: dict[str, Any] | None = None


class EpisodePublic(BaseModel):
    """An episode's state; scores (with soft_score) once done."""

    id: str
    task_id: str
    family: str
    run_id: str | None
    status: str
    attempts: int
    created_at: float
    started_at: float | None
    finished_at: float | None
    error: str | None
    scores: dict[str, float] | None
    progress: dict[str, Any] | None
    links: dict[str, str]


class EpisodesPublic(BaseModel):
    """A page of episodes."""

    data: list[EpisodePublic]
    count: int


class ProgramSubmit(Strict):
    """A program for an interactive assembly episode."""

    code: str = Field(min_length=1, max_length=200_000)


class AnswerSubmit(Strict):
    """An answer for an interactive question episode."""

    answer: str = Field(max_length=100_000)


class RunCreate(Strict):
    """A batch: a suite or a task list, times one agent config."""

    suite: str | None = Field(None, max_length=128)
    task_ids: list[str] = Field(default_factory=list, max_length=100_000)
    agent: AgentConfig = AgentConfig()
    budget: Budget = Budget()

    @model_validator(mode="after")
    def _one_source(self) -> RunCreate:
        if not self.suite and not self.task_ids:
            raise ValueError("give either 'suite' or a non-empty 'task_ids'")
        if self.suite and self.task_ids:
            raise ValueError("give 'suite' or 'task_ids', not both")
        return self


class RunPublic(BaseModel):
    """A run's progress and, when finished, its summary."""

    id: str
    status: Literal["running", "done", "cancelled"] = Field(
        description="running until every episode has finished; then cancelled if it was cancelled (some episodes "
                    "never ran: the summary covers the rest), else done.")
    total: int
    counts: dict[str, int]
    summary: dict[str, Any] | None
    links: dict[str, str]


class RunsPublic(BaseModel):
    """A page of a token's runs, newest first (summaries only through GET /v1/runs/{id})."""

    data: list[RunPublic]
    count: int


class SuitePublic(BaseModel):
    """A suite."""

    name: str
    family: str
    description: str
    available: bool = True  # False: the suite's data is not installed here; its tasks would answer 422
    tasks: int | None = None
    unavailable_because: str | None = None


class SuitesPublic(BaseModel):
    """All suites."""

    data: list[SuitePublic]
    count: int


class TasksPublic(BaseModel):
    """A page of a suite's tasks (public views only)."""

    data: list[dict[str, Any]]
    count: int
