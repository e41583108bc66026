"""An external ROS 2 client (plain rclpy, as a user's script would be) against a real bridge process: privileged
task loading and ground truth, the robot topics, the skill actions with phase feedback and typed errors, and the
ros2_control-style controllers MoveIt executes through."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from jarvis_sim.backends.ros.spinning import SpinThread
from tests.fakes.lego_tasks import stack_task
from tests.ros.bridge_process import BridgeProcess

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ARM = [f"panda_joint{i}" for i in range(1, 8)]


class Client:
    """A plain rclpy node with a spinning thread, and blocking helpers for services and actions."""

    def __init__(self, ns: str):
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        self.ns = ns
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("external_test_client", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        # rclpy's ActionClient races a spinning thread on fast responses (jarvis_sim/backends/ros/spinning.py): send under its lock.
        self.spinner = SpinThread(self.executor, name="external-test-client")

    @staticmethod
    def wait(future: Any, timeout: float = 180.0) -> Any:
        done = threading.Event()
        future.add_done_callback(lambda _f: done.set())
        assert done.wait(timeout), "no answer"
        return future.result()

    def call(self, srv_type: Any, name: str, request: Any) -> Any:
        client = self.node.create_client(srv_type, name)
        assert client.wait_for_service(timeout_sec=30), f"no service {name}"
        return self.wait(self.spinner.call(lambda: client.call_async(request)))

    def goal(self, action_type: Any, name: str, goal: Any, feedback: list[Any] | None = None) -> tuple[bool, Any]:
        from rclpy.action import ActionClient

        client = ActionClient(self.node, action_type, name)
        assert client.wait_for_server(timeout_sec=30), f"no action {name}"
        cb: Callable[[Any], None] | None = (lambda m: feedback.append(m.feedback)) if feedback is not None else None
        handle = self.wait(self.spinner.call(lambda: client.send_goal_async(goal, feedback_callback=cb)))
        if not handle.accepted:
            return False, None
        return True, self.wait(self.spinner.call(handle.get_result_async)).result

    def collect(self, msg_type: Any, topic: str, seconds: float, qos: int = 100) -> list[Any]:
        got: list[Any] = []
        sub = self.node.create_subscription(msg_type, topic, got.append, qos)
        time.sleep(seconds)
        self.node.destroy_subscription(sub)
        return got

    def close(self) -> None:
        import rclpy

        self.spinner.stop()
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)


@pytest.fixture(scope="module")
def client(bridge: BridgeProcess) -> Iterator[Client]:
    c = Client(bridge.namespace)
    yield c
    c.close()


@pytest.fixture(scope="module")
def loaded(client: Client) -> Client:
    from jarvis_interfaces.srv import LoadTask

    resp = client.call(LoadTask, f"{client.ns}/sim/load_task",
                       LoadTask.Request(task_json=stack_task(2, 1, baseplate=True).model_dump_json(), seed=0))
    assert resp.ok, resp.message
    return client


def truth(client: Client) -> dict[str, Any]:
    from jarvis_interfaces.srv import GetWorldState

    resp = client.call(GetWorldState, f"{client.ns}/sim/world_state", GetWorldState.Request())
    assert resp.ok, resp.message
    return {"bricks": {b["id"]: b for b in json.loads(resp.world_state_json)["bricks"]}, "held": resp.held_brick}


def test_a_bad_task_is_refused_with_the_reason(client: Client) -> None:
    from jarvis_interfaces.srv import LoadTask

    resp = client.call(LoadTask, f"{client.ns}/sim/load_task", LoadTask.Request(task_json='{"id": 3}', seed=0))
    assert not resp.ok and "load_task" in resp.message and "id" in resp.message


def test_controllers_refuse_goals_before_a_task_is_loaded(client: Client) -> None:
    from control_msgs.action import GripperCommand

    goal = GripperCommand.Goal()
    goal.command.position = 0.02
    ok, _ = client.goal(GripperCommand, "/panda_hand_controller/gripper_cmd", goal)
    assert not ok


def test_joint_states_clock_and_tf_are_published(loaded: Client) -> None:
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState
    from tf2_msgs.msg import TFMessage

    states = loaded.collect(JointState, "/joint_states", 1.0)
    assert len(states) >= 20, f"{len(states)} joint states in 1 s"
    assert list(states[-1].name) == [*ARM, "panda_finger_joint1", "panda_finger_joint2"]
    assert len(states[-1].position) == 9 and all(math.isfinite(v) for v in states[-1].position)
    assert loaded.collect(Clock, "/clock", 0.5)
    tfs = loaded.collect(TFMessage, "/tf", 0.5)
    frames = {t.child_frame_id for m in tfs for t in m.transforms}
    assert frames == {"panda_tcp"}  # the robot only: brick poses are ground truth, never on /tf


def test_camera_topics_carry_rgb_depth_and_calibration(loaded: Client) -> None:
    from jarvis_interfaces.srv import Render
    from sensor_msgs.msg import CameraInfo, Image

    got: dict[str, list[Any]] = {"rgb": [], "depth": [], "info": []}
    subs = [
        loaded.node.create_subscription(Image, "/camera/top/image_raw", got["rgb"].append, 2),
        loaded.node.create_subscription(Image, "/camera/top/depth/image_raw", got["depth"].append, 2),
        loaded.node.create_subscription(CameraInfo, "/camera/top/camera_info", got["info"].append, 2),
    ]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(got.values()):
        time.sleep(0.1)
    for s in subs:
        loaded.node.destroy_subscription(s)
    rgb, depth, info = got["rgb"][0], got["depth"][0], got["info"][0]
    assert (rgb.height, rgb.width, rgb.encoding) == (480, 640, "rgb8") and len(rgb.data) == 480 * 640 * 3
    assert depth.encoding == "32FC1"
    d = np.frombuffer(bytes(depth.data), dtype=np.float32).reshape(480, 640)
    assert 0.3 < float(np.median(d)) < 3.0  # metres to the table
    frame = loaded.call(Render, f"{loaded.ns}/sim/render", Render.Request(camera="top", rgb=True))
    assert frame.ok and list(info.k) == list(frame.info.k) and info.k[0] > 100


def test_pick_and_place_on_through_the_actions(loaded: Client) -> None:
    from jarvis_interfaces.action import Pick, PlaceOn
    from jarvis_interfaces.msg import SkillStatus
    from jarvis_interfaces.srv import Observe
    from sensor_msgs.msg import JointState

    seen = loaded.call(Observe, f"{loaded.ns}/skills/observe", Observe.Request())
    assert seen.status.code == SkillStatus.OK and len(seen.bricks) == 3
    world = truth(loaded)["bricks"]

    def seen_as(brick_id: str) -> str:
        x, y = (v * 1000.0 for v in world[brick_id]["position"][:2])
        best = min(seen.bricks, key=lambda b: math.hypot(b.x_mm - x, b.y_mm - y))
        return str(best.id)

    loose, support = seen_as("a00"), seen_as("s001")
    assert [b.in_structure for b in seen.bricks if b.id == loose] == [False]

    states: list[Any] = []
    sub = loaded.node.create_subscription(JointState, "/joint_states", states.append, 100)
    feedback: list[Any] = []
    ok, result = loaded.goal(Pick, f"{loaded.ns}/skills/pick", Pick.Goal(brick=loose), feedback)
    assert ok and result.status.code == SkillStatus.OK, result.status.message
    assert result.lifted_to_mm > 40 and json.loads(result.result_json)["brick"] == loose
    phases = [f.feedback.phase for f in feedback]
    assert "arm_move" in phases and "gripper_close" in phases
    assert [f.feedback.phase_index for f in feedback] == list(range(1, len(feedback) + 1))
    assert truth(loaded)["held"] == "a00"
    # While the skill ran, the arm's joint states streamed: joint 1 moved.
    loaded.node.destroy_subscription(sub)
    j1 = [s.position[0] for s in states]
    assert len(states) > 20 and max(j1) - min(j1) > 0.01

    # A typed error: the gripper is full.
    ok, again = loaded.goal(Pick, f"{loaded.ns}/skills/pick", Pick.Goal(brick=support))
    assert ok and again.status.code == SkillStatus.ALREADY_HOLDING and again.status.kind == "already_holding"
    assert "already holds" in again.status.message

    ok, placed = loaded.goal(PlaceOn, f"{loaded.ns}/skills/place_on",
                             PlaceOn.Goal(support=support, stud_x=0, stud_y=0, rotation=0))
    assert ok and placed.status.code == SkillStatus.OK, placed.status.message
    assert placed.seated and placed.error_mm < 1.0 and placed.brick.startswith("p")
    after = truth(loaded)
    assert "s001" in after["bricks"]["a00"]["connected_to"] and after["held"] == ""


def test_follow_joint_trajectory_ends_on_the_last_point(loaded: Client) -> None:
    from builtin_interfaces.msg import Duration
    from control_msgs.action import FollowJointTrajectory
    from sensor_msgs.msg import JointState
    from trajectory_msgs.msg import JointTrajectoryPoint

    now = loaded.collect(JointState, "/joint_states", 0.3)[-1]
    q0 = np.array(now.position[:7])
    target = q0 + np.array([0.25, -0.1, 0.0, 0.15, 0.0, 0.1, -0.2])
    goal = FollowJointTrajectory.Goal()
    # Joint order scrambled on purpose: the controller maps by name.
    order = [3, 0, 6, 1, 5, 2, 4]
    goal.trajectory.joint_names = [ARM[i] for i in order]
    for k, frac in ((1, 0.5), (2, 1.0)):
        p = JointTrajectoryPoint()
        p.positions = [float((q0 + frac * (target - q0))[i]) for i in order]
        p.time_from_start = Duration(sec=k, nanosec=0)
        goal.trajectory.points.append(p)
    ok, result = loaded.goal(FollowJointTrajectory, "/panda_arm_controller/follow_joint_trajectory", goal)
    assert ok and result.error_code == FollowJointTrajectory.Result.SUCCESSFUL, result.error_string
    final = np.array(loaded.collect(JointState, "/joint_states", 0.3)[-1].position[:7])
    assert float(np.max(np.abs(final - target))) < 0.01


def test_follow_joint_trajectory_rejects_wrong_joint_names(loaded: Client) -> None:
    from control_msgs.action import FollowJointTrajectory
    from trajectory_msgs.msg import JointTrajectoryPoint

    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = [*ARM[:6], "elbow_joint"]
    p = JointTrajectoryPoint()
    p.positions = [0.0] * 7
    p.time_from_start.sec = 1
    goal.trajectory.points.append(p)
    ok, _ = loaded.goal(FollowJointTrajectory, "/panda_arm_controller/follow_joint_trajectory", goal)
    assert not ok  # rejected before execution, like joint_trajectory_controller


def test_gripper_command_opens_to_the_commanded_width(loaded: Client) -> None:
    from control_msgs.action import GripperCommand

    goal = GripperCommand.Goal()
    goal.command.position, goal.command.max_effort = 0.03, 0.0
    ok, result = loaded.goal(GripperCommand, "/panda_hand_controller/gripper_cmd", goal)
    assert ok and result.reached_goal and result.position == pytest.approx(0.03, abs=0.002)
