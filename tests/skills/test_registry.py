"""The skill registry: per-library allow-lists, the API text of the prompt, the paper's program constraints."""

from __future__ import annotations

import inspect
import re

import pytest

from jarvis_sim.tasks.spec import Workspace
from skills import libraries, registry
from skills.context import SkillContext
from skills.types import GraspPlan
from tests.fakes.skill_backend import RecordingBackend

TASK_SKILLS = {"go_home", "observe", "find_bricks", "placement", "where_is", "grasp_plan", "pick", "place",
               "place_on", "place_at", "put_down"}
GENERIC_SKILLS = {"go_home", "get_joint_state", "move_joints_to", "get_ee_pose", "move_ee", "open_gripper", "close_gripper",
                  "capture_images", "press_down"}
# Parameter names that would hand the agent raw motion control (the JARVIS paper forbids them in the task library).
RAW_CONTROL = re.compile(r"force|torque|joint|ik\b|_q$|^q$|quat|gripper|grasp|ee_|tcp|width|speed", re.IGNORECASE)


def test_each_library_exposes_its_documented_skills() -> None:
    assert libraries.allow_list("task") == TASK_SKILLS
    assert libraries.allow_list("generic") == GENERIC_SKILLS
    assert next(s.name for s in libraries.library("task")) == "go_home"  # registration order is kept


def test_only_the_generic_library_exposes_poses_and_gripper_commands() -> None:
    task, generic = libraries.allow_list("task"), libraries.allow_list("generic")
    for name in ("move_ee", "get_ee_pose", "get_joint_state", "open_gripper", "close_gripper", "capture_images"):
        assert name in generic and name not in task


@pytest.mark.parametrize("spec", libraries.library("task"), ids=lambda s: s.name)
def test_task_skills_take_no_raw_grasp_ik_or_force_arguments(spec: registry.SkillSpec) -> None:
    for name, p in spec.signature.parameters.items():
        assert not RAW_CONTROL.search(name), f"{spec.name}({name}) exposes raw control"
        assert p.annotation is not GraspPlan, f"{spec.name}({name}) takes grasp coordinates"
        assert "float" not in str(p.annotation), f"{spec.name}({name}: {p.annotation}) takes a raw number"


def test_generic_move_ee_takes_a_pose_in_mm_and_degrees() -> None:
    (spec,) = [s for s in libraries.library("generic") if s.name == "move_ee"]
    assert list(spec.signature.parameters) == ["x_mm", "y_mm", "z_mm", "yaw_deg"]


@pytest.mark.parametrize("lib", registry.LIBRARIES)
def test_api_text_lists_every_skill_with_signature_and_docstring(lib: str) -> None:
    text = libraries.api_text(lib)
    for spec in libraries.library(lib):
        first_line = inspect.cleandoc(spec.func.__doc__ or "").splitlines()[0]
        assert re.search(rf"^{spec.name}\(", text, re.MULTILINE), spec.name
        assert f"    {first_line}" in text
    # The simulator side never leaks into what the model reads.
    assert "ctx" not in text and "SkillContext" not in text
    assert "skills.types." not in text and "typing." not in text and "builtins." not in text


def test_api_text_of_one_skill_shows_types_and_defaults() -> None:
    (spec,) = [s for s in libraries.library("task") if s.name == "place_on"]
    head = spec.api_text().splitlines()[0]
    assert head == ("place_on(support: str, stud_x: int, stud_y: int, rotation: int = 0, press_supported: bool = False)"
                    " -> PlaceResult")


def test_unknown_library_names_the_valid_ones() -> None:
    with pytest.raises(KeyError, match=r"unknown skill library 'lowlevel'.*task, generic"):
        libraries.library("lowlevel")
    with pytest.raises(KeyError):
        libraries.allow_list("lowlevel")
    with pytest.raises(KeyError):
        libraries.api_text("")


def test_registering_rejects_unknown_libraries_missing_docstrings_and_duplicates() -> None:
    before = set(libraries.allow_list("task")) | set(libraries.allow_list("generic"))
    with pytest.raises(ValueError, match="unknown skill library 'planner'"):
        registry.skill("planner")  # type: ignore[arg-type]

    def undocumented(ctx: SkillContext) -> None:
        pass

    with pytest.raises(ValueError, match="needs a docstring"):
        registry.skill("task")(undocumented)

    def pick(ctx: SkillContext, brick: str) -> None:
        """A second pick."""

    with pytest.raises(ValueError, match="registered twice"):
        registry.skill("task")(pick)
    assert set(libraries.allow_list("task")) | set(libraries.allow_list("generic")) == before


@pytest.mark.parametrize("lib", registry.LIBRARIES)
def test_bind_gives_exactly_the_allow_list_with_agent_signatures(lib: str) -> None:
    ctx = SkillContext(backend=RecordingBackend(), workspace=Workspace())
    bound = libraries.bind(lib, ctx)
    assert set(bound) == libraries.allow_list(lib)
    for spec in libraries.library(lib):
        fn = bound[spec.name]
        assert inspect.signature(fn) == spec.signature
        assert "ctx" not in inspect.signature(fn).parameters
        assert fn.__doc__ == spec.func.__doc__


def test_bound_skills_route_through_the_context() -> None:
    """A bound call is validated and logged by the context (here it fails validation before any motion)."""
    ctx = SkillContext(backend=RecordingBackend(), workspace=Workspace())
    bound = libraries.bind("task", ctx)
    from skills.errors import InvalidArgument

    with pytest.raises(InvalidArgument):
        bound["placement"]("p1", "p2", "one", 0)
    assert [c.name for c in ctx.calls] == ["placement"] and ctx.calls[0].error_kind == "invalid_argument"
