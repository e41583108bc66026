"""Reference floors of every assembly table: `null` does nothing, `shuffle` picks each loose brick it sees and puts
it down again elsewhere in the staging area. Neither reads the manual or the target: any score they earn is what
the scoring pays for no understanding at all (the paper's validity term pays `shuffle` for moving bricks)."""

from __future__ import annotations

from agent.agents.registry import register_agent
from agent.agents.views import AssemblyView
from agent.config import AgentConfig

SHUFFLE_PROGRAM = '''\
# The shuffle floor: every loose brick in view is picked and put down again; nothing is built.
# Bricks are told apart by where they lie, not by id: a brick hidden for one observation comes back with a new id.
def free_bricks(moved):
    go_home()  # the arm hovering after a put-down would hide bricks from the camera
    out = []
    for b in observe():
        fresh = True
        for x, y in moved:
            if ((b.x_mm - x) ** 2 + (b.y_mm - y) ** 2) ** 0.5 < 10.0:
                fresh = False
        if b.free_to_grasp and fresh:
            out.append(b)
    return out


moved = []
for attempt in range(len(free_bricks(moved))):
    bricks = free_bricks(moved)
    if not bricks:
        break
    brick = bricks[0]
    try:
        pick(brick.id)
    except SkillError as e:
        print("pick failed:", e)
        moved.append((brick.x_mm, brick.y_mm))  # do not try it again
        continue
    try:
        where = put_down().pose
        moved.append((where.x_mm, where.y_mm))
    except SkillError as e:
        print("put down failed:", e)
go_home()
'''


class _FloorAgent:
    """A fixed, non-privileged behaviour for the task library."""

    def __init__(self, config: AgentConfig):
        if config.library != "task":
            raise ValueError(f"the {config.name} floor runs with the task-oriented library only (library='task')")
        self.config = config


@register_agent("null")
class NullAgent(_FloorAgent):
    """Does nothing: the final state is the initial scene after settling."""

    def assembly_programs(self, view: AssemblyView) -> list[str]:
        """No program at all."""
        return []


@register_agent("shuffle")
class ShuffleAgent(_FloorAgent):
    """Picks each loose brick and puts it down again in the staging area, ignoring the manual."""

    def assembly_programs(self, view: AssemblyView) -> list[str]:
        """The one shuffle program."""
        return [SHUFFLE_PROGRAM]
