"""The ros2_control-style controllers MoveIt's Panda configuration executes through, served by the bridge:
`panda_arm_controller/follow_joint_trajectory` and `panda_hand_controller/gripper_cmd` (control_msgs)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from jarvis_sim.backends.base import Backend
from skills.context import SkillContext
from skills.motion import SETTLE_MAX_S
from skills.ros.trajectory import PANDA_ARM_JOINTS, TrajectoryRejected, order_goal

GRIPPER_DEFAULT_FORCE_N = 5.0


class ControllerActions:
    """The controllers' goal checks and executions; the bridge node (skills.ros.bridge) is one."""

    backend: Backend
    ctx: SkillContext | None
    node: Any  # rclpy Node
    _goal_response: Any  # rclpy.action.GoalResponse
    _FJT: Any  # control_msgs.action.FollowJointTrajectory

    def _scene_loaded(self, goal_request: Any) -> Any:
        if self.ctx is None:
            self.node.get_logger().warning("controller goal rejected: no task is loaded")
            return self._goal_response.REJECT
        return self._goal_response.ACCEPT

    def _check_trajectory(self, goal_request: Any) -> Any:
        if self.ctx is None:
            return self._scene_loaded(goal_request)
        try:
            self._trajectory(goal_request)
        except TrajectoryRejected as exc:
            self.node.get_logger().warning(f"follow_joint_trajectory goal rejected: {exc}")
            return self._goal_response.REJECT
        return self._goal_response.ACCEPT

    @staticmethod
    def _trajectory(goal: Any) -> Any:
        jt = goal.trajectory
        points = [(p.time_from_start.sec + p.time_from_start.nanosec * 1e-9, list(p.positions)) for p in jt.points]
        return order_goal(list(jt.joint_names), points)

    def _follow_joint_trajectory(self, goal_handle: Any) -> Any:
        result = self._FJT.Result()
        try:
            traj = self._trajectory(goal_handle.request)
        except TrajectoryRejected as exc:  # accepted goals were checked; kept for a goal sent around the check
            result.error_code, result.error_string = exc.code, str(exc)
            goal_handle.abort()
            return result
        b = self.backend
        start = b.robot_state().joint_positions.copy()
        steps = max(1, math.ceil(traj.duration / b.control_dt))
        fb = self._FJT.Feedback()
        fb.joint_names = list(PANDA_ARM_JOINTS)
        for k in range(1, steps + 1):
            q = traj.sample(k * b.control_dt, start)
            b.set_joint_targets(q)
            b.step(1)
            if k % 10 == 0 or k == steps:
                fb.desired.positions = [float(v) for v in q]
                fb.actual.positions = [float(v) for v in b.robot_state().joint_positions]
                goal_handle.publish_feedback(fb)
        final = traj.positions[-1]
        tolerance = self._goal_tolerance(goal_handle.request)
        for _ in range(math.ceil(SETTLE_MAX_S / b.control_dt)):  # the built-in planner's settle time
            if float(np.max(np.abs(b.robot_state().joint_positions - final))) < tolerance:
                break
            b.step(1)
        err = float(np.max(np.abs(b.robot_state().joint_positions - final)))
        if err < tolerance:
            result.error_code = self._FJT.Result.SUCCESSFUL
            goal_handle.succeed()
        else:
            result.error_code = self._FJT.Result.GOAL_TOLERANCE_VIOLATED
            result.error_string = f"a joint ended {err:.4f} rad from the last point (tolerance {tolerance} rad)"
            goal_handle.abort()
        return result

    @staticmethod
    def _goal_tolerance(goal: Any) -> float:
        tols = [t.position for t in goal.goal_tolerance if t.position > 0]
        return float(min(tols)) if tols else 0.01

    def _gripper_command(self, goal_handle: Any) -> Any:
        from control_msgs.action import GripperCommand

        # MoveIt's Panda hand controller commands the finger joint position (each finger, 0 to 0.04 m).
        cmd = goal_handle.request.command
        b = self.backend
        target_width = 2.0 * float(cmd.position)
        current = b.robot_state().gripper_width
        closing = target_width < current - 0.001
        force = float(cmd.max_effort) if cmd.max_effort > 0 else GRIPPER_DEFAULT_FORCE_N
        try:
            if closing:
                b.set_gripper(closed=True, force_n=force)
            else:
                b.set_gripper(closed=False, width_m=target_width)
        except Exception as exc:
            goal_handle.abort()
            self.node.get_logger().warning(f"gripper_cmd rejected: {exc}")
            return GripperCommand.Result(position=current / 2)
        last, still = current, 0
        for _ in range(math.ceil(3.0 / b.control_dt)):
            b.step(1)
            w = b.robot_state().gripper_width
            still = still + 1 if abs(w - last) < 2e-5 else 0
            last = w
            if still * b.control_dt > 0.05:
                break
        reached = abs(last - target_width) < 0.002
        result = GripperCommand.Result(position=last / 2, effort=force if closing else 0.0,
                                       stalled=closing and not reached, reached_goal=reached)
        goal_handle.succeed()
        return result
