"""The `ros` backend of the service side: episodes run against a bridge (skills/ros/bridge.py) over ROS 2.

It is a Backend for what the episode machinery asks of one (load a task, render the observation image, read
ground truth and the simulated time), all through the bridge's privileged `<ns>/sim/` services, and a remote
skill host: SkillContext.invoke forwards every skill call to the bridge's actions (Pick, Place, PlaceOn, PutDown,
GoHome), its Observe service, or CallSkill for the other skills, and gets back the very JSON result and call
record the in-process skill would have produced. Budgets are counted here, before forwarding.

The arm itself is not driven from here: the skills run next to the simulator, so the motion primitives of the
Backend protocol (step, set_ee_target, ...) raise BackendError.

The motion planner is the episode's (AgentConfig.planner): `planner` is sent with every load_task, and the bridge
answers with the planner's description, kept in `planner_info` for the episode record.

Configuration: JARVIS_ROS_NAMESPACE (default /jarvis) names the bridge; JARVIS_ROS_TIMEOUT_S (default 600)
bounds one call; JARVIS_ROS_CONNECT_S (default 30) how long to wait for the bridge to appear.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from jarvis_sim.backends.base import Backend, BackendError, CameraFrame, RobotState
from jarvis_sim.backends.ros import status
from jarvis_sim.backends.ros.spinning import SpinThread
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.provenance import PlannerInfo
from jarvis_sim.records import SkillCallRecord
from jarvis_sim.tasks.spec import TaskSpec

TYPED_ACTIONS = ("pick", "place", "place_on", "put_down", "go_home")


class BridgeUnavailable(BackendError):
    """No bridge answers on the namespace, or it stopped answering."""


def _image_array(msg: Any, dtype: Any, channels: int) -> np.ndarray | None:
    if msg.height == 0 or msg.width == 0:
        return None
    arr = np.frombuffer(bytes(msg.data), dtype=dtype)
    shape = (msg.height, msg.width, channels) if channels > 1 else (msg.height, msg.width)
    return arr.reshape(shape).copy()


class RosBackend(Backend):
    """Backend and remote skill host over a jarvis bridge (see the module docstring)."""

    name = "ros"

    def __init__(self, namespace: str | None = None, timeout_s: float | None = None, connect_s: float | None = None):
        try:
            import rclpy
            from jarvis_interfaces import action as ja
            from jarvis_interfaces import srv as js
            from rclpy.action import ActionClient
            from rclpy.context import Context
            from rclpy.executors import SingleThreadedExecutor
        except ImportError as exc:
            raise BackendError(
                f"the ros backend needs rclpy and jarvis_interfaces ({exc}); run .ci/ros-setup (pip install "
                "'jarvis[ros]' and build ros2_ws/src/jarvis_interfaces)"
            ) from exc
        self.ns = (namespace or os.environ.get("JARVIS_ROS_NAMESPACE", "/jarvis")).rstrip("/")
        self.timeout_s = timeout_s or float(os.environ.get("JARVIS_ROS_TIMEOUT_S", "600"))
        connect = connect_s or float(os.environ.get("JARVIS_ROS_CONNECT_S", "30"))
        self._rclpy = rclpy
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(f"jarvis_ros_backend_{os.getpid()}", context=self.context)
        self._js, self._ja = js, ja
        skills, sim = f"{self.ns}/skills", f"{self.ns}/sim"
        self._actions = {name: ActionClient(self.node, cls, f"{skills}/{name}") for name, cls in
                         (("pick", ja.Pick), ("place", ja.Place), ("place_on", ja.PlaceOn),
                          ("put_down", ja.PutDown), ("go_home", ja.GoHome))}
        self._observe = self.node.create_client(js.Observe, f"{skills}/observe")
        self._call = self.node.create_client(js.CallSkill, f"{skills}/call")
        self._load = self.node.create_client(js.LoadTask, f"{sim}/load_task")
        self._world = self.node.create_client(js.GetWorldState, f"{sim}/world_state")
        self._render = self.node.create_client(js.Render, f"{sim}/render")
        self._executor = SingleThreadedExecutor(context=self.context)
        self._executor.add_node(self.node)
        self._spinner = SpinThread(self._executor, name="ros-backend-spin")
        self._sim_time = 0.0
        # The motion planner the bridge's skills use, named with every load ("": the bridge's --planner), and the
        # description the bridge answered with (recorded in the episode).
        self.planner = ""
        self.planner_info: PlannerInfo | None = None
        self._task: TaskSpec | None = None
        self._seed = 0
        for client in (self._load, self._world, self._render, self._observe, self._call):
            if not client.wait_for_service(timeout_sec=connect):
                self.close()
                raise BridgeUnavailable(
                    f"no jarvis bridge answers {client.srv_name} within {connect:.0f} s: start one with "
                    f"`python -m skills.ros.bridge --namespace {self.ns}` (ROS_DOMAIN_ID must match)"
                )
        for name, ac in self._actions.items():
            if not ac.wait_for_server(timeout_sec=connect):
                self.close()
                raise BridgeUnavailable(f"the bridge serves no {self.ns}/skills/{name} action")

    # --- waiting on futures ----------------------------------------------------------------------
    def _wait(self, future: Any, what: str) -> Any:
        done = threading.Event()
        future.add_done_callback(lambda _f: done.set())
        if not done.wait(self.timeout_s):
            raise BridgeUnavailable(f"{what}: the bridge did not answer within {self.timeout_s:.0f} s")
        return future.result()

    def _service(self, client: Any, request: Any) -> Any:
        return self._wait(self._spinner.call(lambda: client.call_async(request)), client.srv_name)

    # --- life cycle ------------------------------------------------------------------------------
    def load(self, task: TaskSpec, seed: int = 0) -> None:
        """Load the task in the bridge's simulator (privileged)."""
        req = self._js.LoadTask.Request(task_json=task.model_dump_json(), seed=int(seed), library="",
                                        planner=self.planner)
        resp = self._service(self._load, req)
        if not resp.ok:
            raise BackendError(f"the bridge could not load {task.id}: {resp.message}")
        self.planner_info = PlannerInfo.model_validate_json(resp.planner_json) if resp.planner_json else None
        self._task, self._seed, self._sim_time = task, int(seed), float(resp.sim_time_s)

    def reset(self, seed: int = 0) -> None:
        """Reload the loaded task with a seed."""
        if self._task is None:
            raise BackendError("reset: no task is loaded")
        self.load(self._task, seed)

    def close(self) -> None:
        """Leave the ROS graph (the bridge and its simulator keep running)."""
        if self.context.ok():
            self._spinner.stop()
            self._executor.shutdown(timeout_sec=1.0)
            self.node.destroy_node()
            self._rclpy.shutdown(context=self.context)

    # --- time, read from the bridge's answers ----------------------------------------------------
    @property
    def sim_time_s(self) -> float:
        return self._sim_time

    @property
    def control_dt(self) -> float:
        raise BackendError("the ros backend does not step physics: the bridge runs the skills")

    def step(self, n: int = 1) -> None:
        raise BackendError("the ros backend does not step physics: the bridge runs the skills")

    # --- ground truth and cameras (privileged services) ------------------------------------------
    def world_state(self) -> WorldState:
        resp = self._service(self._world, self._js.GetWorldState.Request())
        if not resp.ok:
            raise BackendError(f"world_state: {resp.message}")
        self._sim_time = float(resp.sim_time_s)
        return WorldState.model_validate_json(resp.world_state_json)

    def held_brick(self) -> str | None:
        resp = self._service(self._world, self._js.GetWorldState.Request())
        return resp.held_brick or None

    def cameras(self) -> list[str]:
        return ["top"]

    def render(self, camera: str = "top", rgb: bool = True, depth: bool = True, segmentation: bool = False) -> CameraFrame:
        req = self._js.Render.Request(camera=camera, rgb=rgb, depth=depth, segmentation=segmentation)
        resp = self._service(self._render, req)
        if not resp.ok:
            raise BackendError(f"render: {resp.message}")
        k = np.asarray(resp.info.k, dtype=float).reshape(3, 3)
        return CameraFrame(
            name=camera,
            rgb=_image_array(resp.rgb_image, np.uint8, 3) if rgb else None,
            depth=_image_array(resp.depth_image, np.float32, 1) if depth else None,
            segmentation=_image_array(resp.segmentation_image, np.int32, 1) if segmentation else None,
            segment_ids={int(i): v for i, v in json.loads(resp.segment_ids_json or "{}").items()},
            intrinsics=k, world_from_camera=np.asarray(resp.world_from_camera, dtype=float).reshape(4, 4),
        )

    # --- skills ----------------------------------------------------------------------------------
    def invoke_skill(self, name: str, args: list[Any], kwargs: dict[str, Any],
                     image_sink: Callable[[str, np.ndarray], str] | None = None, camera: str = "top") -> SkillCallRecord:
        """Run a skill in the bridge; returns its call record (ok with result, or the typed error).

        capture_images runs in the bridge (so calls are counted there, where perturbations fire), and its images
        are then rendered through the privileged render service and saved by `image_sink` on this side."""
        goal = self._typed_goal(name, args, kwargs)
        if goal is not None:
            action = self._actions[name]
            gh = self._wait(self._spinner.call(lambda: action.send_goal_async(goal)), f"{self.ns}/skills/{name}")
            if not gh.accepted:
                raise BridgeUnavailable(f"the bridge refused the {name} goal")
            result = self._wait(self._spinner.call(gh.get_result_async), f"{self.ns}/skills/{name}").result
        elif name == "observe" and not args and not kwargs:
            result = self._service(self._observe, self._js.Observe.Request())
        else:
            payload = json.dumps({"args": args, "kwargs": kwargs})
            result = self._service(self._call, self._js.CallSkill.Request(name=name, args_json=payload))
        st = result.status
        self._sim_time = float(st.sim_time_s) or self._sim_time
        if st.code == status.BRIDGE_ERROR:
            raise BackendError(f"the bridge could not run {name}: {st.message}")
        record = SkillCallRecord.model_validate_json(result.record_json)
        if name == "capture_images" and record.ok and image_sink is not None:
            frame = self.render(camera, rgb=True, depth=True, segmentation=False)
            assert frame.rgb is not None and frame.depth is not None
            record.result = {"rgb": image_sink("rgb", frame.rgb), "depth": image_sink("depth", frame.depth)}
        return record

    def _typed_goal(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """The typed action goal of a call, or None when the call has another shape (it then goes through
        CallSkill, whose validation gives the agent the same error as in-process)."""
        if name not in TYPED_ACTIONS or args:
            return None
        ja = self._ja
        try:
            if name == "pick" and set(kwargs) == {"brick"} and isinstance(kwargs["brick"], str):
                return ja.Pick.Goal(brick=kwargs["brick"])
            if name == "place" and set(kwargs) == {"pose"} and isinstance(kwargs["pose"], dict):
                pose = kwargs["pose"]
                if set(pose) <= {"x_mm", "y_mm", "z_mm", "yaw_deg"} and {"x_mm", "y_mm", "z_mm"} <= set(pose) and all(
                        type(v) in (int, float) for v in pose.values()):
                    return ja.Place.Goal(x_mm=float(pose["x_mm"]), y_mm=float(pose["y_mm"]),
                                         z_mm=float(pose["z_mm"]), yaw_deg=float(pose.get("yaw_deg", 0.0)))
            if name == "place_on" and {"support", "stud_x", "stud_y"} <= set(kwargs) <= {
                    "support", "stud_x", "stud_y", "rotation"}:
                ints = [kwargs["stud_x"], kwargs["stud_y"], kwargs.get("rotation", 0)]
                if isinstance(kwargs["support"], str) and all(type(v) is int and abs(v) < 2**31 for v in ints):
                    return ja.PlaceOn.Goal(support=kwargs["support"], stud_x=ints[0], stud_y=ints[1], rotation=ints[2])
            if name == "put_down" and not kwargs:
                return ja.PutDown.Goal()
            if name == "go_home" and not kwargs:
                return ja.GoHome.Goal()
        except (AssertionError, TypeError, ValueError):
            return None
        return None

    # --- what only the bridge's side can do ------------------------------------------------------
    def _bridge_only(self, what: str) -> BackendError:
        return BackendError(f"{what}: the ros backend does not drive the arm; the bridge's skills do")

    def robot_state(self) -> RobotState:
        raise self._bridge_only("robot_state")

    def set_joint_targets(self, q: np.ndarray) -> None:
        raise self._bridge_only("set_joint_targets")

    def set_ee_target(self, position: np.ndarray, quaternion: np.ndarray) -> None:
        raise self._bridge_only("set_ee_target")

    def set_gripper(self, closed: bool, force_n: float | None = None, width_m: float | None = None) -> None:
        raise self._bridge_only("set_gripper")

    def solve_ik(self, position: np.ndarray, quaternion: np.ndarray, q0: np.ndarray | None = None) -> np.ndarray | None:
        raise self._bridge_only("solve_ik")

    def collisions(self, q: np.ndarray, ignore: tuple[str, ...] = (),
                   clearance_m: float = 0.0) -> list[tuple[str, str]]:
        raise self._bridge_only("collisions")

    @property
    def home_q(self) -> np.ndarray:
        raise self._bridge_only("home_q")

    def save_state(self) -> Any:
        raise self._bridge_only("save_state")

    def restore_state(self, snapshot: Any) -> None:
        raise self._bridge_only("restore_state")

    def displace_brick(self, brick_id: str, offset_m: tuple[float, float]) -> None:
        raise self._bridge_only("displace_brick (perturbations are applied by the bridge)")

    def drop_held(self) -> None:
        raise self._bridge_only("drop_held (perturbations are applied by the bridge)")

    def knock(self, brick_id: str, impulse_n_s: float) -> None:
        raise self._bridge_only("knock (perturbations are applied by the bridge)")
