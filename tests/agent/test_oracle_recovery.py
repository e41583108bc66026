"""The oracle program's recovery from a failed put_down: its helpers run against scripted skills (what each call
returns or raises is fixed in advance), so the control flow is checked without the simulator."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from agent.agents.oracle import program_helpers
from skills.errors import AlreadyHolding, Collision, GraspFailed, SkillError


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
    exec(program_helpers(), namespace)
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


def _seen(bid: str, x: float, y: float, top: float, size: tuple[int, int] = (2, 1), yaw: float = 0.0,
          in_structure: bool = True, color: str = "red", visible: float = 1.0) -> SimpleNamespace:
    return SimpleNamespace(id=bid, x_mm=x, y_mm=y, top_z_mm=top, size=size, yaw_deg=yaw, color=color,
                           in_structure=in_structure, visible_fraction=visible)


def _placed(helpers: dict[str, Any]) -> None:
    """One red 2x1 built at (400, 0) mm, top 9.6 mm, lattice (3, 4, 0, 0), picked from (100, 50) in staging."""
    helpers["PLACED"].append(("red", (2, 1), (100.0, 50.0), (400.0, 0.0), (3, 4, 0, 0), 9.6, False, (2, 1)))
    helpers["PLACES"].extend([((2, 1), 400.0, 0.0, 9.6), ((2, 1), 440.0, 0.0, 9.6)])


def test_repair_leaves_a_brick_that_is_seen_in_place_or_hidden_under_another() -> None:
    for view in ([_seen("p1", 400.3, -0.2, 9.7)], [_seen("p2", 404.0, 0.0, 19.2, size=(4, 2), yaw=90.0)]):
        skills = ScriptedSkills(observe=[view])
        helpers = _helpers(skills)
        _placed(helpers)
        helpers["repair"]()
        assert skills.calls == ["go_home", "observe"]


def test_repair_puts_back_a_knocked_brick_found_off_its_place() -> None:
    # Knocked 60 mm along +x and lying on the table tilted (top 7 mm); a red 2x1 at the other target place stays.
    view = [_seen("p1", 460.0, 0.5, 7.0, yaw=20.0), _seen("p2", 440.0, 0.0, 9.6)]
    after = [_seen("p1", 400.0, 0.0, 9.6), _seen("p2", 440.0, 0.0, 9.6)]
    skills = ScriptedSkills(observe=[view, view, after], place_at=[None])
    helpers = _helpers(skills)
    _placed(helpers)
    picked: list[str] = []
    helpers["pick"] = lambda brick: picked.append(brick)
    helpers["repair"]()
    assert picked == ["p1"]  # not p2, which sits at a place of the target
    assert skills.calls == ["go_home", "observe", "observe", "place_at", "go_home", "observe"]
    assert len(helpers["PLACED"]) == 1  # back in the list, at its place


def test_repair_takes_a_staged_brick_only_where_the_placed_one_started() -> None:
    # Nothing at the goal; a red 2x1 waits in the staging area 30 mm from the goal (a later step's) and one lies
    # back at the start: only that one is the brick that was moved.
    for view, expect in (([_seen("p1", 430.0, 0.0, 9.6, in_structure=False)], []),
                         ([_seen("p1", 430.0, 0.0, 9.6, in_structure=False),
                           _seen("p2", 100.5, 50.0, 9.6, in_structure=False)], ["p2"])):
        skills = ScriptedSkills(observe=[view, view, view], place_at=[None])
        helpers = _helpers(skills)
        _placed(helpers)
        picked: list[str] = []
        helpers["pick"] = lambda brick, picked=picked: picked.append(brick)
        helpers["repair"]()
        assert picked == expect


def test_a_brick_hidden_under_two_bricks_that_meet_over_its_centre_is_in_place() -> None:
    # A 4x1 under two 2x1s whose ends meet over its centre (found on jarvis-v1-perturbed wall/002: a centre-only
    # check called it knocked off and tried to pick a brick of the finished wall).
    under = ("blue", (4, 1), (424.0, -124.0), (432.0, -124.0), (0, 10, 0, 0), 9.6, False, (4, 1))
    above = [_seen("p1", 424.0, -124.0, 19.2), _seen("p2", 440.0, -124.0, 19.2)]
    skills = ScriptedSkills(observe=[above])
    helpers = _helpers(skills)
    assert helpers["shows"](above, under)
    assert not helpers["shows"](above[:1], under)  # one end of it shows nothing at its top: it is gone


def test_a_brick_is_put_back_once_and_left_when_it_leaves_its_place_again() -> None:
    # jarvis-v1's random_stack/031: a 4x1 on a place that does not hold slid off after every repair, and each
    # later look tried it again, knocking its neighbours with the fingers.
    gone = [_seen("p1", 460.0, 0.5, 7.0, yaw=20.0)]
    skills = ScriptedSkills(observe=[gone, gone, gone, gone, gone], place_at=[None])
    helpers = _helpers(skills)
    _placed(helpers)
    picked: list[str] = []
    helpers["pick"] = lambda brick: picked.append(brick)
    helpers["repair"]()
    assert picked == ["p1"] and len(helpers["PLACED"]) == 1  # put back, and remembered in its place again
    helpers["repair"]()  # it left again: named and left
    assert picked == ["p1"] and helpers["PLACED"] == []


def test_a_partly_hidden_brick_is_never_taken_for_a_knocked_one_and_repair_picks_once() -> None:
    # jarvis-v1-buildable vehicle/012 and jarvis-v2 random_stack/072: a brick under others, its outline short of its
    # footprint, seemed off its place; repair() took it for the knocked one and tried its pick three times.
    hidden = [_seen("p1", 404.0, 0.5, 9.6, visible=0.4)]
    assert _helpers(ScriptedSkills())["knocked"](hidden, "red", (2, 1), (100.0, 50.0), (400.0, 0.0)) is None
    gone = [_seen("p1", 460.0, 0.5, 7.0, yaw=20.0)]
    skills = ScriptedSkills(observe=[gone] * 4, pick=[GraspFailed("slipped")])
    helpers = _helpers(skills)
    _placed(helpers)
    helpers["repair"]()
    assert skills.calls.count("pick") == 1


def test_what_the_camera_cannot_see_counts_as_in_place_what_shows_lower_does_not() -> None:
    on_top = ("red", (2, 1), (100.0, 50.0), (400.0, 0.0), (3, 4, 2, 0), 16.0, False, (2, 1))
    helpers = _helpers(ScriptedSkills())
    # Under a brick whose outline covers one stud only (the other outline, partly hidden, is short): in place.
    assert helpers["shows"]([_seen("p1", 404.0, 0.0, 25.6, size=(1, 1))], on_top)
    # Its support's top seen over a stud: gone. Resting on stud tops (1.7 mm high): gone.
    assert not helpers["shows"]([_seen("p1", 400.0, 0.0, 9.6, size=(4, 2))], on_top)
    assert not helpers["shows"]([_seen("p1", 400.5, 0.0, 17.7)], on_top)
    # On level 0 nothing seen over it means the table: gone.
    assert not helpers["shows"]([], ("red", (2, 1), (100.0, 50.0), (400.0, 0.0), (3, 4, 0, 0), 9.6, False, (2, 1)))
