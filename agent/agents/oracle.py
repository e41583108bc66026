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

PROGRAM_HELPERS = '''\
def nearest(bricks, color, size, x, y):
    """Id of the observed brick of this colour and size closest to (x, y) mm; colour may be misread."""
    best = None
    best_d = 1e12
    for strict in (True, False):
        for b in bricks:
            if tuple(b.size) != size or (strict and b.color != color):
                continue
            d = (b.x_mm - x) ** 2 + (b.y_mm - y) ** 2
            if d < best_d:
                best = b
                best_d = d
        if best is not None:
            return best.id
    return None
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
    """The whole-task program: for each manual step, pick each new brick and place it on its support."""
    target = task.target_assembly
    origin = task.workspace.lattice_origin
    starts = {a.id: a.start for a in task.action_bricks}
    lines = [f"# Oracle program for task {task.id} (written from the target: privileged).", PROGRAM_HELPERS]
    for step in task.manual_steps:
        lines.append(f"# manual step {step.index + 1}")
        for bid in step.brick_ids:
            b = target[bid]
            size = (max(b.spec.width, b.spec.depth), min(b.spec.width, b.spec.depth))
            name = color(b.color).name
            start = starts[bid]
            lines.append("bricks = observe()")
            lines.append(f"pick(nearest(bricks, {name!r}, {size}, {start.x * 1000:.2f}, {start.y * 1000:.2f}))")
            supports = target.supports(bid)
            if not supports:
                lines.append(f"place_on('ground', {b.x}, {b.y}, {b.yaw % 2})")
                continue
            s = target[supports[0]]
            (px, py, _), _ = brick_pose_in_world(s, origin)
            s_size = (max(s.spec.width, s.spec.depth), min(s.spec.width, s.spec.depth))
            stud_x, stud_y, rot = canonical_offsets(b, s)
            lines.append("bricks = observe()")
            lines.append(
                f"place_on(nearest(bricks, {color(s.color).name!r}, {s_size}, {px * 1000:.2f}, {py * 1000:.2f}), "
                f"{stud_x}, {stud_y}, {rot})"
            )
    lines.append("go_home()")
    return "\n".join(lines) + "\n"


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
