"""MoveIt 2 (move_group over ROS 2) as the skills' motion planner, and cuMotion (isaac_ros_cumotion), which serves
the same moveit_msgs/MoveGroup action.

Like the OMPL planner, a transfer whose straight Cartesian line is free runs as a straight line; where it collides,
the planner asks move_group for a joint-space path: a MoveGroup goal with `plan_only` set and the scene's bricks,
table and baseplate as collision objects in `planning_scene_diff` (the held brick attached to the hand), the goal a
collision-free joint configuration at the tool pose, or (mode `plan_kinematic_path`) `/apply_planning_scene`
followed by the GetMotionPlan service. The planned path is executed here, in lockstep with the simulator, not by
move_group through the controllers: inside the bridge those controllers are served by the very thread that runs
this skill, so an execution request would wait on itself.

Needs rclpy and moveit_msgs (`ros-jazzy-moveit-msgs` from apt in the image; CI builds a wire-identical subset,
tests/ros/shims). Scene bricks come from ground truth: the planner runs next to the simulator, as the
collision query of the built-in planner does.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from jarvis_sim.backends.ros.spinning import SpinThread
from jarvis_sim.lego.catalog import part
from jarvis_sim.provenance import PlannerInfo
from skills.errors import PathBlocked
from skills.motion import CartesianPlanner, MotionPlanner
from skills.planners.joint_paths import collision_free_goal, straight_or_detour

if TYPE_CHECKING:
    from skills.context import SkillContext

ARM_JOINTS = tuple(f"panda_joint{i}" for i in range(1, 8))
FINGER_JOINTS = ("panda_finger_joint1", "panda_finger_joint2")
HAND_LINK = "panda_hand"
TOUCH_LINKS = ("panda_hand", "panda_leftfinger", "panda_rightfinger")
MOVEIT_SUCCESS = 1


class PlannerUnavailable(RuntimeError):
    """No move_group (or cuMotion) answers on the configured action or service."""


def moveit_msgs_version() -> str:
    """The installed moveit_msgs package's version (its package.xml), or 'not installed'."""
    import importlib.util
    import re
    from pathlib import Path

    spec = importlib.util.find_spec("moveit_msgs")
    if spec is None or spec.origin is None:
        return "not installed"
    shares = []
    with contextlib.suppress(ImportError, LookupError, OSError):  # the ament index, where a workspace is sourced
        from ament_index_python.packages import get_package_share_directory

        shares.append(Path(get_package_share_directory("moveit_msgs")))
    # <prefix>/lib/pythonX.Y/site-packages/moveit_msgs/__init__.py -> <prefix>/share/moveit_msgs
    shares.append(Path(spec.origin).resolve().parents[4] / "share" / "moveit_msgs")
    for share in shares:
        with contextlib.suppress(OSError):
            found = re.search(r"<version>([^<]+)</version>", (share / "package.xml").read_text(encoding="utf-8"))
            if found:
                return found.group(1)
    return "unknown"


class _RosLink:
    """One rclpy node of this process for planner requests, spun in its own thread (the bridge's executor is busy
    running the skill that asks for the plan)."""

    _shared: _RosLink | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        try:
            import rclpy
            from moveit_msgs import action as ma  # noqa: F401  (fails early without moveit_msgs)
            from rclpy.context import Context
            from rclpy.executors import SingleThreadedExecutor
        except ImportError as exc:
            raise PlannerUnavailable(f"the moveit and cumotion planners need rclpy and moveit_msgs ({exc}); "
                                     "install ros-jazzy-moveit-msgs (CI: .ci/ros-setup builds a subset)") from exc
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(f"jarvis_motion_planner_{os.getpid()}", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._clients: dict[tuple[str, str], Any] = {}
        self.spinner = SpinThread(self.executor, name="motion-planner-spin")

    @classmethod
    def get(cls) -> _RosLink:
        """The process's link, created on first use and closed when the process exits."""
        with cls._lock:
            if cls._shared is None or not cls._shared.context.ok():
                cls._shared = _RosLink()
                atexit.register(cls._shared.close)
            return cls._shared

    def close(self) -> None:
        """Stop spinning and leave the ROS graph (a DDS participant alive at interpreter exit aborts it)."""
        import rclpy

        self.spinner.stop()
        if self.context.ok():
            self.executor.shutdown(timeout_sec=1.0)
            self.node.destroy_node()
            rclpy.shutdown(context=self.context)

    def action_client(self, action_type: Any, name: str) -> Any:
        from rclpy.action import ActionClient

        key = ("action", name)
        if key not in self._clients:
            self._clients[key] = ActionClient(self.node, action_type, name)
        return self._clients[key]

    def service_client(self, srv_type: Any, name: str) -> Any:
        key = ("service", name)
        if key not in self._clients:
            self._clients[key] = self.node.create_client(srv_type, name)
        return self._clients[key]

    def send(self, fn: Any) -> Any:
        """Send a request (`lambda: client.send_goal_async(goal)`) without racing the spinning thread."""
        return self.spinner.call(fn)

    @staticmethod
    def wait(future: Any, timeout_s: float, what: str) -> Any:
        done = threading.Event()
        future.add_done_callback(lambda _f: done.set())
        if not done.wait(timeout_s):
            raise PlannerUnavailable(f"{what} did not answer within {timeout_s:.0f} s")
        return future.result()


@dataclass
class MoveItPlanner(MotionPlanner):
    """Detours planned by move_group (see the module docstring)."""

    mode: str = "move_action"  # or "plan_kinematic_path"
    action: str = "/move_action"
    plan_service: str = "/plan_kinematic_path"
    scene_service: str = "/apply_planning_scene"
    group: str = "panda_arm"
    pipeline_id: str = "ompl"
    planner_id: str = "RRTConnectkConfigDefault"
    allowed_planning_time_s: float = 2.0
    attempts: int = 1
    velocity_scaling: float = 1.0
    acceleration_scaling: float = 1.0
    frame: str = "world"
    connect_s: float = 10.0
    timeout_s: float = 30.0
    joint_speed_rad_s: float = 0.8
    cartesian: CartesianPlanner = field(default_factory=CartesianPlanner)
    last_request: Any = None  # the last MotionPlanRequest sent (for tests and logs)
    name: str = "moveit"

    def describe(self) -> PlannerInfo:
        """moveit_msgs' version and where and how it plans."""
        endpoint = self.action if self.mode == "move_action" else self.plan_service
        return PlannerInfo(name=self.name, version=f"moveit_msgs {moveit_msgs_version()}",
                           settings={"mode": self.mode, "endpoint": endpoint, "group": self.group,
                                     "pipeline_id": self.pipeline_id, "planner_id": self.planner_id,
                                     "allowed_planning_time_s": self.allowed_planning_time_s,
                                     "attempts": self.attempts, "velocity_scaling": self.velocity_scaling,
                                     "acceleration_scaling": self.acceleration_scaling,
                                     "joint_speed_rad_s": self.joint_speed_rad_s,
                                     "straight_line": self.cartesian.describe().settings})

    def move_to(self, ctx: SkillContext, position: np.ndarray, quaternion: np.ndarray, speed: float = 0.2,
                check_collisions: bool = True, ignore: tuple[str, ...] = ()) -> None:
        """Straight when free, a planned detour when the straight line collides; raise before moving otherwise."""
        straight_or_detour(ctx, self.cartesian, self.plan, self.joint_speed_rad_s, position, quaternion, speed,
                           check_collisions, ignore)

    # --- planning --------------------------------------------------------------------------------
    def plan(self, ctx: SkillContext, position: np.ndarray, quaternion: np.ndarray,
             ignore: tuple[str, ...] = ()) -> tuple[list[np.ndarray], np.ndarray]:
        """A joint path from the current configuration to the pose, planned by move_group; the pose's quaternion."""
        from moveit_msgs import action as ma
        from moveit_msgs import srv as ms

        goal_q, quaternion = collision_free_goal(ctx, position, quaternion, ignore)
        link = _RosLink.get()
        request = self.plan_request(ctx, goal_q)
        scene = self.scene_diff(ctx, ignore)
        self.last_request = request
        if self.mode == "move_action":
            client = link.action_client(ma.MoveGroup, self.action)
            if not client.wait_for_server(timeout_sec=self.connect_s):
                raise PlannerUnavailable(f"no MoveGroup action server answers {self.action} within "
                                         f"{self.connect_s:.0f} s (start move_group, or cuMotion's planner node)")
            goal = ma.MoveGroup.Goal(request=request)
            goal.planning_options.planning_scene_diff = scene
            goal.planning_options.plan_only = True
            handle = link.wait(link.send(lambda: client.send_goal_async(goal)), self.timeout_s, self.action)
            if not handle.accepted:
                raise PathBlocked(f"the motion planner at {self.action} refused the request; pick another target.")
            result = link.wait(link.send(handle.get_result_async), self.timeout_s, self.action).result
            code, trajectory = int(result.error_code.val), result.planned_trajectory
        elif self.mode == "plan_kinematic_path":
            apply = link.service_client(ms.ApplyPlanningScene, self.scene_service)
            plan = link.service_client(ms.GetMotionPlan, self.plan_service)
            for client, name in ((apply, self.scene_service), (plan, self.plan_service)):
                if not client.wait_for_service(timeout_sec=self.connect_s):
                    raise PlannerUnavailable(f"no move_group service answers {name} within {self.connect_s:.0f} s")
            applied = link.wait(link.send(lambda: apply.call_async(ms.ApplyPlanningScene.Request(scene=scene))),
                                self.timeout_s, self.scene_service)
            if not applied.success:
                raise PlannerUnavailable(f"move_group did not apply the planning scene ({self.scene_service})")
            response = link.wait(link.send(lambda: plan.call_async(ms.GetMotionPlan.Request(motion_plan_request=request))),
                                 self.timeout_s, self.plan_service).motion_plan_response
            code, trajectory = int(response.error_code.val), response.trajectory
        else:
            raise ValueError(f"MoveItPlanner.mode must be move_action or plan_kinematic_path, not {self.mode!r}")
        if code != MOVEIT_SUCCESS:
            p = position * 1000.0
            raise PathBlocked(f"the motion planner found no collision-free path to ({p[0]:.0f}, {p[1]:.0f}, "
                              f"{p[2]:.0f}) mm (MoveIt error code {code}); clear the way or pick another target.")
        path = joint_path(trajectory.joint_trajectory)
        start = ctx.backend.robot_state().joint_positions.copy()
        return [start, *path], quaternion

    def plan_request(self, ctx: SkillContext, goal_q: np.ndarray) -> Any:
        """The MotionPlanRequest: start at the measured joints, goal the joint configuration, this group and
        pipeline, a workspace box over the table."""
        from moveit_msgs.msg import Constraints, JointConstraint, MotionPlanRequest

        state = ctx.backend.robot_state()
        req = MotionPlanRequest()
        req.workspace_parameters.header.frame_id = self.frame
        lo, hi = ctx.workspace.table_min, ctx.workspace.table_max
        req.workspace_parameters.min_corner.x, req.workspace_parameters.min_corner.y = float(lo[0]), float(lo[1])
        req.workspace_parameters.min_corner.z = 0.0
        req.workspace_parameters.max_corner.x, req.workspace_parameters.max_corner.y = float(hi[0]), float(hi[1])
        req.workspace_parameters.max_corner.z = 1.2
        js = req.start_state.joint_state
        js.name = [*ARM_JOINTS, *FINGER_JOINTS]
        js.position = [float(v) for v in state.joint_positions] + [state.gripper_width / 2] * 2
        req.goal_constraints = [Constraints(name="jarvis_goal", joint_constraints=[
            JointConstraint(joint_name=name, position=float(v), tolerance_above=1e-3, tolerance_below=1e-3, weight=1.0)
            for name, v in zip(ARM_JOINTS, goal_q, strict=True)])]
        req.pipeline_id, req.planner_id, req.group_name = self.pipeline_id, self.planner_id, self.group
        req.num_planning_attempts = self.attempts
        req.allowed_planning_time = self.allowed_planning_time_s
        req.max_velocity_scaling_factor = self.velocity_scaling
        req.max_acceleration_scaling_factor = self.acceleration_scaling
        return req

    def scene_diff(self, ctx: SkillContext, ignore: tuple[str, ...]) -> Any:
        """A planning-scene diff with the table and every brick as a box (the held one attached to the hand)."""
        from moveit_msgs.msg import AttachedCollisionObject, PlanningScene

        ws = ctx.backend.world_state()
        scene = PlanningScene(is_diff=True)
        scene.robot_state.is_diff = True
        (x0, y0), (x1, y1) = ctx.workspace.table_min, ctx.workspace.table_max
        scene.world.collision_objects.append(
            box_object("table", self.frame, ((x0 + x1) / 2, (y0 + y1) / 2, -0.02), (1.0, 0.0, 0.0, 0.0),
                       (x1 - x0, y1 - y0, 0.04)))
        for brick in ws.bricks:
            if brick.id in ignore:
                continue
            size = part(brick.part).size_m
            obj = box_object(brick.id, self.frame, brick_centre(brick.position, brick.quaternion, size[2]),
                             brick.quaternion, size)
            if brick.held:
                attached = AttachedCollisionObject(link_name=HAND_LINK, object=obj, touch_links=list(TOUCH_LINKS))
                scene.robot_state.attached_collision_objects.append(attached)
            else:
                scene.world.collision_objects.append(obj)
        return scene


def brick_centre(bottom: tuple[float, float, float], quaternion: tuple[float, float, float, float],
                 height: float) -> tuple[float, float, float]:
    """A box centre from the protocol's brick pose (bottom-face centre, wxyz)."""
    w, x, y, z = quaternion
    # the body's z axis in the world: third column of the rotation matrix
    axis = np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])
    c = np.asarray(bottom, dtype=float) + axis * height / 2
    return (float(c[0]), float(c[1]), float(c[2]))


def box_object(object_id: str, frame: str, centre: tuple[float, float, float],
               quaternion: tuple[float, float, float, float], size: tuple[float, float, float]) -> Any:
    """A moveit_msgs/CollisionObject (ADD) holding one box primitive."""
    from geometry_msgs.msg import Pose
    from moveit_msgs.msg import CollisionObject
    from shape_msgs.msg import SolidPrimitive

    obj = CollisionObject(id=object_id, operation=CollisionObject.ADD)
    obj.header.frame_id = frame
    obj.primitives = [SolidPrimitive(type=SolidPrimitive.BOX, dimensions=[float(v) for v in size])]
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in centre)
    pose.orientation.w, pose.orientation.x, pose.orientation.y, pose.orientation.z = (float(v) for v in quaternion)
    obj.primitive_poses = [pose]
    obj.pose.orientation.w = 1.0
    return obj


def joint_path(trajectory: Any) -> list[np.ndarray]:
    """The arm's waypoints of a trajectory_msgs/JointTrajectory, in panda_joint1..7 order."""
    names = list(trajectory.joint_names)
    missing = [j for j in ARM_JOINTS if j not in names]
    if missing or not trajectory.points:
        raise PathBlocked(f"the motion planner returned no usable trajectory (missing joints {missing}, "
                          f"{len(trajectory.points)} points); pick another target.")
    index = [names.index(j) for j in ARM_JOINTS]
    return [np.array([float(p.positions[i]) for i in index]) for p in trajectory.points]


@dataclass
class CuMotionPlanner(MoveItPlanner):
    """cuMotion (isaac_ros_cumotion's planner node) behind the same MoveGroup action, at `cumotion/move_group`.

    Its node reads the start joints, the first goal's joint constraints and the collision objects of
    `planning_scene_diff`, and answers with a planned trajectory (cuRobo's graph search and trajectory
    optimisation on the GPU)."""

    action: str = "/cumotion/move_group"
    pipeline_id: str = "isaac_ros_cumotion"
    planner_id: str = "cuMotion"
    name: str = "cumotion"

    def describe(self) -> PlannerInfo:
        """Where cuMotion listens, the message version it speaks and the request settings."""
        base = super().describe()
        return PlannerInfo(name="cumotion", version=base.version, settings={**base.settings, "server": "isaac_ros_cumotion"})
