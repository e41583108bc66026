"""Aggregating a run's episodes into the numbers a paper reports (RunSummary, saved as summary.json).

Assembly (family 'lego') episodes give: mean soft score and sub-scores per difficulty with bootstrap
CIs, failed actions per task, the horizon x initial-complexity table and, when the agent reflected, the
R0..Rk round table. Every family, question families included, also gets generic per-(family, suite)
means of whatever score keys its records carry, so a new family is summarised without code here.

Conventions: a cancelled episode is left out; a failed episode with no scores counts 0 on every score
of its family's headline ('soft_score' and, for assembly, the sub-scores).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from evaluator.episode_table import (
    ASSEMBLY_FAMILY,
    SUB_SCORES,
    EpisodeRow,
    episode_rows,
    episode_scores,
    failed_actions,
)
from evaluator.run_dir import RunData
from evaluator.stats import MeanCI, mean_ci
from jarvis_sim.provenance import differences
from jarvis_sim.records import EpisodeRecord

RUN_SUMMARY_VERSION = 2  # 2: floors, strict scores
DIFFICULTIES = ("easy", "medium", "hard")
HORIZON_BINS: tuple[tuple[str, int, int | None], ...] = (("1-2", 1, 2), ("3-5", 3, 5), ("6-10", 6, 10), ("11+", 11, None))
COMPLEXITY_BINS: tuple[tuple[str, int, int | None], ...] = (
    ("0-29", 0, 29),
    ("30-78", 30, 78),
    ("79-149", 79, 149),
    ("150-299", 150, 299),
    ("300+", 300, None),
)
# Where run labels (the rows and columns of a comparison) are looked up in config.json, in order.
LABEL_KEYS = {
    "model": ("model", "agent.model", "llm.model"),
    "tool_library": ("tool_library", "tools", "agent.tool_library", "agent.tools"),
    "mode": ("mode", "agent.mode"),
    "agent": ("agent.name", "agent_name", "agent"),
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DifficultySummary(_Model):
    """Assembly results of one difficulty (or 'overall')."""

    n: int
    soft_score: MeanCI | None
    sub_scores: dict[str, MeanCI] = Field(default_factory=dict)
    failed_actions_per_task: MeanCI | None = None


class HeatmapCell(_Model):
    """Mean soft score of the episodes in one (horizon, complexity) bin."""

    n: int
    soft_score: MeanCI | None = None


class HorizonComplexityTable(_Model):
    """Mean soft score by horizon (rows) and initial complexity (columns)."""

    horizon_bins: list[str]
    complexity_bins: list[str]
    cells: list[list[HeatmapCell]]
    n_without_task_info: int = Field(0, description="Episodes whose record lacks score_details.task.")


class RoundRow(_Model):
    """One reflection round: mean scores after it and the paired change from the previous round."""

    round: str
    n: int
    soft_score: MeanCI | None
    delta: float | None = Field(None, description="Mean paired change from the previous round.")
    soft_score_no_time_penalty: MeanCI | None = None
    delta_no_time_penalty: float | None = None


class GroupSummary(_Model):
    """Generic means of every score key in one (family, suite) group, overall and per difficulty/level."""

    family: str
    suite: str | None
    n: int
    scores: dict[str, MeanCI] = Field(default_factory=dict)
    by_difficulty: dict[str, dict[str, MeanCI]] = Field(default_factory=dict)


class FloorRow(_Model):
    """A reference agent's scores on the run's tasks: what the scoring pays for no understanding."""

    run_dir: str
    n_episodes: int
    soft_score: MeanCI | None = None
    sub_scores: dict[str, MeanCI] = Field(default_factory=dict)


class RunSummary(_Model):
    """Everything report.md shows about one run (summary.json)."""

    schema_version: int = RUN_SUMMARY_VERSION
    run: str
    labels: dict[str, str] = Field(default_factory=dict)
    records_file: str = ""
    scoring_config_version: int | None = None
    n_episodes: int
    n_cancelled: int = 0
    n_failed: int = 0
    n_infrastructure_failures: int = Field(
        0, description="Of n_failed, those a wall-clock safety net ended (the machine's fault): left out, not 0.")
    families: list[str] = Field(default_factory=list)
    soft_score: MeanCI | None = None
    sub_scores: dict[str, MeanCI] = Field(default_factory=dict)
    by_difficulty: dict[str, DifficultySummary] = Field(default_factory=dict)
    failed_actions_per_task: MeanCI | None = None
    failed_action_kinds: dict[str, int] = Field(
        default_factory=dict, description="Assembly: failed skill calls by error kind over all episodes, most first.")
    horizon_complexity: HorizonComplexityTable | None = None
    reflection: list[RoundRow] = Field(default_factory=list)
    groups: dict[str, GroupSummary] = Field(default_factory=dict)
    skipped_lines: list[str] = Field(default_factory=list)
    environments: list[dict[str, str]] = Field(
        default_factory=list, description="Distinct provenance fingerprints of the episodes, in order of appearance."
    )
    n_unrecorded_environment: int = Field(0, description="Episodes recorded without provenance (before v2).")
    floors: dict[str, FloorRow] = Field(
        default_factory=dict, description="Reference agents (null, shuffle) on the same tasks and seed, by agent name."
    )
    floors_note: str = Field("", description="Why floors are missing, and how to get them.")
    episodes: list[EpisodeRow] = Field(default_factory=list, description="One row per episode, in record order.")
    started_at: str = Field("", description="When its first episode started (the records' ISO 8601 time).")
    finished_at: str = Field("", description="When its last episode finished (the records' ISO 8601 time).")

    def duration_s(self) -> float | None:
        """Seconds from the first episode's start to the last one's end; None when the records do not say."""
        try:
            return (datetime.fromisoformat(self.finished_at) - datetime.fromisoformat(self.started_at)).total_seconds()
        except ValueError:
            return None

    def n_assembly_episodes(self) -> int:
        """Assembly episodes among its rows (the denominator of per-episode rates)."""
        return sum(r.family == ASSEMBLY_FAMILY for r in self.episodes)

    def environment_differences(self) -> dict[str, list[str]]:
        """Provenance keys whose value differs between this run's own episodes."""
        return differences(self.environments)


def floor_row(run: RunData) -> FloorRow:
    """The floor row of a reference agent's run directory."""
    scored = [s for r in run.records if r.family == ASSEMBLY_FAMILY and (s := episode_scores(r)) is not None]
    return FloorRow(run_dir=str(run.path), n_episodes=len(scored),
                    soft_score=mean_ci([s["soft_score"] for s in scored if "soft_score" in s]),
                    sub_scores=_means(scored, SUB_SCORES))


def _dig(obj: dict[str, Any], dotted: str) -> Any:
    cur: Any = obj
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def run_labels(config: dict[str, Any], records: list[EpisodeRecord]) -> dict[str, str]:
    """Model, tool library, mode and agent names of a run, from config.json or else the first record."""
    # A record's agent dict is the agent config itself: reachable both as "agent.x" and as "x".
    sources = [config] + ([{"agent": records[0].agent, **records[0].agent}] if records else [])
    out: dict[str, str] = {}
    for label, keys in LABEL_KEYS.items():
        for src in sources:
            value = next((v for k in keys if isinstance(v := _dig(src, k), str | int | float)), None)
            if value is not None:
                out[label] = str(value)
                break
    return out


def failed_action_kinds(records: Iterable[EpisodeRecord]) -> dict[str, int]:
    """Failed skill calls counted by their typed error kind ('error' when a call named none), most first."""
    counts = Counter(c.error_kind or "error" for r in records for rnd in r.rounds for c in rnd.skill_calls if not c.ok)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _bin(value: int, bins: tuple[tuple[str, int, int | None], ...]) -> int | None:
    for k, (_, lo, hi) in enumerate(bins):
        if value >= lo and (hi is None or value <= hi):
            return k
    return None


def _means(rows: Iterable[dict[str, float]], keys: Iterable[str]) -> dict[str, MeanCI]:
    rows = list(rows)
    out: dict[str, MeanCI] = {}
    for k in keys:
        ci = mean_ci([r[k] for r in rows if k in r])
        if ci is not None:
            out[k] = ci
    return out


def _difficulty(r: EpisodeRecord) -> str:
    d = r.difficulty or _dig(r.score_details, "task.difficulty")
    return str(d).lower() if d else "unknown"


def _ordered(names: Iterable[str]) -> list[str]:
    """Easy, medium, hard first, then any other level names sorted."""
    names = set(names)
    return [d for d in DIFFICULTIES if d in names] + sorted(names - set(DIFFICULTIES))


def _assembly_tables(scored: list[tuple[EpisodeRecord, dict[str, float]]]) -> dict[str, Any]:
    by_diff: dict[str, DifficultySummary] = {}
    buckets: dict[str, list[tuple[EpisodeRecord, dict[str, float]]]] = defaultdict(list)
    for r, s in scored:
        buckets[_difficulty(r)].append((r, s))
    for name, items in [*((d, buckets[d]) for d in _ordered(buckets)), ("overall", scored)]:
        by_diff[name] = DifficultySummary(
            n=len(items),
            soft_score=mean_ci([s["soft_score"] for _, s in items if "soft_score" in s]),
            sub_scores=_means((s for _, s in items), SUB_SCORES),
            failed_actions_per_task=mean_ci([failed_actions(r) for r, _ in items]),
        )

    cells: list[list[list[float]]] = [[[] for _ in COMPLEXITY_BINS] for _ in HORIZON_BINS]
    missing = 0
    for r, s in scored:
        h, c = _dig(r.score_details, "task.horizon"), _dig(r.score_details, "task.initial_complexity")
        if not isinstance(h, int) or not isinstance(c, int) or "soft_score" not in s:
            missing += 1
            continue
        hb, cb = _bin(h, HORIZON_BINS), _bin(c, COMPLEXITY_BINS)
        if hb is not None and cb is not None:
            cells[hb][cb].append(s["soft_score"])
    heat = HorizonComplexityTable(
        horizon_bins=[b[0] for b in HORIZON_BINS],
        complexity_bins=[b[0] for b in COMPLEXITY_BINS],
        cells=[[HeatmapCell(n=len(v), soft_score=mean_ci(v)) for v in row] for row in cells],
        n_without_task_info=missing,
    )
    return {"by_difficulty": by_diff, "horizon_complexity": heat, "reflection": reflection_rows(scored)}


def _round_values(r: EpisodeRecord, final: dict[str, float]) -> list[dict[str, float] | None]:
    """[R0, R1, ...] scores of one episode: R0 is the state before the first reflection round."""
    reflections = [x for x in r.rounds if x.kind == "reflection"]
    if not reflections:
        return [final]
    before = [x for x in r.rounds if x.kind != "reflection" and x.index < reflections[0].index]
    r0 = before[-1].scores if before and before[-1].scores else None
    return [r0, *[x.scores or None for x in reflections]]


def reflection_rows(scored: list[tuple[EpisodeRecord, dict[str, float]]]) -> list[RoundRow]:
    """The R0..Rk table, or [] when no episode reflected.

    An episode that stopped before round k (it succeeded, or ran out of budget) keeps its last scores
    for the later rounds; rounds before its first known scores are left out of those rounds' means.
    """
    if not any(x.kind == "reflection" for r, _ in scored for x in r.rounds):
        return []
    seqs = [_round_values(r, s) for r, s in scored]
    depth = max(len(q) for q in seqs)
    filled: list[list[dict[str, float] | None]] = []
    for q in seqs:
        out: list[dict[str, float] | None] = []
        last: dict[str, float] | None = None
        for k in range(depth):
            if k < len(q) and q[k] is not None:
                last = q[k]
            out.append(last)
        filled.append(out)
    rows = []
    for k in range(depth):
        row: dict[str, Any] = {"round": f"R{k}", "n": sum(q[k] is not None for q in filled)}
        for key, dname in (("soft_score", "delta"), ("soft_score_no_time_penalty", "delta_no_time_penalty")):
            now = [v[key] for q in filled if (v := q[k]) is not None and key in v]
            row[key] = mean_ci(now)
            if k > 0:
                pairs = [
                    v[key] - p[key]
                    for q in filled
                    if (v := q[k]) is not None and (p := q[k - 1]) is not None and key in v and key in p
                ]
                row[dname] = sum(pairs) / len(pairs) if pairs else None
        rows.append(RoundRow(**row))
    return rows


def _environments(records: list[EpisodeRecord]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for r in records:
        if r.provenance is not None and (f := r.provenance.fingerprint()) not in out:
            out.append(f)
    return out


def summarise(run: RunData) -> RunSummary:
    """The RunSummary of a run directory that has been read."""
    records = run.records
    scored = [(r, s) for r in records if (s := episode_scores(r)) is not None]
    versions = {r.scoring_config.get("version") for r in records if r.scoring_config}
    summary: dict[str, Any] = {
        "run": run.name,
        "labels": run_labels(run.config, records),
        "records_file": run.records_file.name,
        "scoring_config_version": versions.pop() if len(versions) == 1 else None,
        "n_episodes": len(records),
        "n_cancelled": sum(r.status == "cancelled" for r in records),
        "n_failed": sum(r.status == "failed" for r in records),
        "n_infrastructure_failures": sum(r.infrastructure_failure for r in records),
        "families": sorted({r.family for r in records}),
        "soft_score": mean_ci([s["soft_score"] for _, s in scored if "soft_score" in s]),
        "skipped_lines": [str(p) for p in run.problems],
        "environments": _environments(records),
        "n_unrecorded_environment": sum(r.provenance is None for r in records),
        "episodes": episode_rows(records),
        "started_at": min((r.timings.started_at for r in records if r.timings.started_at), default=""),
        "finished_at": max((r.timings.finished_at for r in records if r.timings.finished_at), default=""),
    }
    assembly = [(r, s) for r, s in scored if r.family == ASSEMBLY_FAMILY]
    if assembly:
        summary["sub_scores"] = _means((s for _, s in assembly), SUB_SCORES)
        summary["failed_actions_per_task"] = mean_ci([failed_actions(r) for r, _ in assembly])
        summary["failed_action_kinds"] = failed_action_kinds(r for r, _ in assembly)
        summary.update(_assembly_tables(assembly))

    groups: dict[str, list[tuple[EpisodeRecord, dict[str, float]]]] = defaultdict(list)
    for r, s in scored:
        groups[f"{r.family}/{r.suite}" if r.suite else r.family].append((r, s))
    summary["groups"] = {}
    for key, items in sorted(groups.items()):
        keys = sorted({k for _, s in items for k in s})
        per_diff: dict[str, list[dict[str, float]]] = defaultdict(list)
        for r, s in items:
            per_diff[_difficulty(r)].append(s)
        summary["groups"][key] = GroupSummary(
            family=items[0][0].family,
            suite=items[0][0].suite,
            n=len(items),
            scores=_means((s for _, s in items), keys),
            by_difficulty={d: _means(per_diff[d], keys) for d in _ordered(per_diff)} if len(per_diff) > 1 else {},
        )
    return RunSummary(**summary)
