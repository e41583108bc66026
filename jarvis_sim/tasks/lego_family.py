"""The LEGO assembly task family: suites jarvis-v1, jarvis-v2, jarvis-v1-buildable, jarvis-mini and
jarvis-v1-perturbed (error recovery), and any generated task by id."""

from __future__ import annotations

from jarvis_sim.tasks import perturbed
from jarvis_sim.tasks.collection import TASK_ID, rebuild_task
from jarvis_sim.tasks.family import SuiteInfo, TaskFamily, UnknownKeyError, register_family
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.suites import RECIPES, load_suite


class LegoFamily(TaskFamily):
    """LEGO assembly tasks; ids look like `lego/<assembly>/<k>`."""

    name = "lego"

    def suites(self) -> list[SuiteInfo]:
        """The shipped LEGO suites."""
        return [*(SuiteInfo(r.name, self.name, r.description) for r in RECIPES.values()),
                SuiteInfo(perturbed.SUITE, self.name, f"{perturbed.N_TASKS} {perturbed.BASE_SUITE} tasks, each beside a "
                          "twin with a scheduled disturbance (placed brick displaced, held brick dropped, structure "
                          "knocked), for error-recovery studies")]

    def task_ids(self, suite: str) -> list[str]:
        """Task ids of a LEGO suite, in order."""
        if suite == perturbed.SUITE:
            return perturbed.suite_task_ids()
        if suite not in RECIPES:
            raise UnknownKeyError("LEGO suite", suite, sorted([*RECIPES, perturbed.SUITE]))
        return [t.id for t in load_suite(suite)]

    def owns(self, task_id: str) -> bool:
        """LEGO task ids start with 'lego/'."""
        return task_id.startswith("lego/")

    def load(self, task_id: str) -> TaskSpec:
        """A suite task (as shipped, with its difficulty label) or any generated pool task, by id."""
        if perturbed.twin_id(task_id) is not None:
            for spec in perturbed.perturbed_tasks():
                if spec.id == task_id:
                    return spec
            raise UnknownKeyError("perturbed LEGO task", task_id, [t.id for t in perturbed.perturbed_tasks()])
        for suite in RECIPES:
            for spec in load_suite(suite):
                if spec.id == task_id:
                    return spec
        if TASK_ID.match(task_id):
            try:
                return rebuild_task(task_id)
            except KeyError as e:
                raise UnknownKeyError("LEGO task", task_id, self.task_ids("jarvis-mini"), hint=_ID_HINT) from e
        raise UnknownKeyError("LEGO task", task_id, self.task_ids("jarvis-mini"), hint=_ID_HINT)


# Pool ids are generated, so no list is complete: the message says their shape and where suites are listed.
_ID_HINT = ("LEGO ids look like lego/<p|v><pool seed>-<assembly index>-<kind>/<task index> (any generated pool "
            "task, e.g. lego/v7-00020-stairs/001) or a suite's id; `jarvis suites` lists the suites and "
            "`jarvis tasks suite NAME --out FILE` writes their tasks")

LEGO = register_family(LegoFamily())
