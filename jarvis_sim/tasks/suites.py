"""The shipped LEGO suites: how they are drawn from the validation pool, written and loaded.

`jarvis-v1` (50 tasks: 20 Easy, 15 Medium, 15 Hard) is drawn the way the JARVIS paper describes:
every task of a validation pool gets D_i (jarvis_sim.tasks.difficulty), the pool is stratified 40/30/30
and each stratum is sampled at near-uniform intervals of D, preferring different source assemblies.
Suite tasks must suit a Panda on a table: at most V1_MAX_INITIAL bricks at the start and at most
V1_MAX_HORIZON action bricks. `jarvis-mini` (6 tasks, 2 per stratum) is drawn the same way from the
small tasks of the same pool (few initial bricks, 1-3 action bricks), for CI and demos; its strata
are relative to those small tasks (a small task is never Hard against the whole pool).

The files under assets/suites/ are the output of `write_suite`; regenerating gives identical bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jarvis_sim.paths import suites_dir
from jarvis_sim.tasks.collection import make_assembly, segments_of
from jarvis_sim.tasks.decompose import task_from_segment, task_id
from jarvis_sim.tasks.difficulty import (
    Candidate,
    difficulty_score,
    sample_stratum,
    stratum_of,
    stratum_thresholds,
)
from jarvis_sim.tasks.spec import Difficulty, TaskSpec

VALIDATION_SEED = 7
VALIDATION_ASSEMBLIES = 400
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


RECIPES: dict[str, SuiteRecipe] = {
    "jarvis-v1": SuiteRecipe(
        "jarvis-v1",
        "50 LEGO assembly tasks (20 easy, 15 medium, 15 hard) stratified by difficulty, as in the JARVIS paper",
        (("easy", 20), ("medium", 15), ("hard", 15)),
        V1_MAX_INITIAL,
        V1_MAX_HORIZON,
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


def build_suite(name: str) -> list[TaskSpec]:
    """Draw a suite from the validation pool (deterministic), difficulty labels set."""
    recipe = _recipe(name)
    assemblies = {}
    segments = {}
    pool: list[tuple[str, str, int, float, int, int]] = []  # task id, assembly, k, D, initial, horizon
    for i in range(VALIDATION_ASSEMBLIES):
        a = make_assembly("v", VALIDATION_SEED, i)
        assemblies[a.name] = a
        segments[a.name] = segs = segments_of(a)
        for k, s in enumerate(segs):
            pool.append((task_id(a.name, k), a.name, k, difficulty_score(s.start, s.length)[2], s.start, s.length))
    eligible = [p for p in pool if p[4] <= recipe.max_initial and p[5] <= recipe.max_horizon]
    thresholds = stratum_thresholds([p[3] for p in (eligible if recipe.relative_strata else pool)])
    used: set[str] = set()
    chosen: list[tuple[Difficulty, Candidate]] = []
    for stratum, n in recipe.counts:
        cands = [Candidate(p[0], p[3], p[1]) for p in eligible if stratum_of(p[3], thresholds) == stratum]
        chosen += [(stratum, c) for c in sample_stratum(cands, n, used)]
    by_id = {p[0]: p for p in pool}
    out = []
    for stratum, c in chosen:
        _, aname, k, _, _, _ = by_id[c.task_id]
        spec = task_from_segment(assemblies[aname], segments[aname][k], c.task_id, VALIDATION_SEED)
        out.append(spec.model_copy(update={"difficulty": stratum}))
    return out


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
