"""Each skill in the MuJoCo simulator on crafted scenes: success paths and the typed error of each failure."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.lego.assembly import make_brick
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.colors import color
from jarvis_sim.lego.statics import engaged_centre
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, Perturbation, TablePose, TaskSpec, Workspace
from skills.context import SkillContext
from skills.errors import (
    AlreadyHolding,
    Collision,
    GraspFailed,
    InvalidArgument,
    NotGraspable,
    NothingHeld,
    PlacementFailed,
    PlacementOccupied,
    SkillError,
    UnknownBrick,
    Unreachable,
)
from skills.libraries import bind
from tests.fakes.lego_tasks import stack_task

pytestmark = pytest.mark.render  # observe() renders the top camera

Skills = dict[str, Callable[..., Any]]


class Session:
    """A loaded scene with both skill libraries bound to one context."""

    def __init__(self, task: TaskSpec):
        self.task = task
        self.backend: Backend = make_backend("mujoco")
        self.backend.load(task, seed=0)
        self.ctx = SkillContext(backend=self.backend, workspace=task.workspace)
        self.task_skills: Skills = dict(bind("task", self.ctx))
        self.generic: Skills = dict(bind("generic", self.ctx))

    def __getitem__(self, name: str) -> Callable[..., Any]:
        return self.task_skills[name]

    def look(self) -> list[dict[str, Any]]:
        """Park the arm and observe."""
        self["go_home"]()
        out: list[dict[str, Any]] = self["observe"]()
        return out

    def truth(self, brick_id: str) -> tuple[np.ndarray, list[str]]:
        """Ground-truth bottom-face centre (mm) and clutch partners of a brick."""
        b = self.backend.world_state().by_id()[brick_id]
        return np.asarray(b.position) * 1000.0, list(b.connected_to)

    def seen_as(self, descriptors: list[dict[str, Any]], brick_id: str) -> dict[str, Any]:
        """The descriptor lying over a ground-truth brick (nearest in the plane, within 3 mm)."""
        p, _ = self.truth(brick_id)
        best = min(descriptors, key=lambda d: math.hypot(d["x_mm"] - p[0], d["y_mm"] - p[1]))
        assert math.hypot(best["x_mm"] - p[0], best["y_mm"] - p[1]) < 3.0, f"{brick_id} not seen"
        return best


@pytest.fixture
def open_session() -> Iterator[Callable[[TaskSpec], Session]]:
    opened: list[Session] = []

    def make(task: TaskSpec) -> Session:
        s = Session(task)
        opened.append(s)
        return s

    yield make
    for s in opened:
        s.backend.close()


def crafted(task_id: str, initial: list[Any], actions: list[ActionBrick], ws: Workspace | None = None,
            baseplate: bool = False) -> TaskSpec:
    """A one-step task from hand-placed bricks."""
    return TaskSpec(id=task_id, source_assembly="crafted", initial=initial, action_bricks=actions,
                    workspace=ws or Workspace(), time_budget_s=60.0, baseplate=baseplate,
                    manual_steps=[ManualStep(index=0, brick_ids=[a.id for a in actions])])


def expected_size(part_number: str) -> list[int]:
    p = part(part_number)
    return [max(p.width, p.depth), min(p.width, p.depth)]


def test_observe_finds_every_brick_with_size_and_colour(open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 2, baseplate=True))
    seen = s.look()
    assert len(seen) == 4 and len({d["id"] for d in seen}) == 4
    for b in s.backend.world_state().bricks:
        d = s.seen_as(seen, b.id)
        assert d["size"] == expected_size(b.part) and d["color"] == color(b.color).name, (b.id, d)
        assert d["height"] == "brick" and d["top_z_mm"] == pytest.approx(9.6, abs=0.5)
        loose = b.id.startswith("a")
        assert d["in_structure"] is not loose and d["free_to_grasp"] is loose
    loose_ids = {d["id"] for d in s["find_bricks"](loose_only=True)}
    assert loose_ids == {s.seen_as(seen, a.id)["id"] for a in s.task.action_bricks}
    assert [d["id"] for d in s["find_bricks"](color="GREEN", size=(2, 4))] == [s.seen_as(seen, "a00")["id"]]
    assert s["observe"]() == seen  # nothing moved: the same ids and estimates


def test_pick_lifts_and_place_on_seats_on_the_studs(open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 1, baseplate=True))
    seen = s.look()
    brick, support = s.seen_as(seen, "a00")["id"], s.seen_as(seen, "s001")["id"]
    picked = s["pick"](brick)
    assert picked["brick"] == brick and s.backend.held_brick() == "a00"
    assert s.truth("a00")[0][2] > 40.0  # lifted off the table
    placed = s["place_on"](support, 0, 0, 0)
    assert placed["seated"] and placed["error_mm"] < 1.0
    pos, partners = s.truth("a00")
    support_pos, _ = s.truth("s001")
    assert "s001" in partners and s.backend.held_brick() is None
    assert np.linalg.norm(pos - support_pos - np.array([0.0, 0.0, 9.6])) < 0.5  # square on top of it
    # The support is now hidden under it; its neighbour s000 (lattice x 0..3) keeps its id and frames the result.
    neighbour = s.seen_as(s["observe"](), "s000")
    assert neighbour["id"] == s.seen_as(seen, "s000")["id"]
    assert s["where_is"](placed["brick"], neighbour["id"]) == {"stud_x": 4, "stud_y": 0, "rotation": 0, "level": 0}
    assert all(c.ok for c in s.ctx.calls)


def test_place_at_bridging_two_supports_seats(open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 1, baseplate=True))
    seen = s.look()
    target = s.task.action_bricks[0].target
    s["pick"](s.seen_as(seen, "a00")["id"])
    s["place_at"](target.x, target.y, target.z, target.yaw % 2)
    _pos, partners = s.truth("a00")
    assert {"s000", "s001"} <= set(partners)


def test_skill_errors_that_need_no_motion(open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 2, baseplate=True))
    seen = s.look()
    support = s.seen_as(seen, "s000")["id"]
    first, second = s.seen_as(seen, "a00")["id"], s.seen_as(seen, "a01")["id"]
    for call in (lambda: s["place_on"](support, 0, 0, 0), lambda: s["place_at"](0, 0, 3),
                 lambda: s["place"]({"x_mm": 450, "y_mm": -190, "z_mm": 19.2})):
        with pytest.raises(NothingHeld):
            call()
    with pytest.raises(UnknownBrick, match="p99"):
        s["pick"]("p99")
    s["pick"](first)
    with pytest.raises(AlreadyHolding):
        s["pick"](second)
    with pytest.raises(InvalidArgument, match="rotation"):
        s["place_on"](support, 0, 0, 5)
    # The target studs are taken by s000 (lattice corner (0, 0), level 0).
    with pytest.raises(PlacementOccupied, match=support):
        s["place_at"](0, 0, 0)
    with pytest.raises(PlacementOccupied):
        s["place_on"]("ground", 1, 0, 0)
    # 1.6 m away along x: no arm configuration reaches it; the arm refuses before moving.
    with pytest.raises(Unreachable):
        s["place_at"](150, 0, 0)
    assert s.backend.held_brick() == "a00"  # every refusal kept the brick in the gripper
    assert [c.error_kind for c in s.ctx.calls if not c.ok] == [
        "nothing_held", "nothing_held", "nothing_held", "unknown_brick", "already_holding", "invalid_argument",
        "placement_occupied", "placement_occupied", "unreachable"]


def test_a_brick_under_another_brick_is_not_graspable(open_session: Callable[[TaskSpec], Session]) -> None:
    # The lattice moved into the staging area: a 2x2 sits on a 2x4 there, across its middle.
    ws = Workspace(lattice_origin=(0.44, 0.26, 0.0))
    initial = [make_brick("s000", "3001", 1, 0, 0, 0), make_brick("s001", "3003", 14, 1, 0, 3)]
    task = crafted("under", initial, [ActionBrick(start=TablePose(x=0.40, y=0.34), target=make_brick(
        "a00", "3001", 4, 0, 0, 6))], ws)
    s = open_session(task)
    seen = s.look()
    under = next(d for d in seen if d["color"] == "blue")
    assert not under["free_to_grasp"]
    with pytest.raises(NotGraspable, match="covered"):
        s["pick"](under["id"])
    assert s.backend.held_brick() is None


def test_a_brick_with_a_neighbour_too_close_is_not_graspable(open_session: Callable[[TaskSpec], Session]) -> None:
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.24), target=make_brick("a00", "3001", 4, 0, 0, 0)),
               ActionBrick(start=TablePose(x=0.45, y=0.2565), target=make_brick("a01", "3001", 1, 4, 0, 0))]
    s = open_session(crafted("neighbour", [], actions))
    seen = s.look()
    red = s.seen_as(seen, "a00")
    with pytest.raises(NotGraspable, match="neighbour"):
        s["pick"](red["id"])
    with pytest.raises(NotGraspable):
        s["grasp_plan"](red["id"])


def test_a_placement_off_the_studs_fails_and_names_the_brick_to_pick_again(
        open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 1, baseplate=True))
    seen = s.look()
    brick, support = s.seen_as(seen, "a00")["id"], s.seen_as(seen, "s001")["id"]
    s["pick"](brick)
    pose = dict(s["placement"](support, brick, 0, 0, 0)["pose"])
    pose["x_mm"] += 4.0  # half a stud: the brick rests on the stud tops
    with pytest.raises(PlacementFailed, match="not seated") as info:
        s["place"](pose)
    _pos, partners = s.truth("a00")
    assert not partners and s.backend.held_brick() is None and s.ctx.held is None
    now = s.ctx.perceived.descriptors
    renamed = re.search(r"It is now (p\d+)", info.value.message)
    assert renamed is not None and renamed.group(1) == s.seen_as([d.model_dump() for d in now.values()], "a00")["id"]


def test_a_placement_without_studs_below_fails(open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 1, baseplate=True))
    seen = s.look()
    s["pick"](s.seen_as(seen, "a00")["id"])
    with pytest.raises(PlacementFailed, match="high"):
        s["place_at"](0, 10, 6)  # two bricks up, over empty baseplate: it falls
    assert s.ctx.held is None


def test_a_brick_moved_after_observation_fails_the_grasp_then_can_be_picked(
        open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 1, baseplate=True))
    # After go_home and observe, the brick is pushed 5 cm away: the fingers close on air.
    s.ctx.perturbations = [Perturbation(kind="displace_brick", after_skill_calls=2, brick_id="a00",
                                        offset_m=(0.05, 0.0))]
    seen = s.look()
    with pytest.raises(GraspFailed, match="observe"):
        s["pick"](s.seen_as(seen, "a00")["id"])
    assert s.ctx.held is None and s.backend.held_brick() is None
    seen = s.look()
    s["pick"](s.seen_as(seen, "a00")["id"])
    assert s.backend.held_brick() == "a00"


def test_a_brick_dropped_after_the_pick_fails_the_placement(open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 1, baseplate=True))
    s.ctx.perturbations = [Perturbation(kind="drop_held", after_skill_calls=3)]  # right before the place
    seen = s.look()
    support = s.seen_as(seen, "s001")["id"]
    s["pick"](s.seen_as(seen, "a00")["id"])
    assert s.backend.held_brick() == "a00"
    with pytest.raises(SkillError) as info:
        s["place_on"](support, 0, 0, 0)
    assert info.value.kind in ("grasp_failed", "placement_failed")
    assert s.ctx.held is None and s.backend.held_brick() is None
    _pos, partners = s.truth("a00")
    assert "s001" not in partners
    seen = s.look()  # the dropped brick is found again and can be picked
    s["pick"](s.seen_as(seen, "a00")["id"])
    assert s.backend.held_brick() == "a00"


def test_a_slipped_brick_is_reported_as_a_grasp_failure(open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 1, baseplate=True))
    s.ctx.perturbations = [Perturbation(kind="drop_held", after_skill_calls=3)]
    seen = s.look()
    support = s.seen_as(seen, "s001")["id"]
    s["pick"](s.seen_as(seen, "a00")["id"])
    with pytest.raises(GraspFailed) as info:
        s["place_on"](support, 0, 0, 0)
    assert support not in info.value.message


def test_generic_library_round_trips(open_session: Callable[[TaskSpec], Session]) -> None:
    s = open_session(stack_task(2, 1, baseplate=True))
    g = s.generic
    joints = g["get_joint_state"]()
    assert len(joints["positions_rad"]) == 7
    reached = g["move_ee"](450.0, 100.0, 120.0, 30.0)
    pose = g["get_ee_pose"]()
    assert reached == pose
    assert math.hypot(pose["x_mm"] - 450.0, pose["y_mm"] - 100.0) < 1.0 and abs(pose["z_mm"] - 120.0) < 1.0
    assert min(abs(pose["yaw_deg"] - 30.0) % 180.0, 180.0 - abs(pose["yaw_deg"] - 30.0) % 180.0) < 1.0
    assert g["open_gripper"]() > 60.0
    assert g["close_gripper"]() < 2.0  # nothing between the fingers
    with pytest.raises(InvalidArgument, match="z_mm"):
        g["move_ee"](450.0, 100.0, -5.0)
    with pytest.raises(Unreachable):
        g["move_ee"](1500.0, 0.0, 100.0)
    after = g["get_ee_pose"]()
    assert math.hypot(after["x_mm"] - pose["x_mm"], after["y_mm"] - pose["y_mm"]) < 1.0  # refused moves stay put
    assert g["capture_images"]() == {"rgb": "", "depth": ""}  # no image sink: nothing saved
    saved: dict[str, np.ndarray] = {}

    def sink(kind: str, image: np.ndarray) -> str:
        saved[kind] = image
        return f"{kind}_{len(saved)}.png"

    s.ctx.image_sink = sink
    assert g["capture_images"]() == {"rgb": "rgb_1.png", "depth": "depth_2.png"}
    assert saved["rgb"].dtype == np.uint8 and saved["rgb"].shape[2] == 3
    assert saved["depth"].shape == saved["rgb"].shape[:2] and float(saved["depth"].min()) > 0.0
    assert g["go_home"]() == "parked"


def _in_hand_mm(s: Session, brick_id: str) -> np.ndarray:
    """Ground-truth offset (mm) of a held brick's centre from the TCP, in the plane."""
    pos, _ = s.truth(brick_id)
    return pos[:2] - s.backend.robot_state().ee_position[:2] * 1000.0


def test_pick_centres_a_loose_brick_between_the_fingers(open_session: Callable[[TaskSpec], Session]) -> None:
    """Perception puts a brick about half a millimetre off; the fingers square it up on both axes."""
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26, yaw=0.3), target=make_brick("a00", "3003", 4, 4, 4, 0))]
    s = open_session(crafted("centring", [], actions, baseplate=True))
    seen = s.seen_as(s.look(), "a00")
    d = s.ctx.perceived.descriptors[seen["id"]]
    s.ctx.perceived.descriptors[seen["id"]] = d.model_copy(update={"x_mm": d.x_mm + 0.8, "y_mm": d.y_mm - 0.6})
    s["pick"](seen["id"])
    # From 1.0 mm off to within 0.2 mm: 0.1504 mm on an AMD EPYC host, under 0.15 on the hosts CI passed on
    # before (the contact solver's last digits differ between the hosts' SIMD paths).
    assert np.linalg.norm(_in_hand_mm(s, "a00")) < 0.2


def test_place_regrasps_when_neighbours_block_the_fingers(open_session: Callable[[TaskSpec], Session]) -> None:
    """A 2x4 set between two 2x4s along its long sides: only fingers at its ends fit, so place() regrasps."""
    initial = [make_brick("s000", "3001", 1, 4, 2, 0), make_brick("s001", "3001", 1, 4, 6, 0)]
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3001", 4, 4, 4, 0))]
    s = open_session(crafted("between", initial, actions, baseplate=True))
    s["pick"](s.seen_as(s.look(), "a00")["id"])
    placed = s["place_at"](4, 4, 0)
    assert placed["seated"]
    _pos, partners = s.truth("a00")
    assert partners == ["ground"]
    names = [c.name for c in s.ctx.calls]
    assert names[-1] == "place_at" and all(c.ok for c in s.ctx.calls)


def test_place_with_no_room_for_the_fingers_sets_the_brick_down_and_pushes_it_home(
        open_session: Callable[[TaskSpec], Session]) -> None:
    """Neighbours on all four sides: neither grip fits between them, so the brick is let go just above its studs and
    pushed home with the closed fingers over its own footprint (skills/library/push.py); it seats and its
    neighbours stay where they were. (Before set-and-push this placement ended `path_blocked`.)"""
    initial = [make_brick("s000", "3001", 1, 4, 2, 0), make_brick("s001", "3001", 1, 4, 6, 0),
               make_brick("s002", "3001", 1, 0, 4, 0), make_brick("s003", "3001", 1, 8, 4, 0)]
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3001", 4, 4, 4, 0))]
    s = open_session(crafted("boxed-in", initial, actions, baseplate=True))
    before = {b.id: np.array(b.position) for b in s.backend.world_state().bricks if b.id.startswith("s")}
    s["pick"](s.seen_as(s.look(), "a00")["id"])
    s["place_at"](4, 4, 0)
    state = {b.id: b for b in s.backend.world_state().bricks}
    assert s.backend.held_brick() is None and state["a00"].connected_to, state["a00"]
    assert all(np.linalg.norm(np.array(state[k].position) - p) < 0.001 for k, p in before.items())


def test_a_generic_program_driving_through_the_structure_stops_with_collision(
        open_session: Callable[[TaskSpec], Session]) -> None:
    """Sweeping the closed gripper sideways through a wall: the contact reflex stops the arm with `collision`
    naming what it hit, and the bricks it hit stay knocked."""
    wall = [make_brick(f"s{k:03d}", "3001", 1, 4 * (k % 3), 0, 3 * (k // 3)) for k in range(6)]
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3001", 4, 0, 0, 6))]
    s = open_session(crafted("sweep", wall, actions, baseplate=True))
    before = {b.id: np.array(b.position) for b in s.backend.world_state().bricks if b.id.startswith("s")}
    connected = {b.id: b.connected_to for b in s.backend.world_state().bricks}
    g = s.generic
    centre = np.mean([p for p in before.values()], axis=0) * 1000.0
    g["close_gripper"]()
    g["move_ee"](centre[0], centre[1] - 60.0, 40.0)  # beside the wall, clear of it
    g["move_ee"](centre[0], centre[1] - 60.0, 22.0)
    with pytest.raises(Collision, match="hit s0"):
        g["move_ee"](centre[0], centre[1] + 60.0, 22.0)  # straight through the top course (finger tips 12 mm up)
    for _ in range(3):  # a careless program tries again, and again
        with pytest.raises(Collision):
            g["move_ee"](centre[0], centre[1] + 60.0, 22.0)
    s.backend.step(50)
    final = s.backend.world_state().by_id()
    moved = [b for b in before if np.linalg.norm(np.array(final[b].position) - before[b]) > 0.0003]
    assert moved  # what was hit stays where physics left it
    # The reflex stops the arm within a millimetre of pushing: the brick it pried loose is no longer clutched.
    assert any(set(final[b].connected_to) != set(connected[b]) for b in before)


def test_after_a_collision_the_hand_can_back_away(open_session: Callable[[TaskSpec], Session]) -> None:
    """The closed gripper driven down onto a brick stops at 213 N; the contact rings down over the next ticks (82,
    44, 27 N). That is the same collision: charged to the next motion, it stopped go_home() before it could lift
    the hand away (jarvis-v1 random_stack v7-00095/031 and v7-00294/006 ended stuck this way). Driving down again
    still stops."""
    wall = [make_brick(f"s{k:03d}", "3001", 1, 4 * (k % 3), 0, 3 * (k // 3)) for k in range(6)]
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3001", 4, 0, 0, 6))]
    s = open_session(crafted("down-on-top", wall, actions, baseplate=True))
    centre = np.mean([b.position for b in s.backend.world_state().bricks if b.id.startswith("s")], axis=0) * 1000.0
    g = s.generic
    g["close_gripper"]()
    g["move_ee"](centre[0], centre[1], 60.0)
    with pytest.raises(Collision, match="hit s0"):
        g["move_ee"](centre[0], centre[1], 5.0)
    with pytest.raises(Collision, match="hit s0"):
        g["move_ee"](centre[0], centre[1], 5.0)  # pushing on into it
    assert g["go_home"]() == "parked"
    assert s.backend.robot_state().ee_position[2] > 0.2


def test_press_down_seats_a_brick_the_generic_library_set_on_the_studs(
        open_session: Callable[[TaskSpec], Session]) -> None:
    """Released on the studs it stays unclutched; the guarded press clutches it."""
    initial = [make_brick("s000", "3001", 1, 4, 4, 0)]
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3001", 4, 4, 4, 3))]
    s = open_session(crafted("press", initial, actions, baseplate=True))
    s["pick"](s.seen_as(s.look(), "a00")["id"])
    target, _ = s.task.target_world_pose("a00")
    g = s.generic
    g["move_ee"](target[0] * 1000.0, target[1] * 1000.0, 40.0, 0.0)
    g["close_gripper"]()  # the default grip (5 N a finger): the pick's 2 N would let the brick slip at 6 N
    out = g["press_down"](40.0, 12.0)
    # The brick squeezed in the fingers cannot go home while they hold it: the press goes on to the 12 N asked for
    # (past the 1 N that registers a connection, BrickSim's figure in jarvis_sim/lego/clutch_model.py), and the brick
    # snaps in when the gripper opens.
    assert out["contact_z_mm"] > 0 and 1.0 <= out["force_n"] < 13.0
    g["open_gripper"]()
    assert s.truth("a00")[1] == ["s000"]


def watch_every_tick(backend: Backend, observe: Callable[[], None]) -> None:
    """Call `observe` after every control tick the backend steps from now on (the skills step it themselves)."""
    step = backend.step

    def watching(n: int = 1) -> None:
        for _ in range(n):
            step(1)
            observe()

    backend.step = watching  # type: ignore[method-assign]


def test_place_stops_pressing_once_the_brick_seats(open_session: Callable[[TaskSpec], Session]) -> None:
    """A 1x1 seats at about 1 N: the press stops at the give instead of pushing the pads down the seated brick until
    the fingertips land on the support's studs beside it (which pries the structure below)."""
    initial = [make_brick("s000", "3020", 1, 4, 4, 0)]  # a 2x4 plate on the baseplate
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3005", 4, 5, 4, 1))]
    s = open_session(crafted("one-stud", initial, actions, baseplate=True))
    s["pick"](s.seen_as(s.look(), "a00")["id"])
    backend = s.backend
    touched: list[float] = []

    def fingers_on_the_support() -> None:
        force, part_name, obstacle = backend.tool_contact_force()
        if obstacle == "s000" and part_name is not None and part_name.startswith("panda/"):
            touched.append(float(np.linalg.norm(force)))

    watch_every_tick(backend, fingers_on_the_support)
    placed = s["place_at"](4, 5, 1, 0)
    assert placed["seated"]
    assert "s000" in s.truth("a00")[1]
    assert not touched, f"the fingers pressed on the support with up to {max(touched):.1f} N"


def test_a_plate_held_with_the_press_grip_seats_without_pulling_on_the_arm(
        open_session: Callable[[TaskSpec], Session]) -> None:
    """A 2x6 plate needs a 14 N press, so place() squeezes it hard; when it snaps in, the clutch pulls it down into
    its seat. Before the squeeze was eased at the give, that pull hung on the arm (50 N down) and set off the
    reflex: jarvis-v1-buildable wall v7-00116/011 stopped with `collision` on its own plate."""
    initial = [make_brick("s000", "3795", 1, 4, 4, 0)]  # a 2x6 plate on the baseplate
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3795", 4, 4, 4, 1))]
    s = open_session(crafted("plate-on-plate", initial, actions, baseplate=True))
    s["pick"](s.seen_as(s.look(), "a00")["id"])
    backend = s.backend
    pulled: list[float] = []

    def pull_of_the_released_plate() -> None:
        force, _part, obstacle = backend.tool_contact_force()
        if obstacle == "a00" and backend.grasp_locked() is None:
            pulled.append(-float(force[2]))

    watch_every_tick(backend, pull_of_the_released_plate)
    placed = s["place_at"](4, 4, 1, 0)
    assert placed["seated"] and "s000" in s.truth("a00")[1]
    assert all(c.ok for c in s.ctx.calls)
    assert max(pulled, default=0.0) < 10.0, f"the seated plate pulled the hand down with {max(pulled):.1f} N"


def test_the_press_holds_the_brick_over_its_seat_against_the_arms_sideways_give(
        open_session: Callable[[TaskSpec], Session]) -> None:
    """A 2x6 brick was pressed with 14 N (1 N a stud). Under that load the arm's joint stiffness let the tool drift 0.5 mm
    sideways, carrying the brick's corners out of the stud lead-in before the press reached its force (jarvis-v1-
    buildable wall v7-00014/007 left such a brick on the stud tops three times). The press servoes it back; without
    that, this brick is left 0.6 mm off on the stud tops. On three supports it is now pressed with 3.5 N (a seating
    press per connection): the tool is watched from 2 N on."""
    # Three columns of 2x2 bricks, 13 high (the wall stood 42 plates high; low down the arm gives less).
    initial = [make_brick(f"s{k:02d}{i}", "3003", 1, 2 * i, 8, 3 * k) for k in range(13) for i in range(3)]
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "2456", 4, 0, 8, 39))]
    s = open_session(crafted("long-on-three", initial, actions, baseplate=True))
    s["pick"](s.seen_as(s.look(), "a00")["id"])
    backend = s.backend
    drift: list[float] = []
    seat_xy = np.array(s.backend.world_state().by_id()["s121"].position[:2])  # the middle support: the brick's centre

    def drift_under_the_press() -> None:
        if float(backend.tool_contact_force()[0][2]) > 2.0 and backend.grasp_locked() == "a00":
            drift.append(float(np.linalg.norm(backend.robot_state().ee_position[:2] - seat_xy)) * 1000.0)

    watch_every_tick(backend, drift_under_the_press)
    placed = s["place_at"](0, 8, 39, 0)
    assert placed["seated"] and {"s120", "s121", "s122"} <= set(s.truth("a00")[1])
    assert drift and max(drift) < 0.3, f"the tool drifted {max(drift):.2f} mm off the seat under the press"


def test_place_regrasps_when_the_upper_fingers_would_strike_a_taller_neighbour(
        open_session: Callable[[TaskSpec], Session]) -> None:
    """A column four bricks tall two studs beside a 1x2's long side: the pads fit in the gap, the wider upper fingers
    31 mm above the tips do not. place() grips the brick by its ends instead; the column is not touched."""
    initial = [make_brick(f"c{k}", "3004", 1, 4, 7, 3 * k) for k in range(4)]
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3004", 4, 4, 4, 0))]
    s = open_session(crafted("tall-neighbour", initial, actions, baseplate=True))
    column = {b: s.truth(b)[0] for b in ("c0", "c1", "c2", "c3")}
    s["pick"](s.seen_as(s.look(), "a00")["id"])
    placed = s["place_at"](4, 4, 0)
    assert placed["seated"] and s.truth("a00")[1] == ["ground"]
    assert all(c.ok for c in s.ctx.calls)
    for b, before in column.items():
        assert np.linalg.norm(s.truth(b)[0] - before) < 0.3, f"{b} was knocked"


def test_place_presses_an_overhanging_brick_over_the_studs_it_engages(
        open_session: Callable[[TaskSpec], Session]) -> None:
    """place(press_supported=True): a 1x4 taking two studs of a 2x4 and overhanging by two is set down, gripped again
    off its centre, and pressed over the two studs it takes (the TCP is there while the press lasts); it seats."""
    initial = [make_brick("s000", "3001", 1, 4, 4, 0)]
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3010", 4, 6, 4, 3))]
    task = crafted("overhang", initial, actions, baseplate=True)
    s = open_session(task)
    at = engaged_centre(task.target_assembly, "a00", task.workspace.lattice_origin)
    press = (at[0] * 1000.0, at[1] * 1000.0)
    target = np.asarray(task.target_world_pose("a00")[0]) * 1000.0
    assert math.hypot(press[0] - target[0], press[1] - target[1]) > 7.0  # the engaged studs are off the centre
    s["pick"](s.seen_as(s.look(), "a00")["id"])
    lowest: list[tuple[float, float, float]] = []

    def tcp() -> None:
        p = s.backend.robot_state().ee_position * 1000.0
        over_target = math.hypot(p[0] - target[0], p[1] - target[1]) < 20.0  # not where it is set down to regrip
        if over_target and s.backend.held_brick() == "a00" and (not lowest or p[2] < lowest[0][2]):
            lowest[:] = [(float(p[0]), float(p[1]), float(p[2]))]

    watch_every_tick(s.backend, tcp)
    placed = s["place_at"](6, 4, 3, 0, press_supported=True)
    assert placed["seated"] and placed["error_mm"] < 1.0
    assert math.hypot(lowest[0][0] - press[0], lowest[0][1] - press[1]) < 1.5, (lowest, press)
    pos, partners = s.truth("a00")
    assert partners == ["s000"] and math.hypot(pos[0] - target[0], pos[1] - target[1]) < 0.6

    s["pick"](placed["brick"])
    with pytest.raises(InvalidArgument, match="press_supported"):
        s["place"](placed["pose"], press_supported="left")


def test_the_press_yields_sideways_so_a_wall_hanging_from_one_stud_is_not_dragged_over(
        open_session: Callable[[TaskSpec], Session]) -> None:
    """jarvis-v1 v7-00210-wall/047, as built up to its 1x2 b142: the brick bridges two 1x1 bricks on top of a wall
    that hangs from one stud (b069 on b048). Under the press the wall's top shifts a little sideways; a tool held
    rigidly over the target dragged it back by the friction on the studs (0.06 N at 60 mm), which broke b069 off b048
    at 1.9 N, before the 1.96 N seating press, and left b142 on the stud tops. The press yields to what it feels
    (skills.motion.LATERAL_YIELD_M_PER_N): b142 seats and nothing breaks."""
    import jarvis_sim.tasks.families  # noqa: F401  (registers the suites)
    from agent.agents.oracle import build_order
    from jarvis_sim.tasks.registry import load_task

    task = load_task("lego/v7-00210-wall/047")
    assert isinstance(task, TaskSpec)
    target = task.target_assembly
    order = [b for step, b, _ in build_order(task) if step is not None]
    built = [target[b] for b in order[: order.index("b142")]]
    start = next(a.start for a in task.action_bricks if a.id == "b142")
    s = open_session(crafted("wall-047-b142", [*task.initial, *built],
                             [ActionBrick(start=start, target=target["b142"])], ws=task.workspace, baseplate=True))
    partners_before = {b.id: sorted(s.truth(b.id)[1]) for b in task.initial}
    b = target["b142"]
    s["pick"](s.seen_as(s.look(), "b142")["id"])
    placed = s["place_at"](b.x, b.y, b.z, b.yaw % 2)
    assert placed["seated"] and sorted(s.truth("b142")[1]) == ["b124", "b129"]
    assert sorted(s.truth("b069")[1]) == partners_before["b069"]


def test_a_6x8_plate_is_picked_and_a_grasp_wider_than_the_hand_is_a_typed_error(
        open_session: Callable[[TaskSpec], Session]) -> None:
    # Squaring a 6 x 8 plate up would open the fingers 82.7 mm (the hand opens 80): it is grasped as perceived,
    # across its 47.8 mm side. A 1 x 12 brick across its long side (a regrasp) no hand could hold: TooWideForGripper,
    # not the backend's error from set_gripper.
    from skills.errors import TooWideForGripper
    from skills.library.task import _grasp_plan

    plate = ActionBrick(start=TablePose(x=0.46, y=0.30, yaw=0.0), target=make_brick("a00", "3036", 4, 0, 0, 0))
    long = ActionBrick(start=TablePose(x=0.46, y=0.40, yaw=0.0), target=make_brick("a01", "6112", 1, 0, 8, 0))
    s = open_session(crafted("lego/crafted-wide/000", [], [plate, long]))
    looked = s.look()
    seen = s.seen_as(looked, "a00")
    assert seen["size"] == [8, 6]
    with pytest.raises(TooWideForGripper, match=r"is 95.8 mm across its long side.* opens 80 mm at most") as err:
        _grasp_plan(s.ctx, s.seen_as(looked, "a01")["id"], across_long=True)
    assert err.value.kind == "not_graspable" and isinstance(err.value, NotGraspable)
    picked = s["pick"](seen["id"])
    assert picked["brick"] == seen["id"] and s.backend.held_brick() == "a00"
    assert s.truth("a00")[0][2] > 40.0


def test_a_2x8_seats_under_the_arms_biased_force_estimate_without_tripping_the_reflex(
        open_session: Callable[[TaskSpec], Session]) -> None:
    """The arm's force estimate reads a seeded bias of up to 2 N an axis (jarvis_sim/backends/mujoco/wrist_sensor.py);
    the guarded press tares it, seats a 2x8 on a 2x8 and the reflex stays quiet."""
    from jarvis_sim.backends.mujoco.wrist_sensor import wrist_bias

    assert np.abs(wrist_bias(0)).max() > 0.5  # the session's seed reads a bias well above the press's 0.3 N contact
    initial = [make_brick("s000", "3007", 1, 2, 4, 0)]
    actions = [ActionBrick(start=TablePose(x=0.45, y=0.26), target=make_brick("a00", "3007", 4, 2, 4, 3))]
    s = open_session(crafted("2x8-on-2x8", initial, actions, baseplate=True))
    s["pick"](s.seen_as(s.look(), "a00")["id"])
    placed = s["place_at"](2, 4, 3, 0)
    assert placed["seated"] and s.truth("a00")[1] == ["s000"]
    assert all(c.ok for c in s.ctx.calls) and s.backend.collision_event() is None
