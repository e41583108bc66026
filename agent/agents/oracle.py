"""The oracle: an explicitly privileged agent that reads the task's target and writes the program an
ideal agent would write against the task-oriented skill library. It is the upper bound of every table.

The program runs in the sandbox like any agent's; only its author saw the ground truth.
"""

from __future__ import annotations

import json
import math

import numpy as np

from agent.agents.base import AnswerTurn
from agent.agents.hand_room import grip_order
from agent.agents.registry import register_agent
from agent.agents.views import AssemblyView, PlanningView, target_of
from agent.config import AgentConfig
from jarvis_sim.lego.assembly import Assembly, LatticeBrick, brick_pose_in_world
from jarvis_sim.lego.colors import color
from jarvis_sim.lego.press_order import SEAT_PRESS_N, Structure, press_point
from jarvis_sim.lego.units import PLATE_HEIGHT_M
from jarvis_sim.tasks.spec import TaskSpec

MAX_TRIES = 3
REPAIR_REACH_MM = 150.0  # how far from its place repair() looks for a knocked brick (a 1.5 m/s knock slides ~110 mm)

PROGRAM_HELPERS = '''\
import math


def nearest(bricks, color, size, x, y, radius=15.0):
    \"\"\"Id of the observed brick nearest to (x, y) mm: same size within `radius` first (the colour only breaks
    ties, lighting can misname it), then any brick within 6 mm; None when nothing is there.\"\"\"
    best = None
    best_key = None
    for b in bricks:
        d = ((b.x_mm - x) ** 2 + (b.y_mm - y) ** 2) ** 0.5
        same_size = tuple(b.size) == size
        if (same_size and d < radius) or d < 6.0:
            key = (0 if same_size else 1, 0 if b.color == color else 1, d)
            if best_key is None or key < best_key:
                best = b
                best_key = key
    return None if best is None else best.id


def unseated_near(bricks, before, size, x, y):
    \"\"\"The trace of a failed placement: a brick of this size within 25 mm of (x, y) that is not seated (its top
    is not at a whole number of plates: it rests on stud tops or lies tilted), else one of this size that was
    not there before the attempt (`before`: the observation taken before the pick).\"\"\"
    near = [b for b in bricks if tuple(b.size) == size and ((b.x_mm - x) ** 2 + (b.y_mm - y) ** 2) ** 0.5 < 25.0]
    for b in near:
        if abs(b.top_z_mm / 3.2 - round(b.top_z_mm / 3.2)) > 0.15:
            return b.id
    for b in near:
        new = True
        for o in before:
            if abs(o.x_mm - b.x_mm) < 1.0 and abs(o.y_mm - b.y_mm) < 1.0 and abs(o.top_z_mm - b.top_z_mm) < 1.0:
                new = False
        if new:
            return b.id
    return None


def locate(bricks, before, color, size, start, where):
    \"\"\"The brick to pick: the one expected at `start`, or after a failed attempt the trace near `where`.\"\"\"
    if where != start:
        brick = unseated_near(bricks, before, size, where[0], where[1])
        if brick is not None:
            return brick
    return nearest(bricks, color, size, start[0], start[1])


def set_aside():
    \"\"\"Put the held brick down in the staging area; a put-down stopped on the way (the reflex: the brick or the hand
    touched something) is tried once more from the park pose with a fresh look, so the hand is not left holding a brick
    that every later pick would refuse (already_holding). The spot it lies on, or None when it is still held.\"\"\"
    for _ in range(2):
        try:
            return put_down()
        except SkillError as e:
            print("put down failed:", e)
            if e.kind == "nothing_held":
                return None
            go_home()
            observe()
    return None


def build(color, size, start, goal, lattice, press_supported=False, top=None, extent=None, tries={MAX_TRIES}):
    \"\"\"Pick the brick expected near `start` (mm) and place it on the build area's stud `lattice` (x, y, level,
    rotation), pressed over the studs it takes from below when `press_supported`. After a failed attempt the brick
    is looked for again, near its goal (mm) first, and the attempt repeated. A brick still in the hand after a refused
    placement is put down; only a placement stopped by a collision is tried again, with the brick looked for where
    it was put. A brick placed with its `top` (mm above the table) and `extent` (studs along x, y) is remembered in
    PLACED, for repair().\"\"\"
    where = start
    before = []
    for attempt in range(tries):
        bricks = observe()
        brick = locate(bricks, before, color, size, start, where)
        if brick is None:
            go_home()  # the arm may hide it from the camera: look again from the park pose
            bricks = observe()
            brick = locate(bricks, before, color, size, start, where)
        if brick is None:
            print("cannot find the", color, size, "brick")
            return False
        before = bricks
        try:
            pick(brick)
        except SkillError as e:
            print("pick failed:", e)
            if e.kind == "already_holding":
                set_aside()  # a brick left in the hand by an earlier failure: free the hand first
            go_home()  # the next look is taken with the arm out of the camera's view
            where = start
            continue
        try:
            place_at(lattice[0], lattice[1], lattice[2], lattice[3], press_supported)
            if top is not None:
                PLACED.append((color, size, start, goal, lattice, top, press_supported, extent))
            return True
        except SkillError as e:
            print("place failed:", e)
            where = goal
            if e.kind in ("placement_occupied", "unreachable", "path_blocked", "collision"):
                spot = set_aside()  # still in the hand
                if spot is not None:
                    start = (spot.pose.x_mm, spot.pose.y_mm)  # look for it there
                go_home()  # the next look is taken with the arm out of the camera's view
                where = start
                if e.kind != "collision":
                    return False  # nothing at the target has changed: it would be refused again
    return False


PLACED = []  # (colour, size, start, goal, lattice, top, press, extent) of each brick standing where it was built
PLACES = []  # (size, x, y, top) mm of every place of the target near the build: where a brick belongs
REPAIRED = []  # lattices of the bricks repair() built again: each is put back once, never twice


def tops_over(bricks, x, y):
    \"\"\"The top heights (mm) of the observed bricks whose top face lies over (x, y) mm.\"\"\"
    out = []
    for b in bricks:
        a = math.radians(b.yaw_deg)
        dx, dy = x - b.x_mm, y - b.y_mm
        along, across = dx * math.cos(a) + dy * math.sin(a), -dx * math.sin(a) + dy * math.cos(a)
        if abs(along) < b.size[0] * 4.0 - 2.0 and abs(across) < b.size[1] * 4.0 - 2.0:
            out.append(b.top_z_mm)
    return out


def shows(bricks, entry):
    \"\"\"False when the camera sees a PLACED brick gone from its place: over a stud of its footprint it sees a lower top
    or one between its top and a plate above it (a brick lifted off its studs or tilted), and nothing at its top or
    above; for a brick on level 0, also when nothing is seen there at all. Over a stud where no brick's outline is seen
    (a partly hidden brick's outline is short of its footprint) nothing is known: it counts as in place.\"\"\"
    size, goal, lattice, top, extent = entry[1], entry[3], entry[4], entry[5], entry[7]
    for b in bricks:  # seen where it stands
        if tuple(b.size) == size and abs(b.x_mm - goal[0]) < 3.0 and abs(b.y_mm - goal[1]) < 3.0 and abs(b.top_z_mm - top) < 0.8:
            return True
    for i in range(extent[0]):
        for j in range(extent[1]):
            tops = tops_over(bricks, goal[0] + (i - (extent[0] - 1) / 2) * 8.0, goal[1] + (j - (extent[1] - 1) / 2) * 8.0)
            if any(abs(t - top) <= 0.8 or t >= top + 2.4 for t in tops):
                continue
            if tops or lattice[2] == 0:
                return False
    return True


def at_a_place(b):
    \"\"\"True when an observed brick sits at one of the target's places for its size.\"\"\"
    for size, x, y, top in PLACES:
        if size == tuple(b.size) and abs(b.x_mm - x) < 1.5 and abs(b.y_mm - y) < 1.5 and abs(b.top_z_mm - top) < 0.8:
            return True
    return False


def knocked(bricks, color, size, start, goal):
    \"\"\"Id of the brick of this size that left its place at `goal` (mm), or None: one lying back at its `start` (set
    down there), else the nearest within {REPAIR_REACH_MM} mm of the goal that is outside the staging area or stacked, and at none
    of the target's places (the colour breaks ties). Loose bricks still waiting in the staging area are never taken,
    nor one partly hidden (under others, it still stands in the structure: its outline, short of its footprint, only
    seems off its place).\"\"\"
    best = None
    best_key = None
    for b in bricks:
        if tuple(b.size) != size or at_a_place(b) or b.visible_fraction < 0.9:
            continue
        back = ((b.x_mm - start[0]) ** 2 + (b.y_mm - start[1]) ** 2) ** 0.5 < 6.0 and start != goal
        d = ((b.x_mm - goal[0]) ** 2 + (b.y_mm - goal[1]) ** 2) ** 0.5
        if not back and (not b.in_structure or d > {REPAIR_REACH_MM}):
            continue
        key = (0 if back else 1, 0 if b.color == color else 1, d)
        if best_key is None or key < best_key:
            best = b
            best_key = key
    return None if best is None else best.id


def repair():
    \"\"\"Look from the park pose and put back, lowest first, each brick of PLACED that is no longer where it stood (a
    later press or a collision knocked it, or the support under it, or it was moved): it is looked for (knocked) and
    built again. Each is put back once at most: a brick that leaves its place again, or that could not be found or
    built, is named and left (on a place that does not hold, trying again only takes more apart).\"\"\"
    go_home()
    bricks = observe()
    missing = [p for p in PLACED if not shows(bricks, p)]
    for entry in sorted(missing, key=lambda p: p[5]):
        color, size, start, goal, lattice, top, press, extent = entry
        PLACED.remove(entry)
        brick = None if lattice in REPAIRED else knocked(bricks, color, size, start, goal)
        print("not in place:", color, size, "at", lattice, "- putting it back" if brick else "- left")
        if brick is None:
            continue
        REPAIRED.append(lattice)
        spot = [b for b in bricks if b.id == brick][0]
        build(color, size, (spot.x_mm, spot.y_mm), goal, lattice, press, top, extent, tries=1)  # once: no hammering
        go_home()
        bricks = observe()
'''


def program_helpers() -> str:
    """The helper functions every oracle program starts with, their constants filled in."""
    return PROGRAM_HELPERS.replace("{MAX_TRIES}", str(MAX_TRIES)).replace("{REPAIR_REACH_MM}", f"{REPAIR_REACH_MM:g}")


def oracle_plan(task: TaskSpec) -> str:
    """The exact plan of a task in the planning answer format (evaluator.plan_answers), from its targets."""
    by_id = {a.id: a.target for a in task.action_bricks}
    entries = []
    for step in task.manual_steps:
        for bid in step.brick_ids:
            t = by_id[bid]
            (x, y, z), _ = task.target_world_pose(bid)
            entries.append({
                "step": step.index + 1, "brick_id": bid, "part": t.part, "color": color(t.color).name,
                "x_mm": round(x * 1000, 3), "y_mm": round(y * 1000, 3), "z_mm": round(z * 1000, 3),
                "yaw_deg": round(math.degrees(t.yaw_rad), 3),
            })
    return "```json\n" + json.dumps({"plan": entries}, indent=1) + "\n```"


def oracle_program(task: TaskSpec, leave_out_unbuildable: bool = False) -> str:
    """The whole-task program: each brick build_order builds is located, picked and placed at its lattice pose
    (with retries after a failed attempt, as the skills' error messages advise), pressed over the studs it engages
    where build_order says so (place_at's press_supported). The bricks it leaves out (`leave_out_unbuildable`) are
    named in comments and in the program's output."""
    target = task.target_assembly
    origin = task.workspace.lattice_origin
    starts = {a.id: a.start for a in task.action_bricks}
    lines = [f"# Oracle program for task {task.id} (written from the target: privileged).", program_helpers()]
    lines.append("go_home()  # park the arm so the camera sees the whole table")
    lines += _places(task)
    section = -1
    left_out = []
    for step, bid, press_supported in build_order(task, leave_out_unbuildable):
        b = target[bid]
        if step is None:
            left_out.append(f"{bid} ({color(b.color).name} {_size(b)} at {b.x}, {b.y}, level {b.z})")
            continue
        if step != section:
            if section >= 0:
                lines.append("repair()  # what this step's presses knocked off goes back before the next step")
            section = step
            lines.append(f"# manual step {step + 1}")
        start = starts[bid]
        c, size, goal, lattice, top = _remembered(b, origin)
        press = ", press_supported=True" if press_supported else ""
        lines.append(
            f"build({c!r}, {size}, ({start.x * 1000:.2f}, {start.y * 1000:.2f}), {goal}, {lattice}{press}, top={top}, "
            f"extent={b.extent})"
        )
    if section >= 0:
        lines.append("repair()")
    if left_out:
        lines.append("# Left out: their seating press would break the structure (StableLego statics), or they rest")
        lines.append("# on such a brick.")
        lines += [f"print({'left out: ' + name!r})" for name in left_out]
    lines.append("go_home()")
    return "\n".join(lines) + "\n"


def build_order(task: TaskSpec, leave_out_unbuildable: bool = False) -> list[tuple[int | None, str, bool]]:
    """(manual step index, brick id, press over the engaged studs) for each action brick, in the order the oracle
    builds them: grip_order over the whole task (the manual's order, but a brick is moved ahead of the one that would
    leave its fingers no room). Each is pressed at its centre, or over the studs it engages where only that press keeps
    the structure whole, with everything's weight, by StableLego statics (jarvis_sim/lego/press_order.press_point).

    With `leave_out_unbuildable`, a brick that statics says cannot take its seating press anywhere without
    overloading the structure built so far is left out (step None), with every brick that rests on it: a real
    press there breaks clutch connections, and what falls takes placed bricks with it (measured on jarvis-v1 before
    the statics counted weight: the presses of 39 of 42 such bricks failed so, and trying them last instead of in
    their step still knocked the bricks built before them)."""
    target = task.target_assembly
    origin = task.workspace.lattice_origin
    step_of = {bid: step.index for step in task.manual_steps for bid in step.brick_ids}
    present = list(task.initial)
    order: list[tuple[int | None, str, bool]] = []
    left_out: list[str] = []
    for bid in grip_order([target[i] for step in task.manual_steps for i in step.brick_ids], present, target, origin,
                          step_of):
        at = press_point(Assembly([*present, target[bid]], baseplate=task.baseplate), bid, origin, task.baseplate)
        if leave_out_unbuildable and (at is False or any(s in left_out for s in target.supports(bid))):
            left_out.append(bid)
            continue
        over_studs = isinstance(at, tuple) or (at is None and _pivots_at_centre(task, present, target[bid]))
        present.append(target[bid])
        order.append((step_of[bid], bid, over_studs))
    return order + [(None, bid, False) for bid in left_out]


PIVOT_MARGIN_STUDS = 0.25  # 2 mm: skills/library/placing.py's DROP_STABLE_MARGIN_MM, in studs


def _pivots_at_centre(task: TaskSpec, present: list[LatticeBrick], b: LatticeBrick) -> bool:
    """Whether b's centre lies within PIVOT_MARGIN_STUDS of the edge of the studs it engages below (or beyond it), and
    statics admits its press over those studs: pressed at its centre, such a brick turns about its support's edge
    instead of going down its studs. Measured on jarvis-v2 (oracle-v2b): of 36 such bricks pressed at the centre 29
    seated, of 40 pressed over their studs 36, of 159 others pressed at the centre 156; stairs/016's b076, a 2x2 half
    on a 2x4, tipped off its one column of studs and fell to the table."""
    structure = Structure(task.baseplate, task.workspace.lattice_origin)
    for p in present:
        structure.add(p)
    if b.z == 0 or structure.on_solid(b):
        return False
    structure.add(b)
    k = len(structure.bricks) - 1
    if len(structure.engaged[k]) < 2 or min(b.extent) < 2:
        return False  # a 1-wide brick is regripped near its end to press there: vehicle/064 lost a connection so
    cells = np.array(structure.engaged[k], dtype=float)
    low, high = cells.min(axis=0) + PIVOT_MARGIN_STUDS, cells.max(axis=0) + 1.0 - PIVOT_MARGIN_STUDS
    centre = np.array([b.x + b.extent[0] / 2, b.y + b.extent[1] / 2])
    if np.all((low < centre) & (centre < high)):
        return False
    force = len(structure.joints[k]) * SEAT_PRESS_N
    return structure.press_admissible(k, force, structure.engaged_centre(k))


def _remembered(b: LatticeBrick, origin: tuple[float, float, float]
                ) -> tuple[str, tuple[int, int], tuple[float, float], tuple[int, int, int, int], float]:
    """What the program knows of a target brick: colour, size, goal (mm, centre), lattice (x, y, level, rotation) and
    top (mm above the table, the workspace's z = 0)."""
    (gx, gy, _), _ = brick_pose_in_world(b, origin)
    top = (origin[2] + b.top * PLATE_HEIGHT_M) * 1000.0
    return color(b.color).name, _size(b), (round(gx * 1000, 2), round(gy * 1000, 2)), (b.x, b.y, b.z, b.yaw % 2), round(top, 2)


def _places(task: TaskSpec) -> list[str]:
    """Program lines declaring, for repair(), the initial bricks the action bricks rest on (PLACED: put back when
    knocked off), and the target's places within REPAIR_REACH_MM of an action brick's goal for the sizes of those and
    of the action bricks (PLACES: a brick seen at one is not taken for a knocked one)."""
    target = task.target_assembly
    origin = task.workspace.lattice_origin
    initial = {b.id for b in task.initial}
    holding = sorted({s for a in task.action_bricks for s in target.supports(a.id)} & initial)
    action = [_remembered(a.target, origin) for a in task.action_bricks]
    sizes = {a[1] for a in action} | {_size(target[bid]) for bid in holding}
    places = []
    for b in target.bricks:
        _, size, goal, _, top = _remembered(b, origin)
        if size in sizes and any(math.dist(goal, a[2]) <= REPAIR_REACH_MM + 50.0 for a in action):
            places.append((size, goal[0], goal[1], top))
    lines = [f"PLACES.extend({places})"]
    for bid in holding:
        c, size, goal, lattice, top = _remembered(target[bid], origin)
        entry = (c, size, goal, goal, lattice, top, False, target[bid].extent)
        lines.append(f"PLACED.append({entry})  # built before: it holds new bricks")
    return lines


def _size(b: LatticeBrick) -> tuple[int, int]:
    return (max(b.spec.width, b.spec.depth), min(b.spec.width, b.spec.depth))


@register_agent("oracle", privileged=True)
class OracleAgent:
    """Privileged upper bound: one program written from the target, run in the sandbox."""

    leave_out_unbuildable = False  # build_order's choice: the careful oracle leaves statically unbuildable bricks out

    def __init__(self, config: AgentConfig):
        if config.library != "task":
            raise ValueError("the oracle writes programs for the task-oriented library only (library='task')")
        self.config = config

    def plan_assembly(self, view: PlanningView) -> AnswerTurn:
        """The exact plan, written from the target (the planning table's ceiling)."""
        return AnswerTurn(text=oracle_plan(target_of(view, self.config.name)))

    def assembly_programs(self, view: AssemblyView) -> list[str]:
        """One program, written from the ground truth."""
        return [oracle_program(target_of(view, self.config.name), self.leave_out_unbuildable)]


@register_agent("careful_oracle", privileged=True)
class CarefulOracleAgent(OracleAgent):
    """The oracle that also reads the statics: it leaves out the bricks whose seating press would break the
    structure (and what rests on them) instead of trying them. It measures the skills where the task can be built;
    the plain oracle, which tries every brick, stays the upper bound of the score (the paper's pose and validity
    terms pay a brick tried and left near its target)."""

    leave_out_unbuildable = True
