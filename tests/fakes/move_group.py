"""A protocol-level stand-in for move_group (and for cuMotion's planner node), as the fake LLM servers stand in for
the providers: a real rclpy node speaking the real moveit_msgs interfaces over DDS.

It serves the MoveGroup action (plan_only; `/move_action` and, for cuMotion, `/cumotion/move_group`),
`/plan_kinematic_path` (GetMotionPlan) and `/apply_planning_scene`. It plans for real, in joint space with OMPL's
RRT-Connect, against the collision objects it was sent (boxes) and the Panda's sphere model
(jarvis_sim.backends.isaac.collision), so a client that sends a wrong scene or goal gets a wrong or failed plan.
It answers like move_group: error codes from moveit_msgs/MoveItErrorCodes, INVALID_GROUP_NAME for another group,
START_STATE_IN_COLLISION and GOAL_IN_COLLISION before planning. Every request is kept for the tests.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jarvis_sim.backends.isaac import collision
from jarvis_sim.backends.isaac.kinematics import PANDA_LOWER, PANDA_UPPER

ARM = [f"panda_joint{i}" for i in range(1, 8)]


@dataclass
class Received:
    """One planning request as the server saw it."""

    endpoint: str
    group: str
    start: np.ndarray
    goal: np.ndarray
    objects: list[str]
    attached: list[str]
    plan_only: bool | None


@dataclass
class FakeMoveGroup:
    """The stand-in (see the module docstring); `start()`, then `close()`."""

    namespace: str = ""
    group: str = "panda_arm"
    fail_all: bool = False  # answer PLANNING_FAILED to everything (a planner that finds nothing)
    time_limit_s: float = 3.0
    received: list[Received] = field(default_factory=list)

    def start(self) -> FakeMoveGroup:
        """Create the node and its servers and spin them in a thread."""
        import rclpy
        from moveit_msgs import action as ma
        from moveit_msgs import srv as ms
        from rclpy.action import ActionServer
        from rclpy.context import Context
        from rclpy.executors import MultiThreadedExecutor

        self._ma, self._ms = ma, ms
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("fake_move_group", context=self.context)
        ns = self.namespace.rstrip("/")
        self._scene: Any = None
        self._servers = [
            ActionServer(self.node, ma.MoveGroup, f"{ns}/move_action", self._move_group("/move_action")),
            ActionServer(self.node, ma.MoveGroup, f"{ns}/cumotion/move_group", self._move_group("/cumotion/move_group")),
        ]
        self._services = [
            self.node.create_service(ms.GetMotionPlan, f"{ns}/plan_kinematic_path", self._plan_service),
            self.node.create_service(ms.ApplyPlanningScene, f"{ns}/apply_planning_scene", self._apply_scene),
        ]
        self.executor = MultiThreadedExecutor(num_threads=2, context=self.context)
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()
        return self

    def _spin(self) -> None:
        from rclpy.executors import ExternalShutdownException

        with contextlib.suppress(ExternalShutdownException):
            self.executor.spin()

    def close(self) -> None:
        """Shut the node down."""
        import rclpy

        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        if self.context.ok():
            rclpy.shutdown(context=self.context)

    # --- the interfaces --------------------------------------------------------------------------
    def _move_group(self, endpoint: str) -> Any:
        def execute(goal_handle: Any) -> Any:
            goal = goal_handle.request
            result = self._ma.MoveGroup.Result()
            code, trajectory, seconds = self._plan(endpoint, goal.request, goal.planning_options.planning_scene_diff,
                                                   goal.planning_options.plan_only)
            result.error_code.val, result.planning_time = code, seconds
            result.trajectory_start = goal.request.start_state
            if trajectory is not None:
                result.planned_trajectory.joint_trajectory = trajectory
            goal_handle.succeed()  # move_group succeeds the goal and reports failures in error_code
            return result

        return execute

    def _apply_scene(self, request: Any, response: Any) -> Any:
        self._scene = request.scene
        response.success = True
        return response

    def _plan_service(self, request: Any, response: Any) -> Any:
        out = response.motion_plan_response
        code, trajectory, seconds = self._plan("/plan_kinematic_path", request.motion_plan_request, self._scene, None)
        out.error_code.val, out.planning_time = code, seconds
        out.group_name = request.motion_plan_request.group_name
        if trajectory is not None:
            out.trajectory.joint_trajectory = trajectory
        return response

    # --- planning --------------------------------------------------------------------------------
    def _plan(self, endpoint: str, req: Any, scene: Any, plan_only: bool | None) -> tuple[int, Any, float]:
        from moveit_msgs.msg import MoveItErrorCodes as E

        t0 = time.perf_counter()
        names = list(req.start_state.joint_state.name)
        start = np.array([req.start_state.joint_state.position[names.index(j)] for j in ARM])
        width = 2.0 * float(req.start_state.joint_state.position[names.index("panda_finger_joint1")])
        goal_by_name = {c.joint_name: c.position for c in req.goal_constraints[0].joint_constraints} \
            if req.goal_constraints else {}
        goal = np.array([goal_by_name.get(j, np.nan) for j in ARM])
        boxes, held, held_in_tcp = self._obstacles(scene, start)
        self.received.append(Received(endpoint, req.group_name, start, goal, [b.name for b in boxes],
                                      [held.name] if held is not None else [], plan_only))
        if req.group_name != self.group:
            return E.INVALID_GROUP_NAME, None, 0.0
        if self.fail_all or not np.all(np.isfinite(goal)):
            return E.PLANNING_FAILED if self.fail_all else E.INVALID_GOAL_CONSTRAINTS, None, 0.0

        def free(q: np.ndarray) -> bool:
            return not collision.collisions(q, width, boxes, table_top_z=-10.0, held=held, held_pose_in_tcp=held_in_tcp)

        if not free(start):
            return E.START_STATE_IN_COLLISION, None, time.perf_counter() - t0
        if not free(goal):
            return E.GOAL_IN_COLLISION, None, time.perf_counter() - t0
        # Seeded per request (as skills/planners/ompl.py seeds its plans): an unseeded RRT-Connect drew a different
        # detour each run, and with no clearance (the client sends no link padding) one in a few grazed the wall.
        path = self._rrt_connect(start, goal, free, float(req.allowed_planning_time) or self.time_limit_s,
                                 seed=len(self.received))
        if path is None:
            return E.PLANNING_FAILED, None, time.perf_counter() - t0
        return E.SUCCESS, self._trajectory(path), time.perf_counter() - t0

    @staticmethod
    def _obstacles(scene: Any, start: np.ndarray) -> tuple[list[collision.Box], collision.Box | None, Any]:
        from jarvis_sim.backends.isaac.kinematics import quat_to_matrix, tcp_pose

        def box(obj: Any) -> collision.Box:
            prim, pose = obj.primitives[0], obj.primitive_poses[0]
            quat = (pose.orientation.w, pose.orientation.x, pose.orientation.y, pose.orientation.z)
            return collision.Box(obj.id, np.array([pose.position.x, pose.position.y, pose.position.z]),
                                 quat_to_matrix(np.array(quat)), np.array(prim.dimensions[:3]) / 2)

        if scene is None:
            return [], None, None
        boxes = [box(o) for o in scene.world.collision_objects if o.primitives]
        held, held_in_tcp = None, None
        for attached in scene.robot_state.attached_collision_objects:
            held = box(attached.object)
            pose = np.eye(4)
            pose[:3, :3], pose[:3, 3] = held.rotation, held.centre
            held_in_tcp = np.linalg.inv(tcp_pose(start)) @ pose
        return boxes, held, held_in_tcp

    @staticmethod
    def _rrt_connect(start: np.ndarray, goal: np.ndarray, free: Any, time_limit_s: float,
                     seed: int) -> list[np.ndarray] | None:
        from ompl import base as ob
        from ompl import geometric as og
        from ompl import util as ou

        ou.setLogLevel(ou.LOG_NONE)  # OMPL logs an error when reseeded after its first sample; the seed still holds
        ou.RNG.setSeed(seed + 1)
        ou.setLogLevel(ou.LOG_WARN)
        space = ob.RealVectorStateSpace(7)
        bounds = ob.RealVectorBounds(7)
        for i in range(7):
            bounds.setLow(i, float(PANDA_LOWER[i]))
            bounds.setHigh(i, float(PANDA_UPPER[i]))
        space.setBounds(bounds)
        setup = og.SimpleSetup(space)
        setup.setStateValidityChecker(lambda s: free(np.array([s[i] for i in range(7)])))
        setup.getSpaceInformation().setStateValidityCheckingResolution(0.004)
        a, b = space.allocState(), space.allocState()
        for i in range(7):
            a[i] = float(np.clip(start[i], PANDA_LOWER[i], PANDA_UPPER[i]))
            b[i] = float(goal[i])
        setup.setStartAndGoalStates(a, b)
        setup.setPlanner(og.RRTConnect(setup.getSpaceInformation()))
        setup.solve(time_limit_s)
        if not setup.haveExactSolutionPath():
            return None
        solution = setup.getSolutionPath()
        setup.getPathSimplifier().reduceVertices(solution, 12)
        path = [np.array([s[i] for i in range(7)]) for s in solution.getStates()]
        path[0] = start
        return path

    @staticmethod
    def _trajectory(path: list[np.ndarray]) -> Any:
        from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

        traj = JointTrajectory(joint_names=list(ARM))
        t = 0.0
        for k, q in enumerate(path):
            if k:
                t += max(0.1, float(np.max(np.abs(q - path[k - 1]))) / 1.0)
            point = JointTrajectoryPoint(positions=[float(v) for v in q])
            point.time_from_start.sec = int(t)
            point.time_from_start.nanosec = int((t - int(t)) * 1e9)
            traj.points.append(point)
        return traj
