"""The planning family (JARVIS Table 4): manual planning and spatial grounding before execution.

A planning task is a LEGO assembly task asked as a question that needs no motion: the model gets the
manual and the initial observation and answers with its plan, one entry per manual step (which brick
goes where, in the world frame). The observation kind is part of the task, so one suite holds the
three settings of the paper's table side by side:

    planning/<observation>/<assembly>/<k>     observation: rgb | rgbd | rgbd_3d

names the LEGO task `lego/<assembly>/<k>` seen as `<observation>`. Suites: `jarvis-v1-planning` (every
jarvis-v1 task in each of the three settings, 150 tasks) and `jarvis-mini-planning` (18), and one
suite per setting (`jarvis-v1-planning-rgb`, ...). Loading a planning task gives the LEGO TaskSpec
under the planning id; the answer is scored by evaluator.planning against its manual steps.
"""

from __future__ import annotations

from typing import Literal, cast

from jarvis_sim.tasks.family import SuiteInfo, TaskFamily, UnknownKeyError, register_family
from jarvis_sim.tasks.lego_family import LEGO
from jarvis_sim.tasks.spec import TaskSpec

PlanningObservation = Literal["rgb", "rgbd", "rgbd_3d"]
OBSERVATIONS: tuple[PlanningObservation, ...] = ("rgb", "rgbd", "rgbd_3d")
PREFIX = "planning/"
BASE_SUITES = {"jarvis-v1": "jarvis-v1-planning", "jarvis-mini": "jarvis-mini-planning"}
_DESCRIBE = {"rgb": "RGB", "rgbd": "RGB-D", "rgbd_3d": "RGB-D with 3D brick descriptors"}


def planning_task_id(observation: str, lego_task_id: str) -> str:
    """The planning id of a LEGO task seen as `observation`."""
    if observation not in OBSERVATIONS:
        raise ValueError(f"unknown observation kind {observation!r}; valid: {', '.join(OBSERVATIONS)}")
    if not lego_task_id.startswith("lego/"):
        raise ValueError(f"{lego_task_id!r} is not a LEGO task id (lego/<assembly>/<k>)")
    return f"{PREFIX}{observation}/{lego_task_id.removeprefix('lego/')}"


def parse_planning_id(task_id: str) -> tuple[PlanningObservation, str]:
    """(observation kind, LEGO task id) of a planning id; a malformed one raises UnknownKeyError."""
    rest = task_id.removeprefix(PREFIX) if task_id.startswith(PREFIX) else None
    observation, _, lego_rest = (rest or "").partition("/")
    if rest is None or observation not in OBSERVATIONS or not lego_rest:
        raise UnknownKeyError(
            "planning task id", task_id,
            [f"{PREFIX}{o}/<assembly>/<k>" for o in OBSERVATIONS],
        )
    return cast(PlanningObservation, observation), f"lego/{lego_rest}"


class PlanningFamily(TaskFamily):
    """Plan-before-execution questions over the LEGO suites, in each observation setting."""

    name = "planning"

    def _suite_parts(self) -> dict[str, tuple[str, tuple[PlanningObservation, ...]]]:
        out: dict[str, tuple[str, tuple[PlanningObservation, ...]]] = {}
        for base, name in BASE_SUITES.items():
            out[name] = (base, OBSERVATIONS)
            for o in OBSERVATIONS:
                out[f"{name}-{o}"] = (base, (o,))
        return out

    def suites(self) -> list[SuiteInfo]:
        """The planning suites."""
        out = []
        for name, (base, kinds) in self._suite_parts().items():
            seen = ", ".join(_DESCRIBE[k] for k in kinds)
            out.append(SuiteInfo(name, self.name, f"manual planning and grounding before execution (JARVIS Table 4) "
                                                   f"over {base}, observation: {seen}"))
        return out

    def task_ids(self, suite: str) -> list[str]:
        """Each base task in each of the suite's observation settings, task by task."""
        parts = self._suite_parts()
        if suite not in parts:
            raise UnknownKeyError("planning suite", suite, sorted(parts))
        base, kinds = parts[suite]
        return [planning_task_id(k, lego_id) for lego_id in LEGO.task_ids(base) for k in kinds]

    def owns(self, task_id: str) -> bool:
        """Planning ids start with 'planning/'."""
        return task_id.startswith(PREFIX)

    def load(self, task_id: str) -> TaskSpec:
        """The LEGO task under its planning id (the observation kind is read from the id)."""
        _, lego_id = parse_planning_id(task_id)
        task = LEGO.load(lego_id)
        assert isinstance(task, TaskSpec)  # the LEGO family loads only TaskSpecs
        return task.model_copy(update={"id": task_id})


PLANNING = register_family(PlanningFamily())
