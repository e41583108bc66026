"""The planning family: ids over the LEGO suites in each observation setting, suites, bad ids."""

from __future__ import annotations

import pytest

from jarvis_sim.tasks.planning_family import OBSERVATIONS, parse_planning_id, planning_task_id
from jarvis_sim.tasks.registry import UnknownKeyError, load_task, suite_task_ids, suites


def test_suites_hold_every_lego_task_in_every_setting() -> None:
    names = {s.name for s in suites() if s.family == "planning"}
    assert {"jarvis-v1-planning", "jarvis-mini-planning", "jarvis-v1-planning-rgbd_3d"} <= names
    lego = suite_task_ids("jarvis-v1")
    ids = suite_task_ids("jarvis-v1-planning")
    assert len(ids) == 3 * len(lego) == 150
    assert ids[:3] == [planning_task_id(o, lego[0]) for o in OBSERVATIONS]
    assert suite_task_ids("jarvis-mini-planning-rgbd") == [planning_task_id("rgbd", t) for t in suite_task_ids("jarvis-mini")]


def test_a_planning_task_is_its_lego_task_under_the_planning_id() -> None:
    lego_id = suite_task_ids("jarvis-mini")[1]
    tid = planning_task_id("rgbd_3d", lego_id)
    assert parse_planning_id(tid) == ("rgbd_3d", lego_id)
    task, lego = load_task(tid), load_task(lego_id)
    assert task.id == tid and task.model_dump(exclude={"id"}) == lego.model_dump(exclude={"id"})


@pytest.mark.parametrize("bad", ["planning/rgbx/v7-00009-stairs/000", "planning/rgb", "planning/rgb/"])
def test_malformed_ids_name_the_valid_forms(bad: str) -> None:
    with pytest.raises(UnknownKeyError, match=r"valid: planning/rgb/<assembly>/<k>"):
        load_task(bad)
    with pytest.raises(ValueError, match="unknown observation kind"):
        planning_task_id("depth", "lego/x/0")
