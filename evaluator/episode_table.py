"""One row per episode: the table that shows which task scored what and why, and the named failures.

`EpisodeRow` is the read model both report.md and the dashboard's run page show, so the two never
disagree. It is built from stored records only (no task reload), so an old run directory still reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from jarvis_sim.records import EpisodeRecord

# Sub-scores shown per episode, in the paper's order (the time penalty is folded into soft_score).
ROW_SUB_SCORES = ("pose", "completion", "validity", "stability")
FINAL_IMAGE_LINKS = {"final": "built", "target": "target", "camera": "camera"}  # link text per picture kind


class EpisodeRow(BaseModel):
    """What one episode did, in numbers: size of its task, its scores, failures, time and tokens."""

    model_config = ConfigDict(extra="forbid")

    episode_id: str
    task_id: str
    family: str
    status: str
    difficulty: str | None = None
    horizon: int | None = Field(None, description="Bricks to place (assembly).")
    initial_bricks: int | None = Field(None, description="Bricks present at the start (assembly).")
    soft_score: float | None = Field(None, description="None for a cancelled episode; a failed unscored one counts 0.")
    sub_scores: dict[str, float] = Field(default_factory=dict)
    failed_actions: int = 0
    rounds: int = 0
    wall_s: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    reason: str | None = Field(None, description="Why a failed or cancelled episode ended so.")
    correct: bool | None = Field(None, description="Question episodes: the answer was right (official mode).")
    artifacts_dir: str | None = None
    final_images: dict[str, str] = Field(
        default_factory=dict, description="Assembly: pictures of the end by kind (camera, final, target), "
                                          "paths relative to the run directory.")


def _task_size(record: EpisodeRecord) -> tuple[int | None, int | None]:
    task = record.score_details.get("task")
    if not isinstance(task, dict):
        return None, None
    h, c = task.get("horizon"), task.get("initial_complexity")
    return (h if isinstance(h, int) else None), (c if isinstance(c, int) else None)


ASSEMBLY_FAMILY = "lego"  # the family whose episodes carry sub-scores
SUB_SCORES = ("pose", "completion", "validity", "stability", "time_penalty", "soft_score_no_time_penalty",
              "strict_validity", "strict_soft_score")


def episode_scores(r: EpisodeRecord) -> dict[str, float] | None:
    """The scores an episode counts with (zeros for a failed unscored assembly episode; None if left out: cancelled,
    or an infrastructure failure)."""
    if r.status == "cancelled" or r.infrastructure_failure:
        return None
    if r.scores:
        return r.scores
    if r.status == "failed":
        keys = ("soft_score", *SUB_SCORES) if r.family == ASSEMBLY_FAMILY else ("soft_score",)
        return {k: 0.0 for k in keys if k != "time_penalty"}
    return None


def failed_actions(r: EpisodeRecord) -> int:
    """Skill calls that returned an error, over all rounds."""
    return sum(not c.ok for rnd in r.rounds for c in rnd.skill_calls)


def failure_reason(record: EpisodeRecord) -> str | None:
    """Why an episode failed or was cancelled, in one line; None for a finished one."""
    if record.status == "done":
        return None
    text = (record.error or "").strip().splitlines()
    return text[0][:300] if text else f"{record.status} (no reason was recorded)"


def episode_row(record: EpisodeRecord) -> EpisodeRow:
    """The table row of one stored episode."""
    horizon, initial = _task_size(record)
    scores = episode_scores(record) or {}
    difficulty = record.difficulty
    if difficulty is None and isinstance(task := record.score_details.get("task"), dict):
        difficulty = task.get("difficulty")
    return EpisodeRow(
        episode_id=record.episode_id,
        task_id=record.task_id,
        family=record.family,
        status=record.status,
        difficulty=str(difficulty).lower() if difficulty else None,
        horizon=horizon,
        initial_bricks=initial,
        soft_score=scores.get("soft_score"),
        sub_scores={k: scores[k] for k in ROW_SUB_SCORES if k in scores},
        failed_actions=failed_actions(record),
        rounds=len(record.rounds),
        wall_s=record.timings.wall_s,
        tokens_in=record.tokens.input,
        tokens_out=record.tokens.output,
        cost_usd=record.tokens.cost_usd,
        reason=failure_reason(record),
        correct=(scores["correct"] >= 100.0) if "correct" in scores else None,
        artifacts_dir=record.artifacts_dir,
        final_images={v.kind: f"{record.artifacts_dir}/{v.image}" if record.artifacts_dir else v.image
                      for v in record.final_views},
    )


def episode_rows(records: Sequence[EpisodeRecord]) -> list[EpisodeRow]:
    """Rows of every episode, in the order they were recorded."""
    return [episode_row(r) for r in records]


def _cell(v: Any, digits: int = 1) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v).replace("|", "\\|")


def _yes_no(v: bool | None) -> str:
    return "–" if v is None else ("yes" if v else "no")


def render_episode_table(rows: Sequence[EpisodeRow], run_link: str = "") -> list[str]:
    """The markdown section listing every episode (empty when there are none).

    `run_link`: the run directory as seen from the report ('' when the report is written inside it).
    """
    if not rows:
        return []
    subs = [k for k in ROW_SUB_SCORES if any(k in r.sub_scores for r in rows)]
    pictured = any(r.final_images for r in rows)
    asked = any(r.correct is not None for r in rows)
    header = ["Task", "Status", "Difficulty", "Horizon", "Initial bricks", "Soft score",
              *(["Correct"] if asked else []), *subs,
              "Failed actions", "Wall s", "Tokens in/out", "Cost $", *(["Final state"] if pictured else [])]
    lines = ["## Episodes", "", "| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        cells = [f"`{r.task_id}`", r.status, _cell(r.difficulty), _cell(r.horizon), _cell(r.initial_bricks),
                 _cell(r.soft_score), *([_yes_no(r.correct)] if asked else []),
                 *[_cell(r.sub_scores.get(k)) for k in subs], str(r.failed_actions),
                 _cell(r.wall_s), f"{r.tokens_in}/{r.tokens_out}", _cell(r.cost_usd, 4)]
        if pictured:
            cells.append(" · ".join(f"[{FINAL_IMAGE_LINKS[k]}]({run_link}{r.final_images[k]})" for k in FINAL_IMAGE_LINKS
                                    if k in r.final_images) or "–")
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def render_failures(rows: Sequence[EpisodeRow]) -> list[str]:
    """The markdown section naming each failed or cancelled episode and why (empty when none)."""
    bad = [r for r in rows if r.status != "done"]
    if not bad:
        return []
    lines = ["## Failed and cancelled episodes", "",
             "A failed episode counts 0 on every score of its family; a cancelled one is left out.", ""]
    lines += [f"- `{r.task_id}` ({r.status}, episode `{r.episode_id}`): {r.reason}" for r in bad]
    return [*lines, ""]
