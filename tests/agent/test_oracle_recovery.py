"""The oracle program's recovery from a failed put_down: its helpers run against scripted skills (what each call
returns or raises is fixed in advance), so the control flow is checked without the simulator."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from agent.agents.oracle import MAX_TRIES, PROGRAM_HELPERS
from skills.errors import AlreadyHolding, Collision, SkillError


class ScriptedSkills:
    """Skills whose outcomes come from per-skill queues (an exception is raised, anything else returned); every call
    is logged by name."""

    def __init__(self, **script: list[Any]) -> None:
        self.script = script
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any) -> Any:
            self.calls.append(name)
            queue = self.script.get(name, [])
            outcome = queue.pop(0) if queue else None
            if isinstance(outcome, Exception):
                raise outcome
            return outcome

        return call


def _helpers(skills: ScriptedSkills) -> dict[str, Any]:
    names = ("observe", "go_home", "pick", "place_at", "put_down")
    namespace: dict[str, Any] = {"SkillError": SkillError, **{n: getattr(skills, n) for n in names}}
    exec(PROGRAM_HELPERS.replace("{MAX_TRIES}", str(MAX_TRIES)), namespace)
    return namespace


def _spot(x: float, y: float) -> SimpleNamespace:
    return SimpleNamespace(pose=SimpleNamespace(x_mm=x, y_mm=y))


def test_a_put_down_stopped_by_the_reflex_is_tried_again_after_a_fresh_look() -> None:
    skills = ScriptedSkills(put_down=[Collision("the held brick hit p5"), _spot(300.0, 200.0)])
    spot = _helpers(skills)["set_aside"]()
    assert spot is not None and spot.pose.x_mm == 300.0
    assert skills.calls == ["put_down", "go_home", "observe", "put_down"]


def test_set_aside_gives_up_after_two_failed_put_downs() -> None:
    skills = ScriptedSkills(put_down=[Collision("hit p5"), Collision("hit p5")])
    assert _helpers(skills)["set_aside"]() is None
    assert skills.calls.count("put_down") == 2


def test_a_brick_left_in_the_hand_is_set_aside_before_the_next_pick() -> None:
    brick = SimpleNamespace(id="p1", x_mm=100.0, y_mm=50.0, size=(2, 1), color="red", top_z_mm=9.6)
    skills = ScriptedSkills(observe=[[brick]] * 6, pick=[AlreadyHolding("holding p5"), None], place_at=[None])
    assert _helpers(skills)["build"]("red", (2, 1), (100.0, 50.0), (400.0, 0.0), (3, 4, 0, 0)) is True
    # The held brick goes down before the pick is tried again.
    assert skills.calls[:3] == ["observe", "pick", "put_down"]
    assert skills.calls[-2:] == ["pick", "place_at"]
