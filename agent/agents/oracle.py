"""The oracle: an explicitly privileged agent that reads the task's target and writes the program an
ideal agent would write against the task-oriented skill library. It is the upper bound of every table.

The program runs in the sandbox like any agent's; only its author saw the ground truth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.agents.registry import register_agent
from agent.config import AgentConfig
from jarvis_sim.lego.assembly import LatticeBrick, brick_pose_in_world
from jarvis_sim.lego.colors import color
from jarvis_sim.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from agent.assembly_episode import AssemblyEpisode

MAX_TRIES = 3

PROGRAM_HELPERS = '''\
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


def fully_seen(bricks, brick_id, size):
    \"\"\"True when the camera sees the whole top of this brick (its stud frame is then reliable).\"\"\"
    for b in bricks:
        if b.id == brick_id:
            return tuple(b.size) == size and b.visible_fraction > 0.9
    return False


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


def build(color, size, start, goal, support, offsets, lattice):
    \"\"\"Pick the brick expected near `start` (mm) and place it: on `support` (colour, size, x, y) at stud
    `offsets`, or on the `lattice` (x, y, level, rotation) when the support is not fully in view. After a
    failed attempt the brick is looked for again, near its goal (mm) first, and the attempt repeated.\"\"\"
    where = start
    before = []
    for attempt in range({MAX_TRIES}):
        bricks = observe()
        if where == start:
            brick = nearest(bricks, color, size, start[0], start[1])
        else:
            brick = unseated_near(bricks, before, size, where[0], where[1])
            if brick is None:
                brick = nearest(bricks, color, size, start[0], start[1])
        if brick is None:
            print("cannot find the", color, size, "brick")
            return False
        sup = None
        if support is not None:
            sup = nearest(bricks, support[0], support[1], support[2], support[3])
            if not fully_seen(bricks, sup, support[1]):
                sup = None
        before = bricks
        try:
            pick(brick)
        except SkillError as e:
            print("pick failed:", e)
            where = start
            continue
        try:
            if support is None and lattice[2] == 0:
                place_on("ground", lattice[0], lattice[1], lattice[3])
            elif sup is None:
                place_at(lattice[0], lattice[1], lattice[2], lattice[3])
            else:
                place_on(sup, offsets[0], offsets[1], offsets[2])
            return True
        except SkillError as e:
            print("place failed:", e)
            where = goal
            if e.kind in ("placement_occupied", "unreachable", "path_blocked"):
                put_down()  # still in the hand: set it aside, then try again
                where = start
    return False
'''


def canonical_offsets(brick: LatticeBrick, support: LatticeBrick) -> tuple[int, int, int]:
    """(stud_x, stud_y, rotation) of a target brick in its support's canonical frame (skills.geometry)."""
    sx, _sy = support.extent
    bx, _by = brick.extent
    if support.spec.width == support.spec.depth or support.yaw % 2 == 0:
        # Long side along world x (or a square): the support frame is the world lattice frame.
        return brick.x - support.x, brick.y - support.y, brick.yaw % 2
    # Long side along world y: local x = world y, local y = -world x (corner at the max-x side).
    return brick.y - support.y, support.x + sx - brick.x - bx, (brick.yaw + 1) % 2


def oracle_program(task: TaskSpec) -> str:
    """The whole-task program: for each manual step, each new brick is located, picked and placed on its
    support (with retries after a failed attempt, as the skills' error messages advise)."""
    target = task.target_assembly
    origin = task.workspace.lattice_origin
    starts = {a.id: a.start for a in task.action_bricks}
    helpers = PROGRAM_HELPERS.replace("{MAX_TRIES}", str(MAX_TRIES))
    lines = [f"# Oracle program for task {task.id} (written from the target: privileged).", helpers]
    lines.append("go_home()  # park the arm so the camera sees the whole table")
    for step in task.manual_steps:
        lines.append(f"# manual step {step.index + 1}")
        for bid in step.brick_ids:
            b = target[bid]
            start = starts[bid]
            (gx, gy, _), _ = brick_pose_in_world(b, origin)
            supports = target.supports(bid)
            support, offsets = "None", "None"
            if supports:
                s = target[supports[0]]
                (px, py, _), _ = brick_pose_in_world(s, origin)
                support = f"({color(s.color).name!r}, {_size(s)}, {px * 1000:.2f}, {py * 1000:.2f})"
                offsets = str(canonical_offsets(b, s))
            lines.append(
                f"build({color(b.color).name!r}, {_size(b)}, ({start.x * 1000:.2f}, {start.y * 1000:.2f}), "
                f"({gx * 1000:.2f}, {gy * 1000:.2f}), {support}, {offsets}, ({b.x}, {b.y}, {b.z}, {b.yaw % 2}))"
            )
    lines.append("go_home()")
    return "\n".join(lines) + "\n"


def _size(b: LatticeBrick) -> tuple[int, int]:
    return (max(b.spec.width, b.spec.depth), min(b.spec.width, b.spec.depth))


@register_agent("oracle")
class OracleAgent:
    """Privileged upper bound: one program written from the target, run in the sandbox."""

    privileged = True

    def __init__(self, config: AgentConfig):
        if config.library != "task":
            raise ValueError("the oracle writes programs for the task-oriented library only (library='task')")
        self.config = config

    def run_assembly(self, episode: AssemblyEpisode) -> None:
        """Write the program from the ground truth and run it once."""
        program = oracle_program(episode.ground_truth_task())
        episode.run_program(program, kind="attempt", response=program)
