"""OMPL as the skills' motion planner: RRT-Connect in the Panda's 7-D joint space, with the backend's own
collision query (Backend.collisions: arm and held brick against the scene) as the validity check.

A transfer whose straight Cartesian line is free runs exactly as with the built-in planner (the straight line
is shorter and predictable); where the line collides or leaves the reachable space, OMPL searches a detour
around the obstacles, the path is shortcut-simplified, streamed as joint targets, and the tool settles on the
target pose under the Cartesian controller. Guarded moves (check_collisions=False: descents into a grasp or a
press) stay straight lines.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from jarvis_sim.provenance import PlannerInfo, package_version
from skills.errors import PathBlocked
from skills.motion import CartesianPlanner, MotionPlanner
from skills.planners.joint_paths import PANDA_LOWER, PANDA_UPPER, collision_free_goal, straight_or_detour

if TYPE_CHECKING:
    from skills.context import SkillContext

LIMIT_MARGIN_RAD = 0.02
# The arm follows a streamed joint path a few millimetres off it (tracking lag at the waypoints' turns), so a
# path planned to graze the structure knocks it (`jarvis bench detours`: round a 36-brick block, 6 of 200 detours
# planned merely contact-free pushed bricks, 0 of 200 with this clearance). Planned states keep this far from the
# scene; a transfer that begins or ends closer than that (beside a brick, just above the table) may leave or
# reach that end through states that are merely contact-free, within ESCAPE_RAD of it.
CLEARANCE_M = 0.005
ESCAPE_RAD = 0.1  # joint-space radius (Euclidean, rad) round a start or goal that is itself inside the clearance


@dataclass
class PlanStats:
    """What the last plan cost: planning and simplification time, validity checks, waypoints."""

    used_ompl: bool = False
    plan_s: float = 0.0
    simplify_s: float = 0.0
    checks: int = 0
    waypoints: int = 0


@dataclass
class OmplPlanner(MotionPlanner):
    """RRT-Connect detours checked by the backend's collision query (see the module docstring)."""

    time_limit_s: float = 2.0
    simplify_steps: int = 12
    resolution: float = 0.004  # fraction of the joint space's extent between checked states along an edge
    clearance_m: float = CLEARANCE_M
    seed: int = 0  # plan k of this planner samples with OMPL seeded by (seed, k): an episode's detours repeat
    joint_speed_rad_s: float = 0.8
    cartesian: CartesianPlanner = field(default_factory=CartesianPlanner)
    last: PlanStats = field(default_factory=PlanStats)
    _plans: int = field(default=0, init=False, repr=False)

    def move_to(self, ctx: SkillContext, position: np.ndarray, quaternion: np.ndarray, speed: float = 0.2,
                check_collisions: bool = True, ignore: tuple[str, ...] = ()) -> None:
        """Straight when free, an OMPL detour when the straight line collides; raise before moving otherwise."""
        self.last = PlanStats()
        straight_or_detour(ctx, self.cartesian, self.plan, self.joint_speed_rad_s, position, quaternion, speed,
                           check_collisions, ignore)

    def describe(self) -> PlannerInfo:
        """OMPL's version and the RRT-Connect settings that shape its detours."""
        return PlannerInfo(name="ompl", version=package_version("ompl"),
                           settings={"algorithm": "RRTConnect", "space": "joint (7-D)", "time_limit_s": self.time_limit_s,
                                     "simplify_steps": self.simplify_steps, "resolution": self.resolution,
                                     "clearance_m": self.clearance_m, "escape_rad": ESCAPE_RAD, "seed": self.seed,
                                     "joint_speed_rad_s": self.joint_speed_rad_s,
                                     "straight_line": self.cartesian.describe().settings})

    def plan(self, ctx: SkillContext, position: np.ndarray, quaternion: np.ndarray,
             ignore: tuple[str, ...] = ()) -> tuple[list[np.ndarray], np.ndarray]:
        """A collision-free joint path from the current configuration to the pose, and the pose's quaternion."""
        from ompl import base as ob
        from ompl import geometric as og
        from ompl import util as ou

        # OMPL logs an error when it is reseeded after its first sample, yet the seed takes effect for the samplers
        # made after it (measured with ompl 2.0.1: the same seed gives the same path, in any order).
        ou.setLogLevel(ou.LOG_NONE)
        ou.RNG.setSeed(int(np.random.SeedSequence([self.seed, self._plans]).generate_state(1)[0] % (2**31 - 1)) + 1)
        self._plans += 1
        ou.setLogLevel(ou.LOG_WARN)  # OMPL's info lines go to stdout, which benchmarks and the CLI print JSON on

        backend = ctx.backend
        goal_q, quaternion = collision_free_goal(ctx, position, quaternion, ignore)
        start_q = backend.robot_state().joint_positions.copy()
        space = ob.RealVectorStateSpace(7)
        bounds = ob.RealVectorBounds(7)
        for i in range(7):
            bounds.setLow(i, float(PANDA_LOWER[i] + LIMIT_MARGIN_RAD))
            bounds.setHigh(i, float(PANDA_UPPER[i] - LIMIT_MARGIN_RAD))
        space.setBounds(bounds)
        setup = og.SimpleSetup(space)
        stats = PlanStats(used_ompl=True)

        tight_ends = [q for q in (start_q, goal_q) if backend.collisions(q, ignore=ignore, clearance_m=self.clearance_m)]

        def valid(state: object) -> bool:
            stats.checks += 1
            q = np.array([state[i] for i in range(7)])  # type: ignore[index]
            if not backend.collisions(q, ignore=ignore, clearance_m=self.clearance_m):
                return True
            near_end = any(float(np.linalg.norm(q - end)) < ESCAPE_RAD for end in tight_ends)
            return near_end and not backend.collisions(q, ignore=ignore)

        setup.setStateValidityChecker(valid)
        setup.getSpaceInformation().setStateValidityCheckingResolution(self.resolution)
        start, goal = space.allocState(), space.allocState()
        for i in range(7):
            start[i] = float(np.clip(start_q[i], PANDA_LOWER[i] + LIMIT_MARGIN_RAD, PANDA_UPPER[i] - LIMIT_MARGIN_RAD))
            goal[i] = float(goal_q[i])
        setup.setStartAndGoalStates(start, goal)
        setup.setPlanner(og.RRTConnect(setup.getSpaceInformation()))
        t0 = time.perf_counter()
        setup.solve(self.time_limit_s)
        stats.plan_s = time.perf_counter() - t0
        if not setup.haveExactSolutionPath():
            self.last = stats
            p = position * 1000.0
            raise PathBlocked(f"no collision-free path to ({p[0]:.0f}, {p[1]:.0f}, {p[2]:.0f}) mm was found in "
                              f"{self.time_limit_s:.1f} s; clear the way or pick another target.")
        t1 = time.perf_counter()
        solution = setup.getSolutionPath()
        # Only vertex reduction (shortcuts between non-adjacent waypoints), bounded in steps: SimpleSetup's full
        # simplification runs at least one whole pass whatever its time limit, seconds in a 150-brick scene where
        # a collision query costs milliseconds.
        setup.getPathSimplifier().reduceVertices(solution, self.simplify_steps)
        stats.simplify_s = time.perf_counter() - t1
        path = [np.array([s[i] for i in range(7)]) for s in solution.getStates()]
        path[0] = start_q  # the clipped start only guards the bounds; motion starts where the arm is
        stats.waypoints = len(path)
        self.last = stats
        return path, quaternion

