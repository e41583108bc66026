"""Seeded scene variation: where the loose bricks lie and which distractors lie beside them, per episode seed.

Seed 0 is the TaskSpec exactly. Any other seed scatters the loose action bricks over the task's staging area
(positions on a 1 mm grid, yaw over the full circle in whole degrees), adds 0 to MAX_DISTRACTORS bricks that are
in no manual step, and keeps every brick within the Panda's top-down reach with at least MIN_GAP_M between
footprints (room for the open fingers). The initial structure, the targets and the manual never change.

Every decision is an integer drawn from `random.Random` seeded by the task id and the seed (a Mersenne Twister
over a SHA-512 of the string: the same on every machine and Python), and every geometric test compares whole
micrometres, so no floating-point path (a BLAS kernel, a libm ulp) can move a brick from one layout to another.
A layout that cannot be drawn within the attempts below drops the distractors, then keeps the TaskSpec's own
poses: a seed never makes a task unsolvable.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from jarvis_sim.lego import units as u
from jarvis_sim.lego.catalog import part
from jarvis_sim.tasks.spec import Distractor, TablePose, TaskSpec
from jarvis_sim.tasks.staging import MIN_GAP_M, REACH_COMFORT_M, REACH_MAX_M, REACH_MIN_M

MAX_DISTRACTORS = 2
# Common bricks and plates a LEGO bin holds; distractors take one of these in a colour of the task or a basic one.
DISTRACTOR_PARTS = ("3001", "3003", "3004", "3010", "3020", "3022")
BASIC_COLORS = (0, 1, 4, 14, 15)  # black, blue, red, yellow, white
DRAWS_PER_BRICK = 300
LAYOUT_ATTEMPTS = 8


@dataclass(frozen=True)
class _Footprint:
    id: str
    half_w: float  # half extents of the part's footprint along its own x (width) and y (depth), m
    half_d: float

    def corners(self, pose: TablePose) -> list[tuple[float, float]]:
        c, s = math.cos(pose.yaw), math.sin(pose.yaw)
        return [(pose.x + c * a - s * b, pose.y + s * a + c * b)
                for a, b in ((self.half_w, self.half_d), (-self.half_w, self.half_d),
                             (-self.half_w, -self.half_d), (self.half_w, -self.half_d))]


def seeded_scene(task: TaskSpec, seed: int, max_distractors: int = MAX_DISTRACTORS) -> TaskSpec:
    """The task as the scene of `seed` lays it out: seed 0 (or the seed the task was already varied with) gives the
    task itself; any other seed new start poses for the loose bricks and seeded distractors."""
    if seed < 0:
        raise ValueError(f"task {task.id}: a scene seed is a non-negative integer, not {seed}")
    if seed == 0 or seed == task.scene_seed:
        return task
    if task.scene_seed != 0:
        raise ValueError(f"task {task.id} is already the scene of seed {task.scene_seed}; vary the task as generated")
    rng = random.Random(f"{task.id}#{seed}")
    reach = REACH_COMFORT_M
    if any(math.hypot(a.start.x, a.start.y) > REACH_COMFORT_M for a in task.action_bricks):
        reach = REACH_MAX_M  # the generator needed the full reach for this crowd: so may the variation
    for with_distractors in (True, False):
        for _ in range(LAYOUT_ATTEMPTS):
            distractors = _draw_distractors(task, rng, max_distractors) if with_distractors else []
            loose = [_footprint(a.id, a.target.part) for a in task.action_bricks]
            loose += [_footprint(d.id, d.part) for d in distractors]
            poses = _scatter(task, loose, rng, reach)
            if poses is None:
                continue
            data = task.model_dump()
            for a in data["action_bricks"]:
                a["start"] = poses[a["target"]["id"]].model_dump()
            data["distractors"] = [d.model_copy(update={"start": poses[d.id]}).model_dump() for d in distractors]
            data["scene_seed"] = seed
            return TaskSpec.model_validate(data)
    return task


def _footprint(brick_id: str, part_number: str) -> _Footprint:
    p = part(part_number)
    return _Footprint(brick_id, (p.width * u.STUD_PITCH_M - u.FIT_GAP_M) / 2, (p.depth * u.STUD_PITCH_M - u.FIT_GAP_M) / 2)


def _draw_distractors(task: TaskSpec, rng: random.Random, max_distractors: int) -> list[Distractor]:
    n = rng.randrange(max_distractors + 1)
    colors = sorted({a.target.color for a in task.action_bricks} | set(BASIC_COLORS))
    unplaced = TablePose(x=0.0, y=0.0)  # seeded_scene gives every distractor its scattered pose
    return [Distractor(id=f"distractor{k + 1}", part=DISTRACTOR_PARTS[rng.randrange(len(DISTRACTOR_PARTS))],
                       color=colors[rng.randrange(len(colors))], start=unplaced) for k in range(n)]


def _um(v: float) -> int:
    return round(v * 1_000_000)


def _scatter(task: TaskSpec, loose: list[_Footprint], rng: random.Random, reach: float) -> dict[str, TablePose] | None:
    """Poses for every footprint (largest first, so the small ones fill the gaps), or None when one finds no room."""
    (ax0, ay0), (ax1, ay1) = task.workspace.staging_min, task.workspace.staging_max
    x_mm = (math.ceil(ax0 * 1000), math.floor(ax1 * 1000))
    y_mm = (math.ceil(ay0 * 1000), math.floor(ay1 * 1000))
    placed: list[tuple[_Footprint, TablePose, list[tuple[float, float]]]] = []
    for fp in sorted(loose, key=lambda f: (-_um(f.half_w * f.half_d), f.id)):
        for _ in range(DRAWS_PER_BRICK):
            pose = TablePose(x=rng.randrange(x_mm[0], x_mm[1] + 1) / 1000, y=rng.randrange(y_mm[0], y_mm[1] + 1) / 1000,
                             yaw=round(math.radians(rng.randrange(360)), 4))
            if not _um(REACH_MIN_M) <= _um(math.hypot(pose.x, pose.y)) <= _um(reach):
                continue
            corners = fp.corners(pose)
            if not all(_um(ax0) <= _um(x) <= _um(ax1) and _um(ay0) <= _um(y) <= _um(ay1) for x, y in corners):
                continue
            if all(_um(polygon_distance(corners, other)) >= _um(MIN_GAP_M) for _, _, other in placed):
                placed.append((fp, pose, corners))
                break
        else:
            return None
    return {fp.id: pose for fp, pose, _ in placed}


def polygon_distance(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    """Smallest distance between two convex polygons (corners in order); 0 when they overlap."""
    if _overlap(a, b):
        return 0.0
    return min(min(_point_segment(p, b[i], b[(i + 1) % len(b)]) for p in a for i in range(len(b))),
               min(_point_segment(p, a[i], a[(i + 1) % len(a)]) for p in b for i in range(len(a))))


def _overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> bool:
    """Separating-axis test of two convex polygons."""
    for poly in (a, b):
        for i in range(len(poly)):
            (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
            nx, ny = y0 - y1, x1 - x0
            pa = [nx * x + ny * y for x, y in a]
            pb = [nx * x + ny * y for x, y in b]
            if max(pa) < min(pb) or max(pb) < min(pa):
                return False
    return True


def _point_segment(p: tuple[float, float], s0: tuple[float, float], s1: tuple[float, float]) -> float:
    dx, dy = s1[0] - s0[0], s1[1] - s0[1]
    n2 = dx * dx + dy * dy
    t = 0.0 if n2 == 0 else max(0.0, min(1.0, ((p[0] - s0[0]) * dx + (p[1] - s0[1]) * dy) / n2))
    return math.hypot(p[0] - s0[0] - t * dx, p[1] - s0[1] - t * dy)


@dataclass(frozen=True)
class LooseBrick:
    """A brick lying on the table at the start: an action brick or a distractor."""

    id: str
    part: str
    color: int
    start: TablePose


def loose_bricks(task: TaskSpec) -> list[LooseBrick]:
    """The action bricks (in task order), then the distractors: every free brick a scene starts with."""
    out = [LooseBrick(a.id, a.target.part, a.target.color, a.start) for a in task.action_bricks]
    return out + [LooseBrick(d.id, d.part, d.color, d.start) for d in task.distractors]
