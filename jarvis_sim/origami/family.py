"""The GamiBench task family: suites `gamibench` (generated set) and `gamibench-official` (user's data).

Ids: `gamibench/<kind>/<name>` and `gamibench/official/<kind>/<name>` with kind standard, alternative or
impossible. The official suite exists when JARVIS_GAMIBENCH_ROOT points at a folder in GamiBench's layout
and is run as the authors run it (jarvis_sim.origami.official): their question plan for seed 42, or the
plan file named by JARVIS_GAMIBENCH_PLAN; their prompt text, read from the copy of their code named by
JARVIS_GAMIBENCH_CODE (or found around the data folder); the crease pattern then four captioned
candidate images; an alternative-view item is asked only after its standard item was answered right.
"""

from __future__ import annotations

import os
import random
from functools import cache
from pathlib import Path

from jarvis_sim.origami.benchmark import (
    IMPOSSIBLE,
    LETTERS,
    Question,
    build_questions,
    generated_source,
    item_for,
)
from jarvis_sim.origami.library import ASSETS, DEFAULT_SEED, read_manifest
from jarvis_sim.origami.official import (
    OFFICIAL_SEED,
    OfficialDataError,
    OfficialPrompt,
    PlanTask,
    build_plan,
    discover,
    find_code_root,
    read_plan,
    read_prompt,
)
from jarvis_sim.tasks.family import QuestionFamily, SuiteInfo, UnknownKeyError, register_family
from jarvis_sim.tasks.question import QuestionItem

SUITE = "gamibench"
OFFICIAL_SUITE = "gamibench-official"
ROOT_ENV = "JARVIS_GAMIBENCH_ROOT"
CODE_ENV = "JARVIS_GAMIBENCH_CODE"
PLAN_ENV = "JARVIS_GAMIBENCH_PLAN"
OFFICIAL_PREFIX = "gamibench/official"


@cache
def _generated_questions() -> dict[str, Question]:
    manifest = read_manifest(ASSETS)
    names = [p["name"] for p in manifest["patterns"]]
    levels: dict[str, str | None] = {p["name"]: p["level"] for p in manifest["patterns"]}
    return {q.task_id: q for q in build_questions(names, levels, int(manifest.get("seed", DEFAULT_SEED)))}


def _official_root() -> Path | None:
    root = os.environ.get(ROOT_ENV)
    return Path(root) if root else None


@cache
def _official_plan(root: Path, plan_file: Path | None) -> dict[str, PlanTask]:
    tasks = read_plan(plan_file, root) if plan_file is not None else build_plan(discover(root), OFFICIAL_SEED)
    return {f"{OFFICIAL_PREFIX}/{t.kind}/{t.name}": t for t in tasks}


def official_plan() -> dict[str, PlanTask]:
    """The official suite's questions by task id, in the official order (empty when no root is set)."""
    root = _official_root()
    if root is None:
        return {}
    plan = os.environ.get(PLAN_ENV)
    return _official_plan(root, Path(plan) if plan else None)


def official_prompt() -> OfficialPrompt:
    """The official prompt text from the user's copy of the official code; a clear error when there is none."""
    code = os.environ.get(CODE_ENV)
    root = _official_root()
    code_root = Path(code) if code else (find_code_root(root) if root is not None else None)
    if code_root is None:
        raise OfficialDataError(
            f"the official GamiBench prompt is read from the official code, which is not shipped here: set {CODE_ENV} "
            "to your clone of github.com/stvngo/GamiBench")
    return read_prompt(code_root)


def official_item(task_id: str, task: PlanTask, by_official_id: dict[str, str], prompt: OfficialPrompt) -> QuestionItem:
    """The item of an official question: the official prompt, the crease pattern, four captioned candidates."""
    meta: dict[str, object] = {
        "pattern": task.name,
        "official_task_id": task.task_id,
        "candidates": [{"letter": ltr, "image": str(c)} for ltr, c in zip(task.letters, task.candidates, strict=True)],
        "impossible": task.kind == "impossible",
        "prompt_source": str(prompt.source),
    }
    if task.prerequisite is not None:
        if task.prerequisite not in by_official_id:
            raise OfficialDataError(f"{task_id}: its prerequisite {task.prerequisite} is not in the plan")
        meta["requires"] = {"task_id": by_official_id[task.prerequisite], "correct": True}
    return QuestionItem(id=task_id, family="gamibench", kind=task.kind, level=None, prompt=prompt.user,
                        images=[str(task.crease_pattern), *map(str, task.candidates)],
                        captions=["", *(prompt.caption(ltr) for ltr in task.letters)],
                        system=prompt.system, answer=task.answer, meta=meta)


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
            return list(official_plan())
        raise UnknownKeyError("suite", suite, [s.name for s in self.suites()])

    def owns(self, task_id: str) -> bool:
        """Ids starting with 'gamibench/'."""
        return task_id.startswith("gamibench/")

    def load(self, task_id: str) -> QuestionItem:
        """Build the item, rendering its images into the cache on first use."""
        if task_id.startswith(OFFICIAL_PREFIX + "/"):
            if _official_root() is None:
                raise UnknownKeyError("task", task_id, [f"(set {ROOT_ENV} to use the official set)"])
            plan = official_plan()
            if task_id not in plan:
                raise UnknownKeyError("task", task_id, list(plan))
            by_official_id = {t.task_id: tid for tid, t in plan.items()}
            return official_item(task_id, plan[task_id], by_official_id, official_prompt())
        gen = _generated_questions()
        if task_id not in gen:
            raise UnknownKeyError("task", task_id, list(gen))
        return item_for(gen[task_id], generated_source())

    def prerequisite(self, task_id: str) -> str | None:
        """The official runner asks an alternative-view item only once its standard item was answered right."""
        if not task_id.startswith(OFFICIAL_PREFIX + "/"):
            return None
        plan = official_plan()
        task = plan.get(task_id)
        if task is None or task.prerequisite is None:
            return None
        return next((tid for tid, t in plan.items() if t.task_id == task.prerequisite), None)

    def scripted_answer(self, item: QuestionItem) -> str:
        """The ground-truth letter (the ceiling)."""
        return str(item.answer)

    def random_answer(self, item: QuestionItem, rng: random.Random) -> str:
        """A letter chosen uniformly among A-E (the floor: about 20% accuracy)."""
        return rng.choice([*LETTERS, IMPOSSIBLE])


register_family(GamiBenchFamily())
