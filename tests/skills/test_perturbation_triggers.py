"""Perturbations that wait for a brick's state (held, placed) fire once, whatever calls came before."""

from __future__ import annotations

import pytest

from jarvis_sim.lego.world_state import BrickState, WorldState
from jarvis_sim.tasks.spec import Perturbation, Workspace
from skills.context import SkillContext
from skills.registry import SkillSpec
from tests.fakes.skill_backend import RecordingBackend


class ScriptedBackend(RecordingBackend):
    """A recording backend whose held brick and clutch connections a test sets."""

    def __init__(self) -> None:
        super().__init__()
        self.held: str | None = None
        self.connected: dict[str, list[str]] = {}

    def held_brick(self) -> str | None:
        """What the test says is in the gripper."""
        return self.held

    def world_state(self) -> WorldState:
        """Bricks b1, b2 with the connections the test set."""
        return WorldState(sim_time_s=self.sim_time_s, bricks=[
            BrickState(id=b, part="3001", color=4, position=(0.0, 0.0, 0.0), quaternion=(1.0, 0.0, 0.0, 0.0),
                       held=self.held == b, connected_to=self.connected.get(b, [])) for b in ("b1", "b2")])


def _noop(ctx: SkillContext) -> None:
    """Does nothing (a stand-in skill)."""


NOOP = SkillSpec("noop", _noop, ("task",))


@pytest.fixture
def ctx() -> SkillContext:
    return SkillContext(backend=ScriptedBackend(), workspace=Workspace())


def test_held_and_placed_triggers(ctx: SkillContext) -> None:
    backend = ctx.backend
    assert isinstance(backend, ScriptedBackend)
    ctx.perturbations = [
        Perturbation(kind="drop_held", after_skill_calls=0, when="held", when_brick="b2"),
        Perturbation(kind="displace_brick", after_skill_calls=0, brick_id="b1", offset_m=(0.1, 0.0),
                     when="placed", when_brick="b1"),
    ]
    for _ in range(3):
        ctx.invoke(NOOP, (), {})
    assert backend.events == []  # neither brick held nor placed yet
    backend.held = "b1"
    backend.connected["b1"] = ["ground"]
    ctx.invoke(NOOP, (), {})
    assert backend.events == []  # b1 in the hand is not placed, even if the clutch still touches
    backend.held = None
    ctx.invoke(NOOP, (), {})
    assert backend.events == [("displace", "b1", (0.1, 0.0))] and ctx.calls[-1].disturbed == ["displace_brick"]
    backend.held = "b2"
    ctx.invoke(NOOP, (), {})
    ctx.invoke(NOOP, (), {})
    assert backend.events[1:] == [("drop_held",)]  # once
    assert [c.disturbed for c in ctx.calls] == [[], [], [], [], ["displace_brick"], ["drop_held"], []]


def test_when_needs_its_brick() -> None:
    with pytest.raises(ValueError, match="when and when_brick go together"):
        Perturbation(kind="drop_held", after_skill_calls=0, when="held")
