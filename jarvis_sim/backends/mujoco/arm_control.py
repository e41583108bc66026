"""Arm kinematics on a Panda-only model: damped-least-squares IK and a Cartesian tracking controller.

The scene model carries hundreds of brick degrees of freedom; Jacobians on a separate 9-dof model of
the arm alone cost microseconds instead. A Cartesian target is tracked by moving a set-point toward it
at bounded speed (straight lines in space) and taking one IK iteration per control tick from the
previous joint command, so the position servos receive smooth joint targets.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from jarvis_sim.backends.mujoco.panda import HOME_Q, Q_LOWER, Q_UPPER, TCP_SITE, arm_spec
from jarvis_sim.quaternions import slerp

_LIMIT_MARGIN = 0.02  # rad kept from the joint stops


class ArmKinematics:
    """Forward kinematics and IK of the Panda's tool-centre-point site."""

    def __init__(self) -> None:
        self.model = arm_spec().compile()
        self.data = mujoco.MjData(self.model)
        self.site = self.model.site(TCP_SITE).id
        self._jp = np.zeros((3, self.model.nv))
        self._jr = np.zeros((3, self.model.nv))
        # Buffers of ik_step, which runs twice every control tick: filled in place, they hold the very numbers
        # np.vstack / np.concatenate / np.eye would allocate anew each call.
        self._jac = np.zeros((6, 7))
        self._err = np.zeros(6)
        self._regulariser: dict[float, np.ndarray] = {}
        # Views of the TCP site's pose in MjData (mj_kinematics fills them in place) and the rotation error's buffers:
        # MjData's attributes and np.zeros each cost an allocation, which the per-tick IK would pay a dozen times.
        self._qpos = self.data.qpos[:7]
        self._tcp_pos = self.data.site_xpos[self.site]
        self._tcp_mat = self.data.site_xmat[self.site]
        self._tcp_quat = np.zeros(4)
        self._rot_local = np.zeros(3)
        self._rot_mat = np.zeros(9)
        self._rot_mat33 = self._rot_mat.reshape(3, 3)  # a view: mju_quat2Mat fills _rot_mat
        self.lower = Q_LOWER + _LIMIT_MARGIN
        self.upper = Q_UPPER - _LIMIT_MARGIN

    def _pose_at(self, q: np.ndarray) -> None:
        """Forward kinematics: the TCP's pose for arm joints q into _tcp_pos and _tcp_quat."""
        self._qpos[:] = q
        mujoco.mj_kinematics(self.model, self.data)
        mujoco.mju_mat2Quat(self._tcp_quat, self._tcp_mat)

    def fk(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """TCP position and quaternion (wxyz) in the robot base frame for arm joints q."""
        self._pose_at(q)
        return self._tcp_pos.copy(), self._tcp_quat.copy()

    def rotation_error(self, target: np.ndarray, current: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Rotation vector (world frame) taking `current` to `target` (both wxyz), into `out` (3,).

        Computed in `current`'s frame by mju_subQuat and turned to the world frame; the buffers are preallocated, as
        this runs three times every control tick."""
        mujoco.mju_subQuat(self._rot_local, target, current)
        mujoco.mju_quat2Mat(self._rot_mat, current)
        return np.matmul(self._rot_mat33, self._rot_local, out=out)

    def ik_step(self, q: np.ndarray, pos: np.ndarray, quat: np.ndarray, damping: float = 1e-3,
                null_gain: float = 0.05) -> tuple[np.ndarray, float, float]:
        """One damped-least-squares step toward the pose; returns (q_new, position error m, angle error rad)."""
        q_new = self.ik_update(q, pos, quat, damping, null_gain)
        return q_new, _norm(self._err[:3]), _norm(self._err[3:])

    def ik_update(self, q: np.ndarray, pos: np.ndarray, quat: np.ndarray, damping: float = 1e-3,
                  null_gain: float = 0.05) -> np.ndarray:
        """ik_step's new joint angles alone (the per-tick controller reads no error)."""
        self._pose_at(q)
        mujoco.mj_comPos(self.model, self.data)  # the Jacobian reads cdof, computed here
        mujoco.mj_jacSite(self.model, self.data, self._jp, self._jr, self.site)
        jac, err = self._jac, self._err
        jac[:3] = self._jp[:, :7]
        jac[3:] = self._jr[:, :7]
        np.subtract(pos, self._tcp_pos, out=err[:3])
        self.rotation_error(quat, self._tcp_quat, err[3:])
        regulariser = self._regulariser.get(damping)
        if regulariser is None:
            regulariser = self._regulariser.setdefault(damping, damping**2 * np.eye(6))
        pinv = jac.T @ np.linalg.inv(jac @ jac.T + regulariser)
        # Pull toward home in the null space so the elbow stays up and away from the table.
        pull = null_gain * (HOME_Q - q)
        dq = pinv @ (err - jac @ pull) + pull
        return np.minimum(np.maximum(q + dq, self.lower), self.upper)  # np.clip, without its wrapper's cost

    def solve(self, pos: np.ndarray, quat: np.ndarray, q0: np.ndarray | None = None, max_iter: int = 300,
              tol_pos: float = 1e-4, tol_rot: float = 1e-3) -> np.ndarray | None:
        """Joint angles putting the TCP at the pose (base frame), or None when no solution within limits."""
        starts = [HOME_Q.copy()] if q0 is None else [np.asarray(q0, dtype=float).copy(), HOME_Q.copy()]
        for q in starts:
            for _ in range(max_iter):
                q, ep, er = self.ik_step(q, pos, quat, damping=1e-2, null_gain=0.0)
                if ep < tol_pos and er < tol_rot:
                    return q
        return None


class CartesianController:
    """Tracks a TCP target with bounded speed by turning it into joint targets, one IK step per tick."""

    def __init__(self, kin: ArmKinematics, max_speed_m_s: float = 0.25, max_rot_rad_s: float = 1.5) -> None:
        self.kin = kin
        self.max_speed = max_speed_m_s
        self.max_rot = max_rot_rad_s
        self.target: tuple[np.ndarray, np.ndarray] | None = None
        self.setpoint: tuple[np.ndarray, np.ndarray] | None = None
        self._turn = np.zeros(3)  # the set-point's rotation left to the target (tick)

    def set_target(self, pos: np.ndarray, quat: np.ndarray, q_cmd: np.ndarray) -> None:
        """Start tracking a new target from where the current joint command puts the TCP."""
        quat = np.asarray(quat, dtype=float)
        self.target = (np.asarray(pos, dtype=float).copy(), quat / np.linalg.norm(quat))
        if self.setpoint is None:
            self.setpoint = self.kin.fk(q_cmd)

    def clear(self) -> None:
        """Stop tracking (joint commands take over)."""
        self.target = None
        self.setpoint = None

    def tick(self, q_cmd: np.ndarray, dt: float) -> np.ndarray:
        """The next joint command: advance the set-point toward the target and take one IK step."""
        if self.target is None or self.setpoint is None:
            return q_cmd
        (tp, tq), (sp, sq) = self.target, self.setpoint
        delta = tp - sp
        dist = _norm(delta)
        step = self.max_speed * dt
        sp = tp.copy() if dist <= step else sp + delta * (step / dist)
        angle = _norm(self.kin.rotation_error(tq, sq, self._turn))
        rstep = self.max_rot * dt
        sq = tq.copy() if angle <= rstep else slerp(sq, tq, rstep / angle)
        self.setpoint = (sp, sq)
        q = q_cmd
        for _ in range(2):
            q = self.kin.ik_update(q, sp, sq)
        return q

    def arrived(self) -> bool:
        """True when the set-point has reached the target."""
        if self.target is None or self.setpoint is None:
            return True
        return _allclose(self.target[0], self.setpoint[0]) and _allclose(self.target[1], self.setpoint[1])


# The Panda's joint limits from Franka's datasheet ("Robot and interface specifications", FCI documentation):
# velocity, acceleration and jerk per joint.
JOINT_VELOCITY_MAX = np.array([2.1750, 2.1750, 2.1750, 2.1750, 2.6100, 2.6100, 2.6100])  # rad/s
JOINT_ACCELERATION_MAX = np.array([15.0, 7.5, 10.0, 12.5, 15.0, 20.0, 20.0])  # rad/s^2
JOINT_JERK_MAX = np.array([7500.0, 3750.0, 5000.0, 6250.0, 7500.0, 10000.0, 10000.0])  # rad/s^3


class JointLimiter:
    """Turns joint targets into a command trajectory within the Panda's velocity, acceleration and jerk limits.

    Each control tick the command moves toward the target as fast as the limits allow, braking early enough
    to stop on it (|v| <= sqrt(2 a_max |error|)); a real Panda rejects commands that break these limits.
    """

    def __init__(self, q: np.ndarray, scale: float = 0.9) -> None:
        self.v_max = JOINT_VELOCITY_MAX * scale  # a margin below the hard limits, as Franka advises
        self.a_max = JOINT_ACCELERATION_MAX * scale
        self.j_max = JOINT_JERK_MAX * scale
        self.reset(q)

    def reset(self, q: np.ndarray) -> None:
        """Stand still at q."""
        self.q = np.asarray(q, dtype=float).copy()
        self.v = np.zeros(7)
        self.a = np.zeros(7)

    def tick(self, target: np.ndarray, dt: float) -> np.ndarray:
        """The next command toward `target` after dt seconds.

        Every limit scales all joints by one factor, so the command keeps its direction in joint space: limiting
        joints one by one would bend a straight Cartesian line (measured: a lift from the table first pushed a held
        brick into it, as the slow shoulder lagged the others).
        """
        target = np.asarray(target, dtype=float)
        err = target - self.q
        # Slow enough to stop on the target braking at half the limit (the common scale below may brake less).
        v_lim = np.minimum(self.v_max, np.sqrt(self.a_max * np.abs(err)))
        # (A scale of exactly 1 is skipped rather than multiplied by: the same numbers, fewer numpy calls per tick.)
        v_des = err / dt
        scale = _common_scale(v_des, v_lim)
        if scale != 1.0:
            v_des *= scale
        dv = v_des - self.v
        a = dv / dt
        scale = _common_scale(a, self.a_max)
        if scale != 1.0:
            a *= scale
        jerk = a - self.a
        scale = _common_scale(jerk, self.j_max * dt)
        a = self.a + (jerk if scale == 1.0 else jerk * scale)
        self.a = a
        self.v = self.v + a * dt
        q = self.q + self.v * dt
        # Never pass the target: a joint that would cross it stops on it (the last, slow step of a braking).
        crossed = np.sign(target - q) * np.sign(err) < 0
        if crossed.any():
            q[crossed] = target[crossed]
            self.v[crossed] = 0.0
        self.q = q
        return self.q.copy()


def _norm(v: np.ndarray) -> float:
    """np.linalg.norm of a vector, computed as it does (sqrt of v.v) without its wrapper's cost (per-tick code)."""
    return math.sqrt(float(v.dot(v)))


def _allclose(a: np.ndarray, b: np.ndarray) -> bool:
    """np.allclose(a, b) with its default tolerances, for finite vectors, without its wrapper's cost."""
    return bool((np.abs(a - b) <= 1e-8 + 1e-5 * np.abs(b)).all())


def _common_scale(v: np.ndarray, limit: np.ndarray) -> float:
    """The largest factor in [0, 1] that brings every |v_i| within limit_i."""
    over = np.abs(v) > limit
    if not over.any():
        return 1.0
    return float((limit[over] / np.abs(v[over])).min())
