"""Panda kinematics in numpy: the same TCP as the MuJoCo model, a correct Jacobian, IK within the limits."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_sim.backends.isaac import kinematics as k
from jarvis_sim.backends.mujoco.backend import MujocoBackend

TOP_DOWN = np.array([0.0, 1.0, 0.0, 0.0])


def _random_q(rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(k.PANDA_LOWER * 0.7, k.PANDA_UPPER * 0.7)


def test_the_tcp_is_the_mujoco_models_tcp(mujoco: MujocoBackend) -> None:
    rng = np.random.default_rng(7)
    mujoco.reset(0)
    for _ in range(6):
        q = _random_q(rng)
        q[3] = min(q[3], -0.3)
        mujoco.set_joint_targets(q)
        mujoco.step(250)
        s = mujoco.robot_state()
        pose = k.tcp_pose(s.joint_positions)
        assert np.linalg.norm(pose[:3, 3] - s.ee_position) < 5e-4
        assert abs(float(np.dot(k.matrix_to_quat(pose[:3, :3]), s.ee_quaternion))) > 1 - 1e-6


def test_the_jacobian_matches_finite_differences() -> None:
    rng = np.random.default_rng(1)
    q = _random_q(rng)
    jac = k.jacobian(q)
    h = 1e-6
    for i in range(7):
        dq = np.zeros(7)
        dq[i] = h
        a, b = k.tcp_pose(q + dq), k.tcp_pose(q - dq)
        assert np.allclose((a[:3, 3] - b[:3, 3]) / (2 * h), jac[:3, i], atol=1e-6)
        rot = a[:3, :3] @ b[:3, :3].T
        omega = np.array([rot[2, 1] - rot[1, 2], rot[0, 2] - rot[2, 0], rot[1, 0] - rot[0, 1]]) / 2 / (2 * h)
        assert np.allclose(omega, jac[3:, i], atol=1e-5)


@pytest.mark.parametrize("target", [(0.45, 0.05, 0.25), (0.35, -0.25, 0.05), (0.6, 0.3, 0.15)])
def test_ik_reaches_table_poses_within_the_limits(target: tuple[float, float, float]) -> None:
    q = k.solve_ik(np.array(target), TOP_DOWN)
    assert q is not None
    assert np.all(q >= k.PANDA_LOWER) and np.all(q <= k.PANDA_UPPER)
    pose = k.tcp_pose(q)
    assert np.linalg.norm(pose[:3, 3] - target) < 5e-4
    assert abs(float(np.dot(k.matrix_to_quat(pose[:3, :3]), TOP_DOWN))) > np.cos(0.005)


def test_ik_says_none_out_of_reach_and_a_step_reduces_the_error() -> None:
    assert k.solve_ik(np.array([1.5, 0.0, 0.3]), TOP_DOWN) is None
    target = np.array([0.45, 0.1, 0.2])
    q = k.PANDA_HOME.copy()
    before = np.linalg.norm(k.tcp_pose(q)[:3, 3] - target)
    after = np.linalg.norm(k.tcp_pose(k.ik_step(q, target, TOP_DOWN))[:3, 3] - target)
    assert after < 0.5 * before


def test_quaternion_conversions_round_trip() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        back = k.matrix_to_quat(k.quat_to_matrix(q))
        assert abs(float(np.dot(back, q))) == pytest.approx(1.0, abs=1e-9) and back[0] >= 0


def test_quaternion_helpers_agree_with_mujocos_own() -> None:
    """scipy's Rotation does the quaternion work (kinematics, the clutch's yaw and tilt, the motor env's command);
    MuJoCo's mju_* functions, an independent implementation, are the reference."""
    import math

    import mujoco

    from jarvis_sim.backends.isaac.clutch import _tilt, _yaw
    from jarvis_sim.env import _DOWN, _turned

    rng = np.random.default_rng(3)
    for _ in range(200):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        mat = np.zeros(9)
        mujoco.mju_quat2Mat(mat, q)
        assert np.allclose(k.quat_to_matrix(q), mat.reshape(3, 3), atol=1e-12)
        back = np.zeros(4)
        mujoco.mju_mat2Quat(back, mat)
        got = k.matrix_to_quat(mat.reshape(3, 3))
        assert got[0] >= 0 and np.allclose(got, back if back[0] >= 0 else -back, atol=1e-12)
        r = mat.reshape(3, 3)
        assert math.isclose(_yaw(q), math.atan2(r[1, 0], r[0, 0]), abs_tol=1e-9) or abs(r[2, 0]) > 1 - 1e-9
        assert math.isclose(_tilt(q), math.acos(np.clip(r[2, 2], -1, 1)), abs_tol=1e-9)
        rotvec = rng.normal(size=3)
        spin = np.zeros(4)
        mujoco.mju_axisAngle2Quat(spin, rotvec / np.linalg.norm(rotvec), float(np.linalg.norm(rotvec)))
        want = np.zeros(4)
        mujoco.mju_mulQuat(want, _DOWN, spin)
        got = _turned(_DOWN, rotvec)
        assert np.allclose(got, want, atol=1e-12) or np.allclose(got, -want, atol=1e-12)
    half = np.diag([1.0, -1.0, -1.0])  # a half turn about x: the error is a rotation vector of length pi
    assert np.allclose(np.abs(k.orientation_error(np.eye(3), half)), [math.pi, 0, 0], atol=1e-9)
