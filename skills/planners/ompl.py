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
    joint_speed_rad_s: float = 0.8
    cartesian: CartesianPlanner = field(default_factory=CartesianPlanner)
    last: PlanStats = field(default_factory=PlanStats)

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
                                     "joint_speed_rad_s": self.joint_speed_rad_s,
                                     "straight_line": self.cartesian.describe().settings})

    def plan(self, ctx: SkillContext, position: np.ndarray, quaternion: np.ndarray,
             ignore: tuple[str, ...] = ()) -> tuple[list[np.ndarray], np.ndarray]:
        """A collision-free joint path from the current configuration to the pose, and the pose's quaternion."""
        from ompl import base as ob
        from ompl import geometric as og
        from ompl import util as ou

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

        def valid(state: object) -> bool:
            stats.checks += 1
            q = np.array([state[i] for i in range(7)])  # type: ignore[index]
            return not backend.collisions(q, ignore=ignore)

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

