"""The ROS 2 bridge: one node that hosts a Backend and the verified skills next to it (lockstep physics stays in
this process) and exposes them the ROS way.

Public (robot and agent-facing) interfaces, all relative to the node's root:
- `/joint_states` (sensor_msgs/JointState, 100 Hz wall clock, stamped with simulated time), `/clock`, `/tf`
  (the tool centre point and the cameras; never the bricks, which are ground truth),
- `/camera/<name>/image_raw` (rgb8), `/camera/<name>/depth/image_raw` (32FC1, m), `/camera/<name>/camera_info`,
  rendered only while someone subscribes (rendering costs the simulator's CPU),
- `/panda_arm_controller/follow_joint_trajectory` and `/panda_hand_controller/gripper_cmd` (control_msgs), the
  controllers MoveIt's Panda configuration executes through,
- `<ns>/skills/{pick,place,place_on,put_down,go_home}` (jarvis_interfaces actions with phase feedback and typed
  error codes), `<ns>/skills/observe` and `<ns>/skills/call` (any other skill of the library, JSON arguments).

Privileged interfaces on `<ns>/sim/`: `load_task`, `world_state` (ground truth for the evaluator), `render`.
The split is by name only: a deployment that lets untrusted ROS clients join the graph must also keep them
off `<ns>/sim/` with SROS2 access control (not on PyPI; not tested here). The ROS 2 `simulation_interfaces`
package that Isaac Sim 6.2 serves has no PyPI wheels either, so these services are jarvis_interfaces' own.

Every callback runs in one thread: a skill call blocks the executor while it steps physics, and the backend
wrapper below publishes the robot topics and the action feedback from inside those steps.

Run: `python -m skills.ros.bridge --backend mujoco` (or `ros2 run jarvis_bridge bridge` in the image).
"""

from __future__ import annotations

import argparse
import json
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from jarvis_sim.backends.base import Backend, CameraFrame
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.backends.ros import status
from jarvis_sim.tasks.spec import TaskSpec
from skills.errors import SkillError
from skills.libraries import library
from skills.planners.registry import make_planner
from skills.registry import SkillSpec
from skills.ros.controllers import ControllerActions
from skills.ros.messages import image_message, stamp
from skills.ros.observed import ObservedBackend, PhaseReportingPlanner
from skills.ros.trajectory import PANDA_ARM_JOINTS, PANDA_FINGER_JOINTS

DEFAULT_NAMESPACE = "/jarvis"
RESULT_TIMEOUT_S = 30.0  # how long an action server keeps a finished goal for its client to fetch the result


class BridgeNode(ControllerActions):
    """The bridge (see the module docstring). Create, then `spin()`; `close()` frees the node and the backend."""

    def __init__(self, backend: Backend, *, namespace: str = DEFAULT_NAMESPACE, planner: str = "cartesian",
                 joint_state_hz: float = 100.0, camera_hz: float = 10.0, node_name: str = "jarvis_bridge",
                 wall_stamps: bool = False):
        import rclpy
        from jarvis_interfaces import action as ja
        from jarvis_interfaces import srv as js
        from jarvis_interfaces.msg import BrickDescriptor
        from rclpy.action import ActionServer, GoalResponse
        from rclpy.context import Context
        from rclpy.node import Node
        from rosgraph_msgs.msg import Clock
        from sensor_msgs.msg import CameraInfo, Image, JointState

        self._rclpy, self._goal_response = rclpy, GoalResponse
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = Node(node_name, context=self.context)
        self.ns = namespace.rstrip("/")
        self.raw_backend = backend
        self.backend = ObservedBackend(backend, self._on_tick, self._on_phase)
        self.planner_name = planner
        self.ctx: Any = None  # the episode's SkillContext, made by load_task
        self.specs: dict[str, SkillSpec] = {}
        self._Image, self._CameraInfo, self._JointState, self._Clock = Image, CameraInfo, JointState, Clock
        self._js_period = 1.0 / joint_state_hz
        self._cam_period = 1.0 / camera_hz if camera_hz > 0 else math.inf
        self._next_js = 0.0
        self._next_cam = 0.0
        self._goal: Any = None  # the skill goal being executed (for phase feedback)
        self._phase_index = 0
        self._feedback_cls: Any = None
        self.joint_states_published = 0
        # Stamps are simulated time (consumers set use_sim_time); wall-clock stamps let a benchmark measure latency.
        self._now: Callable[[], float] = time.time if wall_stamps else (lambda: self.raw_backend.sim_time_s)

        n = self.node
        self.pub_joint_states = n.create_publisher(JointState, "/joint_states", 100)
        self.pub_clock = n.create_publisher(Clock, "/clock", 10)
        try:
            from tf2_msgs.msg import TFMessage

            self._TFMessage: Any = TFMessage
            self.pub_tf: Any = n.create_publisher(TFMessage, "/tf", 100)
        except ImportError:  # tf2_msgs has no PyPI wheel: CI builds a shim, the image installs it from apt
            self._TFMessage, self.pub_tf = None, None
            n.get_logger().warning("tf2_msgs is not installed: /tf is not published")
        self.camera_pubs: dict[str, tuple[Any, Any, Any]] = {}
        for cam in backend.cameras():
            self.camera_pubs[cam] = (
                n.create_publisher(Image, f"/camera/{cam}/image_raw", 2),
                n.create_publisher(Image, f"/camera/{cam}/depth/image_raw", 2),
                n.create_publisher(CameraInfo, f"/camera/{cam}/camera_info", 2),
            )

        skills = f"{self.ns}/skills"
        # Finished goals are kept only RESULT_TIMEOUT_S (rclpy's default is 900 s): every status update publishes
        # every goal the server still holds, so a long-lived bridge's round trips grew with the goals it had run.
        keep = {"result_timeout": RESULT_TIMEOUT_S}
        self._servers = [
            ActionServer(n, ja.Pick, f"{skills}/pick", self._skill_executor("pick", ja.Pick, self._pick_args,
                                                                          self._fill_pick), **keep),
            ActionServer(n, ja.Place, f"{skills}/place", self._skill_executor("place", ja.Place, self._place_args,
                                                                            self._fill_place), **keep),
            ActionServer(n, ja.PlaceOn, f"{skills}/place_on",
                         self._skill_executor("place_on", ja.PlaceOn, self._place_on_args, self._fill_place), **keep),
            ActionServer(n, ja.PutDown, f"{skills}/put_down",
                         self._skill_executor("put_down", ja.PutDown, lambda g: {}, self._fill_place), **keep),
            ActionServer(n, ja.GoHome, f"{skills}/go_home",
                         self._skill_executor("go_home", ja.GoHome, lambda g: {}, lambda r, v: None), **keep),
        ]
        self._services = [
            n.create_service(js.Observe, f"{skills}/observe", self._observe),
            n.create_service(js.CallSkill, f"{skills}/call", self._call_skill),
            n.create_service(js.LoadTask, f"{self.ns}/sim/load_task", self._load_task),
            n.create_service(js.GetWorldState, f"{self.ns}/sim/world_state", self._world_state),
            n.create_service(js.Render, f"{self.ns}/sim/render", self._render),
        ]
        self._BrickDescriptor = BrickDescriptor
        try:
            from control_msgs.action import FollowJointTrajectory, GripperCommand

            self._FJT: Any = FollowJointTrajectory
            self._servers.append(ActionServer(
                n, FollowJointTrajectory, "/panda_arm_controller/follow_joint_trajectory",
                execute_callback=self._follow_joint_trajectory, goal_callback=self._check_trajectory, **keep))
            self._servers.append(ActionServer(n, GripperCommand, "/panda_hand_controller/gripper_cmd",
                                              execute_callback=self._gripper_command,
                                              goal_callback=self._scene_loaded, **keep))
        except ImportError:
            n.get_logger().warning("control_msgs is not installed: no trajectory or gripper controllers")
        self._timer = n.create_timer(self._js_period, self._on_timer)
        self._robot_msgs: tuple[Any, Any, Any, float] | None = None
        self._stop = threading.Event()
        self._wall_stamps = wall_stamps
        self._publisher_thread = threading.Thread(target=self._robot_publisher, name="joint-states", daemon=True)
        self._publisher_thread.start()

    # --- life cycle ------------------------------------------------------------------------------
    def spin(self) -> None:
        """Serve until shut down (Ctrl-C or the context's shutdown)."""
        from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor

        executor = SingleThreadedExecutor(context=self.context)
        executor.add_node(self.node)
        try:
            executor.spin()
        except (KeyboardInterrupt, ExternalShutdownException):
            pass
        finally:
            executor.shutdown()

    def close(self) -> None:
        """Destroy the node, shut its context down and free the backend."""
        self._stop.set()
        self._publisher_thread.join(timeout=2.0)
        try:
            self.node.destroy_node()
        finally:
            if self.context.ok():
                self._rclpy.shutdown(context=self.context)
            self.raw_backend.close()

    # --- robot topics ----------------------------------------------------------------------------
    def _on_timer(self) -> None:  # idle: the executor is free between skill calls
        self._publish_due(time.perf_counter())

    def _on_tick(self) -> None:  # inside a skill or controller goal, which blocks the executor while it steps
        self._publish_due(time.perf_counter())

    def _publish_due(self, now: float) -> None:
        if self.ctx is None:
            return  # no scene loaded yet
        if now >= self._next_js:
            self._next_js = max(self._next_js + self._js_period, now - self._js_period)
            self._snapshot_robot()
        if now >= self._next_cam:
            self._next_cam = now + self._cam_period
            self._publish_cameras()

    def _snapshot_robot(self) -> None:
        """Read the robot (this thread owns the simulator) into the messages the publisher thread sends."""
        state = self.raw_backend.robot_state()
        js = self._JointState()
        js.name = [*PANDA_ARM_JOINTS, *PANDA_FINGER_JOINTS]
        half = state.gripper_width / 2
        js.position = [float(x) for x in state.joint_positions] + [half, half]
        js.velocity = [float(x) for x in state.joint_velocities] + [0.0, 0.0]
        clock = self._Clock()
        stamp(clock.clock, self.raw_backend.sim_time_s)
        tf_msg = None
        if self.pub_tf is not None:
            from geometry_msgs.msg import TransformStamped

            tf = TransformStamped()
            tf.header.frame_id, tf.child_frame_id = "world", "panda_tcp"
            p, q = state.ee_position, state.ee_quaternion
            tf.transform.translation.x, tf.transform.translation.y, tf.transform.translation.z = (float(v) for v in p)
            tf.transform.rotation.w, tf.transform.rotation.x = float(q[0]), float(q[1])
            tf.transform.rotation.y, tf.transform.rotation.z = float(q[2]), float(q[3])
            tf_msg = self._TFMessage(transforms=[tf])
        self._robot_msgs = (js, clock, tf_msg, self._now())

    def _robot_publisher(self) -> None:
        """Publish the latest robot snapshot at the joint-state rate, whatever the simulator thread is doing
        (a camera frame rendered in software takes longer than a 10 ms period)."""
        next_t = time.perf_counter()
        while not self._stop.is_set():
            snap = self._robot_msgs
            if snap is not None:
                js, clock, tf_msg, t = snap
                if self._wall_stamps:
                    t = time.time()
                stamp(js.header.stamp, t)
                self.pub_joint_states.publish(js)
                self.pub_clock.publish(clock)
                if tf_msg is not None:
                    for tf in tf_msg.transforms:
                        stamp(tf.header.stamp, t)
                    self.pub_tf.publish(tf_msg)
                self.joint_states_published += 1
            next_t += self._js_period
            delay = next_t - time.perf_counter()
            if delay < -self._js_period:
                next_t = time.perf_counter()  # fell behind: restart the schedule instead of bursting
            self._stop.wait(max(0.0, delay))

    def _publish_cameras(self) -> None:
        for cam, (pub_rgb, pub_depth, pub_info) in self.camera_pubs.items():
            want_rgb = pub_rgb.get_subscription_count() > 0
            want_depth = pub_depth.get_subscription_count() > 0
            if not (want_rgb or want_depth or pub_info.get_subscription_count() > 0):
                continue
            frame = self.raw_backend.render(cam, rgb=want_rgb, depth=want_depth, segmentation=False)
            t = self._now()
            frame_id = f"{cam}_camera_optical_frame"
            if want_rgb and frame.rgb is not None:
                pub_rgb.publish(image_message(self._Image, frame.rgb, "rgb8", frame_id, t))
            if want_depth and frame.depth is not None:
                pub_depth.publish(image_message(self._Image, frame.depth.astype(np.float32), "32FC1", frame_id, t))
            pub_info.publish(self._camera_info(frame, frame_id, t))

    def _camera_info(self, frame: CameraFrame, frame_id: str, t: float) -> Any:
        info = self._CameraInfo()
        stamp(info.header.stamp, t)
        info.header.frame_id = frame_id
        info.height, info.width = frame.shape
        k = np.asarray(frame.intrinsics, dtype=float)
        info.k = [float(v) for v in k.reshape(-1)]
        info.p = [float(k[0, 0]), 0.0, float(k[0, 2]), 0.0, 0.0, float(k[1, 1]), float(k[1, 2]), 0.0, 0.0, 0.0, 1.0, 0.0]
        info.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
        info.distortion_model = "plumb_bob"
        info.d = [0.0] * 5
        return info

    # --- skills ----------------------------------------------------------------------------------
    def _on_phase(self, phase: str) -> None:
        if self._goal is None or self._feedback_cls is None:
            return
        self._phase_index += 1
        fb = self._feedback_cls()
        f = fb.feedback
        f.phase, f.phase_index = phase, self._phase_index
        f.sim_time_s = float(self.raw_backend.sim_time_s)
        p = self.raw_backend.robot_state().ee_position * 1000.0
        f.tcp_x_mm, f.tcp_y_mm, f.tcp_z_mm = float(p[0]), float(p[1]), float(p[2])
        self._goal.publish_feedback(fb)

    def _invoke(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> tuple[int, str, str, Any, str]:
        """Run one skill in the episode's context: (code, kind, message, result, record JSON)."""
        if self.ctx is None:
            return status.BRIDGE_ERROR, "", "no task is loaded: call the privileged load_task service first", None, ""
        spec = self.specs.get(name)
        if spec is None:
            known = ", ".join(sorted(self.specs))
            return status.BRIDGE_ERROR, "", f"no skill {name!r} in this library (known: {known})", None, ""
        try:
            result = self.ctx.invoke(spec, tuple(args), kwargs)
            code, kind, message = status.OK, "", ""
        except SkillError as exc:
            result, code, kind, message = None, status.code_for(exc.kind), exc.kind, exc.message
        except Exception as exc:  # a simulator failure: reported, the bridge keeps serving
            self.node.get_logger().error(f"{name} failed: {type(exc).__name__}: {exc}")
            return status.BRIDGE_ERROR, "", f"{type(exc).__name__}: {exc}", None, ""
        record = self.ctx.calls[-1].model_dump_json() if self.ctx.calls else ""
        return code, kind, message, result, record

    def _fill_status(self, msg_status: Any, code: int, kind: str, message: str) -> None:
        msg_status.code, msg_status.kind, msg_status.message = code, kind, message
        msg_status.sim_time_s = float(self.raw_backend.sim_time_s)

    def _skill_executor(self, name: str, action_cls: Any, goal_args: Callable[[Any], dict[str, Any]],
                        fill: Callable[[Any, Any], None]) -> Callable[[Any], Any]:
        def execute(goal_handle: Any) -> Any:
            self._goal, self._phase_index, self._feedback_cls = goal_handle, 0, action_cls.Feedback
            try:
                code, kind, message, value, record = self._invoke(name, [], goal_args(goal_handle.request))
            finally:
                self._goal = None
            result = action_cls.Result()
            self._fill_status(result.status, code, kind, message)
            result.result_json, result.record_json = json.dumps(value), record
            if code == status.OK and value is not None:
                fill(result, value)
            if code == status.OK:
                goal_handle.succeed()
            else:
                goal_handle.abort()
            return result

        return execute

    @staticmethod
    def _pick_args(goal: Any) -> dict[str, Any]:
        return {"brick": goal.brick}

    @staticmethod
    def _place_args(goal: Any) -> dict[str, Any]:
        return {"pose": {"x_mm": goal.x_mm, "y_mm": goal.y_mm, "z_mm": goal.z_mm, "yaw_deg": goal.yaw_deg}}

    @staticmethod
    def _place_on_args(goal: Any) -> dict[str, Any]:
        return {"support": goal.support, "stud_x": goal.stud_x, "stud_y": goal.stud_y, "rotation": goal.rotation}

    @staticmethod
    def _fill_pick(result: Any, value: dict[str, Any]) -> None:
        grasp = value["grasp"]
        result.grasp_x_mm, result.grasp_y_mm = float(grasp["x_mm"]), float(grasp["y_mm"])
        result.grasp_z_mm, result.grasp_yaw_deg = float(grasp["z_mm"]), float(grasp["yaw_deg"])
        result.lifted_to_mm = float(value["lifted_to_mm"])

    @staticmethod
    def _fill_place(result: Any, value: dict[str, Any]) -> None:
        pose = value["pose"]
        result.brick = value["brick"]
        result.x_mm, result.y_mm, result.z_mm = float(pose["x_mm"]), float(pose["y_mm"]), float(pose["z_mm"])
        result.yaw_deg, result.error_mm = float(pose["yaw_deg"]), float(value["error_mm"])
        result.seated = bool(value["seated"])

    def _observe(self, request: Any, response: Any) -> Any:
        code, kind, message, value, record = self._invoke("observe", [], {})
        self._fill_status(response.status, code, kind, message)
        response.result_json, response.record_json = json.dumps(value), record
        for d in value or []:
            m = self._BrickDescriptor()
            m.id, m.color, m.height = d["id"], d["color"], d["height"]
            m.size_long, m.size_short = int(d["size"][0]), int(d["size"][1])
            m.x_mm, m.y_mm, m.top_z_mm, m.yaw_deg = (float(d[k]) for k in ("x_mm", "y_mm", "top_z_mm", "yaw_deg"))
            m.in_structure, m.free_to_grasp = bool(d["in_structure"]), bool(d["free_to_grasp"])
            m.visible_fraction = float(d["visible_fraction"])
            response.bricks.append(m)
        return response

    def _call_skill(self, request: Any, response: Any) -> Any:
        try:
            payload = json.loads(request.args_json or "{}")
            if not isinstance(payload, dict):
                raise ValueError("args_json must be a JSON object")
            args, kwargs = payload.get("args", []), payload.get("kwargs", {})
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise ValueError('args_json must look like {"args": [...], "kwargs": {...}}')
        except ValueError as exc:
            self._fill_status(response.status, status.code_for("invalid_argument"), "invalid_argument",
                              f"{request.name}(): bad args_json: {exc}")
            response.result_json = "null"
            return response
        code, kind, message, value, record = self._invoke(request.name, args, kwargs)
        self._fill_status(response.status, code, kind, message)
        response.result_json, response.record_json = json.dumps(value), record
        return response

    # --- privileged ------------------------------------------------------------------------------
    def _load_task(self, request: Any, response: Any) -> Any:
        from pydantic import ValidationError

        from skills.context import SkillContext

        try:
            task = TaskSpec.model_validate_json(request.task_json)
            # Without a library named, both: the service side's sandbox enforces its own library's allow-list.
            libs = [request.library] if request.library else ["task", "generic"]
            specs = {s.name: s for lib in libs for s in library(lib)}
            planner = make_planner(request.planner or self.planner_name)
        except (ValidationError, KeyError, ValueError, ImportError) as exc:
            response.ok, response.message = False, f"load_task: {exc}"
            return response
        try:
            self.backend.load(task, seed=int(request.seed))
        except Exception as exc:
            response.ok, response.message = False, f"load_task: the backend failed: {type(exc).__name__}: {exc}"
            return response
        # Budgets are the service side's to enforce (it counts calls and simulated time before forwarding);
        # perturbations are physical, so they are applied here, at the same call counts as in-process.
        self.ctx = SkillContext(backend=self.backend, workspace=task.workspace, max_calls=10**9,
                                perturbations=list(task.perturbations),
                                motion=PhaseReportingPlanner(planner, self._on_phase))
        self.specs = specs
        response.ok, response.message = True, f"loaded {task.id} (seed {request.seed}, skills of {'+'.join(libs)})"
        response.sim_time_s = float(self.raw_backend.sim_time_s)
        response.planner_json = planner.describe().model_dump_json()
        return response

    def _world_state(self, request: Any, response: Any) -> Any:
        if self.ctx is None:
            response.ok, response.message = False, "no task is loaded"
            return response
        response.ok = True
        response.world_state_json = self.raw_backend.world_state().model_dump_json()
        response.held_brick = self.raw_backend.held_brick() or ""
        response.sim_time_s = float(self.raw_backend.sim_time_s)
        return response

    def _render(self, request: Any, response: Any) -> Any:
        if self.ctx is None:
            response.ok, response.message = False, "no task is loaded"
            return response
        cam = request.camera or "top"
        if cam not in self.raw_backend.cameras():
            response.ok, response.message = False, f"no camera {cam!r} (cameras: {', '.join(self.raw_backend.cameras())})"
            return response
        frame = self.raw_backend.render(cam, rgb=request.rgb, depth=request.depth, segmentation=request.segmentation)
        t, frame_id = self.raw_backend.sim_time_s, f"{cam}_camera_optical_frame"
        if frame.rgb is not None:
            response.rgb_image = image_message(self._Image, frame.rgb, "rgb8", frame_id, t)
        if frame.depth is not None:
            response.depth_image = image_message(self._Image, frame.depth.astype(np.float32), "32FC1", frame_id, t)
        if frame.segmentation is not None:
            response.segmentation_image = image_message(self._Image, frame.segmentation.astype(np.int32), "32SC1",
                                                        frame_id, t)
        response.segment_ids_json = json.dumps({str(k): v for k, v in frame.segment_ids.items()})
        response.info = self._camera_info(frame, frame_id, t)
        response.world_from_camera = [float(v) for v in np.asarray(frame.world_from_camera, dtype=float).reshape(-1)]
        response.ok = True
        return response


def main(argv: list[str] | None = None) -> None:
    """Console entry point: a bridge around a named backend."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="mujoco", help="backend name (jarvis_sim.backends)")
    parser.add_argument("--namespace", default=DEFAULT_NAMESPACE, help="prefix of the skills/ and sim/ interfaces")
    parser.add_argument("--planner", default="cartesian", help="motion planner of the skills (skills.motion)")
    parser.add_argument("--camera-hz", type=float, default=10.0, help="camera topic rate while subscribed")
    parser.add_argument("--wall-stamps", action="store_true", help="stamp topics with wall time (benchmarks)")
    args, _ros_args = parser.parse_known_args(argv)
    serve(make_backend(args.backend), namespace=args.namespace, planner=args.planner, camera_hz=args.camera_hz,
          wall_stamps=args.wall_stamps)


def serve(backend: Backend, **options: Any) -> None:
    """Run a bridge around a backend until shut down, then free both; logs 'bridge ready' once it serves."""
    bridge = BridgeNode(backend, **options)
    bridge.node.get_logger().info(f"bridge ready: backend {backend.name}, namespace {bridge.ns}, "
                                  f"planner {bridge.planner_name}")
    try:
        bridge.spin()
    finally:
        bridge.close()


if __name__ == "__main__":
    main()
