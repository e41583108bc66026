"""Malformed TaskSpecs are refused by validation, naming the field, before any simulator sees them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from jarvis_sim.lego.generator import generate_assembly
from jarvis_sim.tasks.collection import tasks_of
from jarvis_sim.tasks.spec import MAX_TASK_BRICKS, TaskSpec


@pytest.fixture(scope="module")
def task_json() -> dict[str, Any]:
    task = next(tasks_of(generate_assembly("spec", 3, n_bricks=12), seed=3))
    obj: dict[str, Any] = json.loads(task.model_dump_json())
    return obj


def _refused(obj: dict[str, Any], *fragments: str) -> None:
    with pytest.raises(ValidationError) as err:
        TaskSpec.model_validate(obj)
    text = str(err.value)
    for f in fragments:
        assert f in text, text


def test_the_fixture_is_valid(task_json: dict[str, Any]) -> None:
    TaskSpec.model_validate(task_json)


def test_nan_start_pose(task_json: dict[str, Any]) -> None:
    obj = json.loads(json.dumps(task_json))
    obj["action_bricks"][0]["start"]["x"] = float("nan")
    _refused(obj, "action_bricks.0.start.x", "finite")


def test_huge_start_pose_and_infinite_yaw(task_json: dict[str, Any]) -> None:
    obj = json.loads(json.dumps(task_json))
    obj["action_bricks"][0]["start"]["y"] = 1e308
    obj["action_bricks"][0]["start"]["yaw"] = float("inf")
    _refused(obj, "action_bricks.0.start.y", "action_bricks.0.start.yaw")


def test_huge_lattice_coordinate(task_json: dict[str, Any]) -> None:
    obj = json.loads(json.dumps(task_json))
    obj["action_bricks"][0]["target"]["x"] = 10**300
    _refused(obj, "action_bricks.0.target.x")


def test_workspace_nan_and_1e308(task_json: dict[str, Any]) -> None:
    obj = json.loads(json.dumps(task_json))
    obj["workspace"]["lattice_origin"] = [1e308, 0.0, 0.0]
    _refused(obj, "workspace.lattice_origin[0]")
    obj["workspace"]["lattice_origin"] = [0.4, float("nan"), 0.0]
    _refused(obj, "workspace.lattice_origin[1]")


def test_huge_and_unknown_colour_codes(task_json: dict[str, Any]) -> None:
    for code in (2**62, 99999, -1):
        obj = json.loads(json.dumps(task_json))
        obj["action_bricks"][0]["target"]["color"] = code
        _refused(obj, "action_bricks.0.target.color", f"unknown LDraw colour code {code}")


def test_an_ldraw_colour_outside_the_scene_palette_is_accepted(task_json: dict[str, Any]) -> None:
    obj = json.loads(json.dumps(task_json))
    obj["action_bricks"][0]["target"]["color"] = 115  # medium lime, from LDConfig
    TaskSpec.model_validate(obj)


def test_too_many_bricks(task_json: dict[str, Any]) -> None:
    obj = json.loads(json.dumps(task_json))
    template = obj["action_bricks"][0]["target"]
    obj["initial"] = [{**template, "id": f"x{k}", "x": k % 900, "y": 0, "z": 3 * (k // 900)} for k in range(5000)]
    _refused(obj, f"a task holds at most {MAX_TASK_BRICKS}")


def test_infinite_budget_and_impulse(task_json: dict[str, Any]) -> None:
    obj = json.loads(json.dumps(task_json))
    obj["time_budget_s"] = float("inf")
    _refused(obj, "time_budget_s")
    obj = json.loads(json.dumps(task_json))
    obj["perturbations"] = [{"kind": "knock_structure", "after_skill_calls": 1, "impulse_n_s": 1e308}]
    _refused(obj, "perturbations.0.impulse_n_s")
