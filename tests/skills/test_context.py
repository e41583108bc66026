"""SkillContext.invoke: argument validation, budgets, perturbation timing, call records, perception ids."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from jarvis_sim.records import SkillCallRecord
from jarvis_sim.tasks.spec import Perturbation, Workspace
from skills.context import SkillContext
from skills.errors import BudgetExceeded, InvalidArgument, NotGraspable, UnknownBrick
from skills.libraries import bind
from skills.registry import SkillSpec
from skills.types import BrickDescriptor, Pose
from tests.fakes.skill_backend import RecordingBackend

SEEN: list[dict[str, Any]] = []


def _echo(ctx: SkillContext, brick: str, stud_x: int, pose: Pose, rotation: int = 0) -> dict[str, Any]:
    """Records its arguments (a stand-in skill with typed arguments)."""
    SEEN.append({"brick": brick, "stud_x": stud_x, "pose": pose, "rotation": rotation})
    return {"pose": pose, "n": np.int64(3), "xs": (np.float32(1.5),)}


def _refuse(ctx: SkillContext, brick: str) -> None:
    """Always refuses, as a skill does for a covered brick."""
    raise NotGraspable(f"brick {brick} is covered")


def _crash(ctx: SkillContext) -> None:
    """A bug inside a skill (not a SkillError)."""
    raise ZeroDivisionError("bug")


def _tick(ctx: SkillContext) -> int:
    """Advances the simulated clock by one second."""
    ctx.backend.step(round(1.0 / ctx.backend.control_dt))
    return len(ctx.calls)


ECHO = SkillSpec("echo", _echo, ("task",))
REFUSE = SkillSpec("refuse", _refuse, ("task",))
CRASH = SkillSpec("crash", _crash, ("task",))
TICK = SkillSpec("tick", _tick, ("task",))
POSE = {"x_mm": 1.0, "y_mm": 2.0, "z_mm": 3.0}


@pytest.fixture
def ctx() -> SkillContext:
    SEEN.clear()
    return SkillContext(backend=RecordingBackend(), workspace=Workspace())


def test_arguments_are_coerced_to_the_skill_types(ctx: SkillContext) -> None:
    out = ctx.invoke(ECHO, ("p1", 2), {"pose": POSE})
    assert SEEN[0]["pose"] == Pose(x_mm=1.0, y_mm=2.0, z_mm=3.0) and SEEN[0]["rotation"] == 0
    # Results cross the RPC as JSON values: models become dicts, numpy scalars plain numbers, tuples lists.
    assert out == {"pose": {"x_mm": 1.0, "y_mm": 2.0, "z_mm": 3.0, "yaw_deg": 0.0}, "n": 3, "xs": [1.5]}
    assert type(out["n"]) is int and type(out["xs"][0]) is float
    (rec,) = ctx.calls
    assert rec.ok and rec.name == "echo" and rec.args == {"brick": "p1", "stud_x": 2, "pose": POSE}


@pytest.mark.parametrize(
    ("args", "kwargs", "field"),
    [
        (("p1", "two"), {"pose": POSE}, "'stud_x'"),
        ((3, 2), {"pose": POSE}, "'brick'"),
        (("p1", 2), {"pose": {"x_mm": 1.0, "y_mm": 2.0}}, "z_mm"),
        (("p1", 2), {"pose": {**POSE, "roll": 1.0}}, "roll"),
        (("p1", 2), {"pose": POSE, "rotation": 1.5}, "'rotation'"),
    ],
)
def test_bad_arguments_become_invalid_argument_naming_the_field(ctx: SkillContext, args: tuple[Any, ...],
                                                                kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        ctx.invoke(ECHO, args, kwargs)
    assert field in info.value.message and "echo()" in info.value.message
    assert "Check the signature" in info.value.message
    assert not SEEN  # the skill never ran
    (rec,) = ctx.calls
    assert not rec.ok and rec.error_kind == "invalid_argument" and rec.error == info.value.message


@pytest.mark.parametrize(
    ("args", "kwargs"), [((), {}), (("p1", 2, POSE, 0, "extra"), {}), (("p1", 2), {"pose": POSE, "speed": 1})]
)
def test_wrong_arity_or_unknown_keywords_are_invalid_arguments(ctx: SkillContext, args: tuple[Any, ...],
                                                               kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument, match=r"echo\(\): .*Check the signature"):
        ctx.invoke(ECHO, args, kwargs)
    assert not SEEN and ctx.calls[-1].error_kind == "invalid_argument"


def test_real_skills_validate_before_touching_the_simulator(ctx: SkillContext) -> None:
    skills = bind("task", ctx)
    with pytest.raises(InvalidArgument, match="'stud_x'"):
        skills["place_on"]("p1", "x", 0)
    with pytest.raises(InvalidArgument, match="'size'"):
        skills["find_bricks"](size="big")
    with pytest.raises(InvalidArgument, match="'brick'"):
        skills["pick"](brick=None)
    assert ctx.backend.sim_time_s == 0.0  # type: ignore[attr-defined]


def test_skill_errors_are_recorded_and_reraised(ctx: SkillContext) -> None:
    seen: list[SkillCallRecord] = []
    ctx.on_call = seen.append
    with pytest.raises(NotGraspable, match="p7 is covered"):
        ctx.invoke(REFUSE, ("p7",), {})
    assert seen == ctx.calls and seen[0].error_kind == "not_graspable" and not seen[0].ok


def test_a_bug_inside_a_skill_propagates_but_is_still_recorded(ctx: SkillContext) -> None:
    with pytest.raises(ZeroDivisionError):
        ctx.invoke(CRASH, (), {})
    (rec,) = ctx.calls
    assert not rec.ok and rec.error_kind is None


def test_call_budget_stops_the_program(ctx: SkillContext) -> None:
    ctx.max_calls = 3
    for _ in range(3):
        ctx.invoke(TICK, (), {})
    with pytest.raises(BudgetExceeded, match="budget of 3 skill calls"):
        ctx.invoke(TICK, (), {})
    assert len(ctx.calls) == 3  # the refused call is not run and not logged


def test_simulated_time_budget_stops_the_program(ctx: SkillContext) -> None:
    ctx.max_sim_s = 2.5
    for _ in range(3):
        ctx.invoke(TICK, (), {})  # 1 s each: the third starts at 2 s, within budget
    assert ctx.calls[-1].sim_time_s == pytest.approx(1.0)
    with pytest.raises(BudgetExceeded, match="simulated-time budget"):
        ctx.invoke(TICK, (), {})


def test_perturbations_fire_once_before_the_scheduled_call(ctx: SkillContext) -> None:
    backend = ctx.backend
    assert isinstance(backend, RecordingBackend)
    ctx.perturbations = [
        Perturbation(kind="drop_held", after_skill_calls=2),
        Perturbation(kind="displace_brick", after_skill_calls=0, brick_id="b3", offset_m=(0.02, -0.01)),
        Perturbation(kind="knock_structure", after_skill_calls=3, brick_id="s001", impulse_n_s=0.05),
    ]
    history: list[list[tuple[Any, ...]]] = []
    for _ in range(5):
        ctx.invoke(TICK, (), {})
        history.append(list(backend.events))
    assert history[0] == [("displace", "b3", (0.02, -0.01))]  # before the first call
    assert history[1] == history[0]
    assert history[2] == [*history[0], ("drop_held",)]  # after exactly two calls
    assert history[3] == [*history[2], ("knock", "s001", 0.05)]
    assert history[4] == history[3]  # each fires once
    settle = round(0.5 / backend.control_dt)
    assert backend.steps.count(settle) == 3  # the world settles after each disturbance


def test_perturbation_fires_even_when_the_scheduled_call_fails(ctx: SkillContext) -> None:
    backend = ctx.backend
    assert isinstance(backend, RecordingBackend)
    ctx.perturbations = [Perturbation(kind="drop_held", after_skill_calls=1)]
    ctx.invoke(TICK, (), {})
    with pytest.raises(InvalidArgument):
        ctx.invoke(ECHO, (), {})
    assert backend.events == [("drop_held",)]
    ctx.invoke(TICK, (), {})
    assert backend.events == [("drop_held",)]


def _descriptor(pid: str) -> BrickDescriptor:
    return BrickDescriptor(id=pid, color="red", size=(4, 2), height="brick", x_mm=0, y_mm=0, top_z_mm=9.6,
                           yaw_deg=0, in_structure=False, free_to_grasp=True, visible_fraction=1.0)


def test_descriptor_lookup_names_the_known_ids_in_order(ctx: SkillContext) -> None:
    with pytest.raises(UnknownBrick, match=r"known: none yet"):
        ctx.descriptor("p1")
    ctx.perceived.descriptors = {p: _descriptor(p) for p in ("p10", "p2", "p1")}
    assert ctx.descriptor("p2").id == "p2"
    with pytest.raises(UnknownBrick, match=r"no brick 'p3' .*known: p1, p2, p10\).*observe\(\)"):
        ctx.descriptor("p3")
    with pytest.raises(InvalidArgument, match="perception id string"):
        ctx.descriptor(3)  # type: ignore[arg-type]


def test_perception_ids_are_fresh_and_increasing(ctx: SkillContext) -> None:
    assert [ctx.new_perception_id() for _ in range(3)] == ["p1", "p2", "p3"]


@pytest.mark.parametrize(
    ("name", "args", "where"),
    [
        ("move_ee", (float("nan"), 0.0, 50.0), "x_mm"),
        ("move_ee", (400.0, 0.0, 50.0, float("inf")), "yaw_deg"),
        ("move_ee", (400.0, float("-inf"), 50.0), "y_mm"),
        ("place", ({"x_mm": 400.0, "y_mm": 0.0, "z_mm": 20.0, "yaw_deg": float("inf")},), "pose.yaw_deg"),
        ("place", ({"x_mm": float("nan"), "y_mm": 0.0, "z_mm": 20.0},), "pose.x_mm"),
        # Finite but overflowing: 1e308 squared is inf, 10**400 cannot even become a float.
        ("place", ({"x_mm": 1e308, "y_mm": 0.0, "z_mm": 20.0},), "pose.x_mm"),
        ("placement", ("ground", "p1", 10**400, 0), "stud_x"),
        ("move_ee", (400.0, 0.0, -1e300), "z_mm"),
    ],
)
def test_non_finite_arguments_are_refused_before_the_skill_runs(
    ctx: SkillContext, name: str, args: tuple[Any, ...], where: str
) -> None:
    from skills.libraries import library

    spec = next(s for s in library("generic") + library("task") if s.name == name)
    with pytest.raises(InvalidArgument) as err:
        ctx.invoke(spec, args, {})
    assert f"{name}() argument {where} is" in err.value.message and "finite" in err.value.message
    backend = ctx.backend
    assert isinstance(backend, RecordingBackend) and backend.steps == [] and backend.events == []
