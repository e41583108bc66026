"""The GamiBench task family: suites `gamibench` (generated set) and `gamibench-official` (user's data).

Ids: `gamibench/<kind>/<name>` and `gamibench/official/<kind>/<name>` with kind standard, alternative or
impossible. The official suite exists when JARVIS_GAMIBENCH_ROOT points at a folder in GamiBench's layout.
"""

from __future__ import annotations

import os
import random
from functools import cache
from pathlib import Path

from jarvis_sim.origami.benchmark import (
    IMPOSSIBLE,
    LETTERS,
    ImageSource,
    Question,
    build_questions,
    generated_source,
    item_for,
    official_names,
)
from jarvis_sim.origami.library import ASSETS, DEFAULT_SEED, read_manifest
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily, SuiteInfo, UnknownKeyError, register_family

SUITE = "gamibench"
OFFICIAL_SUITE = "gamibench-official"
ROOT_ENV = "JARVIS_GAMIBENCH_ROOT"


@cache
def _generated_questions() -> dict[str, Question]:
    manifest = read_manifest(ASSETS)
    names = [p["name"] for p in manifest["patterns"]]
    levels: dict[str, str | None] = {p["name"]: p["level"] for p in manifest["patterns"]}
    return {q.task_id: q for q in build_questions(names, levels, int(manifest.get("seed", DEFAULT_SEED)))}


def _official_root() -> Path | None:
    root = os.environ.get(ROOT_ENV)
    return Path(root) if root else None


def _official_questions(root: Path) -> dict[str, Question]:
    names = official_names(root)
    levels: dict[str, str | None] = {n: None for n in names}
    out: dict[str, Question] = {}
    for q in build_questions(names, levels, DEFAULT_SEED):
        if q.kind == "impossible" and not (root / q.name / f"impossible_{q.name}_cp.png").exists():
            continue
        out[q.task_id.replace("gamibench", "gamibench/official", 1)] = q
    return out


class GamiBenchFamily(QuestionFamily):
    """Origami crease pattern -> 3D model questions (GamiBench)."""

    name = "gamibench"

    def suites(self) -> list[SuiteInfo]:
        """The generated suite, plus the official one when its data folder is configured."""
        out = [SuiteInfo(SUITE, self.name, "GamiBench-style questions on the generated, verified crease patterns")]
        if _official_root() is not None:
            out.append(SuiteInfo(OFFICIAL_SUITE, self.name, f"GamiBench questions from ${ROOT_ENV}"))
        return out

    def task_ids(self, suite: str) -> list[str]:
        """Task ids of a suite, in question order."""
        if suite == SUITE:
            return list(_generated_questions())
        root = _official_root()
        if suite == OFFICIAL_SUITE and root is not None:
            return list(_official_questions(root))
        raise UnknownKeyError("suite", suite, [s.name for s in self.suites()])

    def owns(self, task_id: str) -> bool:
        """Ids starting with 'gamibench/'."""
        return task_id.startswith("gamibench/")

    def load(self, task_id: str) -> QuestionItem:
        """Build the item, rendering its images into the cache on first use."""
        if task_id.startswith("gamibench/official/"):
            root = _official_root()
            if root is None:
                raise UnknownKeyError("task", task_id, [f"(set {ROOT_ENV} to use the official set)"])
            questions = _official_questions(root)
            if task_id not in questions:
                raise UnknownKeyError("task", task_id, list(questions))
            return item_for(questions[task_id], ImageSource(root), id_prefix="gamibench/official")
        gen = _generated_questions()
        if task_id not in gen:
            raise UnknownKeyError("task", task_id, list(gen))
        return item_for(gen[task_id], generated_source())

    def scripted_answer(self, item: QuestionItem) -> str:
        """The ground-truth letter (the ceiling)."""
        return str(item.answer)

    def random_answer(self, item: QuestionItem, rng: random.Random) -> str:
        """A letter chosen uniformly among A-E (the floor: about 20% accuracy)."""
        return rng.choice([*LETTERS, IMPOSSIBLE])


register_family(GamiBenchFamily())
