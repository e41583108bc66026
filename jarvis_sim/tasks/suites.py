"""The shipped LEGO suites: how they are drawn from a validation pool, written and loaded.

`jarvis-v1` (50 tasks: 20 Easy, 15 Medium, 15 Hard) is drawn the way the JARVIS paper describes:
every task of a validation pool gets D_i (jarvis_sim.tasks.difficulty), the pool is stratified 40/30/30
and each stratum is sampled at near-uniform intervals of D, preferring different source assemblies.
Suite tasks must suit a Panda on a table: at most V1_MAX_INITIAL bricks at the start and at most
V1_MAX_HORIZON action bricks. `jarvis-mini` (6 tasks, 2 per stratum) is drawn the same way from the
small tasks of the same pool (few initial bricks, 1-3 action bricks), for CI and demos; its strata
are relative to those small tasks (a small task is never Hard against the whole pool).

`jarvis-v2` is jarvis-v1 as the paper describes it: drawn the same way from the paper-sized pool `v2`
(1,067 tasks over 48 assemblies, jarvis_sim.tasks.validation_pool), then matched to the paper's
statistics by same-stratum swaps (jarvis_sim.tasks.paper_stats). Its assemblies are generated for one arm
(GeneratorConfig.single_arm): every brick takes its seating press, with everything's weight, where the skills
press it, so every task of the pool can be built by one arm. jarvis-v1 stays loadable by name, as it was drawn,
so earlier runs can be re-scored; `single_arm_figures` counts what one arm cannot build in it.

`jarvis-v1-buildable` is drawn like jarvis-v1 (same pool, same strata thresholds, same limits) from only the tasks
that one arm can build (jarvis_sim.tasks.build_statics, StableLego's admissibility test with weight): the initial
structure stands under its own weight and every action brick can take its seating press at its centre or over
its engaged studs. The v1 pool was generated before the statics; on jarvis-v1 this test rules out 48 of the 249
action bricks.

The files under assets/suites/ are the output of `write_suite`; regenerating gives identical bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jarvis_sim.paths import suites_dir
from jarvis_sim.tasks.build_statics import build_statics
from jarvis_sim.tasks.decompose import task_from_segment, task_id
from jarvis_sim.tasks.difficulty import (
    Candidate,
    difficulty_score,
    sample_stratum,
    stratum_of,
    stratum_thresholds,
)
from jarvis_sim.tasks.paper_stats import PoolTask, SuiteStats, match_statistics, suite_stats
from jarvis_sim.tasks.spec import Difficulty, TaskSpec
from jarvis_sim.tasks.validation_pool import POOLS, pool_assemblies

VALIDATION_SEED = POOLS["v1"].seed
VALIDATION_ASSEMBLIES = POOLS["v1"].n_assemblies
V1_MAX_INITIAL = 240
V1_MAX_HORIZON = 30
MINI_MAX_INITIAL = 20
MINI_MAX_HORIZON = 3


@dataclass(frozen=True)
class SuiteRecipe:
    """How many tasks a suite takes from each stratum, and which tasks may enter it."""

    name: str
    description: str
    counts: tuple[tuple[Difficulty, int], ...]
    max_initial: int
    max_horizon: int
    relative_strata: bool = False  # thresholds from the eligible tasks instead of the whole pool
    pool: str = "v1"  # the validation pool drawn from (jarvis_sim.tasks.validation_pool)
    match_paper: bool = False  # swap within strata until the paper's statistics are met
    buildable: bool = False  # only tasks the clutch's physics lets anyone build (jarvis_sim.tasks.build_statics)


RECIPES: dict[str, SuiteRecipe] = {
    "jarvis-v1": SuiteRecipe(
        "jarvis-v1",
        "50 LEGO assembly tasks (20 easy, 15 medium, 15 hard) stratified by difficulty, as in the JARVIS paper",
        (("easy", 20), ("medium", 15), ("hard", 15)),
        V1_MAX_INITIAL,
        V1_MAX_HORIZON,
    ),
    "jarvis-v2": SuiteRecipe(
        "jarvis-v2",
        "50 LEGO assembly tasks (20 easy, 15 medium, 15 hard) from the paper-sized pool (1,067 tasks, 48 "
        "assemblies) with the paper's statistics (action bricks mean 5.18, median 3.5, max 29)",
        (("easy", 20), ("medium", 15), ("hard", 15)),
        V1_MAX_INITIAL,
        V1_MAX_HORIZON,
        pool="v2",
        match_paper=True,
    ),
    "jarvis-v1-buildable": SuiteRecipe(
        "jarvis-v1-buildable",
        "50 LEGO assembly tasks drawn like jarvis-v1 from the tasks buildable under the clutch's physics (the "
        "initial structure stands, every action brick can be pressed on without overloading it)",
        (("easy", 20), ("medium", 15), ("hard", 15)),
        V1_MAX_INITIAL,
        V1_MAX_HORIZON,
        buildable=True,
    ),
    "jarvis-mini": SuiteRecipe(
        "jarvis-mini",
        "6 small LEGO tasks (2 per stratum, 1-3 action bricks, few initial bricks) for CI and demos",
        (("easy", 2), ("medium", 2), ("hard", 2)),
        MINI_MAX_INITIAL,
        MINI_MAX_HORIZON,
        relative_strata=True,
    ),
}


def suite_names() -> list[str]:
    """Names of the LEGO suites."""
    return sorted(RECIPES)


def _recipe(name: str) -> SuiteRecipe:
    if name not in RECIPES:
        raise KeyError(f"unknown LEGO suite {name!r}; known: {', '.join(sorted(RECIPES))}")
    return RECIPES[name]


@dataclass(frozen=True)
class _PoolEntry:
    task_id: str
    assembly: str
    k: int
    score: float
    initial: int
    horizon: int


def _pool_entries(pool: str) -> list[_PoolEntry]:
    out = []
    for pa in pool_assemblies(pool):
        for k, seg in enumerate(pa.segments):
            name = pa.assembly.name
            out.append(_PoolEntry(task_id(name, k), name, k, difficulty_score(seg.start, seg.length)[2], seg.start,
                                  seg.length))
    return out


def _buildable(task: TaskSpec) -> bool:
    """Whether one arm can build the task: the initial structure stands under its weight and every action brick
    takes the seating press, with everything's weight, where the skills press it (build_statics)."""
    r = build_statics(task)
    return r.initial_stands and not r.unbuildable


def build_suite(name: str) -> list[TaskSpec]:
    """Draw a suite from its validation pool (deterministic), difficulty labels set."""
    recipe = _recipe(name)
    assemblies = {pa.assembly.name: pa for pa in pool_assemblies(recipe.pool)}
    pool = _pool_entries(recipe.pool)
    eligible = [p for p in pool if p.initial <= recipe.max_initial and p.horizon <= recipe.max_horizon]
    thresholds = stratum_thresholds([p.score for p in (eligible if recipe.relative_strata else pool)])
    seed = POOLS[recipe.pool].seed
    by_id = {p.task_id: p for p in pool}

    def buildable(c: Candidate) -> bool:
        entry = by_id[c.task_id]
        pa = assemblies[entry.assembly]
        return _buildable(task_from_segment(pa.assembly, pa.segments[entry.k], c.task_id, seed))

    accept = buildable if recipe.buildable else None
    if accept and recipe.match_paper:
        raise ValueError(f"suite {name}: the paper-statistics swaps do not test buildability; use one or the other")
    used: set[str] = set()
    chosen: list[tuple[Difficulty, Candidate]] = []
    for stratum, n in recipe.counts:
        cands = [Candidate(p.task_id, p.score, p.assembly) for p in eligible if stratum_of(p.score, thresholds) == stratum]
        chosen += [(stratum, c) for c in sample_stratum(cands, n, used, accept)]
    if recipe.match_paper:
        def as_pool_task(p: _PoolEntry, stratum: Difficulty) -> PoolTask:
            return PoolTask(p.task_id, p.assembly, stratum, p.horizon, p.initial)

        drawn = [as_pool_task(by_id[c.task_id], st) for st, c in chosen]
        options = [as_pool_task(p, stratum_of(p.score, thresholds)) for p in eligible]
        matched = match_statistics(drawn, options, seed=name)
        chosen = [(t.stratum, Candidate(t.task_id, by_id[t.task_id].score, t.source)) for t in matched]
    out = []
    for stratum, c in chosen:
        entry = by_id[c.task_id]
        pa = assemblies[entry.assembly]
        spec = task_from_segment(pa.assembly, pa.segments[entry.k], c.task_id, seed)
        out.append(spec.model_copy(update={"difficulty": stratum}))
    return out


def pool_stats(pool: str, max_initial: int | None = None, max_horizon: int | None = None) -> dict[str, object]:
    """A validation pool's size and task statistics (of the tasks within the limits, when given)."""
    entries = _pool_entries(pool)
    within = [p for p in entries if (max_initial is None or p.initial <= max_initial)
              and (max_horizon is None or p.horizon <= max_horizon)]
    return {"pool": pool, "assemblies": len(pool_assemblies(pool)), "tasks": len(entries),
            "tasks_within_limits": len(within),
            **suite_stats([p.horizon for p in within], [p.initial for p in within]).as_dict()}


def single_arm_figures(tasks: list[TaskSpec]) -> dict[str, object]:
    """How much of a suite one arm can build (build_statics: weight and the seating press counted): the action
    bricks no press keeps the structure whole for, those pressed over their studs only, and the initial structures
    that do not stand under their own weight."""
    reports = [build_statics(t) for t in tasks]
    return {
        "action_bricks": sum(r.actions for r in reports),
        "unbuildable_action_bricks": sum(len(r.unbuildable) for r in reports),
        "pressed_over_studs_only": sum(len(r.overloaded_at_centre) - len(r.unbuildable) for r in reports),
        "initial_structures_not_standing": sum(not r.initial_stands for r in reports),
        "tasks_with_unbuildable_bricks": [r.task_id for r in reports if r.unbuildable or not r.initial_stands],
    }


def stats_of(tasks: list[TaskSpec]) -> SuiteStats:
    """The paper's figures for a list of tasks."""
    return suite_stats([len(t.action_bricks) for t in tasks], [len(t.initial) for t in tasks])


def suite_path(name: str) -> Path:
    """Where a shipped suite lives."""
    _recipe(name)
    return suites_dir() / f"{name}.jsonl"


def write_suite(name: str, path: Path | None = None) -> Path:
    """Build a suite and write it as JSONL (one TaskSpec a line, stable bytes)."""
    target = path or suite_path(name)
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = [spec.model_dump_json() for spec in build_suite(name)]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


@cache
def _load(path: Path) -> tuple[TaskSpec, ...]:
    specs = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            specs.append(TaskSpec.model_validate_json(line))
        except ValueError as e:
            raise ValueError(f"{path}:{n}: not a valid TaskSpec: {e}") from e
    return tuple(specs)


def load_suite(name: str) -> list[TaskSpec]:
    """The shipped suite's tasks, in order (parsed once per process)."""
    path = suite_path(name)
    if not path.exists():
        raise FileNotFoundError(f"suite file {path} is missing; regenerate it with `jarvis tasks suite {name} --out {path}`")
    return list(_load(path))
